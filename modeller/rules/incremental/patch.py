"""Patch the previous analysis' context and design after a small edit, instead of rebuilding them.

The GUI edits one object at a time: it replaces that entity, relationship
or query with a new object (``model_copy``) and keeps every other object.
When the lists keep their length, every replaced object keeps its id (and
its ends, for a relationship) and no unit of collections has to be
regrouped, the previous :class:`~modeller.rules.physical.facts.Context`,
:class:`~modeller.rules.physical.resolver.Resolution` and design are updated in
place for the replaced objects and the units that read them, so the work
is proportional to the edit, not to the model. Anything else returns None
and the caller runs the identity-cached analysis over the whole model.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from modeller.model.paths import all_fields, iter_paths
from modeller.model.project import Project, Query, Relationship
from modeller.rules.incremental.regroup import (
    embedded_in_of,
    place_collections,
    placements_of,
    regroup,
    regroupable,
)
from modeller.rules.physical.design import CollectionDesign, Design, Placement, RelationshipDesign
from modeller.rules.physical.documents import embeds, make_bucket
from modeller.rules.physical.facts import Context, ContextCache, RelFacts, refacts
from modeller.rules.physical.naming import collection_name
from modeller.rules.physical.planner import query_rel_ids, replan
from modeller.rules.physical.plans import RelPlan, _would_cycle, finish_plan, first_plan
from modeller.rules.physical.resolver import (
    Resolution,
    ResolveCache,
    UnitResult,
    file_unit,
    relationship_design,
    resolve_unit,
    unfile_unit,
    unit_companions,
    unit_key,
)
from modeller.rules.physical.shardkey import ShardAdvice, advise_shards
from modeller.rules.physical.strategy import Deciders

#: above this many replaced objects the whole-model pass is as quick
MAX_EDITS = 16
#: strategies that decide which collection an entity's documents live in
GROUPING = frozenset({"embed", "bucket", "single-collection"})


@dataclass(slots=True)
class Previous:
    """The last analysis' context and design, with the indexes a patch needs."""

    ctx: Context
    design: Design
    res: Resolution
    #: entity id -> index of its unit in ``res.units``
    unit_index: dict[str, int]
    #: per unit: positions of its collections in ``design.collections``
    coll_pos: list[list[int]]
    #: relationship id -> position in ``ctx.rels`` and ``design.relationships``
    rel_pos: dict[str, int]
    #: id(query) -> position in ``ctx.queries``
    query_pos: dict[int, int]
    #: every entity id, relationship id and query id is unique and every reference resolves
    simple: bool
    #: the design's collections by name and relationship designs by id (what ``RuleView`` looks up)
    coll_by_name: dict[str, CollectionDesign]
    rel_design_by_id: dict[str, RelationshipDesign]
    #: per query (position in ``ctx.queries``): the relationships its plan reads (``planner.query_rel_ids``)
    query_rels: list[tuple[str, ...]] = field(default_factory=list)
    #: relationship id -> positions of the queries whose plans read it
    queries_reading: dict[str, set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, ctx: Context, design: Design, res: Resolution) -> Previous:
        project = ctx.project
        simple = (
            len(ctx.entities) == len(project.entities)
            and len(ctx.rels) == len(project.relationships)
            and len(ctx.queries) == len(project.queries)
            and len({q.id for q in ctx.queries}) == len(ctx.queries)
            and len(design.relationships) == len(ctx.rels)
        )
        unit_index: dict[str, int] = {}
        for i, (roots, embedded) in enumerate(res.units):
            for eid in itertools.chain(roots, embedded):
                unit_index[eid] = i
        where = {c.name: i for i, c in enumerate(design.collections)}
        coll_pos = [[where[c.name] for c in unit.collections] for unit in res.unit_results]
        rel_pos = {f.rel.id: i for i, f in enumerate(ctx.rels)}
        query_pos = {id(q): i for i, q in enumerate(ctx.queries)}
        simple = simple and len(where) == len(design.collections)
        coll_by_name = {c.name: c for c in design.collections}
        rel_design_by_id = {r.id: r for r in design.relationships}
        query_rels = [query_rel_ids(res, q) for q in ctx.queries]
        queries_reading: dict[str, set[int]] = {}
        for i, rel_ids in enumerate(query_rels):
            for rid in rel_ids:
                queries_reading.setdefault(rid, set()).add(i)
        return cls(
            ctx,
            design,
            res,
            unit_index,
            coll_pos,
            rel_pos,
            query_pos,
            simple,
            coll_by_name,
            rel_design_by_id,
            query_rels,
            queries_reading,
        )

    def reindex(self, collections: list[CollectionDesign]) -> None:
        """The unit and collection positions again, after a regroup changed the units and ``collections``."""
        unit_index = self.unit_index
        unit_index.clear()  # an entity a regroup left in no unit must not keep an old unit's position
        for i, (roots, embedded) in enumerate(self.res.units):
            for eid in itertools.chain(roots, embedded):
                unit_index[eid] = i
        where = {c.name: i for i, c in enumerate(collections)}
        self.coll_pos = [[where[c.name] for c in unit.collections] for unit in self.res.unit_results]
        self.simple = self.simple and len(where) == len(collections)


@dataclass(slots=True)
class Patched:
    """The patched analysis inputs and the subjects whose findings must be recomputed."""

    ctx: Context
    design: Design
    res: Resolution
    dirty_rels: list[tuple[int, RelFacts]] = field(default_factory=list)
    dirty_colls: list[tuple[int, CollectionDesign]] = field(default_factory=list)
    dirty_queries: list[tuple[int, Query]] = field(default_factory=list)
    #: relationships whose object was replaced (their ``decision`` may have changed)
    replaced_rels: list[tuple[Relationship, Relationship]] = field(default_factory=list)
    #: positions (in ``ctx.queries``) of the queries planned again: the others kept their plan objects
    replanned: list[int] = field(default_factory=list)
    #: positions of the entities the edit replaced (a patch keeps every entity in its place)
    replaced_ents: list[int] = field(default_factory=list)
    #: the id of a relationship the edit removed (the relationships after it moved up one place)
    removed_rel: str | None = None
    #: the patch regrouped collections (``incremental.regroup``), and the collections it took away
    regrouped: bool = False
    gone_colls: list[str] = field(default_factory=list)


def replaced(old: Sequence[Any], new: Sequence[Any]) -> list[int]:
    """Positions of ``new`` holding another object than ``old`` (lists of the same length)."""
    return list(itertools.compress(range(len(new)), map(operator.is_not, old, new)))


def patch(
    prev: Previous,
    last: Project,
    project: Project,
    ccache: ContextCache,
    rcache: ResolveCache,
    deciders: Deciders,
) -> Patched | None:
    """The analysis inputs of ``project`` derived from ``prev`` (the analysis of ``last``), or None for a big edit.

    Model objects are immutable, so the objects ``project`` shares with ``last``
    are unchanged and the replaced ones are found by identity alone.

    Replaced relationships are re-planned with the strategy rules' votes (``deciders``).

    ``prev`` is changed in place (its caches stay consistent either way, so a
    None answer only means the caller must run the whole-model pass).
    """
    if not prev.simple:
        return None
    ents, rels, queries = project.entities, project.relationships, project.queries
    old_ents, old_rels, old_queries = last.entities, last.relationships, last.queries
    if len(old_ents) != len(ents) or len(old_queries) > len(queries):
        return None
    gone = None
    if len(rels) == len(old_rels) - 1:  # one relationship removed (deleted, or an added one undone)
        at = next((j for j, r in enumerate(rels) if r is not old_rels[j]), len(rels))
        if not all(map(operator.is_, itertools.islice(old_rels, at + 1, None), itertools.islice(rels, at, None))):
            return None
        gone = prev.ctx.rel_by_id.get(old_rels[at].id)
        if gone is None or gone.rel is not old_rels[at] or not _removable(prev, gone):
            return None
        old_rels = rels  # (the others are the same objects in the same order)
    elif len(old_rels) > len(rels):
        return None
    ce, cr, cq = replaced(old_ents, ents), replaced(old_rels, rels), replaced(old_queries, queries)
    # queries and relationships added after the others (the GUI's "Add query" and a drawn relationship)
    added, added_rels = range(len(old_queries), len(queries)), range(len(old_rels), len(rels))
    if len(ce) + len(cr) + len(cq) + len(added) + len(added_rels) > MAX_EDITS:
        return None
    if added_rels and not _rels_fit(prev.ctx, rels[added_rels.start :]):
        return None
    for k in cq:
        if old_queries[k].id != queries[k].id or old_queries[k].entity != queries[k].entity:
            return None
    if added and not _fit(prev.ctx, old_queries, queries[added.start :]):
        return None
    for i in ce:
        old_e, new_e = old_ents[i], ents[i]
        if old_e.id != new_e.id or collection_name(old_e) != collection_name(new_e):
            return None
        if old_e.timeseries is not None or new_e.timeseries is not None:
            return None
    replaced_rels = []
    for j in cr:
        old_r, new_r = old_rels[j], rels[j]
        if old_r.id != new_r.id or old_r.one != new_r.one or old_r.many != new_r.many:
            return None
        old_d, new_d = old_r.decision, new_r.decision
        if (old_d is None) != (new_d is None) or (old_d is not None and new_d is not None and old_d.note != new_d.note):
            return None  # the decision's note overrides findings: the whole-model pass re-applies it
        replaced_rels.append((old_r, new_r))
    ctx, res = prev.ctx, prev.res
    gone_at = _remove_rel(prev, ccache, rcache, gone) if gone is not None else -1
    # ----- context: new entities, their paths, the facts of every relationship that reads them -----
    ctx.project = project
    stale: dict[str, None] = {}
    for i in ce:
        e = ents[i]
        ctx.entities[e.id] = e
        paths = dict(iter_paths(all_fields(e)))
        ctx.fields_of[e.id] = paths
        ccache.fields[e.id] = (e, paths)
        for f in ctx.rels_of_one[e.id]:
            stale[f.rel.id] = None
        for f in ctx.rels_of_many[e.id]:
            stale[f.rel.id] = None
    for j in cr:
        stale[rels[j].id] = None
    # the units reading a replaced query: its entity's, and those of the ends of the relationships it joins
    query_readers: dict[str, None] = {}
    swaps: list[tuple[Query | None, Query, int]] = [(old_queries[k], queries[k], k) for k in cq]
    swaps.extend((None, queries[k], k) for k in added)
    joined = _swap_queries(ctx, prev, swaps)
    for k in (*cq, *added):
        eid = queries[k].entity
        query_readers[eid] = None
        for f in (*ctx.rels_of_one[eid], *ctx.rels_of_many[eid]):
            stale[f.rel.id] = None  # their facts read the queries of both ends
    for rid in joined:
        joined_facts = ctx.rel_by_id.get(rid)
        if joined_facts is not None:
            query_readers[joined_facts.one_id] = None
            query_readers[joined_facts.many_id] = None
    new_facts: dict[str, RelFacts] = {}
    for rid in stale:
        pos = prev.rel_pos[rid]
        old_f = ctx.rels[pos]
        f, entry = refacts(ctx, rels[pos])
        ccache.facts[rid] = entry
        ctx.rels[pos] = f
        ctx.rel_by_id[rid] = f
        for group in (ctx.rels_of_one[f.one.id], ctx.rels_of_many[f.many.id]):
            group[group.index(old_f)] = f
        new_facts[rid] = f
    for pos in added_rels:  # after every other: each list keeps the project's order
        f, entry = refacts(ctx, rels[pos])
        rid = f.rel_id
        ccache.facts[rid] = entry
        ctx.rels.append(f)
        ctx.rel_by_id[rid] = f
        ctx.rels_of_one[f.one_id].append(f)
        ctx.rels_of_many[f.many_id].append(f)
        prev.rel_pos[rid] = pos
        new_facts[rid] = f
    # ----- plans: the same embed-cycle answers as long as no strategy that groups collections changes -----
    plans = res.plans
    changed_plans: dict[str, RelPlan] = {}
    #: relationships whose N moved into or out of the One's documents (``incremental.regroup``)
    regrouped: dict[str, None] = {}
    #: relationships chosen embedded or no longer: (facts, plan before the cycle check, the last plan)
    pending: dict[str, tuple[RelFacts, RelPlan, RelPlan]] = {}
    for rid, f in new_facts.items():
        if rid not in rcache.plans:  # an added relationship: one that does not group collections
            plan = first_plan(ctx, f, deciders)
            if plan.strategy == "embed":
                return None
            plan = finish_plan(ctx, plan, False)
            if plan.strategy in GROUPING or embeds(plan):
                return None
            rcache.plans[rid] = (f, plan.strategy, False, plan)
            changed_plans[rid] = plan
            continue
        _, chosen_old, cycle, old_plan = rcache.plans[rid]
        plan = first_plan(ctx, f, deciders)
        chosen = plan.strategy
        if chosen != chosen_old and "embed" in (chosen, chosen_old):
            # embedded or not: the embed-cycle answers of the others are worked out again below
            pending[rid] = (f, plan, old_plan)
            continue
        plan = finish_plan(ctx, plan, cycle if chosen == "embed" else False)
        if not _plan_kept_grouping(ctx, res, plans, old_plan, plan, regrouped):
            return None
        rcache.plans[rid] = (f, chosen, cycle if chosen == "embed" else False, plan)
        changed_plans[rid] = plan
    if pending and not _recheck_cycles(ctx, res, rcache, deciders, pending, changed_plans, regrouped):
        return None
    plans.update(changed_plans)
    for rid, plan in changed_plans.items():
        many = plan.facts.many
        if plan.strategy == "bucket" and _bucket_rel(ctx, plans, many.id) == rid:
            res.buckets[many.id] = make_bucket(ctx, many, plan)
    # ----- units that read a new entity or plan -----
    affected: dict[str, None] = dict.fromkeys(ents[i].id for i in ce)
    affected.update(query_readers)
    if gone is not None:  # the units of its ends, and those of the queries joining it
        affected[gone.one_id] = None
        affected[gone.many_id] = None
        for q in ctx.queries_joining.get(gone.rel_id, ()):
            affected[q.entity] = None
    for rid, plan in changed_plans.items():
        affected[plan.facts.one.id] = None
        affected[plan.facts.many.id] = None
        for q in ctx.queries_joining.get(rid, ()):
            affected[q.entity] = None
    design = prev.design
    collections = list(design.collections)
    embedded = dict(design.embedded)
    out = Patched(ctx, design, res, replaced_rels=replaced_rels, replaced_ents=ce)
    out.removed_rel = gone.rel_id if gone is not None else None
    touched_rels: dict[str, None] = dict.fromkeys(changed_plans)
    unit_of = res.unit_of
    if regrouped:
        collections, embedded = _regroup(prev, rcache, deciders, regrouped, collections, out, touched_rels)
    dirty_units = sorted({prev.unit_index[eid] for eid in affected if eid in prev.unit_index})
    for u in dirty_units:
        roots, members = res.units[u]
        key = unit_key(ctx, plans, roots, members, res.shared_with, res.buckets)
        old = res.unit_results[u]
        if len(old.key) == len(key) and all(map(operator.is_, old.key, key)):
            continue
        new = resolve_unit(
            ctx, plans, res.embedded_in, res.buckets, res.shared_with, roots, members, key, deciders.index_rules
        )
        if not _same_layout(old, new):
            rcache.units[roots[0]] = new
            return None
        rcache.units[roots[0]] = new
        res.unit_results[u] = new
        _swap_unit(res, old, new)
        for pos, coll in zip(prev.coll_pos[u], new.collections, strict=True):
            collections[pos] = coll
            prev.coll_by_name[coll.name] = coll
            out.dirty_colls.append((pos, coll))
        for _, eid, placement in new.placements:
            embedded[eid] = placement
        for eid in new.location:  # (``_swap_unit`` filed it as their unit)
            _touch_entity(ctx, prev, eid, touched_rels, out)
    # ----- relationship designs -----
    rel_designs: list[RelationshipDesign | None] = [*design.relationships]
    if gone is not None:
        del rel_designs[gone_at]
    # an added relationship's plan is new (``changed_plans``), so the touched loop fills its place
    rel_designs.extend([None] * len(added_rels))
    for rid in touched_rels:
        plan = plans[rid]
        rkey = (plan, unit_of.get(plan.facts.one_id), unit_of.get(plan.facts.many_id))
        cached = rcache.rel_designs.get(rid)
        if cached is not None and len(cached[0]) == 3 and all(map(operator.is_, cached[0], rkey)):
            continue
        entry = (rkey, relationship_design(ctx, res, plan))
        rcache.rel_designs[rid] = entry
        pos = prev.rel_pos[rid]
        rel_designs[pos] = prev.rel_design_by_id[rid] = entry[1]
        out.dirty_rels.append((pos, ctx.rels[pos]))
    filled = [d for d in rel_designs if d is not None]
    assert len(filled) == len(rel_designs), "an added relationship was not among the touched ones"
    # a relationship's findings also read the queries joining it (``engine._producer_key``)
    listed = {pos for pos, _ in out.dirty_rels}
    for rid in joined:
        reader = prev.rel_pos.get(rid)
        if reader is not None and reader not in listed:
            listed.add(reader)
            out.dirty_rels.append((reader, ctx.rels[reader]))
    out.dirty_queries.extend((k, queries[k]) for k in (*cq, *added))
    out.dirty_colls.sort(key=_first)
    out.dirty_rels.sort(key=_first)
    out.dirty_queries = sorted(dict(out.dirty_queries).items(), key=_first)
    out.design = prev.design = Design(
        design.database, collections, filled, embedded, companions=unit_companions(res.unit_results)
    )
    # the plans that can read another object: the queries of the re-resolved units and those reading a touched
    # relationship (its plan, design or an end's unit); the writes of the touched relationships
    replanned = {pos for pos, _ in out.dirty_queries}
    if gone is not None:
        replanned.update(prev.queries_reading.get(gone.rel_id, ()))
    for rid in touched_rels:
        replanned.update(prev.queries_reading.get(rid, ()))
    for pos in replanned:  # the resolver's joins of a re-resolved unit's queries may have changed
        rel_ids = query_rel_ids(res, ctx.queries[pos])
        if rel_ids != prev.query_rels[pos]:
            for rid in prev.query_rels[pos]:
                prev.queries_reading[rid].discard(pos)
            for rid in rel_ids:
                prev.queries_reading.setdefault(rid, set()).add(pos)
            prev.query_rels[pos] = rel_ids
    out.replanned = sorted(replanned)
    out.design.queries, out.design.writes = replan(
        ctx, out.design, res, rcache.planner, design.queries, out.replanned, touched_rels
    )
    if last.shards != project.shards:
        out.design.shard_advice = advise_shards(ctx, out.design, res)
    else:
        # the advice of a collection reads its collection, its root entity (the unit: placed in dirty_colls),
        # the relationships whose N it is (their facts and plans) and the plans of the queries reading it
        readers = [ents[i].id for i in ce]
        readers.extend(f.many.id for f in new_facts.values())
        if gone is not None:
            readers.append(gone.many_id)
        names = {coll.name for _, coll in out.dirty_colls}
        names.update(_coll_names(prev, readers))
        for i in replaced(design.queries, out.design.queries):
            names.add(design.queries[i].collection)
            names.add(out.design.queries[i].collection)
        names.update(plan.collection for plan in out.design.queries[len(design.queries) :])
        out.design.shard_advice = _advise_some(ctx, design, out.design, res, names)
    return out


def _plan_kept_grouping(
    ctx: Context,
    res: Resolution,
    plans: dict[str, RelPlan],
    old: RelPlan,
    new: RelPlan,
    regrouped: dict[str, None],
) -> bool:
    """False when ``new`` regroups collections in a way no patch follows; a plan whose N moves into or out of
    the One's documents is noted in ``regrouped`` (``incremental.regroup`` patches it)."""
    if new.strategy == old.strategy and embeds(new) == embeds(old):
        return True
    grouping = new.strategy in GROUPING or old.strategy in GROUPING or embeds(new) != embeds(old)
    if not grouping:
        return True
    if embeds(new) == embeds(old) or not regroupable(ctx, res, plans, old, new):
        return False  # e.g. into or out of a bucket or a single collection
    regrouped[new.facts.rel_id] = None
    return True


def _recheck_cycles(
    ctx: Context,
    res: Resolution,
    rcache: ResolveCache,
    deciders: Deciders,
    pending: dict[str, tuple[RelFacts, RelPlan, RelPlan]],
    changed: dict[str, RelPlan],
    regrouped: dict[str, None],
) -> bool:
    """Finish the ``pending`` plans (chosen embedded or no longer) with the embed-cycle answers
    ``plan_relationships`` gives in project order, and plan again any other relationship whose answer changed;
    False when one of them regroups collections in a way no patch follows."""
    embed_parent: dict[str, set[str]] = {}
    plans = res.plans
    for f in ctx.rels:
        rid = f.rel_id
        if rid in pending:
            facts, plan, old_plan = pending[rid]
            chosen, was_cycle = plan.strategy, False
        else:
            facts, chosen, was_cycle, old_plan = rcache.plans[rid]
            plan = None
        cycle = chosen == "embed" and _would_cycle(embed_parent, f.one_id, f.many_id)
        if plan is None and cycle != was_cycle:
            plan = first_plan(ctx, facts, deciders)
        if plan is not None:
            plan = finish_plan(ctx, plan, cycle)
            if not _plan_kept_grouping(ctx, res, plans, old_plan, plan, regrouped):
                return False
            rcache.plans[rid] = (facts, chosen, cycle, plan)
            changed[rid] = plan
        final = changed.get(rid) or plans[rid]
        if final.strategy == "embed":
            embed_parent.setdefault(f.many_id, set()).add(f.one_id)
    return True


def _regroup(
    prev: Previous,
    rcache: ResolveCache,
    deciders: Deciders,
    regrouped: dict[str, None],
    collections: list[CollectionDesign],
    out: Patched,
    touched_rels: dict[str, None],
) -> tuple[list[CollectionDesign], dict[str, Placement]]:
    """Group again the units around the ``regrouped`` relationships (their plans are in ``res.plans``): the
    design's collections and embedded map after it; the new units' collections, relationships and queries are
    noted dirty in ``out`` and ``touched_rels``, and ``prev``'s indexes follow."""
    ctx, res = prev.ctx, prev.res
    touched: dict[str, None] = {}
    for rid in regrouped:
        f = ctx.rel_by_id[rid]
        touched[f.one_id] = None
        touched[f.many_id] = None
        holders = embedded_in_of(ctx, res.plans, f.many_id)
        if holders:
            res.embedded_in[f.many_id] = holders
        else:
            res.embedded_in.pop(f.many_id, None)
    held = [eid for eid in touched if eid in prev.unit_index]  # (an entity embedded in a cycle has no unit)
    done = regroup(ctx, res, rcache, deciders.index_rules, prev.unit_index, prev.coll_by_name, held)
    order = ctx.entity_order
    collections = place_collections(collections, order, done.old, done.units)
    prev.reindex(collections)
    for name in done.gone_names:
        prev.coll_by_name.pop(name, None)
    out.regrouped = True
    out.gone_colls.extend(done.gone_names)
    for unit in done.units:
        for coll in unit.collections:
            prev.coll_by_name[coll.name] = coll
        for eid in unit.location:
            _touch_entity(ctx, prev, eid, touched_rels, out)
    where = {id(c): i for i, c in enumerate(collections)}
    for unit in done.units:
        out.dirty_colls.extend((where[id(c)], c) for c in unit.collections)
    return collections, placements_of(res.unit_results, order)


def _touch_entity(ctx: Context, prev: Previous, eid: str, touched_rels: dict[str, None], out: Patched) -> None:
    """An entity whose unit was resolved again: its relationships are designed again and its queries planned."""
    for f in ctx.rels_of_one[eid]:
        touched_rels[f.rel.id] = None
    for f in ctx.rels_of_many[eid]:
        touched_rels[f.rel.id] = None
    for q in ctx.queries_of[eid]:
        out.dirty_queries.append((prev.query_pos[id(q)], q))


def _removable(prev: Previous, facts: RelFacts) -> bool:
    """A relationship can be taken out of the last analysis: its plan groups no collections and neither end is
    a time series (one without a relationship is bucketed on its own)."""
    plan = prev.res.plans.get(facts.rel_id)
    if plan is None or plan.strategy in GROUPING or embeds(plan):
        return False
    return facts.one.timeseries is None and facts.many.timeseries is None


def _remove_rel(prev: Previous, ccache: ContextCache, rcache: ResolveCache, facts: RelFacts) -> int:
    """Take a removed relationship out of the context and the plans and return its place (the design keeps it:
    the last analysis handed that design out); the relationships after it move up one place. The queries joining it keep their (now dangling) join, as ``build_context`` lists them."""
    ctx, rid = prev.ctx, facts.rel_id
    at = prev.rel_pos[rid]
    del ctx.rels[at]
    del ctx.rel_by_id[rid]
    for group in (ctx.rels_of_one[facts.one_id], ctx.rels_of_many[facts.many_id]):
        del group[_position(group, facts)]
    ccache.facts.pop(rid, None)
    rcache.plans.pop(rid, None)
    rcache.rel_designs.pop(rid, None)
    rcache.planner.writes.pop(rid, None)
    del prev.res.plans[rid]
    del prev.rel_design_by_id[rid]
    prev.rel_pos = {f.rel_id: i for i, f in enumerate(ctx.rels)}
    return at


def _rels_fit(ctx: Context, new: Sequence[Relationship]) -> bool:
    """The ``new`` relationships added after the others can be patched in: each with an id of its own, between
    entities of the model, without a decision (its note overrides findings: the whole-model pass applies it) and
    without a time series end (a time series entity without a relationship is bucketed on its own)."""
    ids: set[str] = set()
    entities = ctx.entities
    for r in new:
        one, many = entities.get(r.one), entities.get(r.many)
        if r.id in ctx.rel_by_id or r.id in ids or one is None or many is None or r.decision is not None:
            return False
        if one.timeseries is not None or many.timeseries is not None:
            return False
        ids.add(r.id)
    return True


def _fit(ctx: Context, old: Sequence[Query], new: Sequence[Query]) -> bool:
    """The ``new`` queries added after ``old`` can be patched in: each on an entity of the model, with an id of
    its own, and ``old`` not empty (a project without queries indexes its references by convention)."""
    ids = {q.id for q in old}
    for q in new:
        if q.entity not in ctx.entities or q.id in ids:
            return False
        ids.add(q.id)
    return bool(old)


def _swap_queries(ctx: Context, prev: Previous, swaps: list[tuple[Query | None, Query, int]]) -> dict[str, None]:
    """Put each replaced query (old, new, its position) in the context's lists in place of the old one, and
    each added one (old None, after the others, in order) after them, as ``build_context`` lists them; returns
    the relationships the old or the new query joins."""
    joined: dict[str, None] = {}
    for old_q, new_q, k in swaps:
        own = ctx.queries_of[new_q.entity]
        if old_q is None:
            ctx.queries.append(new_q)
            own.append(new_q)
            prev.query_rels.append(())  # (the plan's relationships are read when it is planned)
        else:
            ctx.queries[k] = new_q
            own[_position(own, old_q)] = new_q
            del prev.query_pos[id(old_q)]
        prev.query_pos[id(new_q)] = k
        before = dict.fromkeys(old_q.joins if old_q is not None else ())
        after = dict.fromkeys(new_q.joins)
        for rid in before.keys() | after.keys():
            joined[rid] = None
            group = ctx.queries_joining.get(rid, [])
            if rid in before:
                del group[_position(group, old_q)]
            if rid in after:  # project order: the queries joining it listed before the new one's place
                query_pos = prev.query_pos
                at = sum(1 for q in group if query_pos[id(q)] < k)
                group.insert(at, new_q)
            if group:
                ctx.queries_joining[rid] = group
            else:
                ctx.queries_joining.pop(rid, None)
    return joined


def _position(items: list[Any], item: Any) -> int:
    """The place of ``item`` itself in ``items`` (by identity: another object may be equal to it)."""
    return next(i for i, x in enumerate(items) if x is item)


def _coll_names(prev: Previous, entity_ids: list[str]) -> set[str]:
    """The collections of the units holding ``entity_ids``."""
    collections = prev.design.collections
    units = {prev.unit_index[eid] for eid in entity_ids if eid in prev.unit_index}
    return {collections[pos].name for u in units for pos in prev.coll_pos[u]}


def _advise_some(
    ctx: Context, before: Design, after: Design, res: Resolution, names: set[str]
) -> dict[str, ShardAdvice]:
    """``advise_shards`` of ``after`` when only the collections ``names`` can read differently: their advice is
    worked out again, the others keep theirs (edit -> findings <= 200 ms at 10,000 entities: the whole-design
    advice took about a fifth of an incremental analysis)."""
    part = Design(after.database, [c for c in after.collections if c.name in names], [])
    part.queries = [plan for plan in after.queries if plan.collection in names]
    fresh = advise_shards(ctx, part, res)
    old = before.shard_advice
    out: dict[str, ShardAdvice] = {}
    for coll in after.collections:  # project order, as advise_shards makes it
        name = coll.name
        advice = fresh.get(name) if name in names else old.get(name)
        if advice is not None:
            out[name] = advice
    return out


def _bucket_rel(ctx: Context, plans: dict[str, RelPlan], many_id: str) -> str | None:
    """The relationship whose plan lays out the buckets of ``many_id`` (the first bucket one, as in resolve)."""
    for f in ctx.rels_of_many[many_id]:
        if plans[f.rel.id].strategy == "bucket":
            return f.rel.id
    return None


def _first(item: tuple[int, Any]) -> int:
    return item[0]


def _placed(unit: UnitResult) -> list[tuple[str, str]]:
    return [(trigger, eid) for trigger, eid, _ in unit.placements]


def _same_layout(old: UnitResult, new: UnitResult) -> bool:
    """Same collections, placements and entities: the new unit can take the old one's place (its query plans may
    differ: a query added or edited; ``_swap_unit`` replaces them, and the whole-design maps are only looked up)."""
    return (
        [c.name for c in old.collections] == [c.name for c in new.collections]
        and _placed(old) == _placed(new)
        and old.location.keys() == new.location.keys()
    )


def _swap_unit(res: Resolution, old: UnitResult, new: UnitResult) -> None:
    """Replace one unit's entries in the resolution's whole-design maps."""
    unfile_unit(res, old, new)
    file_unit(res, new)
    if old.dropped_prefixes or new.dropped_prefixes:
        dropped = res.dropped_prefixes
        if len(old.dropped_prefixes) == len(new.dropped_prefixes):
            start = operator.indexOf(dropped, old.dropped_prefixes[0])
            if dropped[start] is old.dropped_prefixes[0]:
                dropped[start : start + len(new.dropped_prefixes)] = new.dropped_prefixes
                return
        res.dropped_prefixes = [d for unit in res.unit_results for d in unit.dropped_prefixes]
