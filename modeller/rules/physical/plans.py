"""Per-relationship plans: the effective strategy, who chose it, and the copies it carries.

The plan is the resolver's first step. It keeps the engine's recommendation
next to the user's explicit choice so rules can confirm a good choice, warn
about a choice that breaks a rule, and say which rule would pick what.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from modeller.model.project import Denormalization, Entity, Field
from modeller.rules.physical.facts import Context, RelFacts, too_many_ids
from modeller.rules.physical.naming import snake
from modeller.rules.physical.sizes import (
    DOC_OVERHEAD,
    TYPE_BYTES,
    array_bytes,
    element_overhead,
    elements_within,
    megabytes,
    present_bytes,
    value_bytes,
)
from modeller.rules.physical.strategy import Deciders, Recommendation, bucket_wanted, recommend


@dataclass(slots=True)
class CopyPlan:
    """One denormalized field: where it is copied from and to, and how it stays in sync."""

    denorm: Denormalization
    source: Entity
    target: Entity
    #: name of the copy inside its container (flat field, extended-ref child, array element child)
    name: str
    #: "flat" (next to the reference), "extended" (inside the extended-reference sub-document),
    #: "child-array" (inside each {id, ...} element of the One's array), "subset" (subset elements)
    location: str
    sync: str = "application"
    rw: float | None = None
    copies_per_update: float = 1.0
    fanout: float | None = None
    field: Field | None = None
    #: a copy the pattern itself implies (subset elements), not one the user declared
    implied: bool = False


@dataclass(slots=True)
class RelPlan:
    """The resolved storage of one relationship."""

    facts: RelFacts
    rec: Recommendation
    strategy: str
    chosen_by: str
    rules: list[str]
    why: str
    tradeoff: str
    warnings: list[str] = field(default_factory=list)
    subset_k: int | None = None
    bucket_size: int | None = None
    copies: list[CopyPlan] = field(default_factory=list)
    #: denormalizations that cannot be applied with this strategy, with the reason
    dropped: list[tuple[Denormalization, str]] = field(default_factory=list)
    elem_bytes: int = 0
    numbers: dict[str, Any] = field(default_factory=dict)


def base_bytes(ctx: Context, entity: Entity) -> tuple[int, int]:
    """(average, maximum) bytes of an entity's own fields as one document (with ``_id``); once per entity and
    analysis (``Context.base_sizes``)."""
    known = ctx.base_sizes.get(entity.id)
    if known is None or known[0] is not entity:
        known = ctx.base_sizes[entity.id] = (entity, _base_bytes(ctx, entity))
    return known[1]


def _base_bytes(ctx: Context, entity: Entity) -> tuple[int, int]:
    avg = mx = DOC_OVERHEAD + element_overhead("_id") + 12
    settings = ctx.settings
    for f in entity.fields:
        a, m = value_bytes(f, settings)
        o = element_overhead(f.name)
        avg += present_bytes(a + o, f.required, settings)
        mx += m + o
    if entity.subtypes is not None and entity.subtypes.variants:
        extra = []
        for fields in entity.subtypes.variants.values():
            total = sum(value_bytes(f, ctx.settings)[1] + element_overhead(f.name) for f in fields)
            extra.append(total)
        mx += max(extra)
        avg += sum(extra) // len(extra)
    return avg, mx


def effectively_immutable(rw: float, f: Field | None, threshold: float) -> bool:
    """Read so much more than updated that the engine treats the field as never changing — unless the user
    declared that it does change (a non-zero ``updates_per_sec``): what the user declared wins."""
    declared_changing = f is not None and not f.immutable and bool(f.updates_per_sec)
    return rw >= threshold and not declared_changing


def rw_ratio(ctx: Context, source: Entity, path: str, reader: Entity) -> float | None:
    """Reads of the copy per update of the original (Zola-3 rule 5); None when not annotated."""
    f = ctx.field(source.id, path)
    if f is None:
        return None
    if f.immutable:
        return math.inf
    reads = f.reads_per_sec if f.reads_per_sec is not None else reader.reads_per_sec
    if f.updates_per_sec is None or reads is None:
        return None
    if f.updates_per_sec == 0:
        return math.inf
    return reads / f.updates_per_sec


def plan_relationships(ctx: Context, deciders: Deciders, cache: dict[str, Any] | None = None) -> dict[str, RelPlan]:
    """A plan for every relationship, in project order, from the strategy rules' votes (``deciders``).

    With ``cache`` (relationship id -> (facts, strategy before the cycle check,
    cycle, plan)), a plan whose facts are the same object and whose cycle
    check gives the same answer is reused as is.
    """
    plans: dict[str, RelPlan] = {}
    embed_parent: dict[str, set[str]] = {}
    new_cache: dict[str, Any] = {}
    for facts in ctx.rels:
        rel_id = facts.rel_id
        entry = cache.get(rel_id) if cache is not None else None
        plan: RelPlan | None = None
        if entry is not None and entry[0] is facts:
            chosen = entry[1]
        else:
            entry = None
            plan = _plan(ctx, facts, deciders)
            chosen = plan.strategy
        cycle = chosen == "embed" and _would_cycle(embed_parent, facts.one_id, facts.many_id)
        if entry is not None and entry[2] == cycle:
            plan = entry[3]
        else:
            plan = finish_plan(ctx, plan if plan is not None else _plan(ctx, facts, deciders), cycle)
        assert plan is not None
        if plan.strategy == "embed":
            embed_parent.setdefault(facts.many_id, set()).add(facts.one_id)
        new_cache[rel_id] = (facts, chosen, cycle, plan)
        plans[rel_id] = plan
    if cache is not None:
        cache.clear()
        cache.update(new_cache)
    return plans


def finish_plan(ctx: Context, plan: RelPlan, cycle: bool) -> RelPlan:
    """Apply the embed-cycle answer and plan the copies (the steps after :func:`first_plan`)."""
    if cycle:
        facts = plan.facts
        rec = plan.rec
        fallback = rec.strategy if rec.strategy != "embed" else "parent-ref"
        plan.warnings.append(
            f"{facts.many.name} cannot be embedded in {facts.one.name}: {facts.one.name} is already stored "
            f"inside {facts.many.name} (a document cannot contain itself); stored as {fallback} instead"
        )
        plan.strategy = fallback
    _plan_copies(ctx, plan)
    return plan


def first_plan(ctx: Context, facts: RelFacts, deciders: Deciders) -> RelPlan:
    """The plan of one relationship before the embed-cycle check (what an incremental re-plan starts from)."""
    return _plan(ctx, facts, deciders)


def _plan(ctx: Context, facts: RelFacts, deciders: Deciders) -> RelPlan:
    """The plan before the embed-cycle check and the copies."""
    elem = base_bytes(ctx, facts.many)[0]
    rec = recommend(ctx, facts, elem, deciders)
    return _choose(ctx, facts, rec, elem)


def _would_cycle(embed_parent: dict[str, set[str]], one: str, many: str) -> bool:
    """True when ``many`` is ``one`` or already (transitively) holds ``one``."""
    if one == many:
        return True
    stack, seen = [one], set()
    while stack:
        node = stack.pop()
        if node == many:
            return True
        if node in seen:
            continue
        seen.add(node)
        stack.extend(embed_parent.get(node, ()))
    return False


def _choose(ctx: Context, facts: RelFacts, rec: Recommendation, elem: int) -> RelPlan:
    rel = facts.rel
    explicit = rel.strategy if rel.strategy != "auto" else (rel.decision.strategy if rel.decision else None)
    if explicit is None or explicit == "auto":
        plan = RelPlan(
            facts,
            rec,
            rec.strategy,
            "engine",
            list(rec.rules),
            rec.reason,
            rec.tradeoff,
            elem_bytes=elem,
            numbers=dict(rec.numbers),
        )
    else:
        agrees = explicit == rec.strategy
        why = (
            f"your choice, which the engine would also make: {rec.reason}"
            if agrees
            else f"your choice; the engine would choose {rec.strategy}: {rec.reason}"
        )
        plan = RelPlan(
            facts,
            rec,
            explicit,
            "user",
            list(rec.rules) if agrees else [],
            why,
            rec.tradeoff,
            elem_bytes=elem,
            numbers=dict(rec.numbers),
        )
        plan.warnings.extend(explicit_warnings(ctx, facts, explicit, elem))
    s = ctx.settings
    if plan.strategy == "subset":
        plan.subset_k = rel.show_latest or min(facts.n_max, s.default_few)
    if plan.strategy == "bucket":
        ts = facts.many.timeseries
        paged = rec.numbers.get("bucket_size") if rec.strategy == "bucket" and ts is None else None
        plan.bucket_size = paged or (ts.bucket_size if ts and ts.bucket_size else 60)
    return plan


def growth_per_one_per_day(facts: RelFacts) -> float | None:
    """New N per One document per day, from ``growth_per_day`` or ``writes_per_sec``."""
    many, one = facts.many, facts.one
    per_day = many.growth_per_day
    if per_day is None and many.writes_per_sec is not None and many.append_only:
        per_day = many.writes_per_sec * 86400
    if per_day is None and facts.rel.writes_per_sec is not None:
        per_day = facts.rel.writes_per_sec * 86400
    if per_day is None:
        return None
    return per_day / max(one.count or 1, 1)


def days_to_limit(ctx: Context, facts: RelFacts, elem: int, start_bytes: int) -> float | None:
    """Days until an array of N elements of ``elem`` bytes in the One reaches 16 MiB, from today's typical
    size and the growth (the size model's array bytes, ``sizes.array_bytes``)."""
    growth = growth_per_one_per_day(facts)
    if not growth:
        return None
    room = elements_within(ctx.settings.max_doc_bytes - start_bytes, elem) - facts.n_typ
    if room <= 0:
        return 0.0
    return room / growth


#: the strategies whose One holds an array of all its N (embedded, or their ids): its size is the shape's
ARRAY_OF_ALL = frozenset({"embed", "child-refs", "two-way"})


def kept_array(plan: RelPlan, sizes: tuple[int, int] | None) -> tuple[int, int]:
    """(one element, the whole array) at most of the array of every N the One keeps (embedded, or their ids): the
    shape's figures (``Resolution.array_sizes``) when given, else estimated from the N's fields, so every finding on
    the array quotes one figure."""
    if sizes is not None:
        return sizes
    item = plan.elem_bytes if plan.strategy == "embed" else TYPE_BYTES["objectId"]
    return item, array_bytes(plan.facts.n_max, item)


def array_warning(ctx: Context, plan: RelPlan, sizes: tuple[int, int] | None) -> str | None:
    """Why the user's array breaks a rule: its size at the declared maximum against 16 MiB, and the day a typical One
    reaches it. ``sizes``: (one element, the whole array) at most, as the design's shape sizes them
    (``Resolution.array_sizes``), so the warning and the document size agree; None: estimated from the N's fields."""
    s, facts, strategy = ctx.settings, plan.facts, plan.strategy
    if plan.chosen_by != "user" or strategy not in ARRAY_OF_ALL:
        return None
    if not (facts.unbounded or (facts.n_max > s.embed_max if strategy == "embed" else too_many_ids(facts, s))):
        return None
    one, many = facts.one, facts.many
    item, projected = kept_array(plan, sizes)
    days = days_to_limit(ctx, facts, item, base_bytes(ctx, one)[0])
    what = "embedded documents" if strategy == "embed" else "ids"
    msg = (
        f"{strategy} keeps every {many.name} in each {one.name} as {what}; with "
        f"{'unbounded growth' if facts.unbounded else f'up to {facts.n_max:,}'} the array reaches about "
        f"{projected:,} bytes ({megabytes(projected)}) against the 16 MiB ({s.max_doc_bytes:,} bytes) limit"
    )
    if days is not None:
        msg += f"; at the annotated growth a typical {one.name} reaches 16 MiB in about {days:,.0f} days"
    return msg


def explicit_warnings(ctx: Context, facts: RelFacts, strategy: str, elem: int) -> list[str]:
    """Why an explicit strategy breaks a rule (besides its array's size: :func:`array_warning`, once the shapes are
    sized)."""
    out: list[str] = []
    many = facts.many
    if strategy == "embed" and facts.standalone:
        out.append(
            f"{many.name} is embedded but {facts.standalone_reason}: embedded documents cannot be "
            "listed or updated on their own efficiently (Zola's 6 Rules of Thumb, part 3: needing to access an object on its own "
            "is a compelling reason not to embed it)"
        )
    if strategy == "bucket" and many.timeseries is None:
        out.append(f"bucket needs {many.name} to be a time series (declare timeseries.time_field)")
    return out


def _flat_name(ctx: Context, plan: RelPlan, d: Denormalization, taken: set[str]) -> str:
    base = d.field.split(".")[-1]
    if base not in taken:
        return base
    role = plan.facts.rel.inverse or snake(plan.facts.one.name)
    return f"{role}_{base}"


def _plan_copies(ctx: Context, plan: RelPlan) -> None:
    """Where each declared denormalization lands for this strategy (rules 11-16)."""
    facts, s = plan.facts, ctx.settings
    one, many, rel = facts.one, facts.many, facts.rel
    taken: set[str] | None = None  # the N's field names, once a flat copy needs a name beside them
    seen: set[tuple[str, str]] = set()
    for d in rel.denormalize:
        key = (d.field, d.direction)
        if key in seen:
            continue
        seen.add(key)
        if d.direction == "many-to-one":
            source, target = many, one
            f = ctx.field(many.id, d.field)
            if plan.strategy == "embed":
                plan.dropped.append((d, f"{many.name} is embedded in {one.name}: the field is already there"))
                continue
            if plan.strategy in ("child-refs", "two-way"):
                location = "child-array"
            elif plan.strategy == "subset":
                location = "subset"
            else:
                plan.dropped.append(
                    (
                        d,
                        f"with {plan.strategy} the {one.name} holds no array of {many.name} to "
                        "copy into; keep a bounded subset (show_latest) instead",
                    )
                )
                continue
            name = d.field.split(".")[-1]
            copies = 1.0 if rel.cardinality != "many-to-many" else float(facts.n_typ)
        else:
            source, target = one, many
            f = ctx.field(one.id, d.field)
            if plan.strategy == "embed":
                plan.dropped.append((d, f"{many.name} is embedded in {one.name}: the field is already there"))
                continue
            if taken is None:
                taken = {f.name for f in many.fields}
            if plan.strategy == "extended-ref":
                location, name = "extended", d.field.split(".")[-1]
            else:
                location, name = "flat", _flat_name(ctx, plan, d, taken)
            taken.add(name)
            copies = float(facts.n_typ)
        rw = rw_ratio(ctx, source, d.field, target)
        cp = CopyPlan(d, source, target, name, location, rw=rw, copies_per_update=copies, field=f)
        updates = 0.0 if (f is not None and f.immutable) else (f.updates_per_sec if f is not None else None)
        cp.fanout = None if updates is None else updates * copies
        if d.staleness == "forever":
            cp.sync = "none"  # a point-in-time value: copied at insert, never synced
        elif (f is not None and f.immutable) or (
            rw is not None
            and effectively_immutable(rw, f, s.immutable_rw_factor * s.denorm_rw_min)
            and d.direction == "one-to-many"
            and rel.cardinality == "one-to-squillions"
        ):
            cp.sync = "none"
        elif d.staleness == "days":
            cp.sync = "scheduled"
        else:
            cp.sync = "application"
        plan.copies.append(cp)
    if plan.strategy == "subset" and not any(cp.location == "subset" for cp in plan.copies):
        # Zola-2 pushes {time, message}: the N's own scalar fields are the subset's elements
        for f in many.fields:
            if f.type in ("object", "array"):
                continue
            # a declared field name and fixed literals: nothing to validate, and validation costs more than the rest
            d = Denormalization.model_construct(field=f.name, direction="many-to-one", staleness="seconds")
            plan.copies.append(
                CopyPlan(
                    d,
                    many,
                    one,
                    f.name,
                    "subset",
                    sync="application",
                    rw=None,
                    copies_per_update=1.0,
                    field=f,
                    implied=True,
                )
            )


def bucket_entity_wanted(ctx: Context, entity: Entity) -> bool:
    """A time series entity without a relationship is bucketed on its own meta field."""
    if entity.timeseries is None or ctx.rels_of_many.get(entity.id):
        return False
    return bucket_wanted(ctx, entity)
