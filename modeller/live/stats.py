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
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from bson import Binary, Decimal128, Int64, ObjectId

#: distinct values kept per field (distinct estimates, enums, reference candidates)
VALUES_CAP = 2_000
#: (insertion key, value) pairs kept per top-level field for the monotonic estimate
ORDER_CAP = 5_000
#: array lengths kept per array field (percentiles come from these)
LENGTHS_CAP = 20_000
#: nesting followed into sub-documents; deeper levels are counted as plain objects
MAX_DEPTH = 20

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
        "_objects",
        "_scalar_bytes",
        "bytes_total",
        "count",
        "fields",
        "items",
        "lengths",
        "nulls",
        "order",
        "pending",
        "types",
        "values",
        "values_full",
    )

    def __init__(self) -> None:
        self.count = 0  # documents (or parent objects) that hold the key
        self.nulls = 0
        self.types: Counter[str] = Counter()
        self.bytes_total = 0
        self.values: Counter[Any] = Counter()  # the first VALUES_CAP distinct values and how often each was seen
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
                self.items = FieldStats()
            if depth < MAX_DEPTH:
                items = self.items
                pending = items.pending
                for element in value:
                    if type(element) in _SCALARS:
                        pending.append(element)
                    else:
                        items.observe(element, depth + 1)
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
        for cls, n in Counter(map(type, pending)).items():
            name = _NAMES.get(cls)
            if cls is str:
                strings = [v for v in pending if type(v) is str]
                long_text = max(map(len, strings)) > 200
                if all(map(str.isascii, strings)):
                    size = sum(map(len, strings))
                else:
                    size = sum(len(v.encode("utf-8", "surrogatepass")) for v in strings)
                self._scalar_bytes += size + 5 * n
                types["string"] += n
            elif cls is int:
                ints = [v for v in pending if type(v) is int]
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
        kept = [v for v in pending if type(v) in _KEPT_TYPES]
        if long_text:  # long text is never an enum value or a reference
            self.values_full = True
            kept = [v for v in kept if not (type(v) is str and len(v) > 200)]
        if kept:
            self._keep(kept)

    def _keep(self, kept: list[Any]) -> None:
        """Count the kept values: the first VALUES_CAP distinct ones."""
        values = self.values
        if len(values) + len(kept) <= VALUES_CAP:
            values.update(kept)  # C-level counting; new values in first-seen order
            return
        chunk = Counter(kept)
        for value, n in chunk.items():
            if value in values:
                values[value] += n
            elif len(values) < VALUES_CAP:
                values[value] = n
            else:
                self.values_full = True

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
            stats = fields[key] = FieldStats()
        cls = type(value)
        if cls in _SCALARS:  # counted (``count``) when reduced
            stats.pending.append(value)
        elif cls is dict and depth < MAX_DEPTH and value.get("type") != "Point":  # a sub-document, inline
            stats.count += 1
            stats.types["object"] += 1
            stats._objects += 1
            sub = stats.fields
            if sub is None:
                sub = stats.fields = {}
            walk(sub, value, depth + 1)
        else:
            stats.observe(value, depth)


class CollectionStats:
    """A collection's sample: its documents' field statistics and size (reduced when read)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.documents = 0
        self._fields: dict[str, FieldStats] = {}
        self._bytes = 0
        self._walked = 0  # documents walked since the last flush
        self._order_done = False  # every top-level field holds ORDER_CAP pairs (until a new field appears)
        self._order_fields = 0

    def add(self, document: Mapping[str, Any]) -> None:
        """Count one document; top-level values are kept in ``_id`` order for the monotonic estimate."""
        self.documents += 1
        fields = self._fields
        walk(fields, document)
        key = document.get("_id")
        if isinstance(key, ObjectId) and not (self._order_done and len(fields) == self._order_fields):
            # ObjectIds grow with insertion time: the order to judge "only grows" by
            for name, value in document.items():
                stats = fields[name]
                if len(stats.order) < ORDER_CAP and isinstance(value, int | float | datetime.datetime | ObjectId):
                    stats.order.append((key, value))
        self._walked += 1
        if self._walked >= FLUSH_EVERY:
            self.flush()

    def add_all(self, documents: Iterable[Mapping[str, Any]]) -> CollectionStats:
        for document in documents:
            self.add(document)
        self.flush()
        return self

    def flush(self) -> None:
        """Reduce what is pending (cheap when nothing is)."""
        if not self._walked:
            return
        self._walked = 0
        for stats in self._fields.values():
            stats.flush()
        self._order_done = all(len(stats.order) >= ORDER_CAP for stats in self._fields.values())
        self._order_fields = len(self._fields)

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


def is_monotonic(order: list[tuple[Any, Any]]) -> bool:
    """Values never decrease when their documents are taken in ``_id`` (insertion) order."""
    if len(order) < 3:
        return False
    try:
        values = [value for _, value in sorted(order, key=lambda pair: pair[0])]
        return all(a <= b for a, b in itertools.pairwise(values))
    except TypeError:  # mixed types (a date next to a number) do not grow together
        return False
