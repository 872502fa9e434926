"""Pydantic models of a project file (format_version 2, see docs/file-format.md).

The models check what a single object can check (types, ranges, vocabulary,
legal names). What needs the whole project (references, unique ids, field
paths) lives in :mod:`modeller.model.checks`, so a half-edited project can
still be represented while the user is typing.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from functools import cache, partial
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    PlainValidator,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    TypeAdapter,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic import (
    Field as PydField,
)
from pydantic_core import PydanticCustomError

from modeller.model.frozen import FrozenDict, deep_frozen
from modeller.model.names import check_collection_name, check_database_name, check_field_name, check_id
from modeller.model.vocabulary import (
    AggregateOp,
    Cardinality,
    Direction,
    FieldType,
    FilterOp,
    Growth,
    IndexKind,
    OtherType,
    SortDirection,
    Staleness,
    Strategy,
    SubjectKind,
    TreeOp,
)

#: Largest number accepted anywhere in a project: far beyond any real workload,
#: small enough that the engine's arithmetic never overflows.
MAX_NUMBER = 10**15


def _check_number(low: float, high: float, value: Any) -> int | float:
    """A JSON number kept as written (``50`` stays an int, ``0.5`` a float).

    Refuses booleans, strings, NaN and infinities with one plain message
    instead of pydantic's per-union-member errors.
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (isinstance(value, float) and not math.isfinite(value))
    ):
        raise PydanticCustomError("number", "{msg}", {"msg": f"expected a number, got {value!r:.60}"})
    if not low <= value <= high:
        raise PydanticCustomError("number", "{msg}", {"msg": f"{value!r:.40} is outside {low:g}..{high:g}"})
    return value


NonNegInt = Annotated[StrictInt, PydField(ge=0, le=MAX_NUMBER)]
PositiveInt = Annotated[StrictInt, PydField(ge=1, le=MAX_NUMBER)]
NonNegNumber = Annotated[
    int | float,
    PlainValidator(partial(_check_number, 0, MAX_NUMBER)),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": MAX_NUMBER}),
]
Coordinate = Annotated[
    int | float,
    PlainValidator(partial(_check_number, -MAX_NUMBER, MAX_NUMBER)),
    WithJsonSchema({"type": "number", "minimum": -MAX_NUMBER, "maximum": MAX_NUMBER}),
]
Share = Annotated[
    int | float,
    PlainValidator(partial(_check_number, 0, 1)),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": 1}),
]
Name = Annotated[StrictStr, PydField(min_length=1, max_length=200)]
Text = Annotated[StrictStr, PydField(max_length=20_000)]
Scalar = StrictBool | StrictInt | Annotated[StrictFloat, PydField(allow_inf_nan=False)] | Text
#: free JSON (an example value, an index's partial filter), held with every dict and list inside it frozen
Json = Annotated[Any, AfterValidator(deep_frozen)]


def _plain_directions(value: Any, allowed: str) -> Any:
    """Refuse ``true`` and ``1.0`` where 1/-1 is meant (Literal[1] would accept both)."""
    if isinstance(value, (list, tuple)):
        for pair in value:
            if isinstance(pair, (list, tuple)) and len(pair) == 2:
                direction = pair[1]
                if isinstance(direction, (bool, float)):
                    raise PydanticCustomError(
                        "direction", "{msg}", {"msg": f"direction {direction!r} is not one of {allowed}"}
                    )
    return value


class StrictModel(BaseModel):
    """Base for every file object: unknown keys are errors that name the key; objects never change.

    A typo such as ``"cardinalty"`` must not be silently dropped; the message
    suggests the closest known key. Objects are frozen and hold tuples and
    :class:`~modeller.model.frozen.FrozenDict` s, so an edit builds a new object
    (``model_copy(update=...)``) and an object that is still the same object
    has the same content: caches may be keyed on identity
    (``modeller.rules.engine.Analyser``), and a project can be read in another thread as it is.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: the keys a file may use for this object, cached once per class (load speed)
    _known_keys: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._known_keys = frozenset(cls.model_fields)

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown_keys(cls, data: Any) -> Any:
        if isinstance(data, dict) and not cls._known_keys.issuperset(data):
            unknown = [str(k)[:80] for k in data if k not in cls._known_keys]
            known = list(cls.model_fields)
            close = difflib.get_close_matches(unknown[0], known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else f"; known keys: {', '.join(known)}"
            also = f" (also unknown: {', '.join(map(repr, unknown[1:6]))})" if len(unknown) > 1 else ""
            raise PydanticCustomError(
                "unknown_key",
                "{msg}",
                {"msg": f"unknown key {unknown[0]!r}{hint}{also}", "key": repr(unknown[0])},
            )
        return data

    @model_validator(mode="after")
    def _share_keys(self) -> Self:
        """The object built shares its set of given keys with the objects of the same keys (see _shared_keys)."""
        object.__setattr__(self, "__pydantic_fields_set__", _shared_keys(self.__pydantic_fields_set__))
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with ``update`` applied, each value validated as its field (a list becomes the field's tuple).

        pydantic's own ``model_copy`` takes update values as they are: a list
        would make the copy mutable again, and unequal to the tuple it stands for.
        """
        if update:
            cls = type(self)
            update = {name: _adapter(cls, name).validate_python(value) for name, value in update.items()}
        return super().model_copy(update=update, deep=deep)


#: one set of given keys per distinct set (bounded: a file of hostile shapes only stops the sharing)
_KEY_SETS: dict[frozenset[str], set[str]] = {}
_KEY_SETS_MAX = 4096


def _shared_keys(keys: set[str]) -> set[str]:
    """The one set equal to ``keys`` that objects share: pydantic keeps a set of the given keys per object (300 bytes
    and more each: 54 MiB of a 10,000-entity project's 165 MiB), yet a project holds a few hundred distinct ones.
    Sharing is safe because every model here is frozen: pydantic changes that set only on assignment (refused) and
    in ``model_copy``, which copies it first. Memory only (0.08 s more per 10,000-entity read), issue 16 (DESIGN.md
    "Performance targets": RSS)."""
    key = frozenset(keys)
    shared = _KEY_SETS.get(key)
    if shared is None:
        if len(_KEY_SETS) >= _KEY_SETS_MAX:
            return keys
        shared = _KEY_SETS.setdefault(key, keys)
    return shared


@cache
def _adapter(cls: type[StrictModel], name: str) -> TypeAdapter[Any]:
    """Validates one field's values (its type and constraints; model-level validators are the caller's business)."""
    info = cls.model_fields[name]
    kind: Any = info.annotation
    return TypeAdapter(Annotated[kind, *info.metadata] if info.metadata else kind)


class ArrayItems(StrictModel):
    """The element of an array field: a scalar type or a sub-document."""

    type: FieldType
    enum: tuple[Scalar, ...] | None = None
    fields: tuple[Field, ...] | None = None
    items: ArrayItems | None = None
    bytes: NonNegInt | None = None
    faker: Name | None = None
    example: Json = None


class Field(StrictModel):
    """A field of an entity (or of a sub-document)."""

    name: Name
    type: FieldType
    #: the types the data also holds (an inferred field seen as a double and a string): the validator accepts each;
    #: left out of a dump while unset, so the export fingerprint of a project without it is what it was before
    other_types: tuple[OtherType, ...] | None = PydField(default=None, exclude_if=lambda value: value is None)
    required: StrictBool = False
    unique: StrictBool = False
    description: Text | None = None
    enum: tuple[Scalar, ...] | None = None
    items: ArrayItems | None = None
    fields: tuple[Field, ...] | None = None
    max_items: NonNegInt | None = None
    bytes: NonNegInt | None = None
    reads_per_sec: NonNegNumber | None = None
    updates_per_sec: NonNegNumber | None = None
    immutable: StrictBool = False
    counter: StrictBool = False
    exact: StrictBool = False
    expire_after_s: NonNegInt | None = None
    distinct: NonNegInt | None = None
    monotonic: StrictBool = False
    example: Json = None
    faker: Name | None = None

    @field_validator("name")
    @classmethod
    def _legal_name(cls, value: str) -> str:
        return check_field_name(value)

    @model_validator(mode="after")
    def _shape_matches_type(self) -> Field:
        if self.fields is not None and self.type != "object":
            raise PydanticCustomError(
                "shape", "'fields' is only allowed on an 'object' field; this field is '{t}'", {"t": self.type}
            )
        if self.items is not None and self.type != "array":
            raise PydanticCustomError(
                "shape", "'items' is only allowed on an 'array' field; this field is '{t}'", {"t": self.type}
            )
        if self.max_items is not None and self.type != "array":
            raise PydanticCustomError("shape", "'max_items' is only allowed on an 'array' field", {})
        if self.other_types is not None and (
            self.type in self.other_types or len(set(self.other_types)) != len(self.other_types)
        ):
            raise PydanticCustomError(
                "shape", "'other_types' names each type once and not the field's 'type' ('{t}')", {"t": self.type}
            )
        return self


class TimeSeries(StrictModel):
    """The entity is a stream of timestamped measurements or events."""

    time_field: Name
    meta_field: Name | None = None
    interval_s: NonNegNumber | None = None
    retention_s: NonNegInt | None = None
    bucket_size: PositiveInt | None = None


class Subtypes(StrictModel):
    """Polymorphic entity: a discriminator field and the extra fields of each variant."""

    discriminator: Name = "type"
    variants: FrozenDict[Name, tuple[Field, ...]]

    @field_validator("discriminator")
    @classmethod
    def _legal_discriminator(cls, value: str) -> str:
        return check_field_name(value)

    @field_validator("variants")
    @classmethod
    def _at_least_one(cls, value: FrozenDict[str, tuple[Field, ...]]) -> FrozenDict[str, tuple[Field, ...]]:
        if not value:
            raise PydanticCustomError("variants", "declare at least one variant", {})
        return value


class Archive(StrictModel):
    """Documents older than ``cold_after_s`` (by ``age_field``) are rarely read."""

    age_field: Name
    cold_after_s: NonNegInt


class Index(StrictModel):
    """An index the user declares; the engine keeps and critiques it."""

    #: non-empty (checked below: a tuple's own length check would also fire when an item is wrong)
    keys: Annotated[tuple[tuple[Name, IndexKind], ...], PydField(json_schema_extra={"minItems": 1})]
    name: Name | None = None
    unique: StrictBool = False
    expire_after_s: NonNegInt | None = None
    partial: FrozenDict[StrictStr, Json] | None = None
    collation: FrozenDict[StrictStr, Json] | None = None

    @field_validator("keys", mode="before")
    @classmethod
    def _plain_keys(cls, value: Any) -> Any:
        return _plain_directions(value, '1, -1, "text", "2dsphere" or "hashed"')

    @field_validator("keys")
    @classmethod
    def _some_keys(cls, value: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, Any], ...]:
        if not value:
            raise PydanticCustomError(
                "too_short", "List should have at least 1 item after validation, not 0", {"min_length": 1}
            )
        return value


class Entity(StrictModel):
    """A kind of thing the application stores (Person, Task, LogMessage)."""

    id: Name
    name: Name
    collection: Name | None = None
    description: Text | None = None
    count: NonNegInt | None = None
    growth_per_day: NonNegNumber | None = None
    reads_per_sec: NonNegNumber | None = None
    writes_per_sec: NonNegNumber | None = None
    append_only: StrictBool = False
    timeseries: TimeSeries | None = None
    subtypes: Subtypes | None = None
    history: StrictBool = False
    schema_change: StrictBool = False
    archive: Archive | None = None
    indexes: tuple[Index, ...] = ()
    shard_key: tuple[Name, ...] | None = None
    fields: tuple[Field, ...]

    @field_validator("id")
    @classmethod
    def _legal_id(cls, value: str) -> str:
        return check_id(value)

    @field_validator("collection")
    @classmethod
    def _legal_collection(cls, value: str | None) -> str | None:
        return None if value is None else check_collection_name(value)


class Denormalization(StrictModel):
    """A field copied across a relationship (the seeds' denormalization)."""

    field: Name
    direction: Direction
    #: None: not chosen yet. The engine then plans a synced copy (as for ``hours``) but asks whether the copy is a
    #: point-in-time value (``forever``, never synced) — only the user knows (RULES.md rules 15/16)
    staleness: Staleness | None = None


class Aggregate(StrictModel):
    """A value of the N side that reads of the One side show (computed pattern input)."""

    name: Name
    op: AggregateOp
    field: Name | None = None

    @field_validator("name")
    @classmethod
    def _legal_name(cls, value: str) -> str:
        return check_field_name(value)

    @model_validator(mode="after")
    def _field_needed(self) -> Aggregate:
        if self.op != "count" and self.field is None:
            raise PydanticCustomError("aggregate", "'{op}' needs a 'field' to aggregate", {"op": self.op})
        return self


class Decision(StrictModel):
    """A user's accept/override of the engine's advice for a relationship."""

    strategy: Strategy | None = None
    note: Text = ""


class Relationship(StrictModel):
    """A one-to-N link between two entities, annotated with its workload."""

    id: Name
    one: Name
    many: Name
    name: Name | None = None
    inverse: Name | None = None
    cardinality: Cardinality
    typical: NonNegInt | None = None
    max: NonNegInt | None = None
    #: many-to-many only: the most Ones one N relates to (how many Groups one User can join); the other way
    #: round of ``max``, which becomes the maxItems of each N's array of One ids
    max_ones: NonNegInt | None = None
    growth: Growth | None = None
    many_standalone: StrictBool = False
    #: an N may have no One: its reference (or extended reference) is not required in its validator
    optional: StrictBool = False
    read_together: Share | None = None
    show_latest: PositiveInt | None = None
    atomic: StrictBool = False
    reads_per_sec: NonNegNumber | None = None
    writes_per_sec: NonNegNumber | None = None
    strategy: Strategy = "auto"
    denormalize: tuple[Denormalization, ...] = ()
    tree_ops: tuple[TreeOp, ...] = ()
    aggregates: tuple[Aggregate, ...] = ()
    decision: Decision | None = None

    @field_validator("id")
    @classmethod
    def _legal_id(cls, value: str) -> str:
        return check_id(value)

    @field_validator("name", "inverse")
    @classmethod
    def _legal_role(cls, value: str | None) -> str | None:
        return None if value is None else check_field_name(value)

    @model_validator(mode="after")
    def _max_not_below_typical(self) -> Relationship:
        if self.typical is not None and self.max is not None and self.max < self.typical:
            raise PydanticCustomError(
                "bounds",
                "'max' ({max}) is smaller than 'typical' ({typical}); raise 'max' or lower 'typical'",
                {"max": self.max, "typical": self.typical},
            )
        return self


class Query(StrictModel):
    """A declared access pattern: what the application asks of one entity, in logical terms.

    ``scope`` names a relationship: "the N of one One" (messages of one host) or,
    from the One's side, "the One of an N". How it is served (an equality on a
    parent reference, ``_id: {$in}`` over an array of references, a read of the
    embedded array) is the engine's decision, so users never type a generated name.
    """

    id: Name
    entity: Name
    name: Name | None = None
    scope: Name | None = None
    filter: FrozenDict[Name, FilterOp] = FrozenDict()
    sort: tuple[tuple[Name, SortDirection], ...] = ()
    limit: PositiveInt | None = None
    projection: tuple[Name, ...] = ()
    joins: tuple[Name, ...] = ()
    per_sec: NonNegNumber | None = None
    hot: StrictBool = False

    @field_validator("sort", mode="before")
    @classmethod
    def _plain_sort(cls, value: Any) -> Any:
        return _plain_directions(value, "1 or -1")

    @field_validator("id")
    @classmethod
    def _legal_id(cls, value: str) -> str:
        return check_id(value)


class Subject(StrictModel):
    """What a finding (or an override) is about."""

    kind: SubjectKind
    id: Name


class Override(StrictModel):
    """The user keeps their design against one finding; the note says why."""

    rule: Name
    subject: Subject
    note: Text = ""


class Position(StrictModel):
    """Where an entity's card sits on the canvas (view only)."""

    x: Coordinate
    y: Coordinate


class Project(StrictModel):
    """A whole project file."""

    format: StrictStr
    format_version: StrictInt
    name: Name
    description: Text | None = None
    database: Name | None = None
    server_version: Annotated[StrictStr, PydField(pattern=r"^\d+(\.\d+){0,2}$")] | None = None
    sharded: StrictBool = False
    shards: PositiveInt | None = None
    entities: tuple[Entity, ...] = ()
    relationships: tuple[Relationship, ...] = ()
    queries: tuple[Query, ...] = ()
    overrides: tuple[Override, ...] = ()
    layout: FrozenDict[StrictStr, Position] = FrozenDict()

    @field_validator("database")
    @classmethod
    def _legal_database(cls, value: str | None) -> str | None:
        return None if value is None else check_database_name(value)

    def with_positions(self, positions: Mapping[str, Position | None]) -> Project:
        """A copy whose layout has ``positions`` (None drops a card's), validating only those.

        A move changes a few positions of a layout that may hold 10,000: ``model_copy`` validated every one
        again (~7 ms a move at 10,000, issue 16). The others are this project's own, valid already; the new
        ones go through the layout field's own validation.
        """
        placed = {key: position for key, position in positions.items() if position is not None}
        checked = _adapter(Project, "layout").validate_python(placed)
        layout = dict(self.layout)  # a moved card keeps its place in the file's layout
        for key, position in positions.items():
            if position is None:
                layout.pop(key, None)
        layout.update(checked)
        return BaseModel.model_copy(self, update={"layout": FrozenDict(layout)})


ArrayItems.model_rebuild()
Field.model_rebuild()
