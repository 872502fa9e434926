"""Estimated BSON sizes: what the 16 MiB limit and the document-size guidelines are checked against.

Estimates follow the BSON encoding (type byte + field name + value) with
engine-default value sizes where the user gave no ``bytes``. They are meant
to be right within a factor of two, which is what the thresholds need.
"""

from __future__ import annotations

from modeller.model.project import ArrayItems, Field
from modeller.rules.settings import Settings

#: value bytes per model type (BSON encoding; strings and arrays use Settings defaults)
TYPE_BYTES: dict[str, int] = {
    "int": 4,
    "long": 8,
    "double": 8,
    "decimal": 16,
    "bool": 1,
    "date": 8,
    "objectId": 12,
    "binData": 21,
    "uuid": 21,
    "point": 60,
}
DOC_OVERHEAD = 5  # int32 length + terminating NUL
ARRAY_INDEX_NAME = 3  # "12" + NUL, the field name of an array element


def element_overhead(name: str) -> int:
    """Type byte + the field name as a C string."""
    return 2 + len(name) if name.isascii() else 2 + len(name.encode("utf-8"))


def value_bytes(node: Field | ArrayItems, settings: Settings) -> tuple[int, int]:
    """(average, maximum) bytes of one value of a declared field or array element."""
    t = node.type
    if t == "string":
        size = node.bytes if node.bytes is not None else settings.default_string_bytes
        return size + 5, size + 5
    if t == "object":
        fields = node.fields
        if not fields and node.bytes is not None:
            return node.bytes, node.bytes
        avg = mx = DOC_OVERHEAD
        for child in fields or ():
            a, m = value_bytes(child, settings)
            o = element_overhead(child.name)
            avg += a + o
            mx += m + o
        return avg, mx
    if t == "array":
        items = node.items
        a, m = value_bytes(items, settings) if items is not None else (settings.default_string_bytes + 5,) * 2
        a += 1 + ARRAY_INDEX_NAME
        m += 1 + ARRAY_INDEX_NAME
        max_items = getattr(node, "max_items", None)  # array elements (ArrayItems) have no bound of their own
        n_max = max_items if max_items is not None else settings.default_array_max
        n_avg = min(n_max, settings.default_array_items)
        return DOC_OVERHEAD + n_avg * a, DOC_OVERHEAD + n_max * m
    size = node.bytes if node.bytes is not None else TYPE_BYTES.get(t, 8)
    return size, size
