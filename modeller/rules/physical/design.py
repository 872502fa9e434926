"""The resolved physical design: what the engine decided, for exporters and the GUI.

``analyse(project)`` returns the findings and a :class:`Design`. Exporters generate only from the Design (never from the raw
model), so the script, the samples and the diagram always agree with the advice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from modeller.rules.physical.planner import QueryPlan, WritePlan
    from modeller.rules.physical.shardkey import ShardAdvice

#: How a node of a document shape came to be.
Role = Literal[
    "id",  # the document's _id
    "field",  # a field the user declared on the entity
    "embedded",  # a related entity stored inside this document (object or array of objects)
    "child-refs",  # array of references to documents of another collection
    "parent-ref",  # reference to the One side's document
    "extended-ref",  # sub-document {_id, copied fields} of the One side
    "subset",  # bounded array of the latest K related documents (copies)
    "denormalized",  # a copied field (value equals its source)
    "bucket-items",  # the array of grouped measurements in a bucket document
    "bucket-stat",  # count/sum/min/max/start/end of a bucket document
    "computed",  # a value summarizing related documents (computed pattern)
    "discriminator",  # the polymorphic type field
]

#: BSON type names as ``$jsonSchema`` ``bsonType`` spells them.
BsonType = Literal[
    "string", "int", "long", "double", "decimal", "bool", "date", "objectId", "object", "array", "binData"
]


@dataclass(frozen=True, slots=True)
class Source:
    """Where a copied value comes from: entity id and dotted field path (``_id`` allowed)."""

    entity: str
    path: str


@dataclass(frozen=True, slots=True)
class Computation:
    """A computed value: ``op`` over ``field`` of the N side of ``relationship``."""

    relationship: str
    op: Literal["count", "sum", "avg", "min", "max"]
    field: str | None


class _NoChildren(list):  # (of ShapeNode, defined below)
    """The one empty ``children`` list every node without children shares (issue 16, the engine's memory: most of
    the ~200,000 nodes of 10,000 entities are leaves, each held an empty list of its own). It never grows, so no
    leaf gains another's children: a node's children are set by assignment (``node.children = [...]``)."""

    __slots__ = ()

    def _refuse(self, *_args: object) -> None:
        raise TypeError("a node's children are set by assignment (node.children = [...]), not grown in place")

    append = extend = insert = __setitem__ = __iadd__ = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Callable[[], list[ShapeNode]], tuple[()]]:
        return _no_children, ()  # a copy (copy, deepcopy, pickle) is the shared list itself


_NO_CHILDREN = _NoChildren()


def _no_children() -> list[ShapeNode]:
    return _NO_CHILDREN


@dataclass(slots=True)
class ShapeNode:
    """One field of a resolved document shape (a tree).

    For an array, ``items`` describes the element; for an object (or an array
    of objects, through ``items``), ``children`` lists its properties.
    """

    name: str
    bson_type: BsonType
    role: Role = "field"
    #: the model's type where it differs from the BSON one ("uuid", "point")
    field_type: str | None = None
    required: bool = False
    unique: bool = False
    children: list[ShapeNode] = field(default_factory=_no_children)
    items: ShapeNode | None = None
    max_items: int | None = None
    enum: list[Any] | None = None
    #: entity the node's values describe (embedded / referenced / copied entity)
    entity: str | None = None
    relationship: str | None = None
    #: for references: the collection referenced
    ref_collection: str | None = None
    #: for copies (denormalized, extended-ref fields, subset elements): their source
    source: Source | None = None
    computation: Computation | None = None
    #: subtype this field belongs to (polymorphic collections)
    variant: str | None = None
    #: ordering for subset arrays, e.g. ("time", -1)
    sort: tuple[str, int] | None = None
    bytes: int | None = None
    faker: str | None = None
    example: Any = None
    description: str | None = None
    #: the value may also be null (the parent reference of a tree's root)
    nullable: bool = False
    #: BSON types the field also holds (its ``other_types``, "null" among them); the validator accepts each
    other_types: tuple[str, ...] = ()
    #: a field of a tree model derived from the parent chain: "ancestors", "path", "left" or "right"
    tree: str | None = None
    #: an array of ``{k, v}`` pairs that holds a group of similar fields (attribute pattern)
    attribute: bool = False
    #: a counter written once every this many events, by that amount (approximation pattern)
    write_every: int | None = None
    #: (average, maximum) bytes of the value without its name, as the shape builder sized it
    #: (``documents.ShapeBuilder.value_size``; 8 for a node it did not size). Kept on the node, not in a map by
    #: ``id(node)``: every node is sized once and read once by its parent's sum (speed only: the cold analysis)
    value_avg: int = field(default=8, repr=False, compare=False)
    value_max: int = field(default=8, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "bson_type": self.bson_type, "role": self.role}
        for key in (
            "field_type",
            "max_items",
            "enum",
            "entity",
            "relationship",
            "ref_collection",
            "variant",
            "bytes",
            "faker",
            "example",
            "description",
            "tree",
            "write_every",
        ):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.required:
            out["required"] = True
        if self.nullable:
            out["nullable"] = True
        if self.attribute:
            out["attribute"] = True
        if self.unique:
            out["unique"] = True
        if self.source is not None:
            out["source"] = {"entity": self.source.entity, "path": self.source.path}
        if self.computation is not None:
            c = self.computation
            out["computation"] = {"relationship": c.relationship, "op": c.op, "field": c.field}
        if self.sort is not None:
            out["sort"] = [self.sort[0], self.sort[1]]
        if self.children:
            out["children"] = [child.to_json() for child in self.children]
        if self.items is not None:
            out["items"] = self.items.to_json()
        return out


IndexKey = tuple[str, Any]  # (path, 1 | -1 | "text" | "2dsphere" | "hashed")


def walk_shape(nodes: list[ShapeNode], path: str) -> tuple[list[str], list[ShapeNode]] | None:
    """The arrays met along dotted ``path`` (each path from the document's top) and the child nodes of its last
    part (through an array, its element's children); None when the shape has no such path."""
    arrays: list[str] = []
    walked: list[str] = []
    for part in path.split("."):
        node = next((n for n in nodes if n.name == part), None)
        if node is None:
            return None
        walked.append(part)
        if node.items is not None:
            arrays.append(".".join(walked))
            nodes = node.items.children
        else:
            nodes = node.children
    return arrays, nodes


@dataclass(slots=True)
class IndexDesign:
    """An index the design needs (the engine's) or keeps (the user's)."""

    keys: list[IndexKey]
    name: str
    unique: bool = False
    expire_after_s: int | None = None
    partial: dict[str, Any] | None = None
    collation: dict[str, Any] | None = None
    why: str = ""
    #: one reason per key, e.g. "Equality: filter user_id = ..." (ESR order)
    key_reasons: list[str] = field(default_factory=list)
    origin: Literal["user", "engine"] = "engine"
    #: ids of the rules and queries that asked for it
    rules: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "keys": [[k, v] for k, v in self.keys],
            "name": self.name,
            "unique": self.unique,
            "expire_after_s": self.expire_after_s,
            "partial": self.partial,
            "collation": self.collation,
            "why": self.why,
            "key_reasons": list(self.key_reasons),
            "origin": self.origin,
            "rules": list(self.rules),
            "queries": list(self.queries),
        }


@dataclass(slots=True)
class BucketDesign:
    """Bucket pattern: N measurements of one series grouped per document."""

    size: int
    series_field: str  # e.g. "sensor_id"
    items_field: str  # e.g. "readings"
    time_field: str  # time field inside each item
    value_field: str | None  # numeric field summarized by sum/min/max
    start_field: str = "start"
    end_field: str = "end"


@dataclass(slots=True)
class CollectionDesign:
    """One physical collection and the documents it holds."""

    name: str
    #: entity ids stored here: the root first, then those embedded in it
    entities: list[str]
    shape: list[ShapeNode]
    indexes: list[IndexDesign]
    validator: dict[str, Any]
    timeseries: dict[str, Any] | None = None
    shard_key: list[str] | None = None
    count: int | None = None
    avg_bytes: int = 0
    max_bytes: int = 0
    bucket: BucketDesign | None = None
    #: polymorphic collections: discriminator field and variant names
    discriminator: str | None = None
    variants: list[str] = field(default_factory=list)
    why: str = ""
    #: how the server applies the validator: ``strict`` checks every insert and update, ``moderate`` lets
    #: updates to already-invalid documents through (a schema migration in progress)
    validation_level: str = "strict"
    #: ``error`` rejects an invalid write, ``warn`` only logs it (tightening a validator step by step)
    validation_action: str = "error"
    #: the collection this one sits beside (revisions, archive): None for an entity's own collection
    companion_of: str | None = None

    @property
    def root(self) -> str:
        return self.entities[0]

    def defer_validator(self, make: Callable[[], dict[str, Any]]) -> None:
        """Let ``validator`` be ``make()``, computed on its first read (no rule reads it: exporters and the GUI do).

        Reading ``validator`` (directly, through ``to_json``, ``==``, ``repr`` or
        ``dataclasses.replace``) always gives the computed dict; ``make`` must
        only depend on what is final when it is deferred.
        """
        _VALIDATOR_SLOT.__set__(self, _Deferred(make))

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "entities": list(self.entities),
            "shape": [node.to_json() for node in self.shape],
            "indexes": [index.to_json() for index in self.indexes],
            "validator": self.validator,
            "timeseries": self.timeseries,
            "shard_key": self.shard_key,
            "count": self.count,
            "avg_bytes": self.avg_bytes,
            "max_bytes": self.max_bytes,
            "bucket": None
            if self.bucket is None
            else {
                "size": self.bucket.size,
                "series_field": self.bucket.series_field,
                "items_field": self.bucket.items_field,
                "time_field": self.bucket.time_field,
                "value_field": self.bucket.value_field,
                "start_field": self.bucket.start_field,
                "end_field": self.bucket.end_field,
            },
            "discriminator": self.discriminator,
            "variants": list(self.variants),
            "why": self.why,
            "validation_level": self.validation_level,
            "validation_action": self.validation_action,
        } | ({"companion_of": self.companion_of} if self.companion_of is not None else {})


class _Deferred:
    """A field value waiting to be computed (see :class:`_OnFirstRead`)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


class _OnFirstRead:
    """Stands in for a slot of a dataclass: a :class:`_Deferred` value is computed and stored on its first read."""

    def __init__(self, slot: Any) -> None:
        self.slot = slot

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = self.slot.__get__(obj, owner)
        if type(value) is _Deferred:
            value = value.make()
            self.slot.__set__(obj, value)
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        self.slot.__set__(obj, value)


# speed only, for DESIGN.md's "cold analysis near 250 ms at 1,000 entities": building every validator eagerly
# costs about 95 ms of a 320 ms analysis of 1,000 entities (865 collections), and no rule reads one
_VALIDATOR_SLOT = CollectionDesign.__dict__["validator"]
setattr(CollectionDesign, "validator", _OnFirstRead(_VALIDATOR_SLOT))  # noqa: B010 (mypy refuses a slot rebind)


SyncMethod = Literal["application", "change-stream", "scheduled", "none"]


@dataclass(frozen=True, slots=True)
class SyncUpdate:
    """The update that keeps a copy in sync, as data: export/ writes it as mongosh with its one quoting function."""

    kind: Literal["set", "push-latest", "insert"]
    collection: str  # collection updated
    filter_path: str  # field matched against the source's id ("_id" with ``ids_from``: the ids the source lists)
    set_path: str  # field (or array, for push-latest) written
    source_collection: str
    watched_field: str  # source field whose change triggers the update
    array_filter: str | None = None  # ``arrayFilters`` path of the array element, e.g. ``e.id``
    ids_from: str | None = None  # source array field listing the ids of the documents to update
    ids_are_objects: bool = False  # that array holds ``{id: ...}`` objects, not ids
    pushed: tuple[str, ...] = ()  # push-latest: fields copied into the new element
    sort_field: str = ""  # push-latest: field the array is kept sorted by
    keep: int = 0  # push-latest: how many elements stay
    #: push-latest: the elements keep the source's ``_id``: an edited source updates its copy, a deleted one is pulled
    by_id: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "collection": self.collection,
            "filter_path": self.filter_path,
            "set_path": self.set_path,
            "source_collection": self.source_collection,
            "watched_field": self.watched_field,
            "array_filter": self.array_filter,
            "ids_from": self.ids_from,
            "ids_are_objects": self.ids_are_objects,
            "pushed": list(self.pushed),
            "sort_field": self.sort_field,
            "keep": self.keep,
            "by_id": self.by_id,
        }


@dataclass(slots=True)
class DenormalizedCopy:
    """A field copied across a relationship, where it lands and how it is kept in sync."""

    field: str  # source field path on the source entity
    source_entity: str
    direction: Literal["many-to-one", "one-to-many"]
    staleness: str | None  # None: the user has not said whether the copy is synced or a point-in-time value
    collection: str  # collection holding the copy
    path: str  # dotted path of the copy in that collection's documents
    sync: SyncMethod
    sync_advice: str  # how the copy is maintained, in words
    fanout: float | None = None  # extra writes per second caused by the copy
    update: SyncUpdate | None = None  # the maintaining write as data (None: written once at insert)

    def staleness_text(self) -> str:
        """The staleness in words: an unset one is synced like ``hours`` until the user says otherwise."""
        return self.staleness or "not set (synced as for hours)"

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "source_entity": self.source_entity,
            "direction": self.direction,
            "staleness": self.staleness,
            "collection": self.collection,
            "path": self.path,
            "sync": self.sync,
            "sync_advice": self.sync_advice,
            "fanout": self.fanout,
            "update": None if self.update is None else self.update.to_json(),
        }


@dataclass(slots=True)
class RelationshipDesign:
    """How one relationship is stored, who chose it and why."""

    id: str
    strategy: str
    chosen_by: Literal["user", "engine"]
    rules: list[str]
    denormalized: list[DenormalizedCopy]
    why: str
    tradeoff: str = ""
    #: warnings when the user's explicit choice breaks a rule
    warnings: list[str] = field(default_factory=list)
    #: whether the design indexes the relationship's references, in words ("" when it keeps none): part of
    #: ``why`` and the sentence the reference rules' advice ends with, worked out once (``reference_index_words``)
    index_words: str = ""
    #: what the design does, where the strategy alone does not say it (the outlier pattern embeds up to a bound
    #: under parent-ref): the line's badge and the design text show it; empty: the strategy says it
    label: str = ""

    @property
    def shown(self) -> str:
        """The strategy as a reader sees it on the line: the label when there is one."""
        return self.label or self.strategy

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "strategy": self.strategy,
            "chosen_by": self.chosen_by,
            "rules": list(self.rules),
            "denormalized": [d.to_json() for d in self.denormalized],
            "why": self.why,
            "tradeoff": self.tradeoff,
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True, slots=True)
class Placement:
    """Where an embedded entity lives: its collection and the path inside it."""

    collection: str
    path: str


@dataclass(slots=True)
class Design:
    """The physical design: collections, relationship strategies, embedded placements."""

    database: str
    collections: list[CollectionDesign]
    relationships: list[RelationshipDesign]
    #: entity id -> where it is stored when it has no collection of its own
    embedded: dict[str, Placement] = field(default_factory=dict)
    #: how the design serves each declared query (project order) and the writes it implies (physical/planner.py)
    queries: list[QueryPlan] = field(default_factory=list)
    writes: list[WritePlan] = field(default_factory=list)
    #: collections beside an entity's own (prior revisions, archive): created by the exporters, not checked
    companions: list[CollectionDesign] = field(default_factory=list)
    #: collection name -> the shard-key advice for a collection that is or should be sharded (physical/shardkey.py)
    shard_advice: dict[str, ShardAdvice] = field(default_factory=dict)

    def collection(self, name: str) -> CollectionDesign | None:
        return next((c for c in self.collections if c.name == name), None)

    def stored(self) -> list[CollectionDesign]:
        """Every collection the database holds: the entities' own, then the companions (revisions, archive,
        overflow) that the exporters, ``apply`` and ``drift`` create and compare like the others."""
        return [*self.collections, *self.companions]

    def _collection_json(self, coll: CollectionDesign) -> dict[str, Any]:
        """A collection with the advisor's key (``[[field, 1 | "hashed"], ...]``) and its scored candidates."""
        out = coll.to_json()
        advice = self.shard_advice.get(coll.name)
        out["shard_key"] = None if advice is None else advice.key_json()
        out["sharding"] = None if advice is None else advice.to_json()
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "collections": [self._collection_json(c) for c in self.collections],
            "relationships": [r.to_json() for r in self.relationships],
            "embedded": {k: {"collection": v.collection, "path": v.path} for k, v in self.embedded.items()},
            "queries": [q.to_json() for q in self.queries],
            "writes": [w.to_json() for w in self.writes],
        } | ({"companions": [c.to_json() for c in self.companions]} if self.companions else {})
