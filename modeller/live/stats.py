"""What inference collects per field path while documents stream past (pure: values in, counts out).

The shape follows MongoDB's own ``mongodb-schema`` (Compass's inference): per
field the number of documents that hold it, the BSON types seen with their
counts, array lengths, and sub-fields of objects and array elements. On top of
it the design needs sizes (``bytes``), a bounded set of values (``enum``,
``distinct`` and reference candidates) and, per top-level field, values in
insertion order (``monotonic``). Every buffer is bounded, so a 10 MB document
or a million documents cost memory in proportion to the caps, not the input.
"""

from __future__ import annotations

import datetime
import decimal
import itertools
import operator
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from bson import Binary, Decimal128, Int64, ObjectId

#: distinct values kept per field (distinct estimates, enums, reference candidates)
VALUES_CAP = 2_000
#: documents whose top-level values are kept as (insertion key, value) pairs for the monotonic estimate
ORDER_CAP = 5_000
#: array lengths kept per array field (percentiles come from these)
LENGTHS_CAP = 20_000
#: nesting followed into sub-documents; deeper levels are counted as plain objects
MAX_DEPTH = 20
#: distinct top-level key lists kept per collection (which fields occur together, and from when to when)
SHAPES_CAP = 1_000

_INT32 = 2**31
#: types whose values are kept (doubles are measurements, never enums or references; binaries are large)
_KEPT = frozenset({"string", "int", "long", "objectId", "date", "bool"})


def bson_type(value: Any) -> str:
    """The BSON type name of a decoded value (the model's names where it has one: ``objectId``, ``binData``)."""
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Int64):
        return "long"
    if isinstance(value, int):
        return "int" if -_INT32 <= value < _INT32 else "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, ObjectId):
        return "objectId"
    if isinstance(value, datetime.datetime):
        return "date"
    if isinstance(value, Mapping):
        return "point" if _is_point(value) else "object"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Decimal128 | decimal.Decimal):
        return "decimal"
    if isinstance(value, uuid.UUID) or (isinstance(value, Binary) and value.subtype in (3, 4)):
        return "uuid"
    if isinstance(value, bytes):
        return "binData"
    if value is None:
        return "null"
    return type(value).__name__  # regex, timestamp, code, minKey...: named in descriptions, never a field type


def _is_point(value: Mapping[str, Any]) -> bool:
    return value.get("type") == "Point" and isinstance(value.get("coordinates"), list | tuple) and len(value) == 2


def _scalar_size(kind: str, value: Any) -> int:
    """Bytes the value takes in BSON (the element's type byte and name are counted by the parent)."""
    if kind == "string":
        return len(value.encode("utf-8", "surrogatepass")) + 5
    if kind in ("int",):
        return 4
    if kind in ("long", "double", "date"):
        return 8
    if kind == "objectId":
        return 12
    if kind == "bool":
        return 1
    if kind in ("decimal", "uuid"):
        return 16 + (5 if kind == "uuid" else 0)
    if kind == "binData":
        return len(value) + 5
    return 0


#: documents walked between two reductions of the pending values (bounds their memory)
FLUSH_EVERY = 2_048
_SIZES = {str: 0, bool: 1, int: 4, Int64: 8, float: 8, ObjectId: 12, datetime.datetime: 8, Decimal128: 16}
_NAMES = {
    str: "string",
    bool: "bool",
    Int64: "long",
    float: "double",
    ObjectId: "objectId",
    datetime.datetime: "date",
    Decimal128: "decimal",
    type(None): "null",
}
#: scalar types appended as they are and reduced in bulk (anything else goes through :func:`bson_type`)
_SCALARS = frozenset(_NAMES) | {int}
_LATE_NONE, _LATE_OIDS, _LATE_ALL = 0, 1, 2
#: exact types the monotonic estimate takes (subclasses are checked with isinstance)
_ORDERED = frozenset({int, float, bool, Int64, datetime.datetime, ObjectId})
#: exact types whose values are kept (see ``_KEPT``)
_KEPT_TYPES = frozenset({str, int, Int64, ObjectId, datetime.datetime, bool})


class FieldStats:
    """Everything seen at one path: presence, types, sizes, values, array lengths, sub-fields.

    Scalars are appended to ``pending`` as the documents stream past and reduced
    in bulk by :meth:`flush` with C-level builtins (``Counter``, ``map``,
    ``min``/``max``), instead of one Python call per value; objects and arrays are
    walked at once (their sub-fields are columns of their own). The counts,
    types, sizes and values are those of a value-by-value pass.
    """

    __slots__ = (
        "_arrays",
        "_cache",
        "_late",
        "_objects",
        "_oid_bytes",
        "_scalar_bytes",
        "_values",
        "bytes_total",
        "count",
        "fields",
        "items",
        "lengths",
        "nulls",
        "order",
        "pending",
        "types",
        "values_full",
    )

    def __init__(self, name: str = "", top: bool = False) -> None:
        self.count = 0  # documents (or parent objects) that hold the key
        #: which values are still counted once VALUES_CAP are kept (see ``_keep``)
        self._late = (
            _LATE_NONE if top and name == "_id" else _LATE_ALL if name.lower().endswith(("id", "ids")) else _LATE_OIDS
        )
        self.nulls = 0
        self.types: Counter[str] = Counter()
        self.bytes_total = 0
        self._values: Counter[Any] = Counter()  # see ``values``
        self._oid_bytes: Counter[bytes] | None = None  # ObjectId values by their bytes, while only those were seen
        self._cache: Counter[Any] | None = None
        self.values_full = False  # more distinct values were seen than VALUES_CAP (later ones are not kept)
        self.lengths: list[int] = []
        self.order: list[tuple[Any, Any]] = []
        self.fields: dict[str, FieldStats] | None = None  # when some value was an object
        self.items: FieldStats | None = None  # when some value was an array: its elements
        self.pending: list[Any] = []  # scalars not reduced yet
        self._scalar_bytes = 0  # bytes of the scalars (and of points and too-deep objects) reduced so far
        self._objects = 0  # sub-documents walked into
        self._arrays = 0

    def observe(self, value: Any, depth: int) -> None:
        """Count one value that is not a plain scalar (those are appended to ``pending`` by the walk)."""
        self.count += 1
        if type(value) is dict or isinstance(value, Mapping):
            if value.get("type") == "Point" and _is_point(value):
                self.types["point"] += 1
                self._scalar_bytes += 32
            elif depth < MAX_DEPTH:
                self.types["object"] += 1
                self._objects += 1
                if self.fields is None:
                    self.fields = {}
                walk(self.fields, value, depth + 1)
            else:
                self.types["object"] += 1
                self._scalar_bytes += 32
        elif type(value) is list or isinstance(value, list | tuple):
            self.types["array"] += 1
            self._arrays += 1
            if len(self.lengths) < LENGTHS_CAP:
                self.lengths.append(len(value))
            if self.items is None:
                self.items = FieldStats(self._name_for_items())
            if depth < MAX_DEPTH:
                items = self.items
                pending = items.pending
                inner = depth + 1
                for element in value:
                    cls = type(element)
                    if cls in _SCALARS:
                        pending.append(element)
                    elif cls is dict and inner < MAX_DEPTH and element.get("type") != "Point":  # as in walk
                        items.count += 1
                        items.types["object"] += 1
                        items._objects += 1
                        if items.fields is None:
                            items.fields = {}
                        walk(items.fields, element, inner + 1)
                    else:
                        items.observe(element, inner)
        else:
            self.count -= 1  # counted with the pending values
            self.pending.append(value)

    def flush(self) -> None:
        """Reduce the pending values (children first) and bring ``bytes_total`` up to date."""
        if self.fields is not None:
            for child in self.fields.values():
                child.flush()
        if self.items is not None:
            self.items.flush()
        if self.pending:
            self.count += len(self.pending)
            self._reduce(self.pending)
            self.pending = []
        total = self._scalar_bytes + 10 * self._objects + 5 * self._arrays
        if self.fields is not None:
            total += sum(child.bytes_total + (len(key) + 2) * child.count for key, child in self.fields.items())
        if self.items is not None:
            total += self.items.bytes_total + 3 * self.items.count
        self.bytes_total = total

    def _reduce(self, pending: list[Any]) -> None:
        types = self.types
        long_text = False
        classes = Counter(map(type, pending))
        kept_only = classes.keys() <= _KEPT_TYPES
        for cls, n in classes.items():
            name = _NAMES.get(cls)
            if cls is str:
                strings = pending if n == len(pending) else [v for v in pending if type(v) is str]
                lengths = list(map(len, strings))
                long_text = max(lengths) > 200
                if all(map(str.isascii, strings)):
                    size = sum(lengths)
                else:
                    size = sum(len(v.encode("utf-8", "surrogatepass")) for v in strings)
                self._scalar_bytes += size + 5 * n
                types["string"] += n
            elif cls is int:
                ints = pending if n == len(pending) else [v for v in pending if type(v) is int]
                small = n if min(ints) >= -_INT32 and max(ints) < _INT32 else sum(-_INT32 <= v < _INT32 for v in ints)
                if small:
                    types["int"] += small
                if n - small:
                    types["long"] += n - small
                self._scalar_bytes += 4 * small + 8 * (n - small)
            elif name is not None:
                types[name] += n
                self._scalar_bytes += _SIZES.get(cls, 0) * n
                if name == "null":
                    self.nulls += n
            else:  # rarer types: one at a time, as bson_type names them
                for value in pending:
                    if type(value) is cls:
                        kind = bson_type(value)
                        types[kind] += 1
                        self._scalar_bytes += _scalar_size(kind, value)
        if long_text:  # long text is never an enum value or a reference
            self.values_full = True
        if self.values_full and self._late != _LATE_ALL:  # only ObjectIds are still counted (see ``_keep``)
            oids = classes.get(ObjectId, 0) if self._late == _LATE_OIDS else 0
            kept = [] if not oids else pending if oids == len(pending) else [v for v in pending if type(v) is ObjectId]
        elif kept_only:
            kept = pending
        elif classes.keys() & _KEPT_TYPES:
            kept = [v for v in pending if type(v) in _KEPT_TYPES]
        else:
            kept = []
        if long_text:
            kept = [v for v in kept if not (type(v) is str and len(v) > 200)]
        if kept:
            self._keep(kept, len(kept) == classes.get(ObjectId, 0))

    def _keep(self, kept: list[Any], only_oids: bool) -> None:
        """Count the kept values: the first VALUES_CAP distinct ones.

        Once VALUES_CAP are kept, only counts a reader still uses are kept up: those of possible references
        (how many N point at each One), i.e. ObjectIds, and every value of a field named like an id; never
        the collection's own ``_id``. A full field is no enum and its distinct count is scaled, not counted.
        While a field has held only ObjectIds they are counted by their 12 bytes (hashed in C; an ObjectId
        hashes in Python) and turned back into ObjectIds when ``values`` is read.
        """
        self._cache = None
        if only_oids and not self._values:
            if self._oid_bytes is None:
                self._oid_bytes = Counter()
            self._count(self._oid_bytes, list(map(_OID_BYTES, kept)))
            return
        if self._oid_bytes:  # another type after ObjectIds: count by value from now on
            self._values = Counter({ObjectId(raw): n for raw, n in self._oid_bytes.items()})
        self._oid_bytes = None
        self._count(self._values, kept)

    def _count(self, values: Counter[Any], kept: list[Any]) -> None:
        if len(values) + len(kept) <= VALUES_CAP:
            values.update(kept)  # C-level counting; new values in first-seen order
            return
        chunk = Counter(kept)
        if not self.values_full:
            room = VALUES_CAP - len(values)
            fresh = [value for value in chunk if value not in values]
            for value in fresh[:room]:
                values[value] = chunk[value]
            if len(fresh) > room:
                self.values_full = True
            taken = set(fresh[:room])
        else:
            taken = set()
        for value in chunk.keys() & values.keys():  # values seen before this chunk (C-level intersection)
            if value not in taken:
                values[value] += chunk[value]

    @property
    def values(self) -> Counter[Any]:
        """The first VALUES_CAP distinct values and how often each was seen (ObjectId, str, int, date, bool)."""
        if self._oid_bytes is None:
            return self._values
        if self._cache is None:
            self._cache = Counter({ObjectId(raw): n for raw, n in self._oid_bytes.items()})
        return self._cache

    def _name_for_items(self) -> str:
        """The elements of an array named like ids are counted like the array (``task_ids``)."""
        return "ids" if self._late == _LATE_ALL else ""

    @property
    def present(self) -> int:
        """Holders with a non-null value."""
        return self.count - self.nulls

    def commonest_type(self) -> str | None:
        """The commonest non-null type (ties: the first seen)."""
        for kind, _ in self.types.most_common():
            if kind != "null":
                return kind
        return None


def walk(fields: dict[str, FieldStats], document: Mapping[str, Any], depth: int = 0) -> None:
    """Count every key of one document (or sub-document) into ``fields``: scalars pending, containers walked."""
    for key, value in document.items():
        stats = fields.get(key)
        if stats is None:
            stats = fields[key] = FieldStats(key, depth == 0)
        cls = type(value)
        if cls in _SCALARS:  # counted (``count``) when reduced
            stats.pending.append(value)
        elif cls is dict and depth < MAX_DEPTH and value.get("type") != "Point":  # a sub-document, inline
            stats.count += 1
            stats.types["object"] += 1
            stats._objects += 1
            if stats.fields is None:
                stats.fields = {}
            walk(stats.fields, value, depth + 1)
        else:
            stats.observe(value, depth)


_VALUES = operator.methodcaller("values")
_OID_BYTES = operator.attrgetter("_ObjectId__id")
#: consecutive documents (or sub-documents) with the same keys walked as columns; shorter runs one by one
RUN_MIN = 4


def walk_many(fields: dict[str, FieldStats], documents: list[Any], depth: int) -> None:
    """Count documents of one level into ``fields``: each run of documents with the same keys as columns.

    A run's values are transposed (``zip``) and each column is handed over whole
    (:func:`column`), so per key and document no Python runs; the order values
    arrive in is the documents' order, as with :func:`walk`.
    """
    run: list[Any] = []
    run_keys: tuple[str, ...] | None = None
    for document in documents:
        keys = tuple(document)
        if keys != run_keys:
            _walk_run(fields, run, run_keys, depth)
            run, run_keys = [], keys
        run.append(document)
    _walk_run(fields, run, run_keys, depth)


def _walk_run(fields: dict[str, FieldStats], run: list[Any], keys: tuple[str, ...] | None, depth: int) -> None:
    if not run or keys is None:
        return
    if len(run) < RUN_MIN:
        for document in run:
            walk(fields, document, depth)
        return
    for key, values in zip(keys, zip(*map(_VALUES, run), strict=True), strict=True):
        stats = fields.get(key)
        if stats is None:
            stats = fields[key] = FieldStats(key, depth == 0)
        column(stats, values, depth)


def _any_point(values: Any) -> bool:
    """Is any of these sub-documents a GeoJSON point (two keys: checked only where some has two)?"""
    return 2 in set(map(len, values)) and any(v.get("type") == "Point" for v in values)


def column(stats: FieldStats, values: Any, depth: int) -> None:
    """Count a column of values held at one path (as ``FieldStats.observe`` would, value by value)."""
    classes = set(map(type, values))
    if classes <= _SCALARS:
        stats.pending.extend(values)
    elif classes == {dict} and depth < MAX_DEPTH and not _any_point(values):
        n = len(values)
        stats.count += n
        stats.types["object"] += n
        stats._objects += n
        if stats.fields is None:
            stats.fields = {}
        walk_many(stats.fields, values, depth + 1)
    elif classes == {list}:
        n = len(values)
        stats.count += n
        stats.types["array"] += n
        stats._arrays += n
        room = LENGTHS_CAP - len(stats.lengths)
        if room > 0:
            stats.lengths.extend(itertools.islice(map(len, values), room))
        if stats.items is None:
            stats.items = FieldStats(stats._name_for_items())
        if depth < MAX_DEPTH:
            column(stats.items, list(itertools.chain.from_iterable(values)), depth + 1)
    else:
        pending = stats.pending
        for value in values:
            if type(value) in _SCALARS:
                pending.append(value)
            else:
                stats.observe(value, depth)


class CollectionStats:
    """A collection's sample: its documents' field statistics and size (reduced when read).

    Documents are buffered up to :data:`FLUSH_EVERY` and then walked as columns
    (:func:`walk_many`) and reduced (``FieldStats.flush``).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.documents = 0
        self._fields: dict[str, FieldStats] = {}
        self._buffer: list[Mapping[str, Any]] = []
        #: top-level name -> (ObjectId _id, value) pairs of the first ORDER_CAP documents (the monotonic estimate)
        self._orders: dict[str, list[tuple[Any, Any]]] = {}
        #: top-level keys of a document -> [documents, oldest ObjectId _id, newest] as the ids' 12 bytes (which
        #: order as the ObjectIds do, compared in C); None: some document's _id is no ObjectId
        self.shapes: dict[tuple[str, ...], list[Any]] = {}
        #: more than SHAPES_CAP key lists were seen (later ones are not kept: which fields meet is not known)
        self.shapes_full = False

    def add(self, document: Mapping[str, Any]) -> None:
        """Count one document; top-level values are kept in ``_id`` order for the monotonic estimate."""
        self.documents += 1
        key = document.get("_id")
        oid = None
        if type(key) is ObjectId:
            oid = _OID_BYTES(key)
            if self.documents <= ORDER_CAP:
                self._order(key, document)
        self._shape(tuple(document), oid)
        self._buffer.append(document)
        if len(self._buffer) >= FLUSH_EVERY:
            self.flush()

    def _order(self, key: ObjectId, document: Mapping[str, Any]) -> None:
        """ObjectIds grow with insertion time: the order to judge "only grows" by (the first ORDER_CAP documents)."""
        orders = self._orders
        for name, value in document.items():
            if type(value) in _ORDERED or isinstance(value, int | float | datetime.datetime | ObjectId):
                pairs = orders.get(name)
                if pairs is None:
                    pairs = orders[name] = []
                pairs.append((key, value))

    def _shape(self, keys: tuple[str, ...], key: bytes | None) -> None:
        """Count the document's key list, with the oldest and newest ``_id`` holding it (a rename shows as two
        key lists, one older than the other)."""
        seen = self.shapes.get(keys)
        if seen is None:
            if len(self.shapes) >= SHAPES_CAP:
                self.shapes_full = True
            else:
                self.shapes[keys] = [1, key, key]
            return
        seen[0] += 1
        if key is None or seen[1] is None:
            seen[1] = seen[2] = None
        elif key < seen[1]:
            seen[1] = key
        elif key > seen[2]:
            seen[2] = key

    def add_all(self, documents: Iterable[Mapping[str, Any]]) -> CollectionStats:
        for document in documents:
            self.add(document)
        self.flush()
        return self

    def flush(self) -> None:
        """Walk the buffered documents and reduce what is pending (cheap when nothing is)."""
        if not self._buffer:
            return
        buffer, self._buffer = self._buffer, []
        walk_many(self._fields, buffer, 0)
        for name, stats in self._fields.items():
            stats.order = self._orders.get(name, stats.order)
            stats.flush()

    @property
    def fields(self) -> dict[str, FieldStats]:
        self.flush()
        return self._fields

    @property
    def bytes_total(self) -> int:
        """The documents' BSON size: each document's 5 bytes, its fields' values and their names."""
        fields = self.fields
        return 5 * self.documents + sum(s.bytes_total + (len(k) + 2) * s.count for k, s in fields.items())


def percentile(values: list[int], share: float) -> int:
    """The nearest-rank percentile of ``values`` (0 for none)."""
    if not values:
        return 0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))
    return ordered[rank]


#: distinct values a field must take before "only grows" means anything (a constant or a flag does not grow)
MONOTONIC_MIN_VALUES = 3


def is_monotonic(order: list[tuple[Any, Any]]) -> bool:
    """Values never decrease when their documents are taken in ``_id`` (insertion) order, and do grow: at least
    :data:`MONOTONIC_MIN_VALUES` distinct values, none a bool (``vip: true`` everywhere is a constant, not a
    timestamp)."""
    if len(order) < MONOTONIC_MIN_VALUES or any(type(value) is bool for _, value in order):
        return False
    try:
        values = [value for _, value in sorted(order, key=lambda pair: pair[0])]
        return all(a <= b for a, b in itertools.pairwise(values)) and len(set(values)) >= MONOTONIC_MIN_VALUES
    except TypeError:  # mixed types (a date next to a number) do not grow together
        return False
