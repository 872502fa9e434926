"""The normative vocabulary of DESIGN.md, as ``Literal`` types.

Literals (not Enums) keep the JSON values and the Python values identical,
so the file format, the engine and the UI all speak the same words.
"""

from __future__ import annotations

from typing import Literal, get_args

FORMAT_NAME = "mongo-schema-modeller"
FORMAT_VERSION = 2

Cardinality = Literal["one-to-one", "one-to-few", "one-to-many", "one-to-squillions", "many-to-many"]
Strategy = Literal[
    "auto",
    "embed",
    "child-refs",
    "parent-ref",
    "two-way",
    "extended-ref",
    "subset",
    "bucket",
    "single-collection",
]
Growth = Literal["bounded", "unbounded"]
Direction = Literal["many-to-one", "one-to-many"]
Staleness = Literal["none", "seconds", "minutes", "hours", "days", "forever"]
TreeOp = Literal["children", "parent", "ancestors", "subtree", "move"]
AggregateOp = Literal["count", "sum", "avg", "min", "max"]
FilterOp = Literal["eq", "in", "range", "regex", "ci", "text", "geo"]
FieldType = Literal[
    "string",
    "int",
    "long",
    "double",
    "decimal",
    "bool",
    "date",
    "objectId",
    "object",
    "array",
    "binData",
    "uuid",
    "point",
]
#: a type a field holds besides its declared one (``other_types``): a field type, or null
OtherType = Literal[FieldType, "null"]
IndexKind = Literal[1, -1, "text", "2dsphere", "hashed"]
SortDirection = Literal[1, -1]
SubjectKind = Literal["entity", "relationship", "field", "query", "collection", "index"]

CARDINALITIES: tuple[str, ...] = get_args(Cardinality)
STRATEGIES: tuple[str, ...] = get_args(Strategy)
FIELD_TYPES: tuple[str, ...] = get_args(FieldType)
OTHER_TYPES: tuple[str, ...] = get_args(OtherType)
FILTER_OPS: tuple[str, ...] = get_args(FilterOp)
STALENESS: tuple[str, ...] = get_args(Staleness)
TREE_OPS: tuple[str, ...] = get_args(TreeOp)
AGGREGATE_OPS: tuple[str, ...] = get_args(AggregateOp)
