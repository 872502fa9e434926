"""Precomputed facts about a project, shared by the resolver and every rule.

Built once per ``analyse`` call so that each rule runs in time proportional
to the part of the model it looks at (maps instead of scans).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from modeller.model.labels import query_words
from modeller.model.paths import all_fields
from modeller.model.project import Entity, Field, Project, Query, Relationship
from modeller.rules.physical.attributes import AttributeGroup, attribute_groups
from modeller.rules.physical.naming import former_parent_ref_field, parent_ref_field, plural_label, snake
from modeller.rules.settings import Settings

NUMERIC_TYPES = frozenset({"int", "long", "double", "decimal"})


@dataclass(slots=True)
class RelFacts:
    """One relationship with its annotations resolved to numbers (defaults filled in)."""

    rel: Relationship
    one: Entity
    many: Entity
    #: upper bound of N per One used for sizes (declared ``max`` or the cardinality default)
    n_max: int
    #: typical N per One (``typical``, else count ratio, else a share of ``n_max``)
    n_typ: int
    max_declared: bool
    unbounded: bool
    read_together: float
    #: the N side is read, listed or updated on its own
    standalone: bool
    #: why ``standalone`` holds (for messages)
    standalone_reason: str
    self_ref: bool
    #: a query on the N side filters by its reference to the One
    many_needs_one: bool
    #: ``rel.id``, ``one.id``, ``many.id`` read once (a pydantic attribute read costs several dict lookups and the
    #: resolver reads these tens of thousands of times)
    rel_id: str = ""
    one_id: str = ""
    many_id: str = ""
    #: a query on the N side needs its One's document: it joins the relationship for fields not copied into the N
    many_reads_one: bool = False
    #: the One side reads its N: a query of the One joins the relationship, or a declared ``read_together`` is above 0
    one_reads_many: bool = False
    #: ``n_typ`` is the count ratio (N count / One count): neither ``typical`` nor ``max`` is declared
    n_from_counts: bool = False


@dataclass(slots=True)
class Context:
    """The project plus the maps rules need; ``design``/``plans`` are filled by the resolver."""

    project: Project
    settings: Settings
    entities: dict[str, Entity] = field(default_factory=dict)
    entity_order: dict[str, int] = field(default_factory=dict)
    rels: list[RelFacts] = field(default_factory=list)
    rel_by_id: dict[str, RelFacts] = field(default_factory=dict)
    rels_of_one: dict[str, list[RelFacts]] = field(default_factory=dict)
    rels_of_many: dict[str, list[RelFacts]] = field(default_factory=dict)
    queries: list[Query] = field(default_factory=list)
    queries_of: dict[str, list[Query]] = field(default_factory=dict)
    fields_of: dict[str, dict[str, Field]] = field(default_factory=dict)
    #: relationship id -> queries that declare they traverse it
    queries_joining: dict[str, list[Query]] = field(default_factory=dict)
    server_version: float | None = None
    #: entity id -> (entity, its groups of similar fields): the shape builder and the attribute pattern rule
    #: read them; the entity object is kept to tell an edited entity (a new object, same id) from the one the
    #: entry was made for. Keyed by the entity's id, an edit replaces its entry: one per entity, however long the
    #: incremental session that patches this context in place
    _attribute_groups: dict[str, tuple[Entity, list[AttributeGroup]]] = field(default_factory=dict)
    #: entity id -> (entity, (average, maximum) bytes of its own fields as one document): ``plans.base_bytes``,
    #: asked for every relationship of an entity (its plans, the array warnings, an incremental re-plan); kept
    #: like ``_attribute_groups``
    base_sizes: dict[str, tuple[Entity, tuple[int, int]]] = field(default_factory=dict)

    @property
    def version_known_at_least_5(self) -> bool:
        return self.server_version is not None and self.server_version >= self.settings.ts_min_version

    def field(self, entity_id: str, path: str) -> Field | None:
        paths = self.fields_of.get(entity_id)
        return None if paths is None else paths.get(path)

    def attribute_groups(self, entity: Entity) -> list[AttributeGroup]:
        """The groups of similar fields of ``entity`` (``physical.attributes``), computed once per analysis."""
        known = self._attribute_groups.get(entity.id)
        if known is None or known[0] is not entity:
            known = (entity, attribute_groups(entity.fields, self.settings.attribute_min))
            self._attribute_groups[entity.id] = known
        return known[1]

    def is_hot(self, query: Query) -> bool:
        return query.hot or (query.per_sec or 0) >= self.settings.hot_per_sec


def _version(text: str | None) -> float | None:
    if not text:
        return None
    parts = text.split(".")
    try:
        return float(parts[0] + "." + (parts[1] if len(parts) > 1 else "0"))
    except ValueError:
        return None


def _default_max(rel: Relationship, settings: Settings) -> int:
    return {
        "one-to-one": 1,
        "one-to-few": settings.default_few,
        "one-to-many": settings.default_many,
        "one-to-squillions": settings.default_squillions,
        "many-to-many": settings.default_many_to_many,
    }[rel.cardinality]


@dataclass(slots=True)
class ContextCache:
    """Per-object results kept between analyses (``engine.Analyser``); keyed by object identity."""

    #: entity id -> (entity, its dotted paths)
    fields: dict[str, tuple[Entity, dict[str, Field]]] = field(default_factory=dict)
    #: relationship id -> (rel, one, many, queries of many..., facts)
    facts: dict[str, tuple[Any, ...]] = field(default_factory=dict)


def build_context(project: Project, settings: Settings, cache: ContextCache | None = None) -> Context:
    """Index the project; tolerate dangling references (a half-edited model must not crash)."""
    ctx = Context(project=project, settings=settings, server_version=_version(project.server_version))
    old_fields = cache.fields if cache is not None else {}
    new_fields: dict[str, tuple[Entity, dict[str, Field]]] = {}
    # model attributes are read once into locals: each pydantic attribute read costs a few dict lookups
    entities, rels_of_one, rels_of_many, queries_of = ctx.entities, ctx.rels_of_one, ctx.rels_of_many, ctx.queries_of
    for i, entity in enumerate(project.entities):
        eid = entity.id
        if eid in entities:
            continue
        entities[eid] = entity
        ctx.entity_order[eid] = i
        known = old_fields.get(eid)
        if known is None or known[0] is not entity:
            known = (entity, field_paths(entity))
        new_fields[eid] = known
        ctx.fields_of[eid] = known[1]
        rels_of_one[eid] = []
        rels_of_many[eid] = []
        queries_of[eid] = []
    for query in project.queries:
        own = queries_of.get(query.entity)
        if own is not None:
            ctx.queries.append(query)
            own.append(query)
            for rel_id in dict.fromkeys(query.joins):
                ctx.queries_joining.setdefault(rel_id, []).append(query)
    old_facts = cache.facts if cache is not None else {}
    new_facts: dict[str, tuple[Any, ...]] = {}
    rel_by_id = ctx.rel_by_id
    for rel in project.relationships:
        one, many = entities.get(rel.one), entities.get(rel.many)
        rid = rel.id
        if one is None or many is None or rid in rel_by_id:
            continue
        key = (rel, one, many, *queries_of[many.id], None, *queries_of[one.id])
        entry = old_facts.get(rid)
        if entry is None or len(entry) != len(key) + 1 or not all(map(operator.is_, key, entry)):
            entry = (*key, _facts(ctx, rel, one, many))
        new_facts[rid] = entry
        facts = entry[-1]
        ctx.rels.append(facts)
        rel_by_id[rid] = facts
        rels_of_one[one.id].append(facts)
        rels_of_many[many.id].append(facts)
    if cache is not None:
        cache.fields, cache.facts = new_fields, new_facts
    return ctx


def field_paths(entity: Entity) -> dict[str, Field]:
    """``dict(iter_paths(all_fields(entity)))`` without a generator per field (the same keys, order and values)."""
    out: dict[str, Field] = {}
    _add_paths(all_fields(entity), "", out)
    return out


def _add_paths(fields: Iterable[Field], prefix: str, out: dict[str, Field]) -> None:
    for f in fields:
        path = prefix + f.name
        out[path] = f
        below = f.fields
        items = f.items
        while not below and items is not None:
            below, items = items.fields, items.items
        if below:
            _add_paths(below, path + ".", out)


def refacts(ctx: Context, rel: Relationship) -> tuple[RelFacts, tuple[Any, ...]]:
    """New facts of a relationship whose ends resolve (an incremental patch), with their cache entry."""
    one, many = ctx.entities[rel.one], ctx.entities[rel.many]
    facts = _facts(ctx, rel, one, many)
    return facts, (rel, one, many, *ctx.queries_of[many.id], None, *ctx.queries_of[one.id], facts)


def _facts(ctx: Context, rel: Relationship, one: Entity, many: Entity) -> RelFacts:
    settings = ctx.settings
    cardinality, declared_max, typical, growth = rel.cardinality, rel.max, rel.typical, rel.growth
    n_max = declared_max if declared_max is not None else _default_max(rel, settings)
    from_counts = False
    if typical is not None:
        n_typ = typical
    elif one.count and many.count is not None and cardinality != "many-to-many":
        n_typ = max(1, math.ceil(many.count / one.count))
        n_typ = min(n_typ, n_max) if declared_max is not None else n_typ
        from_counts = declared_max is None
    else:
        n_typ = max(1, n_max // 2) if cardinality != "one-to-one" else 1
    if declared_max is None:  # the default bound is no bound below the typical number (no average above the max)
        n_max = max(n_max, n_typ)
    unbounded = growth == "unbounded" or (growth is None and cardinality == "one-to-squillions")
    read_together = float(rel.read_together) if rel.read_together is not None else 1.0
    standalone, reason = _standalone(ctx, rel, one, many)
    one_id, many_id, rid = one.id, many.id, rel.id
    many_queries = ctx.queries_of[many_id]
    many_needs_one = False
    if many_queries:  # (most N have no query: their reference's names are not made)
        refs = {parent_ref_field(rel, one), former_parent_ref_field(rel, one)}
        many_needs_one = any(
            q.scope == rid or not refs.isdisjoint(q.filter) or any(k in refs for k, _ in q.sort) for q in many_queries
        )
    return RelFacts(
        rel,
        one,
        many,
        n_max,
        n_typ,
        declared_max is not None,
        unbounded,
        read_together,
        standalone,
        reason,
        one_id == many_id,
        many_needs_one,
        rid,
        one_id,
        many_id,
        any(_needs_one(rel, one, q) for q in many_queries if rid in q.joins),
        (rel.read_together is not None and read_together > 0) or any(rid in q.joins for q in ctx.queries_of[one_id]),
        from_counts,
    )


def too_many_ids(facts: RelFacts, settings: Settings) -> bool:
    """The N of one One are more than an array of ids should hold (RULES.md §2 row 36, ``refarray_max``).

    A declared or default bound above the threshold is too many; so is a typical number at it when no bound
    is declared (an average of 2,000 Messages per User from the counts: half the Users hold more).
    """
    if facts.n_max > settings.refarray_max:
        return True
    return not facts.max_declared and facts.n_typ >= settings.refarray_max


def insert_rate(facts: RelFacts) -> float | None:
    """New N per second linked to a One: the relationship's writes, else the N entity's."""
    rel = facts.rel
    if rel.writes_per_sec is not None:
        return rel.writes_per_sec
    return facts.many.writes_per_sec


def how_many(facts: RelFacts) -> str:
    """The number of N per One in words, saying where it comes from: "up to 5,000" or, from the counts,
    "about 2,000 on average (2,000,000,000 Messages / 1,000,000 Users)"."""
    if facts.n_from_counts:
        return (
            f"about {facts.n_typ:,} on average ({facts.many.count:,} {plural_label(facts.many.name)} / "
            f"{facts.one.count:,} {plural_label(facts.one.name)})"
        )
    if not facts.max_declared and facts.n_typ >= facts.n_max:
        return f"about {facts.n_typ:,} on average"
    return f"up to {facts.n_max:,}"


def ones_per_many(facts: RelFacts) -> int:
    """Typical number of Ones one N belongs to: 1, or for a many-to-many the links (One count x N per One) shared
    among the N (100,000 Rooms of 30 Users among 1,000,000 Users: 3 Rooms each); without counts, as many as N
    per One (read as symmetric)."""
    if facts.rel.cardinality != "many-to-many":
        return 1
    ones, manys = facts.one.count, facts.many.count
    if ones and manys:
        return max(1, math.ceil(ones * facts.n_typ / manys))
    return facts.n_typ


def _needs_one(rel: Relationship, one: Entity, query: Query) -> bool:
    """``query`` (on the N side, joining ``rel``) reads a field of the One that no one-to-many copy brings along.

    A query that joins without naming a field of the One (``owner.name``) needs the whole One document.
    """
    heads = {rel.inverse or snake(one.name), snake(one.name)}
    read = []
    for path in (*query.projection, *query.filter, *(k for k, _ in query.sort)):
        head, _, rest = path.partition(".")
        if rest and head in heads:
            read.append(rest)
    if not read:
        return True
    copied = {d.field for d in rel.denormalize if d.direction == "one-to-many"}
    return any(p not in copied for p in read)


def _standalone(ctx: Context, rel: Relationship, one: Entity, many: Entity) -> tuple[bool, str]:
    if rel.many_standalone:
        return True, f"{plural_label(many.name)} are read on their own (“Many side accessed on its own” is set)"
    # a query scoped to this relationship reads the N of one One ("comments of a post"): what embedding serves
    own = next((q for q in ctx.queries_of.get(many.id, ()) if q.scope != rel.id), None)
    if own is not None:
        return True, f"query {query_words(own, many.name)} reads {many.name} on its own"
    if rel.cardinality == "many-to-many":
        return True, f"each {many.name} belongs to several {one.name} (many-to-many)"
    return False, ""


def numeric_fields(fields: Iterable[Field]) -> list[Field]:
    return [f for f in fields if f.type in NUMERIC_TYPES]
