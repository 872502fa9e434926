"""The one size model: BSON bytes, what the 16 MiB limit and the document-size guidelines are checked against.

Sizes follow the BSON encoding exactly — a document is an int32 length, its
elements and a NUL; an element is a type byte, the field name as a C string
and the value; an array is a document whose field names are "0", "1", ...
"999999" (one to six digits and a NUL each) — with engine-default value
sizes where the user gave no ``bytes``. Every byte figure a finding shows
comes from here (``tests/rules/test_sizes.py`` checks it against
``bson.encode`` of real documents).
"""

from __future__ import annotations

from functools import lru_cache

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


# a project's arrays have a few dozen lengths, asked for thousands of times per analysis (speed only:
# bench_analyse, the cold analysis)
@lru_cache(maxsize=1024)
def index_names_bytes(n: int) -> int:
    """Bytes of the field names "0" .. str(n - 1) of an array's n elements, each with its NUL."""
    total, digits, low = 0, 1, 0
    while low < n:
        high = min(n, low * 10 if low else 10)
        total += (high - low) * (digits + 1)
        low, digits = high, digits + 1
    return total


def array_bytes(n: int, value: int) -> int:
    """BSON bytes of an array of ``n`` elements of ``value`` bytes each (the array's value, without its name)."""
    return DOC_OVERHEAD + n * (1 + value) + index_names_bytes(n)


def elements_within(limit: int, value: int) -> int:
    """The most elements of ``value`` bytes an array can hold within ``limit`` bytes (inverse of array_bytes)."""
    n, digits, low = 0, 1, 0
    room = limit - DOC_OVERHEAD
    while room > 0:
        high = low * 10 if low else 10
        each = 1 + value + digits + 1
        fit = min(high - low, room // each)
        n += fit
        room -= fit * each
        if fit < high - low:
            break
        low, digits = high, digits + 1
    return n


def megabytes(n: int) -> str:
    """Bytes as decimal megabytes for a sentence ("19.9 MB", "0.05 MB"); 16 MiB is 16.8 MB."""
    mb = n / 1_000_000
    return f"{mb:,.1f} MB" if mb >= 1 else f"{mb:.2f} MB"


def element_overhead(name: str) -> int:
    """Type byte + the field name as a C string."""
    return 2 + len(name) if name.isascii() else 2 + len(name.encode("utf-8"))


def present_bytes(element: int, required: bool, settings: Settings) -> int:
    """The average bytes an element (name and value) adds to its document: all of it when the field is required,
    else weighed by the share of documents that hold it (``Settings.optional_presence``). The one place an
    average size weighs presence; a maximum counts every field."""
    return element if required else round(element * settings.optional_presence)


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
            avg += present_bytes(a + o, child.required, settings)
            mx += m + o
        return avg, mx
    if t == "array":
        items = node.items
        a, m = value_bytes(items, settings) if items is not None else (settings.default_string_bytes + 5,) * 2
        max_items = getattr(node, "max_items", None)  # array elements (ArrayItems) have no bound of their own
        n_max = max_items if max_items is not None else settings.default_array_max
        n_avg = min(n_max, settings.default_array_items)
        return array_bytes(n_avg, a), array_bytes(n_max, m)
    size = node.bytes if node.bytes is not None else TYPE_BYTES.get(t, 8)
    return size, size
