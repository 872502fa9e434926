"""Logical model -> physical design: collections, shapes, sizes, indexes, validators, copies.

Order of work: (1) a plan per relationship (strategy, who chose it, copies),
(2) which entities live embedded and where, (3) the document shape of each
collection with size estimates, (4) indexes (user's, reference fields,
unique, per-query ESR, TTL, bucket), redundant prefixes removed, (5) a
``$jsonSchema`` validator per collection, (6) the sync advice per copy.
"""

from __future__ import annotations

import operator
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial
from types import MappingProxyType
from typing import Any, Literal, cast

from modeller.model.labels import query_words, relationship_words
from modeller.model.project import Field, Query
from modeller.model.wording import duration, with_article
from modeller.rules.physical.companions import companions
from modeller.rules.physical.design import (
    CollectionDesign,
    DenormalizedCopy,
    Design,
    IndexDesign,
    IndexKey,
    Placement,
    RelationshipDesign,
    ShapeNode,
    SyncMethod,
    SyncUpdate,
    walk_shape,
)
from modeller.rules.physical.documents import (
    BucketPlan,
    Route,
    ShapeBuilder,
    embeds,
    make_bucket,
    outlier_bound_of,
    strategy_label,
    subset_synced,
)
from modeller.rules.physical.esr import EsrPlan, default_name, plan_query, serves
from modeller.rules.physical.facts import Context, RelFacts
from modeller.rules.physical.index_reasons import (
    ARCHIVE,
    ATTRIBUTE,
    BUCKET_SERIES,
    COMPOUND_QUERY,
    EXPIRY,
    LINK_ARRAY,
    LINKS,
    QUERY,
    REFERENCE,
    SYNC,
    TEXT_OR_GEO,
    TREE,
    UNIQUE,
)
from modeller.rules.physical.naming import collection_name, embed_field, keys_text, plural_label
from modeller.rules.physical.planner import PlanCache, plan_design
from modeller.rules.physical.plans import (
    CopyPlan,
    RelPlan,
    array_warning,
    bucket_entity_wanted,
    plan_relationships,
)
from modeller.rules.physical.reference_index import RefMemo, leading_index, reference_index_words
from modeller.rules.physical.scopes import esr_scope
from modeller.rules.physical.shardkey import advise_shards
from modeller.rules.physical.strategy import ONE_HOLDS_IDS, Deciders
from modeller.rules.physical.trees import PARENT_REFS, tree_model_of
from modeller.rules.physical.validators import collection_validator

PLAIN_KEYS = (1, -1)
#: the routes of an entity the design has none for (shared, never written: a lookup's default, not a new dict per call)
_NO_ROUTES: Mapping[str, Route] = MappingProxyType({})
ChosenBy = Literal["user", "engine"]


@dataclass(slots=True)
class Resolution:
    """What the resolver knows beyond the Design, for rules: plans, routes, locations, query plans."""

    plans: dict[str, RelPlan]
    builder: ShapeBuilder
    #: entity id -> (collection name, path prefix of its elements; "" for the collection's own documents)
    location: dict[str, tuple[str, str]] = field(default_factory=dict)
    query_plans: dict[str, EsrPlan] = field(default_factory=dict)
    #: query id -> (collection, index name) of the index serving it
    query_index: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: query id -> relationship ids it still has to join (no copy, not embedded)
    query_joins: dict[str, list[str]] = field(default_factory=dict)
    #: collection name -> dotted paths of array nodes (multikey)
    array_paths: dict[str, set[str]] = field(default_factory=dict)
    #: relationship id -> (one element, the whole array) bytes at most of the array its One keeps
    array_bytes: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: (collection, dropped engine index keys, kept index name)
    dropped_prefixes: list[tuple[str, list[tuple[str, Any]], str]] = field(default_factory=list)
    #: collection name -> its shape (for snippets that name generated fields)
    shapes: dict[str, list[ShapeNode]] = field(default_factory=dict)
    #: entity id -> the unit result holding its documents (identity changes when the unit was recomputed)
    unit_of: dict[str, object] = field(default_factory=dict)
    #: what the design was resolved from (kept so an incremental analysis can patch one unit)
    embedded_in: dict[str, list[str]] = field(default_factory=dict)
    buckets: dict[str, BucketPlan] = field(default_factory=dict)
    shared_with: dict[str, str] = field(default_factory=dict)
    #: the units (root ids, embedded ids) and their results, in the same order
    units: list[tuple[list[str], list[str]]] = field(default_factory=list)
    unit_results: list[UnitResult] = field(default_factory=list)
    #: index reason -> the rules behind it (``Deciders.index_rules``)
    index_rules: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def array_sizes(self, facts: RelFacts) -> tuple[int, int] | None:
        """(one element, the whole array) bytes at most of the array a relationship keeps in its One's documents
        (embedded N or their ids), as the shape sizes them: the one figure of that array (the document size adds it
        up, the warnings and findings quote it); None when the One holds no array of it."""
        return self.array_bytes.get(facts.rel_id)

    def rules_for(self, reason: str) -> list[str]:
        """The rule ids an index derived for ``reason`` lists (``physical.index_reasons``)."""
        return list(self.index_rules.get(reason, ()))

    def attribute_pair(self, entity_id: str, path: str) -> tuple[str, str] | None:
        """(array, key) when a logical field is stored as a ``{k, v}`` pair of an array (attribute pattern)."""
        route = self.builder.routes.get(entity_id, _NO_ROUTES).get(path)
        if route is None or route.key is None:
            return None
        prefix = self.location.get(entity_id, ("", ""))[1]
        array = route.path.rsplit(".", 1)[0]
        return (f"{prefix}.{array}" if prefix else array), route.key

    def attribute_k(self, entity_id: str, path: str) -> str | None:
        """The ``k`` path of a field stored as a ``{k, v}`` pair (None: an ordinary field)."""
        pair = self.attribute_pair(entity_id, path)
        return None if pair is None else f"{pair[0]}.k"

    def resolve_path(self, entity_id: str, path: str) -> str | None:
        """Physical path (relative to the collection document) of a logical path; None = needs a join."""
        rel = self._relative(entity_id, path, 0)
        if rel is None:
            return None
        prefix = self.location.get(entity_id, ("", ""))[1]
        return f"{prefix}.{rel}" if prefix else rel

    def join_rel(self, entity_id: str, path: str) -> str | None:
        """The relationship a logical path crosses without a copy (the join it needs)."""
        routes = self.builder.routes.get(entity_id, _NO_ROUTES)
        head, _, rest = path.partition(".")
        route = routes.get(head)
        if route is None:
            return None
        if route.only is not None:
            return None if rest in route.only or not rest else route.rel
        if route.entity is not None and rest:
            return self.join_rel(route.entity, rest)
        return None

    def _relative(self, entity_id: str, path: str, depth: int) -> str | None:
        if depth > 50:
            return None
        routes = self.builder.routes.get(entity_id, _NO_ROUTES)
        exact = routes.get(path)
        if exact is not None and exact.only is None and exact.entity is None:
            return exact.path
        head, dot, rest = path.partition(".")
        route: Route | None = routes.get(head) if dot else exact  # no dot: the head is the path just looked up
        if route is None:
            return path  # a nested declared field (specs.ram) or an unknown path: keep as written
        if not rest:
            return route.path
        if route.only is not None:
            mapped = route.only.get(rest)
            if mapped is None:
                return None
            return mapped
        if route.entity is not None:
            sub = self._relative(route.entity, rest, depth + 1)
            return None if sub is None else f"{route.path}.{sub}"
        return f"{route.path}.{rest}"


@dataclass(slots=True)
class UnitResult:
    """The resolved collections of one *unit*: collections that share embedded entities (usually one).

    Everything a unit computes depends only on its own entities, their
    relationships' plans and their queries, so an incremental analysis can
    reuse the whole result (the same objects) when those inputs are the same.
    """

    key: tuple[Any, ...]
    collections: list[CollectionDesign]
    #: (entity whose placement triggered the chain, entity id, placement), in placement order
    placements: list[tuple[str, str, Placement]]
    location: dict[str, tuple[str, str]]
    routes: dict[str, dict[str, Route]]
    copy_paths: dict[tuple[str, str, str], str]
    query_plans: dict[str, EsrPlan]
    query_index: dict[str, tuple[str, str]]
    query_joins: dict[str, list[str]]
    array_paths: dict[str, set[str]]
    dropped_prefixes: list[tuple[str, list[tuple[str, Any]], str]]
    #: revisions and archive collections beside this unit's own (``physical.companions``)
    companions: list[CollectionDesign] = field(default_factory=list)
    #: relationship id -> (one element, the whole array) bytes at most of the array it keeps (``array_sizes``)
    array_sizes: dict[str, tuple[int, int]] = field(default_factory=dict)


def unit_companions(results: list[UnitResult]) -> list[CollectionDesign]:
    """The companion collections of every unit, in unit order (what ``Design.companions`` holds)."""
    return [c for unit in results for c in unit.companions]


@dataclass(slots=True)
class ResolveCache:
    """What the resolver keeps between analyses of one project (see ``engine.Analyser``)."""

    plans: dict[str, Any] = field(default_factory=dict)
    #: first root entity id of a unit -> its result
    units: dict[str, UnitResult] = field(default_factory=dict)
    #: relationship id -> (key, design)
    rel_designs: dict[str, tuple[tuple[Any, ...], RelationshipDesign]] = field(default_factory=dict)
    #: the query planner's plans (``physical.planner``)
    planner: PlanCache = field(default_factory=PlanCache)


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Keys are tuples of objects compared by identity (equal content is not enough: objects may be mutated)."""
    return len(a) == len(b) and all(map(operator.is_, a, b))


def resolve(ctx: Context, deciders: Deciders, cache: ResolveCache | None = None) -> tuple[Design, Resolution]:
    """The design of ``ctx`` with the strategies the rules decide; with ``cache``, units whose inputs are the same
    objects are reused."""
    plans = plan_relationships(ctx, deciders, cache.plans if cache is not None else None)
    embedded_in: dict[str, list[str]] = {}
    buckets: dict[str, BucketPlan] = {}
    for plan in plans.values():
        many = plan.facts.many
        if embeds(plan):
            embedded_in.setdefault(many.id, []).append(plan.facts.rel_id)
        elif plan.strategy == "bucket" and many.id not in buckets:
            buckets[many.id] = make_bucket(ctx, many, plan)
    for eid, entity in ctx.entities.items():
        if eid not in buckets and entity.timeseries is not None and bucket_entity_wanted(ctx, entity):
            buckets[eid] = make_bucket(ctx, entity, None)
    # single collection pattern: the N's documents live in the One's collection, told apart by doc_type
    # (not an embedded N, nor a bucketed N or One: a bucket document holds many readings and has a shape of its own;
    # nor an entity with subtypes: its discriminator already tells its own variants apart, not the other entity)
    wanted: dict[str, str] = {}
    for plan in plans.values():
        facts = plan.facts
        if (
            plan.strategy == "single-collection"
            and not facts.self_ref
            and facts.many_id not in embedded_in
            and facts.many_id not in buckets
            and facts.one_id not in buckets
            and facts.one.subtypes is None
            and facts.many.subtypes is None
        ):
            wanted.setdefault(facts.many_id, facts.one_id)
    shared_with = _shared_hosts(wanted, embedded_in.keys() | buckets.keys())
    units = _units(ctx, plans, embedded_in, shared_with)
    builder = ShapeBuilder(ctx, plans, embedded_in, buckets)
    res = Resolution(
        plans,
        builder,
        embedded_in=embedded_in,
        buckets=buckets,
        shared_with=shared_with,
        units=units,
        index_rules=deciders.index_rules,
    )
    results: list[UnitResult] = res.unit_results
    old_units = cache.units if cache is not None else {}
    new_units: dict[str, UnitResult] = {}
    for roots, embedded_members in units:
        key = _unit_key(ctx, plans, roots, embedded_members, shared_with, buckets)
        old = old_units.get(roots[0])
        if old is None or not _same(old.key, key):
            old = _resolve_unit(
                ctx, plans, embedded_in, buckets, shared_with, roots, embedded_members, key, deciders.index_rules
            )
        new_units[roots[0]] = old
        results.append(old)
    if cache is not None:
        cache.units = new_units
    collections: list[CollectionDesign] = []
    placements: list[tuple[str, str, Placement]] = []
    unit_of = res.unit_of
    for unit in results:
        collections.extend(unit.collections)
        placements.extend(unit.placements)
        res.dropped_prefixes.extend(unit.dropped_prefixes)
        file_unit(res, unit)
    if len(results) > 1:
        collections.sort(key=lambda c: ctx.entity_order[c.entities[0]])
    if len(results) > 1:
        order = ctx.entity_order
        placements.sort(key=lambda p: order[p[0]])
    embedded = {eid: placement for _, eid, placement in placements}
    old_rels = cache.rel_designs if cache is not None else {}
    new_rels: dict[str, tuple[tuple[Any, ...], RelationshipDesign]] = {}
    rels: list[RelationshipDesign] = []
    memo: RefMemo = {}
    for rel_id, plan in plans.items():
        rkey = (plan, unit_of.get(plan.facts.one_id), unit_of.get(plan.facts.many_id))
        entry = old_rels.get(rel_id)
        if entry is None or not _same(entry[0], rkey):
            entry = (rkey, _relationship_design(ctx, res, plan, memo))
        new_rels[rel_id] = entry
        rels.append(entry[1])
    if cache is not None:
        cache.rel_designs = new_rels
    database = ctx.project.database or "test"
    design = Design(database, collections, rels, embedded, companions=unit_companions(results))
    design.queries, design.writes = plan_design(ctx, design, res, cache.planner if cache is not None else None)
    design.shard_advice = advise_shards(ctx, design, res)
    return design, res


def _shared_hosts(wanted: dict[str, str], rootless: Collection[str]) -> dict[str, str]:
    """Each entity that shares a collection -> the entity whose own collection holds it (and names it).

    A host that itself shares another's collection passes its guests on (A with B, B with C: all three in C's);
    a host with no documents of its own (embedded, or kept as bucket documents) and a ring of entities each
    sharing the next have no collection to offer: those entities keep collections of their own.
    """
    out: dict[str, str] = {}
    for many, host in wanted.items():
        chain = [many]
        while host in wanted and host not in chain:
            chain.append(host)
            host = wanted[host]
        if host not in chain and host not in rootless:
            out[many] = host
    return out


def _units(
    ctx: Context, plans: dict[str, RelPlan], embedded_in: dict[str, list[str]], shared_with: dict[str, str]
) -> list[tuple[list[str], list[str]]]:
    """Roots (entities with documents of their own) grouped by the collections they share.

    Collections are grouped when they hold the same embedded entity (its
    shape and routes are built in each of them) or have the same name.
    Returns (root ids in project order, embedded ids) per unit, in the order
    of their first root.
    """
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    name_of: dict[str, str] = {}
    for eid, entity in ctx.entities.items():
        if eid in embedded_in:
            continue
        host = shared_with.get(eid)
        name_of[eid] = "c:" + collection_name(ctx.entities[host] if host is not None else entity)
    tops: dict[str, set[str]] = {}
    embedded_where: dict[str, str] = {}
    for eid in embedded_in:
        names = sorted(_roots_above(eid, 0, plans, embedded_in, name_of, tops))
        for other in names[1:]:
            union(names[0], other)
        if names:
            embedded_where[eid] = names[0]
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for eid, name in name_of.items():
        groups.setdefault(find(name), ([], []))[0].append(eid)
    for eid in ctx.entities:
        where = embedded_where.get(eid)
        if where is not None:
            groups[find(where)][1].append(eid)
    return list(groups.values())


def _roots_above(
    eid: str,
    depth: int,
    plans: dict[str, RelPlan],
    embedded_in: dict[str, list[str]],
    name_of: dict[str, str],
    tops: dict[str, set[str]],
) -> set[str]:
    """Collection names of the roots ``eid`` is embedded under (``tops`` memoizes and guards embed cycles).

    A module function rather than a closure: a nested function that calls
    itself is a reference cycle, which keeps the whole analysis alive until
    the cyclic garbage collector runs.
    """
    if eid in name_of:
        return {name_of[eid]}
    if eid in tops:
        return tops[eid]
    tops[eid] = set()  # cycle guard
    found: set[str] = set()
    if depth <= len(embedded_in):
        for rel_id in embedded_in.get(eid, ()):
            found |= _roots_above(plans[rel_id].facts.one_id, depth + 1, plans, embedded_in, name_of, tops)
    tops[eid] = found
    return found


def _unit_key(
    ctx: Context,
    plans: dict[str, RelPlan],
    roots: list[str],
    embedded: list[str],
    shared_with: dict[str, str],
    buckets: dict[str, BucketPlan],
) -> tuple[Any, ...]:
    """Every object a unit reads: its entities, the plans of their relationships, their queries, and which
    collection each root shares (single collection) or whether it is bucketed: both can change with an edit
    elsewhere (a relationship that makes the other side bucketed keeps the pair apart)."""
    key: list[Any] = []
    append, extend = key.append, key.extend
    entities, rels_of_many, rels_of_one, queries_of = ctx.entities, ctx.rels_of_many, ctx.rels_of_one, ctx.queries_of
    joining = ctx.queries_joining
    append(bool(ctx.queries))  # a project without queries indexes its references by convention
    for group, eids in enumerate((roots, embedded)):
        if group:
            append(None)  # between the roots and the embedded entities
        for eid in eids:
            append(entities[eid])
            append(shared_with.get(eid))
            append(eid in buckets)
            extend([plans[facts.rel_id] for facts in rels_of_many[eid]])
            append(None)
            extend([plans[facts.rel_id] for facts in rels_of_one[eid]])
            append(None)
            for facts in (*rels_of_many[eid], *rels_of_one[eid]):  # whether a join reads through its references
                extend(joining.get(facts.rel_id, ()))
            append(None)
            for q in queries_of[eid]:
                append(q)
                if q.joins:
                    extend([plans.get(rel_id) for rel_id in q.joins])
            append(None)
    return tuple(key)


def _resolve_unit(
    ctx: Context,
    plans: dict[str, RelPlan],
    embedded_in: dict[str, list[str]],
    buckets: dict[str, BucketPlan],
    shared_with: dict[str, str],
    roots: list[str],
    embedded: list[str],
    key: tuple[Any, ...],
    index_rules: dict[str, tuple[str, ...]],
) -> UnitResult:
    """Collections, shapes, placements, sizes, validators and indexes of one unit."""
    builder = ShapeBuilder(ctx, plans, embedded_in, buckets)
    res = Resolution(plans, builder, index_rules=index_rules)
    collections: dict[str, CollectionDesign] = {}
    for eid in roots:
        entity = ctx.entities[eid]
        host = shared_with.get(eid)
        name = collection_name(ctx.entities[host] if host is not None else entity)
        if eid in buckets:
            shape = builder.bucket_nodes(entity, buckets[eid])
        else:
            shape = builder.entity_nodes(entity, (), root=True)
        res.location[eid] = (name, "")
        existing = collections.get(name)
        if existing is not None:
            _merge(ctx, existing, eid, shape)
            continue
        coll = CollectionDesign(name=name, entities=[eid], shape=shape, indexes=[], validator={}, count=entity.count)
        if eid in buckets:
            coll.bucket = buckets[eid].design
            if entity.count is not None:
                coll.count = -(-entity.count // buckets[eid].design.size)
        if entity.subtypes is not None:
            coll.discriminator = entity.subtypes.discriminator
            coll.variants = list(entity.subtypes.variants)
        if entity.shard_key:
            coll.shard_key = [res.resolve_path(eid, k) or k for k in entity.shard_key]
        if entity.schema_change:
            # a shape change rolls out: the new validator only warns, and documents not migrated yet stay updatable
            coll.validation_level, coll.validation_action = "moderate", "warn"
        collections[name] = coll
    placements: list[tuple[str, str, Placement]] = []
    _place_embedded(res, plans, embedded_in, embedded, placements, collections)
    # only this unit's roots can share a host collection here (their host is in the same unit)
    for many_id in (eid for eid in roots if eid in shared_with):
        host_coll = collections.get(res.location.get(many_id, ("", ""))[0])
        if host_coll is not None and not any(n.name == "links" for n in host_coll.shape):
            host_coll.shape.append(_links_node())
    for coll in collections.values():
        res.shapes[coll.name] = coll.shape
        coll.avg_bytes, coll.max_bytes = builder.doc_size(coll.shape)
        res.array_paths[coll.name] = _array_paths(coll.shape)
        _record_arrays(coll.shape, res.array_bytes)
        coll.timeseries = _timeseries(ctx, coll, buckets)
        coll.defer_validator(partial(collection_validator, coll.shape, coll.discriminator))
        coll.why = _collection_why(ctx, coll, buckets)
    companion_colls: list[CollectionDesign] = []
    for coll in collections.values():
        coll.indexes = _indexes(ctx, res, coll, buckets)
        archive = ctx.entities[coll.root].archive
        age = None if archive is None else res.resolve_path(coll.root, archive.age_field) or archive.age_field
        companion_colls.extend(companions(ctx, coll, age, res.rules_for))
    return UnitResult(
        key=key,
        collections=list(collections.values()),
        placements=placements,
        location=res.location,
        routes=builder.routes,
        copy_paths=builder.copy_paths,
        query_plans=res.query_plans,
        query_index=res.query_index,
        query_joins=res.query_joins,
        array_paths=res.array_paths,
        dropped_prefixes=res.dropped_prefixes,
        companions=companion_colls,
        array_sizes=res.array_bytes,
    )


def _links_node() -> ShapeNode:
    """``links: [{target, doc_type}]`` of the single collection pattern."""
    item = ShapeNode(
        "items",
        "object",
        role="child-refs",
        children=[
            ShapeNode("target", "objectId", role="child-refs", required=True),
            ShapeNode("doc_type", "string", role="discriminator", required=True),
        ],
    )
    return ShapeNode(
        "links",
        "array",
        role="child-refs",
        items=item,
        description="documents this one is linked to (single collection pattern)",
    )


def _merge(ctx: Context, coll: CollectionDesign, eid: str, shape: list[ShapeNode]) -> None:
    """A second entity in the same collection: both become variants told apart by ``doc_type``."""
    root = ctx.entities[coll.root]
    if root.subtypes is not None or ctx.entities[eid].subtypes is not None:
        names = {n.name for n in coll.shape}
        coll.shape.extend(n for n in shape if n.name not in names)
        coll.entities.append(eid)
        return
    if coll.discriminator != "doc_type":
        for node in coll.shape:
            if node.name != "_id" and node.variant is None:
                node.variant = coll.root
        coll.shape.insert(
            1,
            ShapeNode(
                "doc_type",
                "string",
                role="discriminator",
                required=True,
                enum=[coll.root],
                description="which entity this document is",
            ),
        )
        coll.discriminator, coll.variants = "doc_type", [coll.root]
    for node in shape:
        if node.name != "_id":
            node.variant = eid
            coll.shape.append(node)
    disc = next(n for n in coll.shape if n.name == "doc_type")
    disc.enum = [*(disc.enum or []), eid]
    coll.variants.append(eid)
    coll.entities.append(eid)


def _place_embedded(
    res: Resolution,
    plans: dict[str, RelPlan],
    embedded_in: dict[str, list[str]],
    members: list[str],
    placements: list[tuple[str, str, Placement]],
    collections: dict[str, CollectionDesign],
) -> None:
    """Where each embedded entity's elements sit: host collection + path (follows embed chains).

    ``members`` are the unit's embedded entities in project order; the entity
    whose placement triggered a chain orders the design's ``embedded`` map as
    a whole-project pass would.
    """
    for eid in members:  # project order
        _place(eid, 0, eid, res, plans, embedded_in, placements, collections)


def _place(
    eid: str,
    depth: int,
    trigger: str,
    res: Resolution,
    plans: dict[str, RelPlan],
    embedded_in: dict[str, list[str]],
    placements: list[tuple[str, str, Placement]],
    collections: dict[str, CollectionDesign],
) -> tuple[str, str] | None:
    """Place ``eid`` under the first host that has a place, placing the hosts first (``_place_embedded``).

    A module function rather than a closure: a nested function that calls
    itself is a reference cycle, which keeps the whole analysis alive until
    the cyclic garbage collector runs.
    """
    if eid in res.location:
        return res.location[eid]
    if depth > len(embedded_in) or eid not in embedded_in:
        return None
    for rel_id in embedded_in[eid]:
        plan = plans[rel_id]
        host = _place(plan.facts.one_id, depth + 1, trigger, res, plans, embedded_in, placements, collections)
        if host is None:
            continue
        name = res.builder.embed_names.get(rel_id) or embed_field(plan.facts.rel, plan.facts.many)
        loc = (host[0], f"{host[1]}.{name}" if host[1] else name)
        res.location[eid] = loc
        placements.append((trigger, eid, Placement(*loc)))
        if eid not in collections[host[0]].entities:
            collections[host[0]].entities.append(eid)
        return loc
    return None


def _array_paths(shape: list[ShapeNode]) -> set[str]:
    """Dotted paths of the array nodes (multikey); only containers are walked, leaves cost one test."""
    out: set[str] = set()
    stack: list[tuple[str, ShapeNode]] = [("", n) for n in shape if n.bson_type == "array" or n.children]
    while stack:
        prefix, node = stack.pop()
        path = prefix + node.name
        if node.bson_type == "array":
            out.add(path)
            if node.items is not None:
                below = node.items.children
            else:
                continue
        else:
            below = node.children
        if below:
            path += "."
            stack.extend((path, c) for c in below if c.bson_type == "array" or c.children)
    return out


def is_multikey(path: str, arrays: set[str]) -> bool:
    return array_root(path, arrays) is not None


def array_root(path: str, arrays: set[str]) -> str | None:
    """The outermost array a key path crosses (None: not multikey)."""
    parts = path.split(".")
    for i in range(len(parts)):
        prefix = ".".join(parts[: i + 1])
        if prefix in arrays:
            return prefix
    return None


def parallel_arrays(keys: list[str], arrays: set[str]) -> list[str]:
    """Keys after the first that index a *different* array than the first array key (server refuses those)."""
    roots: dict[str, str] = {}
    for key in keys:
        root = array_root(key, arrays)
        if root is not None:
            roots.setdefault(key, root)
    distinct = list(dict.fromkeys(roots.values()))
    if len(distinct) < 2:
        return []
    return [k for k, r in roots.items() if r != distinct[0]]


def _granularity(interval: float | None) -> str:
    if interval is None or interval < 60:
        return "seconds"
    if interval < 3600:
        return "minutes"
    return "hours"


def _timeseries(ctx: Context, coll: CollectionDesign, buckets: dict[str, BucketPlan]) -> dict[str, Any] | None:
    entity = ctx.entities[coll.root]
    ts = entity.timeseries
    if ts is None or coll.root in buckets:
        return None
    out: dict[str, Any] = {"timeField": ts.time_field, "granularity": _granularity(ts.interval_s)}
    meta = ts.meta_field
    if meta is None:
        ref = next((n.name for n in coll.shape if n.role == "parent-ref" and n.bson_type != "array"), None)
        meta = ref
    if meta is not None:
        out["metaField"] = meta
    if ts.retention_s is not None:
        out["expireAfterSeconds"] = ts.retention_s
    return out


def _collection_why(ctx: Context, coll: CollectionDesign, buckets: dict[str, BucketPlan]) -> str:
    entity = ctx.entities[coll.root]
    parts = [f"{entity.name} documents"]
    if coll.root in buckets:
        b = buckets[coll.root].design
        parts = [f"bucket documents of up to {b.size} {entity.name} measurements per {b.series_field} (bucket pattern)"]
    if len(coll.entities) > 1:
        names = [ctx.entities[e].name for e in coll.entities[1:] if e in ctx.entities]
        parts.append("with embedded " + ", ".join(names))
    if coll.discriminator:
        parts.append(
            f"of every variant ({', '.join(coll.variants)}) told apart by {coll.discriminator!r} (polymorphic pattern)"
        )
    return " ".join(parts)


# ----------------------------------------------------------------------------------------------- indexes


def _keys_key(keys: list[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
    return tuple(map(tuple, keys))  # each key a (path, kind) pair, as a tuple


def _plain(index: IndexDesign) -> bool:
    return (
        not index.unique
        and index.expire_after_s is None
        and index.partial is None
        and all(v in PLAIN_KEYS for _, v in index.keys)
    )


def _name_apart(index: IndexDesign, out: list[IndexDesign]) -> None:
    """A name no other index of the collection has (the server refuses a second index under one name)."""
    taken = {other.name for other in out}
    if index.name not in taken:
        return
    n = 2
    while f"{index.name}_{n}" in taken:
        n += 1
    index.name = f"{index.name}_{n}"


def _is_prefix(short: list[tuple[str, Any]], long: list[tuple[str, Any]]) -> bool:
    if len(short) > len(long):
        return False
    head = long[: len(short)]
    same = all(a == b for a, b in zip(short, head, strict=True))
    # only ascending/descending keys invert; "hashed", "text", "2dsphere" have no opposite
    inverted = all(
        k1 == k2 and v1 in PLAIN_KEYS and v2 in PLAIN_KEYS and v1 == -v2
        for (k1, v1), (k2, v2) in zip(short, head, strict=True)
    )
    return same or inverted


def _join_partial(kept: IndexDesign, index: IndexDesign) -> None:
    """Fold ``index`` into ``kept``, which has the same keys and collation but another partial filter.

    The server keeps one index per key pattern and collation. A unique or TTL
    index keeps its filter (the constraint is what must not change); between
    two plain ones a full index wins (it serves every query the partial one
    would); two constraints with two filters keep the first and say so.
    """

    def constrains(ix: IndexDesign) -> bool:
        return ix.unique or ix.expire_after_s is not None

    if constrains(index) and constrains(kept):
        kept.why += f"; a second {keys_text(index.keys)} (another filter) is not created: {index.why}"
    elif constrains(index):
        kept.partial, kept.unique, kept.expire_after_s = index.partial, index.unique, index.expire_after_s
        kept.why += f"; {index.why}"
    else:
        if index.partial is None and not constrains(kept):
            kept.partial = None
        kept.why += f"; {index.why}"
    kept.rules.extend(r for r in index.rules if r not in kept.rules)
    kept.queries.extend(q for q in index.queries if q not in kept.queries)


def _indexes(
    ctx: Context, res: Resolution, coll: CollectionDesign, buckets: dict[str, BucketPlan]
) -> list[IndexDesign]:
    out: list[IndexDesign] = []
    arrays = res.array_paths.get(coll.name, set())
    root = coll.root

    #: the indexes of ``out`` by their keys, in ``out``'s order (a new index merges into the first same one)
    by_keys: dict[tuple[tuple[str, Any], ...], list[IndexDesign]] = {}

    def add(index: IndexDesign) -> IndexDesign:
        keys = _keys_key(index.keys)
        same_keys = by_keys.get(keys)
        if same_keys is None:
            by_keys[keys] = [index]
            _name_apart(index, out)
            out.append(index)
            return index
        for other in same_keys:
            # the server keeps one index per key pattern, partial filter and collation: unique and TTL join it
            if other.partial == index.partial and other.collation == index.collation:
                if (other.unique, other.expire_after_s) != (index.unique, index.expire_after_s):
                    other.unique = other.unique or index.unique
                    if other.expire_after_s is None:
                        other.expire_after_s = index.expire_after_s
                    other.why += f"; {index.why}"
                other.rules.extend(r for r in index.rules if r not in other.rules)
                other.queries.extend(q for q in index.queries if q not in other.queries)
                return other
        for other in same_keys:
            # another partial filter on the same keys and collation: one index (IndexKeySpecsConflict otherwise)
            if other.collation == index.collation:
                _join_partial(other, index)
                return other
        same_keys.append(index)
        _name_apart(index, out)
        out.append(index)
        return index

    def own_documents(eid: str) -> dict[str, Any] | None:
        """In a collection several entities share (doc_type), the filter of ``eid``'s documents: a unique or TTL
        index of one entity must not refuse or delete the others' documents (a copied ipaddr in each log message)."""
        shared = coll.discriminator == "doc_type" and len(coll.variants) > 1 and eid in coll.variants
        return {"doc_type": eid} if shared else None

    # (a) the user's own indexes, kept and critiqued
    for eid in coll.entities:
        if res.location.get(eid, ("", ""))[1] != "":
            continue
        for idx in ctx.entities[eid].indexes:
            keys = [(res.resolve_path(eid, k) or k, v) for k, v in idx.keys]
            partial: dict[str, Any] | None = idx.partial
            if partial is None and (idx.unique or idx.expire_after_s is not None):
                partial = own_documents(eid)
            # over bucket documents a unique index would compare buckets, not readings: two buckets whose
            # readings lack the field already clash on null; it stays a plain index
            unique = idx.unique and root not in buckets
            add(
                IndexDesign(
                    keys=keys,
                    name=idx.name or default_name(keys),
                    unique=unique,
                    expire_after_s=idx.expire_after_s,
                    partial=partial,
                    collation=idx.collation,
                    why="declared in the model"
                    + ("" if unique == idx.unique else "; not unique: one bucket document holds many readings"),
                    origin="user",
                    key_reasons=["declared" for _ in keys],
                )
            )
    tops: dict[str, tuple[list[str], list[tuple[str, Field]]]] = {}
    # (b) unique fields (special-index-types) — top-level documents only
    for eid in coll.entities:
        if res.location.get(eid, ("", ""))[1] != "" or root in buckets:
            continue
        for path in _top_fields(ctx, eid, tops)[0]:
            if path != "_id":
                add(
                    IndexDesign(
                        keys=[(path, 1)],
                        name=default_name([(path, 1)]),
                        unique=True,
                        partial=own_documents(eid),
                        why=f"{path} is unique in the model: a unique index enforces it",
                        key_reasons=[
                            f"Unique: no two {plural_label(ctx.entities[eid].name)} share {with_article(path)}"
                        ],
                        rules=res.rules_for(UNIQUE),
                    )
                )
    # (c) reference fields (index-reference-fields) and the bucket series index
    if root in buckets:
        b = buckets[root].design
        keys = [(b.series_field, 1), (b.start_field, -1)]
        add(
            IndexDesign(
                keys=keys,
                name=default_name(keys),
                why=f"reads fetch the latest buckets of one {b.series_field} (bucket pattern)",
                key_reasons=[
                    f"Equality: buckets of one {b.series_field}",
                    f"Sort: newest bucket first by {b.start_field}",
                ],
                rules=res.rules_for(BUCKET_SERIES),
            )
        )
    else:
        for facts in ctx.rels_of_many[root]:
            plan = res.plans[facts.rel_id]
            if facts.self_ref:
                _tree_index(res, plan, add)
            node = _ref_path(res, plan, coll)
            # the join a query of the One declares reads the N by this reference (not by the One's array of ids)
            follows = not _colocated(plan, facts.one_id) and plan.strategy not in ONE_HOLDS_IDS
            if node is None or not _read_through(ctx, facts, follows, True):
                continue
            add(_reference_index(res, facts, node))
        for eid in coll.entities:
            if eid == root:
                continue
            for facts in ctx.rels_of_many[eid]:
                # a reference held by an embedded N (products.reviews[].customer_id): a multikey index finds the
                # documents holding the N of one One, as the top-level reference's index does
                plan = res.plans[facts.rel_id]
                nested = _nested_ref_path(coll.shape, facts.rel_id) if plan.strategy == "parent-ref" else None
                if nested is None or not _read_through(ctx, facts, not _colocated(plan, facts.one_id), True):
                    continue
                add(_reference_index(res, facts, nested, coll.name))
        if "links" in [n.name for n in coll.shape] and any(
            n.name == "links" and n.role == "child-refs" for n in coll.shape
        ):
            keys = [("links.target", 1), ("links.doc_type", 1)]
            add(
                IndexDesign(
                    keys=keys,
                    name=default_name(keys),
                    why="finds a document and everything linked to it in one query (single collection)",
                    key_reasons=["Equality: linked document id", "Equality: linked document type"],
                    rules=res.rules_for(LINKS),
                )
            )
        for facts in ctx.rels_of_one[root]:
            plan = res.plans[facts.rel_id]
            if facts.rel.cardinality == "many-to-many" and plan.strategy == "two-way":
                refs = next((n for n in coll.shape if n.role == "child-refs" and n.relationship == facts.rel_id), None)
                # a query of the N reads its Ones through its own array of ids (_id $in), never through this one:
                # the index is the convention of a project that declares no query
                if refs is not None and _read_through(ctx, facts, False, False):
                    arr = refs.name
                    # elements {id, <copied fields>} are indexed on their id; bare ids as they are
                    path = f"{arr}.id" if refs.items is not None and refs.items.bson_type == "object" else arr
                    add(
                        IndexDesign(
                            keys=[(path, 1)],
                            name=default_name([(path, 1)]),
                            why=f"multikey index on {arr}: finds which "
                            f"{plural_label(facts.one.name)} link {with_article(facts.many.name)}",
                            key_reasons=["Equality: reference array (multikey)"],
                            rules=res.rules_for(LINK_ARRAY),
                        )
                    )
    # (c2) the path each copy's sync updateMany matches, unless a scan costs too little to matter
    for index in _sync_indexes(ctx, res, coll):
        add(index)
    # (d) one {k, v} index per group of similar fields kept as pairs (before the queries: it serves them all)
    for pairs in coll.shape:
        if pairs.attribute:
            keys = [(f"{pairs.name}.k", 1), (f"{pairs.name}.v", 1)]
            add(
                IndexDesign(
                    keys=keys,
                    name=default_name(keys),
                    why=f"one index serves every key of {pairs.name}: queries match a pair with $elemMatch {{k, v}}",
                    key_reasons=[f"Equality: the key of a {pairs.name} pair", "Sort/Range: the value of that pair"],
                    rules=res.rules_for(ATTRIBUTE),
                )
            )
    # (e) one ESR index per declared query on an entity stored here
    for eid in coll.entities:
        for q in ctx.queries_of[eid]:
            _query_index(ctx, res, coll, eid, q, out, add, arrays)
    # (e2) a query index led by a reference to the One also stands for that reference's index (rule 10)
    if root not in buckets:
        for facts in ctx.rels_of_many[root]:
            ref = _ref_path(res, res.plans[facts.rel_id], coll)
            led = next((i for i in out if i.origin == "engine" and i.keys and i.keys[0][0] == ref), None)
            if ref is None or led is None or any(r in led.rules for r in res.rules_for(REFERENCE)):
                continue
            led.rules.extend(r for r in res.rules_for(REFERENCE) if r not in led.rules)
            led.why += (
                f"; it leads with {ref}, the reference to the {facts.one.name}: reference fields are always indexed"
            )
    # (f) the age index the archive job moves old documents by (archive pattern)
    archive = ctx.entities[root].archive
    if archive is not None and root not in buckets:
        age = res.resolve_path(root, archive.age_field) or archive.age_field
        days = archive.cold_after_s // 86_400
        add(
            IndexDesign(
                keys=[(age, 1)],
                name=default_name([(age, 1)]),
                why=f"the archive job finds documents older than {days:,} days by {age} and moves them out",
                key_reasons=[f"Range: {age} before the archive cut-off"],
                rules=res.rules_for(ARCHIVE),
            )
        )
    # (g) TTL
    for eid in coll.entities:
        if res.location.get(eid, ("", ""))[1] != "":
            continue
        entity = ctx.entities[eid]
        ts = entity.timeseries
        if ts is not None and ts.retention_s is not None and coll.timeseries is None:
            path = (
                buckets[eid].design.end_field
                if eid in buckets
                else (res.resolve_path(eid, ts.time_field) or ts.time_field)
            )
            add(
                IndexDesign(
                    keys=[(path, 1)],
                    name=default_name([(path, 1)]),
                    expire_after_s=ts.retention_s,
                    why=f"documents expire {duration(ts.retention_s)} after {path} (retention); the TTL monitor "
                    "deletes them about every 60 s",
                    key_reasons=["TTL: single-field date index"],
                    rules=res.rules_for(EXPIRY),
                )
            )
        for path, f in _top_fields(ctx, eid, tops)[1]:
            if f.expire_after_s is not None:
                add(
                    IndexDesign(
                        keys=[(path, 1)],
                        name=default_name([(path, 1)]),
                        expire_after_s=f.expire_after_s,
                        why=f"{path} carries expire_after_s: a TTL index deletes expired documents",
                        key_reasons=["TTL: single-field date index"],
                        rules=res.rules_for(EXPIRY),
                    )
                )
    return _server_built(ctx, res, coll, _drop_redundant(res, coll, out))


def _server_built(
    ctx: Context, res: Resolution, coll: CollectionDesign, indexes: list[IndexDesign]
) -> list[IndexDesign]:
    """``indexes`` with the engine's metaField + timeField index of a time series collection made the one the server
    builds itself from MongoDB 6.3 (``{meta: 1, time: 1}``, Manual: time series secondary indexes).

    An engine index on the metaField alone, or on it and the timeField in any direction, is that index: an
    equality on the metaField reads the timeField either way. It keeps its reasons and queries under the
    server's key and name, so the setup script's createIndex finds it and adds no second index.
    """
    ts = coll.timeseries
    version = ctx.server_version
    if not ts or version is None or version < ctx.settings.ts_auto_index_version:
        return indexes
    meta, time = ts.get("metaField"), ts.get("timeField")
    if not isinstance(meta, str) or not isinstance(time, str):
        return indexes
    keys: list[IndexKey] = [(meta, 1), (time, 1)]
    name = default_name(keys)
    kept: list[IndexDesign] = []
    server: IndexDesign | None = None
    for idx in indexes:
        paths = [k for k, _ in idx.keys]
        same = paths in ([meta], [meta, time]) and idx.collation is None and all(v in (1, -1) for _, v in idx.keys)
        if idx.origin != "engine" or not same or not _plain(idx) or any(i.name == name and i is not idx for i in kept):
            kept.append(idx)
            continue
        old = idx.name
        if server is None:
            server = idx
            idx.keys, idx.name = list(keys), name
            idx.why = (
                f"the server builds {{{meta}: 1, {time}: 1}} itself on a time series collection (MongoDB 6.3+), so "
                f"the setup script's createIndex finds it and adds none: {idx.why}"
            )
            kept.append(idx)
        else:
            server.rules.extend(r for r in idx.rules if r not in server.rules)
            server.queries.extend(q for q in idx.queries if q not in server.queries)
        for qid, where in res.query_index.items():
            if where == (coll.name, old):
                res.query_index[qid] = (coll.name, name)
    return kept


def _tree_index(res: Resolution, plan: RelPlan, add: Any) -> None:
    """The index of the tree model chosen for a self-referencing relationship (ancestors, path, bounds)."""
    model = tree_model_of(plan)
    if model is None or model.name == PARENT_REFS:
        return  # parent references: the reference index below serves children and parent
    keys = list(model.index)
    add(
        IndexDesign(
            keys=keys,
            name=default_name(keys),
            why=f"{model.reads} ({model.name}, {relationship_words(plan.facts.one.name, plan.facts.many.name)})",
            key_reasons=[f"Equality: tree field {k} ({model.name})" for k, _ in keys],
            rules=res.rules_for(TREE),
        )
    )


def _read_through(ctx: Context, facts: RelFacts, joins_follow: bool, from_one: bool) -> bool:
    """Does a plan read ``facts``' references from one side to the other (so their index is used)?

    The rule (no index that no plan uses): a reference is indexed for the reads that follow it — a query of the
    One (``from_one``; of the N otherwise) that joins the relationship, when ``joins_follow`` says its joins go
    through this reference. Syncs and queries that filter on the reference get their own indexes. A project
    that declares no query at all has no workload to choose from: its references are indexed by convention
    (CN: always index reference fields), and so are the parent references of a tree whose operations are
    declared (``tree_ops``).
    """
    if not ctx.queries or (facts.self_ref and facts.rel.tree_ops):
        return True
    if facts.self_ref and not from_one:
        return False  # a tree's query reads down from each node (the planner's One side), never through this array
    reader = facts.one_id if from_one else facts.many_id
    return joins_follow and any(q.entity == reader for q in ctx.queries_joining.get(facts.rel_id, ()))


def _sync_indexes(ctx: Context, res: Resolution, coll: CollectionDesign) -> list[IndexDesign]:
    """Indexes on the paths the sync ``updateMany`` of each copy held in ``coll`` matches.

    The rule: a copy that is kept in sync (not written once at insert) is found through its filter path
    (``author._id``, ``comments.user._id``, ``parts.id``); that path is indexed unless the field's updates make
    the scans irrelevant: the source field's ``updates_per_sec`` times the collection's documents stays under
    ``Settings.sync_scan_docs_per_sec_max`` documents examined per second. Unknown rates are indexed.
    """
    out: list[IndexDesign] = []
    s = ctx.settings
    docs = coll.count if coll.count is not None else s.default_count
    seen: set[str] = set()
    for eid in coll.entities:
        for facts in (*ctx.rels_of_one[eid], *ctx.rels_of_many[eid]):
            plan = res.plans[facts.rel_id]
            if plan.strategy == "subset":
                continue  # the subset is pushed to by _id
            for cp in plan.copies:
                if cp.target.id != eid or cp.sync == "none":
                    continue
                located = res.location.get(eid)
                if located is None or located[0] != coll.name:
                    continue
                rel_path = res.builder.copy_paths.get((facts.rel_id, cp.denorm.field, cp.denorm.direction), cp.name)
                path = f"{located[1]}.{rel_path}" if located[1] else rel_path
                filter_path = copy_filter_path(cp.location, path)
                if filter_path is None and cp.location == "flat":  # found by the N's reference to its One
                    filter_path = _ref_path(res, plan, coll)
                    nested = _embedded_ref(res, coll.name, located[1], plan) if located[1] else None
                    if filter_path is None and nested is not None:
                        filter_path = nested[0]  # the reference of an embedded N (items.product_id)
                if filter_path is None or filter_path in seen:
                    continue
                f = cp.field
                rate = None if f is None else (0.0 if f.immutable else f.updates_per_sec)
                if rate is not None and rate * docs < s.sync_scan_docs_per_sec_max:
                    continue
                seen.add(filter_path)
                rate_text = "rate not annotated" if rate is None else f"{rate:g}/s"
                out.append(
                    IndexDesign(
                        keys=[(filter_path, 1)],
                        name=default_name([(filter_path, 1)]),
                        why=f"keeping the copies of {cp.source.name}.{cp.denorm.field} in sync "
                        f"({relationship_words(facts.one.name, facts.many.name)}) "
                        f"runs updateMany on {filter_path}: without an index every update ({rate_text}) scans "
                        f"{docs:,} documents",
                        key_reasons=[f"Equality: the {cp.source.name} whose copy is updated"],
                        rules=res.rules_for(SYNC),
                    )
                )
    return out


def copy_filter_path(location: str, path: str) -> str | None:
    """The path a copy's sync ``updateMany`` matches when it is inside a sub-document or an array of references:
    ``author._id`` (extended reference: the One's id is kept once, inside it, as the Extended Reference Pattern
    article's documents do), ``parts.id`` (the One's array of ``{id, copies}``); None otherwise (a flat copy is found
    by the N's reference to its One, or by ``_id``)."""
    container = path.rsplit(".", 1)[0]
    if location == "child-array":
        return f"{container}.id"
    if location != "extended":
        return None
    return f"{container}._id"


def _top_fields(
    ctx: Context, eid: str, memo: dict[str, tuple[list[str], list[tuple[str, Field]]]]
) -> tuple[list[str], list[tuple[str, Field]]]:
    """Top-level paths of unique fields, and (path, field) of those with ``expire_after_s``: one pass for both."""
    found = memo.get(eid)
    if found is None:
        unique: list[str] = []
        ttl: list[tuple[str, Field]] = []
        for path, f in ctx.fields_of[eid].items():
            if "." not in path:
                if f.unique:
                    unique.append(path)
                if f.expire_after_s is not None:
                    ttl.append((path, f))
        found = memo[eid] = (unique, ttl)
    return found


def _reference_index(res: Resolution, facts: RelFacts, path: str, embedded_in: str | None = None) -> IndexDesign:
    """The index on a reference to the One: at the top level, or held by N embedded in ``embedded_in``'s documents."""
    if embedded_in is None:
        why = (
            f"finds the {facts.many.name} of one {facts.one.name}: always index reference fields (the article "
            "MongoDB Schema Design Best Practices); the join is then one index lookup per read (Zola's 6 Rules of "
            "Thumb, part 3)"
        )
        reason = f"Equality: reference to the {facts.one.name}"
    else:
        why = (
            f"finds the {plural_label(facts.many.name)} of one {facts.one.name} inside the {embedded_in} documents "
            "that embed them (multikey): always index reference fields (the article MongoDB Schema Design Best "
            "Practices)"
        )
        reason = f"Equality: reference to the {facts.one.name} (multikey)"
    return IndexDesign(
        keys=[(path, 1)], name=default_name([(path, 1)]), why=why, key_reasons=[reason], rules=res.rules_for(REFERENCE)
    )


def _record_arrays(nodes: list[ShapeNode], out: dict[str, tuple[int, int]]) -> None:
    """(one element, the whole array) bytes at most of each relationship's array in a shape (embedded N or their
    ids, at any depth), from the sizes the document size adds up."""
    for node in nodes:
        rel = node.relationship
        if rel is not None and node.items is not None and node.role in ("embedded", "child-refs") and rel not in out:
            out[rel] = node.items.value_max, node.value_max
        children = node.items.children if node.items is not None else node.children
        if children:
            _record_arrays(children, out)


def _nested_ref_path(nodes: list[ShapeNode], rel_id: str, prefix: str = "") -> str | None:
    """The dotted path of a parent reference below the top level (through sub-documents and arrays), or None."""
    for node in nodes:
        if prefix and node.relationship == rel_id and node.role == "parent-ref":
            return prefix + node.name
        children = node.items.children if node.items is not None else node.children
        found = _nested_ref_path(children, rel_id, f"{prefix}{node.name}.") if children else None
        if found is not None:
            return found
    return None


def _ref_path(res: Resolution, plan: RelPlan, coll: CollectionDesign) -> str | None:
    if plan.strategy in ("embed", "child-refs", "bucket"):
        return None
    rel_id = plan.facts.rel_id
    for node in coll.shape:
        if node.relationship == rel_id:
            if node.role == "parent-ref":
                return node.name
            if node.role == "extended-ref":
                return f"{node.name}._id"
    return None


def _joined_text_index(
    res: Resolution, coll: CollectionDesign, out: list[IndexDesign], path: str, qid: str, reason: str
) -> bool:
    """Serve a text search with the collection's text index when it has one: the server allows only one.

    The engine's own text index takes the new field as one more text key; the
    user's index is left as declared (rule index-hard-limits speaks about it).
    """
    existing = next((i for i in out if any(v == "text" for _, v in i.keys)), None)
    if existing is None:
        return False
    if existing.origin == "engine" and all(k != path for k, _ in existing.keys):
        old = existing.name
        existing.keys.append((path, "text"))
        existing.key_reasons.append(reason)
        existing.name = default_name(existing.keys)
        for other, where in res.query_index.items():
            if where == (coll.name, old):
                res.query_index[other] = (coll.name, existing.name)
    if qid not in existing.queries:
        existing.queries.append(qid)
    res.query_index.setdefault(qid, (coll.name, existing.name))
    return True


def _query_index(
    ctx: Context,
    res: Resolution,
    coll: CollectionDesign,
    eid: str,
    q: Query,
    out: list[IndexDesign],
    add: Any,
    arrays: set[str],
) -> None:
    s = ctx.settings
    qid = q.id
    plan = plan_query(
        q, partial(res.resolve_path, eid), s.in_list_equality_max, esr_scope(ctx, res, q), partial(res.attribute_k, eid)
    )
    res.query_plans[qid] = plan
    joins = []
    for logical in [*q.filter, *(k for k, _ in q.sort), *q.projection]:
        rel = res.join_rel(eid, logical)
        if rel is not None and rel not in joins:
            joins.append(rel)
    for rel_id in q.joins:
        p = res.plans.get(rel_id)
        if p is None or rel_id in joins:
            continue
        if not _colocated(p, eid):
            joins.append(rel_id)
    res.query_joins[qid] = joins
    special = (
        (plan.text, "text", "keyword search", "Text: full-text search (one text index per collection)"),
        # with $text the server reads the text index only: a 2dsphere index would go unused
        # and a query uses one geospatial index: the first 2dsphere index holding one of its paths, else a new one
        (
            [] if plan.text else _geo_paths(out, plan.geo),
            "2dsphere",
            "geospatial predicate",
            "2dsphere: GeoJSON geometry queries",
        ),
    )
    for paths, kind, purpose, reason in special:
        for path in paths:
            if kind == "text" and _joined_text_index(res, coll, out, path, qid, reason):
                continue
            keys = [(path, kind)]
            idx = add(
                IndexDesign(
                    keys=keys,
                    name=default_name(keys),
                    why=f"{purpose} on {path} (query {query_words(q, ctx.entities[eid].name if eid in ctx.entities else eid)})",
                    key_reasons=[reason],
                    rules=res.rules_for(TEXT_OR_GEO),
                    queries=[qid],
                )
            )
            res.query_index.setdefault(qid, (coll.name, idx.name))
    if plan.text or plan.geo:
        return  # the server reads a $text or geo predicate through its special index: a B-tree one would go unused
    if not plan.keys or plan.only_id or (plan.collation is None and serves([("_id", 1)], plan)):
        if plan.keys:  # the _id index every collection has serves it
            res.query_index[qid] = (coll.name, "_id_")
        return
    for idx in out:
        if idx.partial is None and serves(idx.keys, plan) and (idx.collation == plan.collation):
            if qid not in idx.queries:
                idx.queries.append(qid)
            if idx.origin == "engine" and plan.components >= 2:
                idx.rules.extend(r for r in res.rules_for(COMPOUND_QUERY) if r not in idx.rules)
            res.query_index[qid] = (coll.name, idx.name)
            return
    keys = plan.keys
    reasons = [plan.reasons.get(k, "") for k, _ in keys]
    notes = []
    parallel = parallel_arrays([k for k, _ in keys], arrays)
    if parallel:
        drop = set(parallel)
        keep = [(k, v) for k, v in keys if k not in drop]
        reasons = [r for (k, _), r in zip(keys, reasons, strict=True) if k not in drop]
        keys = keep
        notes.append(f"left out {', '.join(sorted(drop))}: MongoDB cannot index parallel arrays")
    if len(keys) > s.max_compound_fields:
        keys, reasons = keys[: s.max_compound_fields], reasons[: s.max_compound_fields]
        notes.append(f"cut to {s.max_compound_fields} keys (compound index limit)")
    rules = res.rules_for(COMPOUND_QUERY if plan.components >= 2 else QUERY)
    named = query_words(q, ctx.entities[eid].name if eid in ctx.entities else eid)
    why = f"serves query {named} in Equality, Sort, Range order" if plan.components >= 2 else f"serves query {named}"
    if notes:
        why += "; " + "; ".join(notes)
    idx = add(
        IndexDesign(
            keys=keys,
            name=default_name(keys),
            collation=plan.collation,
            why=why,
            key_reasons=reasons,
            rules=rules,
            queries=[qid],
        )
    )
    res.query_index[qid] = (coll.name, idx.name)


def _geo_paths(out: list[IndexDesign], paths: list[str]) -> list[str]:
    """The one geo path a query's 2dsphere index is built (or found) for: the server uses one geospatial index."""
    held = next((k for i in out for k, v in i.keys if v == "2dsphere" and k in paths), None)
    return [held] if held is not None else paths[:1]


def _colocated(plan: RelPlan, eid: str) -> bool:
    """Does a query of ``eid`` find the other side of ``plan``'s relationship in its own documents (no second read)?

    The N embedded in their One come with it (embed, subset, the outlier pattern's typical N). An extended
    reference or a bucket puts the One's reference (and fields) in the N, not the N in the One, and a single
    collection keeps each side in documents of its own: a query of the One (of the N too, in a single collection)
    reads the other side with a second query, unless a copy brings its fields into the entity asked.
    """
    facts = plan.facts
    apart = ("extended-ref", "bucket", "single-collection") if eid == facts.one_id else ("single-collection",)
    if plan.strategy in apart and not facts.self_ref:
        return any(cp.target.id == eid for cp in plan.copies)
    if plan.strategy in ("embed", "subset", "extended-ref", "bucket"):
        return True
    if outlier_bound_of(plan) is not None:
        return True  # the typical N are embedded in the One (outlier pattern): only outliers need a second read
    if facts.self_ref and tree_model_of(plan) is not None:
        # ancestors, a path or nested-set bounds answer subtree and breadcrumb from the node's own collection, and
        # child or parent references answer children with one indexed read: no $lookup of the tree
        return True
    return bool(plan.copies)


def _drop_redundant(res: Resolution, coll: CollectionDesign, indexes: list[IndexDesign]) -> list[IndexDesign]:
    """Remove engine indexes that are a prefix of another index (Manual-AP-unnecessary-indexes)."""
    kept: list[IndexDesign] = []
    if len(indexes) < 2:
        return list(indexes)
    longest = max(len(i.keys) for i in indexes)  # an index with as many keys is a prefix of none
    for idx in indexes:
        longer = None
        if idx.origin == "engine" and len(idx.keys) < longest and _plain(idx):
            longer = next(
                (
                    o
                    for o in indexes
                    if o is not idx
                    and len(o.keys) > len(idx.keys)
                    and o.partial is None
                    and o.collation == idx.collation
                    and _is_prefix(idx.keys, o.keys)
                ),
                None,
            )
        if longer is None:
            kept.append(idx)
            continue
        keys_text = ", ".join(f"{k} {v}" for k, v in idx.keys)
        longer.why += f"; also serves what ({keys_text}) would (that index is its prefix and was left out)"
        longer.rules.extend(r for r in idx.rules if r not in longer.rules)
        longer.queries.extend(q for q in idx.queries if q not in longer.queries)
        for qid in idx.queries:
            res.query_index[qid] = (coll.name, longer.name)
        res.dropped_prefixes.append((coll.name, list(idx.keys), longer.name))
    return kept


# ------------------------------------------------------------------------------------------ relationships


def _relationship_design(
    ctx: Context, res: Resolution, plan: RelPlan, memo: RefMemo | None = None
) -> RelationshipDesign:
    """The relationship as the design shows it; ``memo`` is kept between the relationships of one pass (each
    collection's nodes by relationship, ``reference_index.RefMemo``); the incremental path passes none."""
    copies = [_copy_design(ctx, res, plan, cp) for cp in plan.copies]
    why = plan.why
    indexed = reference_index_words(plan, partial(_collection_of, res), memo)
    if indexed:
        why += "; " + indexed
    if plan.dropped:
        why += "; not copied: " + "; ".join(f"{d.field} ({reason})" for d, reason in plan.dropped)
    return RelationshipDesign(
        id=plan.facts.rel_id,
        strategy=plan.strategy,
        chosen_by=cast(ChosenBy, plan.chosen_by),
        rules=list(plan.rules),
        denormalized=copies,
        why=why,
        tradeoff=plan.tradeoff,
        warnings=[*_array_warnings(ctx, res, plan), *plan.warnings, *_unshared_warning(res, plan)],
        index_words=indexed,
        label=label if (label := strategy_label(plan.strategy, outlier_bound_of(plan))) != plan.strategy else "",
    )


def _array_warnings(ctx: Context, res: Resolution, plan: RelPlan) -> list[str]:
    msg = array_warning(ctx, plan, res.array_sizes(plan.facts))
    return [] if msg is None else [msg]


def _collection_of(res: Resolution, eid: str) -> CollectionDesign | None:
    """The resolved collection holding ``eid``'s documents (in its own unit: no walk over every collection)."""
    located, unit = res.location.get(eid), res.unit_of.get(eid)
    if located is None or not isinstance(unit, UnitResult):
        return None
    name = located[0]
    for coll in unit.collections:  # a loop, not next(genexpr): once or twice per relationship
        if coll.name == name:
            return coll
    return None


def _unshared_warning(res: Resolution, plan: RelPlan) -> list[str]:
    """Why a single collection did not happen: the N or the One is a time series kept as bucket documents."""
    facts = plan.facts
    if plan.strategy != "single-collection" or facts.self_ref:
        return []
    if facts.many_id in res.buckets:
        return [
            f"{facts.many.name} is kept as bucket documents (a time series), which cannot share "
            f"{facts.one.name}'s collection: it keeps a collection of its own"
        ]
    if facts.one_id in res.buckets:
        return [
            f"{facts.one.name} is kept as bucket documents (a time series): {facts.many.name} cannot share "
            "that collection and keeps a collection of its own"
        ]
    with_subtypes = next((e for e in (facts.one, facts.many) if e.subtypes is not None), None)
    if with_subtypes is not None and with_subtypes.subtypes is not None:
        return [
            f"{with_subtypes.name} has subtypes told apart by '{with_subtypes.subtypes.discriminator}', which cannot "
            f"also tell {facts.one.name} from {facts.many.name}: {facts.many.name} keeps a collection of its own"
        ]
    host = res.shared_with.get(facts.many_id)
    if host is not None and host == res.shared_with.get(facts.one_id, facts.one_id):
        return []
    if facts.many_id in res.embedded_in:
        return [
            f"{facts.many.name} is embedded in another document, so it does not share {facts.one.name}'s collection"
        ]
    if facts.one_id in res.embedded_in:
        return [
            f"{facts.one.name} is embedded in another document and has no collection of its own to share: "
            f"{facts.many.name} keeps a collection of its own"
        ]
    if host is not None:
        other = res.builder.ctx.entities[host].name
        return [f"{facts.many.name} already shares {other}'s collection: it cannot also share {facts.one.name}'s"]
    return [
        f"{facts.one.name} and {facts.many.name} would each live in the other's collection (a ring of single "
        f"collections): {facts.many.name} keeps a collection of its own"
    ]


def _copy_design(ctx: Context, res: Resolution, plan: RelPlan, cp: CopyPlan) -> DenormalizedCopy:
    rel_path = res.builder.copy_paths.get((plan.facts.rel_id, cp.denorm.field, cp.denorm.direction), cp.name)
    located = res.location.get(cp.target.id)
    coll, prefix = located if located is not None else (collection_name(cp.target), "")
    path = f"{prefix}.{rel_path}" if prefix else rel_path
    advice, update = sync_advice(ctx, res, plan, cp, coll, path)
    if update is not None and update.kind == "set" and update.ids_from is None and update.filter_path != "_id":
        advice += _sync_index_words(res, cp, update.filter_path)
    return DenormalizedCopy(
        field=cp.denorm.field,
        source_entity=cp.source.id,
        direction=cp.denorm.direction,
        staleness=cp.denorm.staleness,
        collection=coll,
        path=path,
        sync=cast(SyncMethod, cp.sync),
        sync_advice=advice,
        fanout=cp.fanout,
        update=update,
    )


def _sync_index_words(res: Resolution, cp: CopyPlan, filter_path: str) -> str:
    """Whether the sync's updateMany finds the copies by an index, read from the collection's indexes (the one
    fact the export creates), so the advice never promises an index the design leaves out."""
    coll = _collection_of(res, cp.target.id)
    if coll is None:
        return ""
    index = leading_index(coll, filter_path)
    if index is not None:
        return f"; it finds them by the index {keys_text(index.keys)}"
    return (
        f"; {filter_path} is not indexed: {cp.source.name}.{cp.denorm.field} changes rarely enough that scanning "
        f"{coll.name} on each change costs less than keeping an index"
    )


@lru_cache(maxsize=256)
def _push_latest_words(
    src_coll: str, source: str, sub: str, one: str, coll: str, sort_name: str, k: int, by_id: bool
) -> str:
    """How a subset's copies are kept: one text for every field the subset copies (the same push keeps them all;
    issue 16, the engine's memory: each copy held a copy of these 500 characters)."""
    edits = (
        f"; each element keeps the {source}'s _id: an edited {source} sets its copy in "
        f"{sub} (arrayFilters on _id) and a deleted one is pulled from it by _id"
        if by_id
        else ""
    )
    return (
        f"on every insert into {src_coll}: push the new {source} into {sub} of its {one} in {coll} ($push with "
        f"$each, $sort by {sort_name} descending and $slice {k}: the latest {k}, newest first; Zola's ascending "
        f"$sort with $slice -{k} keeps the same ones oldest first){edits}; {src_coll} stays the source of truth"
    )


#: who keeps a copy in sync, by the copy's sync method (the start of its advice)
_SYNC_LEADS = {
    "application": "application code, right after updating the original",
    "scheduled": "a scheduled job (the copies may lag by up to a day)",
    "change-stream": "a change stream listener",
}


def sync_advice(
    ctx: Context, res: Resolution, plan: RelPlan, cp: CopyPlan, coll: str, path: str
) -> tuple[str, SyncUpdate | None]:
    """How one copy is kept in sync, in words, and that write as data (export/ writes its mongosh)."""
    located = res.location.get(cp.source.id)
    src_coll = located[0] if located is not None else collection_name(cp.source)
    f = cp.denorm.field
    if plan.strategy == "subset" and cp.location == "subset":
        sub = path.rsplit(".", 1)[0]
        elems = [c for c in plan.copies if c.location == "subset"]
        sort_field = next((n.sort for n in _find_nodes(res, coll, sub) if n.sort), None)
        sort_name = sort_field[0] if sort_field else (elems[0].name if elems else f)
        k = plan.subset_k or 10
        by_id = any(subset_synced(c) for c in elems)
        update = SyncUpdate(
            "push-latest",
            coll,
            "_id",
            sub,
            src_coll,
            f,
            pushed=tuple(c.name for c in elems),
            sort_field=sort_name,
            keep=k,
            by_id=by_id,
        )
        return _push_latest_words(src_coll, cp.source.name, sub, plan.facts.one.name, coll, sort_name, k, by_id), update
    if cp.sync == "none":
        if cp.denorm.staleness == "forever":
            return (
                f"none: {f} is copied when the {cp.target.name} is created and never synced — it is the value at "
                f"that time (point-in-time snapshot)"
            ), None
        return (
            f"none: {f} does not change, so it is written into each {cp.target.name} at insert (as {path} in "
            f"{coll}) and never needs syncing"
        ), SyncUpdate("insert", coll, "", path, src_coll, f)
    array_filter: str | None = None
    ids_from: str | None = None
    ids_are_objects = False
    set_path = path
    target_at = res.location.get(cp.target.id)
    located_in = target_at[1] if target_at is not None and target_at[0] == coll and target_at[1] else None
    inside = copy_filter_path(cp.location, path)
    if cp.location == "child-array" and inside is not None:
        arr_path = path.rsplit(".", 1)[0]
        filter_path = inside
        set_path, array_filter = f"{arr_path}.$[e].{cp.name}", "e.id"
    elif cp.location == "extended" and inside is not None:
        ext = path.rsplit(".", 1)[0]
        filter_path = inside
        if "." in ext:
            outer, _, inner = ext.partition(".")
            set_path, array_filter = f"{outer}.$[e].{inner}.{cp.name}", f"e.{inner}._id"
        elif any(n.name == ext and n.bson_type == "array" for n in _find_nodes(res, coll, "")):
            # a many-to-many's array of extended references: only the element of the changed One
            set_path, array_filter = f"{ext}.$[e].{cp.name}", "e._id"
    else:
        ref: str | None = next(
            (
                n.name
                for n in _find_nodes(res, coll, "")
                if n.relationship == plan.facts.rel_id and n.role == "parent-ref"
            ),
            None,
        )
        nested = None if ref is not None or located_in is None else _embedded_ref(res, coll, located_in, plan)
        if ref is not None:
            filter_path = ref
        elif nested is not None:
            filter_path, held_in, array_filter = nested
            if held_in is not None:
                set_path = f"{held_in}.$[e]{path[len(held_in) :]}"
        else:
            arr: ShapeNode | None = next(
                (
                    n
                    for n in _find_nodes(res, src_coll, "")
                    if n.relationship == plan.facts.rel_id and n.role == "child-refs"
                ),
                None,
            )
            filter_path = "_id"
            ids_from = "ids" if arr is None else arr.name
            ids_are_objects = arr is not None and arr.items is not None and arr.items.bson_type == "object"
    update = SyncUpdate(
        "set",
        coll,
        filter_path,
        set_path,
        src_coll,
        f,
        array_filter=array_filter,
        ids_from=ids_from,
        ids_are_objects=ids_are_objects,
    )
    lead = _SYNC_LEADS.get(cp.sync, cp.sync)
    where = (
        f"every {coll} document listed in {ids_from} of the {cp.source.name}"
        if ids_from is not None
        else f"every {coll} document whose {filter_path} is the {cp.source.name}'s id"
    )
    filtered = f" (only the matching element of {path.split('.', 1)[0]}, by arrayFilters)" if array_filter else ""
    text = (
        f"{lead}: updateMany sets {path} in {where}{filtered}. Alternatives (the Extended Reference Pattern article): application code updating "
        f"all copies, a change stream on {src_coll} watching {f} that applies the same update, or a scheduled job "
        f"for copies that may lag"
    )
    if cp.denorm.staleness == "none":
        text += "; staleness none: run the update in session.withTransaction(...) with the original"
    return text, update


def _embedded_ref(res: Resolution, coll: str, prefix: str, plan: RelPlan) -> tuple[str, str | None, str | None] | None:
    """How the sync finds a copy held by an N embedded at ``prefix`` (``orders.items``): the filter path of the N's
    reference to its One (``items.product_id``) and, when the N sits in an array, that array's path (``items``) and
    the ``arrayFilters`` path of its element's reference (``e.product_id``), so only the elements of that One change.

    Arrays above the innermost one are matched by the filter (it reaches through arrays) but not written: a copy
    below two arrays is not found here (None), and the caller falls back to the N's ids.
    """
    shape = res.shapes.get(coll)
    walked = walk_shape(shape, prefix) if shape is not None else None
    if walked is None:
        return None
    arrays, nodes = walked
    ref = next((n.name for n in nodes if n.relationship == plan.facts.rel_id and n.role == "parent-ref"), None)
    if ref is None or len(arrays) > 1:
        return None
    filter_path = f"{prefix}.{ref}"
    if not arrays:
        return filter_path, None, None
    return filter_path, arrays[0], f"e.{filter_path[len(arrays[0]) + 1 :]}"


def _find_nodes(res: Resolution, coll: str, path: str) -> list[ShapeNode]:
    """Nodes at ``path`` (dotted, "" = top level) of a collection's shape, through arrays."""
    shape = res.shapes.get(coll)
    if shape is None:
        return []
    nodes: list[ShapeNode] = shape
    if not path:
        return nodes
    found: list[ShapeNode] = []
    for part in path.split("."):
        node = next((n for n in nodes if n.name == part), None)
        if node is None:
            return []
        found = [node]
        nodes = node.items.children if node.items is not None else node.children
    return found


def _filed(res: Resolution, unit: UnitResult) -> list[tuple[Mapping[Any, Any], dict[Any, Any]]]:
    """Each part of a unit's entries (key -> value) with the whole-design map of the resolution that holds them:
    the one table ``file_unit`` and ``unfile_unit`` both read, so no map is filed and left behind."""
    return [
        (unit.location, res.location),
        (dict.fromkeys(unit.location, unit), res.unit_of),
        (unit.routes, res.builder.routes),
        (unit.copy_paths, res.builder.copy_paths),
        (unit.query_plans, res.query_plans),
        (unit.query_index, res.query_index),
        (unit.query_joins, res.query_joins),
        (unit.array_paths, res.array_paths),
        (unit.array_sizes, res.array_bytes),
        ({coll.name: coll.shape for coll in unit.collections}, res.shapes),
    ]


def file_unit(res: Resolution, unit: UnitResult) -> None:
    """Put one unit's entries in the resolution's whole-design maps (a cold pass, and a regroup's new units)."""
    for part, mine in _filed(res, unit):
        mine.update(part)


def unfile_unit(res: Resolution, old: UnitResult, keep: UnitResult | None = None) -> None:
    """Take ``old``'s entries out of the resolution's whole-design maps; with ``keep`` (the unit filed in its
    place next, ``file_unit``) only those ``keep`` does not hold, so the others keep their place."""
    kept = _filed(res, keep) if keep is not None else None
    for k, (part, mine) in enumerate(_filed(res, old)):
        for key in part if kept is None else [key for key in part if key not in kept[k][0]]:
            mine.pop(key, None)


#: the per-unit and per-relationship steps, for an incremental patch (``modeller.rules.incremental.patch``)
unit_key = _unit_key
resolve_unit = _resolve_unit
relationship_design = _relationship_design
group_units = _units
