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


class FieldStats:
    """Everything seen at one path: presence, types, sizes, values, array lengths, sub-fields."""

    __slots__ = (
        "bytes_total",
        "count",
        "fields",
        "items",
        "lengths",
        "nulls",
        "order",
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

    def observe(self, value: Any, depth: int) -> int:
        """Count one value; returns its BSON size in bytes."""
        kind = bson_type(value)
        self.types[kind] += 1
        if kind == "null":
            self.nulls += 1
            return 0
        if kind == "object" and depth < MAX_DEPTH:
            if self.fields is None:
                self.fields = {}
            size = observe_document(self.fields, value, depth + 1) + 5
        elif kind == "array":
            if len(self.lengths) < LENGTHS_CAP:
                self.lengths.append(len(value))
            if self.items is None:
                self.items = FieldStats()
            items = self.items
            size = 5
            for element in value if depth < MAX_DEPTH else ():
                items.count += 1
                size += items.observe(element, depth + 1) + 3
        elif kind in ("object", "point"):
            size = 32
        else:
            size = _scalar_size(kind, value)
            if kind in _KEPT:
                self._keep(value, kind)
        self.bytes_total += size
        return size

    def _keep(self, value: Any, kind: str) -> None:
        values = self.values
        if value in values:
            values[value] += 1
        elif kind == "string" and len(value) > 200:  # long text is never an enum value or a reference
            self.values_full = True
        elif len(values) < VALUES_CAP:
            values[value] = 1
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


def observe_document(fields: dict[str, FieldStats], document: Mapping[str, Any], depth: int = 0) -> int:
    """Count every key of one document (or sub-document) into ``fields``; returns the document's size."""
    size = 5
    for key, value in document.items():
        stats = fields.get(key)
        if stats is None:
            stats = fields[key] = FieldStats()
        stats.count += 1
        size += stats.observe(value, depth) + len(key) + 2
    return size


class CollectionStats:
    """A collection's sample: its documents' field statistics and size."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.documents = 0
        self.bytes_total = 0
        self.fields: dict[str, FieldStats] = {}

    def add(self, document: Mapping[str, Any]) -> None:
        """Count one document; top-level values are kept in ``_id`` order for the monotonic estimate."""
        self.documents += 1
        self.bytes_total += observe_document(self.fields, document)
        key = document.get("_id")
        if isinstance(key, ObjectId):  # ObjectIds grow with insertion time: the order to judge "only grows" by
            for name, value in document.items():
                stats = self.fields[name]
                if len(stats.order) < ORDER_CAP and isinstance(value, int | float | datetime.datetime | ObjectId):
                    stats.order.append((key, value))

    def add_all(self, documents: Iterable[Mapping[str, Any]]) -> CollectionStats:
        for document in documents:
            self.add(document)
        return self


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
