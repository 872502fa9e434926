"""The shard-key advisor: which collections outgrow one replica set, and the key each should be sharded on.

Pure: it reads the indexed project, the resolved design and the query plans
(``Design.queries``) and never names a rule. For each collection the user
marks (an entity ``shard_key``) or whose projected size or write rate exceeds
what one replica set serves (``Settings.shard_collection_bytes``,
``shard_writes_per_sec``), it scores candidate keys on cardinality
(``distinct``, a reference's number of Ones, a unique field's count),
frequency (the share of documents holding the commonest value), monotonicity
under inserts, immutability, and the share of declared query traffic each
candidate sends to one shard. Hashed or ranged is chosen with its reason. A
key the server refuses (a unique index it does not prefix, an array field) is
never chosen: the user's own key is kept unless it is refused, and the rules
report on it either way. Time series collections shard on their metaField.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from modeller.model.names import snake
from modeller.model.project import Entity, Field
from modeller.rules.physical.design import CollectionDesign, Design
from modeller.rules.physical.facts import Context
from modeller.rules.physical.planner import Param, QueryPlan, Ref

if TYPE_CHECKING:
    from modeller.rules.physical.resolver import Resolution

#: top-level field names that place a document in a region: zone sharding can pin their ranges to shards
REGION_NAMES = ("region", "country", "continent", "zone", "datacenter", "data_center", "location", "geo")
#: words of a date field's name that say it holds the time its document was written: in an append-only entity
#: such a field only grows with the inserts, as a timestamp key does (rule 44), whether or not it is marked
WRITE_TIME_WORDS = frozenset(
    {"created", "inserted", "timestamp", "ts", "time", "occurred", "received", "logged", "recorded", "written"}
)
_RANGE_OPS = ("$gte", "$gt", "$lt", "$lte")
_ARRAY_TYPES = ("array",)


@dataclass(frozen=True, slots=True)
class KeyField:
    """One field of a candidate key: its physical path, its words for the user, and what the model says of it."""

    path: str
    label: str
    cardinality: int | None
    top_share: float | None
    monotonic: bool
    immutable: bool


@dataclass(slots=True)
class Candidate:
    """A shard key the advisor considered, with its scores (each 0..1) and the reasons it was or was not chosen."""

    fields: tuple[KeyField, ...]
    hashed: bool = False
    user: bool = False
    targeted: float = 0.0
    #: documents of the collection: no key has more distinct values than that
    documents: int | None = None
    #: per-second weight of the declared reads that read ranges of (or sort by) the key's first field
    range_reads: float = 0.0
    cardinality: float = 0.0
    frequency: float = 0.0
    spread: float = 0.0
    immutable: float = 0.0
    score: float = 0.0
    #: why the server would refuse this key (a unique index it does not prefix, an array field); empty: allowed
    refused: list[str] = field(default_factory=list)
    #: query ids whose main read this key sends to one shard (or a range of shards)
    targeted_queries: list[str] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.fields]

    @property
    def keys(self) -> list[tuple[str, Any]]:
        """The key as ``sh.shardCollection`` takes it: ``[(path, 1)]`` ranged, ``[(path, "hashed")]`` hashed."""
        return [(f.path, "hashed" if self.hashed and i == 0 else 1) for i, f in enumerate(self.fields)]

    @property
    def label(self) -> str:
        return ", ".join(f.label for f in self.fields) + (" (hashed)" if self.hashed else "")

    @property
    def key_cardinality(self) -> int | None:
        """Distinct values of the whole key: the product of its fields' (None when one is unknown)."""
        total = 1
        for f in self.fields:
            if f.cardinality is None:
                return None
            total *= f.cardinality
        return total if self.documents is None else min(total, max(self.documents, 1))

    @property
    def key_top_share(self) -> float | None:
        """Share of documents holding the commonest key value: a compound key's values split the first field's."""
        shares = [f.top_share for f in self.fields if f.top_share is not None]
        return min(shares) if shares else None

    @property
    def monotonic(self) -> bool:
        return bool(self.fields) and self.fields[0].monotonic

    def to_json(self) -> dict[str, Any]:
        return {
            "key": [[k, v] for k, v in self.keys],
            "fields": [f.label for f in self.fields],
            "user": self.user,
            "cardinality": self.key_cardinality,
            "top_share": None if self.key_top_share is None else round(self.key_top_share, 4),
            "monotonic": self.monotonic,
            "immutable": all(f.immutable for f in self.fields),
            "targeted_share": round(self.targeted, 3),
            "targeted_queries": list(self.targeted_queries),
            "scores": {
                "targeting": round(self.targeted, 3),
                "cardinality": round(self.cardinality, 3),
                "frequency": round(self.frequency, 3),
                "spread": round(self.spread, 3),
                "immutability": round(self.immutable, 3),
                "total": round(self.score, 3),
            },
            "refused": list(self.refused),
        }


@dataclass(slots=True)
class ShardAdvice:
    """The advisor's answer for one collection."""

    collection: str
    entity: str
    #: why the collection is sharded: "marked" (the user gave a key) or "size" (it outgrows one replica set)
    reason: str
    why: str
    shards: int
    inserts_per_sec: float
    candidates: list[Candidate]
    chosen: Candidate | None
    #: the key the user declared (also in ``candidates``), None when the engine chose alone
    user: Candidate | None = None
    #: the region-like field zone sharding could use as the key's prefix
    zone_field: str | None = None
    #: a time series collection: the metaField it is sharded on, or the timeField the user chose
    time_field: str | None = None
    meta_field: str | None = None

    def key_json(self) -> list[list[Any]] | None:
        return None if self.chosen is None else [[k, v] for k, v in self.chosen.keys]

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "why": self.why,
            "shards": self.shards,
            "inserts_per_sec": self.inserts_per_sec,
            "chosen": None if self.chosen is None else self.chosen.label,
            "zone_field": self.zone_field,
            "candidates": [c.to_json() for c in self.candidates],
        }


def advise_shards(ctx: Context, design: Design, res: Resolution) -> dict[str, ShardAdvice]:
    """Collection name -> the advice, for every collection that is or should be sharded (project order)."""
    out: dict[str, ShardAdvice] = {}
    plans_of: dict[str, list[QueryPlan]] = {}
    for plan in design.queries:
        plans_of.setdefault(plan.collection, []).append(plan)
    for coll in design.collections:
        entity = ctx.entities.get(coll.root)
        if entity is None:
            continue
        advice = _advise(ctx, res, coll, entity, plans_of.get(coll.name, []))
        if advice is not None:
            out[coll.name] = advice
    return out


def _advise(
    ctx: Context, res: Resolution, coll: CollectionDesign, entity: Entity, plans: list[QueryPlan]
) -> ShardAdvice | None:
    s = ctx.settings
    count = coll.count if coll.count is not None else (entity.count or 0)
    size = count * coll.avg_bytes
    writes = entity.writes_per_sec or 0.0
    inserts = writes if writes else (entity.growth_per_day or 0.0) / 86_400
    if entity.shard_key:
        reason = "marked"
        why = f"{entity.name} declares the shard key {', '.join(entity.shard_key)}"
    elif size >= s.shard_collection_bytes:
        reason = "size"
        why = (
            f"{entity.name} is projected at {size / 1000**4:.1f} TB, at or above the {s.shard_collection_bytes / 1000**4:g}"
            " TB from which the Manual advises sharding"
        )
    elif writes >= s.shard_writes_per_sec:
        reason = "size"
        why = f"{entity.name} takes {writes:,.0f} writes/s, at or above the {s.shard_writes_per_sec:,.0f}/s one primary serves"
    else:
        return None
    shards = ctx.project.shards or s.shards_default
    fields = _key_fields(ctx, res, coll, entity, count)
    ts = coll.timeseries or {}
    meta = ts.get("metaField")
    time_field = ts.get("timeField")
    candidates = _candidates(res, coll, entity, fields, plans, meta, count)
    for c in candidates:
        _score(ctx, c, plans, shards, inserts)
    allowed = [c for c in candidates if not c.refused]
    user = next((c for c in candidates if c.user), None)
    chosen: Candidate | None
    if user is not None and not user.refused:
        chosen = user
    elif meta is not None:
        chosen = next((c for c in allowed if c.paths[:1] == [meta]), None)
    else:
        # equal scores: the finer key (more distinct values) splits large groups into more chunks
        chosen = max(allowed, key=lambda c: (c.score, c.key_cardinality or 0), default=None)
    zone = next((f.path for f in fields.values() if f.path.lower() in REGION_NAMES), None)
    return ShardAdvice(
        coll.name,
        entity.id,
        reason,
        why,
        shards,
        inserts,
        candidates,
        chosen,
        user,
        zone,
        time_field if isinstance(time_field, str) else None,
        meta if isinstance(meta, str) else None,
    )


def _key_fields(
    ctx: Context, res: Resolution, coll: CollectionDesign, entity: Entity, count: int
) -> dict[str, KeyField]:
    """Physical path -> what the model says of each top-level field that can be in a shard key (no arrays)."""
    out: dict[str, KeyField] = {"_id": KeyField("_id", "_id", count or None, 1 / count if count else None, True, True)}
    arrays = res.array_paths.get(coll.name, set())
    for f in entity.fields:
        path = res.resolve_path(entity.id, f.name)
        if path is None or "." in path or path in arrays or f.type in _ARRAY_TYPES or f.type == "object":
            continue
        monotonic = f.monotonic or _write_time(entity, f)
        card = _field_cardinality(f, count, monotonic)
        out[path] = KeyField(path, f.name, card, 1 / card if card else None, monotonic, _immutable(entity, f))
    # a reference to a One: as many values as Ones, the commonest holds the largest group of Ns
    for facts in ctx.rels_of_many.get(entity.id, []):
        one_count = facts.one.count
        path = _reference_path(res, entity.id, facts.one.id, facts.rel_id)
        if path is None or path in arrays:
            continue
        top = facts.n_max / count if count and facts.n_max else None
        own = out.get(path)
        if own is None:
            out[path] = KeyField(path, path, one_count, top, False, True)  # the reference's name in the shape
        elif own.cardinality is None:  # a declared field that is the reference (tenant_id): as many values as Ones
            out[path] = KeyField(path, own.label, one_count, top, own.monotonic, True)
    return out


def _reference_path(res: Resolution, entity_id: str, one_id: str, rel_id: str) -> str | None:
    """The top-level path of the N's reference to its One, when the design stores one in the N's documents."""
    plan = res.plans.get(rel_id)
    if plan is None or plan.strategy not in ("parent-ref", "two-way", "extended-ref", "subset"):
        return None
    for route in res.builder.routes.get(entity_id, {}).values():
        if route.rel != rel_id:
            continue
        ref = (route.only or {}).get("_id")  # the reference as the One's ``_id`` seen from the N: ``tenant_id``
        if ref is not None and "." not in ref:
            return ref
    del one_id
    return None


def _field_cardinality(f: Field, count: int, monotonic: bool) -> int | None:
    if f.unique:
        return count or None
    if f.distinct:
        return f.distinct
    if f.enum:
        return len(f.enum)
    if f.type == "bool":
        return 2
    if monotonic:
        return count or None  # timestamps and counters: about one value per document
    return None


def _immutable(entity: Entity, f: Field) -> bool:
    """Whether the field's values never change: marked, never updated, or in an entity nothing updates."""
    return entity.append_only or f.immutable or (f.updates_per_sec is not None and f.updates_per_sec == 0)


def _write_time(entity: Entity, f: Field) -> bool:
    """An append-only entity's date field that holds the time of the insert (its time series timeField, or a name
    like ``created_at``, ``ts``): its values only grow with the inserts."""
    if not entity.append_only and entity.timeseries is None:
        return False
    if entity.timeseries is not None and f.name == entity.timeseries.time_field:
        return True
    return f.type == "date" and bool(WRITE_TIME_WORDS.intersection(snake(f.name).split("_")))


def _candidates(
    res: Resolution,
    coll: CollectionDesign,
    entity: Entity,
    fields: dict[str, KeyField],
    plans: list[QueryPlan],
    meta: Any,
    count: int,
) -> list[Candidate]:
    """The user's key, each field a hot read filters on by equality, unique-index prefixes, the metaField, ``_id``."""
    seen: set[tuple[str, ...]] = set()
    out: list[Candidate] = []

    def add(paths: list[str], user: bool = False) -> None:
        key = tuple(paths)
        if not paths or key in seen:
            return
        known = [fields.get(p) for p in paths]
        if any(k is None for k in known):
            if not user:
                return
            known = [k or KeyField(p, p, None, None, False, False) for k, p in zip(known, paths, strict=True)]
        seen.add(key)
        out.append(Candidate(tuple(k for k in known if k is not None), user=user, documents=count or None))

    if entity.shard_key:
        add([res.resolve_path(entity.id, k) or k for k in entity.shard_key], user=True)
    if isinstance(meta, str):
        add([meta])
    for plan in plans:
        for path, value in plan.steps[plan.main].filter.items():
            if _is_equality(value):
                add([path])
    # the value a hot read is scoped to, then the field it reads ranges of or sorts by ({tenant_id: 1,
    # created_at: 1}): the read goes to the few shards of one tenant, and inserts spread across tenants; made
    # before the ``X, _id`` keys below, so an equal score goes to the key that keeps the read's range together
    for plan in plans:
        main = plan.steps[plan.main]
        ordered = [k for k, _ in main.sort] + [p for p, v in main.filter.items() if _is_range(v)]
        for path, value in main.filter.items():
            if _is_equality(value) and ordered and ordered[0] != path:
                add([path, ordered[0]])
    for idx in coll.indexes:
        if idx.unique:
            add([k for k, _ in idx.keys[:1]])
            add([k for k, _ in idx.keys])
    # a low-cardinality field made fine-grained by a unique suffix (the Manual's {customer_id, order_id})
    for c in list(out):
        card = c.key_cardinality
        if len(c.fields) == 1 and c.fields[0].path != "_id" and (card is None or card < (entity.count or 0)):
            add([*c.paths, "_id"])
    add(["_id"])
    uniques = [[k for k, _ in idx.keys] for idx in coll.indexes if idx.unique]
    arrays = res.array_paths.get(coll.name, set())
    for c in out:
        for keys in uniques:
            if keys[: len(c.paths)] != c.paths:
                c.refused.append(f"the unique index on {', '.join(keys)} does not start with the key")
        for p in c.paths:
            if p in arrays:
                c.refused.append(f"{p} is an array: a shard key index cannot be multikey")
    return out


def _is_equality(value: Any) -> bool:
    if isinstance(value, (Param, Ref, str, int, float, bool)):
        return True
    return isinstance(value, dict) and ("$in" in value or "$eq" in value)


def _is_range(value: Any) -> bool:
    return isinstance(value, dict) and any(op in value for op in _RANGE_OPS)


def _score(ctx: Context, c: Candidate, plans: list[QueryPlan], shards: int, inserts: float) -> None:
    """Fill the candidate's scores, choose hashed or ranged, and its share of targeted query traffic."""
    s = ctx.settings
    first = c.paths[0]
    range_reads = sum(
        _weight(p)
        for p in plans
        if _is_range(p.steps[p.main].filter.get(first)) or any(k == first for k, _ in p.steps[p.main].sort)
    )
    # hashing spreads a monotonic single key's inserts over every shard; it turns range reads on the key into
    # scatter-gather, so a key read by ranges more often than it is inserted stays ranged (and rule 44 warns)
    c.range_reads = range_reads
    c.hashed = len(c.fields) == 1 and c.monotonic and (not range_reads or range_reads < inserts)
    total = sum(_weight(p) for p in plans)
    hit = 0.0
    for p in plans:
        value = p.steps[p.main].filter.get(first)
        if _is_equality(value) or (not c.hashed and _is_range(value)):
            hit += _weight(p)
            c.targeted_queries.append(p.id)
    c.targeted = hit / total if total else 0.0
    card = c.key_cardinality
    limit = s.shard_cardinality_factor * shards
    c.cardinality = 0.5 if card is None else (0.0 if card <= shards else 0.5 if card <= limit else 1.0)
    top = c.key_top_share
    c.frequency = 0.5 if top is None else (0.0 if top >= s.shard_top_share else 1.0)
    c.spread = 0.0 if c.monotonic and not c.hashed and inserts >= s.shard_heavy_inserts else 1.0
    c.immutable = 1.0 if all(f.immutable for f in c.fields) else 0.5
    c.score = (
        s.shard_weight_targeting * c.targeted
        + s.shard_weight_cardinality * c.cardinality
        + s.shard_weight_frequency * c.frequency
        + s.shard_weight_monotonic * c.spread
        + s.shard_weight_immutable * c.immutable
    )
    if c.refused:
        c.score = 0.0
    c.score = math.floor(c.score * 1000 + 0.5) / 1000


def _weight(plan: QueryPlan) -> float:
    return plan.per_sec if plan.per_sec else 1.0


def range_targeted(advice: ShardAdvice, plan: QueryPlan) -> str | None:
    """The key field a query reads a range of, when the chosen key hashes it (a scatter-gather range)."""
    c = advice.chosen
    if c is None or not c.hashed:
        return None
    value = plan.steps[plan.main].filter.get(c.paths[0])
    return c.paths[0] if _is_range(value) else None


def better_key(advice: ShardAdvice, key: Candidate) -> Candidate | None:
    """The best-scoring allowed candidate that scores above ``key`` and sends more of the declared reads to one
    shard, else None (a key that differs by immutability alone is not worth a change)."""
    best = max(
        (c for c in advice.candidates if not c.refused and c is not key and c.targeted > key.targeted),
        key=lambda c: (c.score, c.key_cardinality or 0),
        default=None,
    )
    return best if best is not None and best.score > key.score else None


def targets(advice: ShardAdvice, plan: QueryPlan) -> bool:
    """The chosen key routes the query's own read to one shard (or a range of shards)."""
    return advice.chosen is not None and plan.id in advice.chosen.targeted_queries
