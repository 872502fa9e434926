"""Patch the last analysis after an edit that moves entities into or out of other entities' documents.

A relationship whose plan starts or stops embedding its N (a strategy or
cardinality change that turns an embed into a reference, or back) changes
which collections its ends' entities land in: the units of collections
(``resolver._units``) around it split or merge. Instead of a whole-model
pass, the units holding the edited relationships' ends (and any unit whose
collection name a new root takes) are grouped again, resolved (an unchanged
unit is reused by its key) and spliced into the last resolution and design
in the places a whole-model pass gives them. Edits that touch the single
collection or bucket patterns are left to the whole-model pass (their
groupings reach further). Speed-only: edit -> findings <= 200 ms at 10,000
entities (issue 16); the result equals a cold analysis
(``tests/rules/test_incremental.py``).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from modeller.rules.physical.design import CollectionDesign, Placement
from modeller.rules.physical.documents import embeds
from modeller.rules.physical.facts import Context
from modeller.rules.physical.naming import collection_name
from modeller.rules.physical.plans import RelPlan
from modeller.rules.physical.resolver import (
    Resolution,
    ResolveCache,
    UnitResult,
    file_unit,
    group_units,
    resolve_unit,
    unfile_unit,
    unit_key,
)

#: strategies whose groupings reach beyond the units of their ends
FAR = frozenset({"bucket", "single-collection"})


@dataclass(slots=True)
class Regrouped:
    """The units a regroup put in place of the old ones."""

    #: the new units' results (some may be reused objects)
    units: list[UnitResult] = field(default_factory=list)
    #: the collection names the old units had that no new unit has
    gone_names: list[str] = field(default_factory=list)
    #: every entity of the regrouped units
    entities: list[str] = field(default_factory=list)
    #: the units they replace
    old: list[UnitResult] = field(default_factory=list)


def regroupable(ctx: Context, res: Resolution, plans: dict[str, RelPlan], old: RelPlan, new: RelPlan) -> bool:
    """A plan change that moves the N into or out of the One's documents can be patched: neither plan is a bucket
    or single collection one, no end is a time series or bucketed, and the N takes no part in a single collection
    (whether it shares or hosts one reads whether it is embedded; the One's part in one does not change)."""
    if old.strategy in FAR or new.strategy in FAR:
        return False
    for eid in (new.facts.one_id, new.facts.many_id):
        if ctx.entities[eid].timeseries is not None or eid in res.buckets:
            return False
    many = new.facts.many_id
    if many in res.shared_with or many in set(res.shared_with.values()):
        return False
    for f in (*ctx.rels_of_one[many], *ctx.rels_of_many[many]):
        plan = plans.get(f.rel_id)
        if plan is not None and plan.strategy == "single-collection":
            return False
    return True


def embedded_in_of(ctx: Context, plans: dict[str, RelPlan], many_id: str) -> list[str]:
    """The relationships embedding ``many_id``, in project order (as ``resolve`` lists them)."""
    return [f.rel_id for f in ctx.rels_of_many[many_id] if embeds(plans[f.rel_id])]


def regroup(
    ctx: Context,
    res: Resolution,
    rcache: ResolveCache,
    index_rules: dict[str, tuple[str, ...]],
    unit_index: dict[str, int],
    coll_by_name: dict[str, CollectionDesign],
    touched: Iterable[str],
) -> Regrouped:
    """Group again the units holding the ``touched`` entities (``res.embedded_in`` already says where each entity
    is embedded now), resolve them and put them in ``res`` in place of the old ones (``res.units`` and
    ``res.unit_results`` stay in the order of their first root, as ``resolve`` orders them)."""
    order = ctx.entity_order
    old_units = {unit_index[eid] for eid in touched if eid in unit_index}
    members: set[str] = set()
    for u in old_units:
        roots, embedded = res.units[u]
        members.update(roots)
        members.update(embedded)
    # a new root may take a collection name another unit holds (a collection the model names): that unit joins
    while True:
        more = set()
        for eid in members:
            if eid in res.embedded_in:
                continue
            coll = coll_by_name.get(collection_name(ctx.entities[eid]))
            if coll is not None and unit_index[coll.entities[0]] not in old_units:
                more.add(unit_index[coll.entities[0]])
        if not more:
            break
        old_units |= more
        for u in more:
            roots, embedded = res.units[u]
            members.update(roots)
            members.update(embedded)
    part = sorted(members, key=order.__getitem__)
    embedded_in = {eid: res.embedded_in[eid] for eid in part if eid in res.embedded_in}
    # the context with the part's entities only: what ``group_units`` groups (it reads nothing else of it)
    part_ctx = replace(ctx, entities={eid: ctx.entities[eid] for eid in part})
    new_units = group_units(part_ctx, res.plans, embedded_in, res.shared_with)
    old_results = [res.unit_results[u] for u in sorted(old_units)]
    out = Regrouped(entities=part, old=old_results)
    for u in sorted(old_units, reverse=True):
        first = res.units[u][0][0]
        if rcache.units.get(first) is res.unit_results[u]:
            del rcache.units[first]  # (a whole-model pass keeps only the units it has)
        del res.units[u]
        del res.unit_results[u]
    for old in old_results:
        unfile_unit(res, old)
    for roots, embedded in new_units:
        key = unit_key(ctx, res.plans, roots, embedded, res.shared_with, res.buckets)
        result = rcache.units.get(roots[0])
        if result is None or len(result.key) != len(key) or not all(map(_is, result.key, key)):
            result = resolve_unit(
                ctx, res.plans, res.embedded_in, res.buckets, res.shared_with, roots, embedded, key, index_rules
            )
        rcache.units[roots[0]] = result
        at = bisect_left(res.units, order[roots[0]], key=lambda unit: order[unit[0][0]])  # (by first root)
        res.units.insert(at, (roots, embedded))
        res.unit_results.insert(at, result)
        file_unit(res, result)
        out.units.append(result)
    # the dropped prefixes in unit order, as resolve lists them (a later in-place patch finds a unit's run in it)
    res.dropped_prefixes = [d for unit in res.unit_results for d in unit.dropped_prefixes]
    new_names = {c.name for unit in out.units for c in unit.collections}
    out.gone_names = [c.name for unit in old_results for c in unit.collections if c.name not in new_names]
    return out


def _is(a: Any, b: Any) -> bool:
    return a is b


def place_collections(
    collections: list[CollectionDesign], order: dict[str, int], gone: list[UnitResult], came: list[UnitResult]
) -> list[CollectionDesign]:
    """``collections`` (ordered by their first entity, as ``resolve`` sorts them) without the ``gone`` units'
    collections and with the ``came`` ones in their places."""
    dropped = {id(c) for unit in gone for c in unit.collections}
    out = [c for c in collections if id(c) not in dropped]
    for unit in came:
        for coll in unit.collections:
            insort(out, coll, key=lambda c: order[c.entities[0]])
    return out


def placements_of(results: list[UnitResult], order: dict[str, int]) -> dict[str, Placement]:
    """The design's ``embedded`` map, as ``resolve`` builds it from every unit's placements."""
    placements = [p for unit in results for p in unit.placements]
    placements.sort(key=lambda p: order[p[0]])
    return {eid: placement for _, eid, placement in placements}
