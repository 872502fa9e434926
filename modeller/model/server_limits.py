"""What MongoDB, mongosh and the generated validators refuse, caught when a project is checked.

A file that passes ``modeller validate`` must give a setup script the server
runs and sample documents the validators accept. Each rule here is one the
server enforces (sources: MongoDB Manual "Indexes", "Hashed Indexes", "Text
Indexes", "TTL Indexes", "Time Series", "$jsonSchema"; server source
``index_key_validate.cpp``, ``fts_spec.cpp``, ``json_schema_parser.cpp``), so a
user with a design MongoDB accepts never meets them. Every problem names the
place (a JSON path) and what to do instead.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from modeller.model.fakers import faker_problem
from modeller.model.names import JS_MANGLED_NAMES
from modeller.model.paths import all_fields, find_field
from modeller.model.project import ArrayItems, Entity, Field, Index, TimeSeries

#: ``expireAfterSeconds`` of a TTL index: a 32-bit signed integer, at least 0.
MAX_TTL_S = 2**31 - 1
#: A time-series collection refuses ``expireAfterSeconds`` beyond the time since 1970 at creation;
#: 2020-01-01 keeps the bound fixed (and always below the server's).
MAX_RETENTION_S = 1_577_836_800
#: Fields in one index.
MAX_INDEX_KEYS = 32
#: The key pattern document (field names and kinds) as BSON.
MAX_KEY_PATTERN_BYTES = 2048

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
_INT_RANGES = {"int": INT32, "long": INT64}
_NUMBER_TYPES = frozenset({"int", "long", "double", "decimal"})
#: Field types a JSON ``enum`` cannot hold values of (no JSON literal is a date, an ObjectId ...).
_NO_ENUM = {
    "date": "JSON has no date values",
    "objectId": "JSON has no ObjectId values",
    "binData": "JSON has no binary values",
    "uuid": "JSON has no UUID values",
    "point": "a GeoJSON point is not a scalar",
    "object": "an object is not a scalar",
}
#: Field types a ``2dsphere`` key can index: GeoJSON objects, or arrays of them or of coordinate pairs.
_GEO_TYPES = frozenset({"point", "object"})
_SPECIAL = ("text", "2dsphere", "hashed")

Report = Callable[[str, str], None]


def check_ttl(value: int | None, path: str, report: Report) -> None:
    """``expire_after_s`` must fit the server's 32-bit ``expireAfterSeconds``."""
    if value is not None and value > MAX_TTL_S:
        report(
            path,
            f"TTL of {value} s is above MongoDB's limit of {MAX_TTL_S} s (about 68 years); "
            "use a smaller number of seconds",
        )


def check_entity(entity: Entity, where: str, report: Report, server_version: str | None) -> None:
    """Indexes, TTLs, time-series options and field values of one entity."""
    for j, index in enumerate(entity.indexes):
        _check_index(entity, index, f"{where}.indexes[{j}]", report, server_version)
    _check_index_pairs(entity.indexes, f"{where}.indexes", report)
    _check_field_index_clashes(entity, f"{where}.indexes", report)
    _check_fields(entity.fields, f"{where}.fields", report, top=True)
    if entity.subtypes is not None:
        for name, variant in entity.subtypes.variants.items():
            _check_fields(variant, f"{where}.subtypes.variants[{name!r}]", report, top=True)
    if entity.timeseries is not None:
        _check_timeseries(entity, entity.timeseries, f"{where}.timeseries", report)


# -- indexes ------------------------------------------------------------------------------------------


def _check_index(entity: Entity, index: Index, where: str, report: Report, server_version: str | None) -> None:
    keys = index.keys
    kinds = [kind for _path, kind in keys]
    if len(keys) > MAX_INDEX_KEYS:
        report(
            f"{where}.keys",
            f"this index has {len(keys)} keys; MongoDB allows at most {MAX_INDEX_KEYS}: drop keys or split the index",
        )
    seen: dict[str, int] = {}
    for k, (path, _kind) in enumerate(keys):
        if path in seen:
            report(
                f"{where}.keys[{k}]",
                f"field {path[:80]!r} is already keys[{seen[path]}] of this index; MongoDB refuses a field "
                "twice in one index: keep one",
            )
        seen.setdefault(path, k)
        if path.split(".")[0] in ("_fts", "_ftsx"):
            report(f"{where}.keys[{k}]", f"{path[:80]!r} is reserved for text indexes by MongoDB; rename the field")
    if _pattern_bytes(keys) > MAX_KEY_PATTERN_BYTES:
        report(
            f"{where}.keys",
            f"the field names of this index add up to more than MongoDB's {MAX_KEY_PATTERN_BYTES} bytes "
            "for a key pattern; use shorter field names or fewer keys",
        )
    special = [kind for kind in _SPECIAL if kind in kinds]
    if len(special) > 1:
        report(
            f"{where}.keys",
            f"this index mixes {' and '.join(repr(s) for s in special)} keys; MongoDB allows one special kind "
            "(text, 2dsphere or hashed) per index, next to 1/-1 keys: make one index per kind",
        )
    hashed = kinds.count("hashed")
    if hashed > 1:
        report(
            f"{where}.keys",
            f"this index has {hashed} hashed keys; MongoDB allows one hashed field per index: make the others 1 or -1",
        )
    elif hashed and len(keys) > 1 and _older_than(server_version, (4, 4)):
        report(
            f"{where}.keys",
            f"a compound index with a hashed key needs MongoDB 4.4 or later (server_version is {server_version}): "
            "index the hashed field alone, or raise server_version",
        )
    if hashed and index.unique:
        report(
            f"{where}.unique",
            "a hashed index cannot be unique (MongoDB refuses it); drop 'unique' here and declare a unique "
            "index with 1 or -1 on the same field",
        )
    if "text" in kinds:
        first, last = kinds.index("text"), len(kinds) - 1 - kinds[::-1].index("text")
        if any(kind != "text" for kind in kinds[first : last + 1]):
            report(
                f"{where}.keys",
                "the 'text' keys of an index must be next to each other (MongoDB refuses others between them): "
                "move the 1/-1 keys before or after the text keys",
            )
        if index.collation and index.collation.get("locale") != "simple":
            report(
                f"{where}.collation",
                "text indexes do not support a collation (MongoDB refuses it); remove 'collation' from this index",
            )
    _check_index_ttl(index, where, report)
    _check_index_name(index, where, report)
    for option in ("partial", "collation"):
        if _has_mangled_key(getattr(index, option)):
            report(
                f"{where}.{option}",
                "'__proto__' cannot be a key in the generated mongosh script (JavaScript makes it the object's "
                "prototype); rename that field",
            )
    if list(keys) == [("_id", 1)] and index.partial is not None:
        report(f"{where}.partial", "the _id index cannot be partial; remove 'partial' or index another field")
    for k, (path, kind) in enumerate(keys):
        if kind == "2dsphere":
            field = find_field(all_fields(entity), path)
            if field is not None and not _geo_capable(field):
                report(
                    f"{where}.keys[{k}]",
                    f"field {path[:80]!r} is {field.type!r}: a 2dsphere index refuses every document whose value "
                    "is not GeoJSON; declare the field as 'point' (or an object holding GeoJSON)",
                )


def _check_index_pairs(indexes: Sequence[Index], where: str, report: Report) -> None:
    """Two indexes the server cannot both create: one name, or the same keys, filter and collation."""
    names: dict[str, int] = {}
    by_keys: dict[tuple[tuple[str, Any], ...], int] = {}
    for j, index in enumerate(indexes):
        if index.name is not None:
            if index.name in names:
                report(
                    f"{where}[{j}].name",
                    f"index name {index.name[:80]!r} is also used by indexes[{names[index.name]}]; "
                    "MongoDB refuses a second index with the same name: rename one",
                )
            names.setdefault(index.name, j)
        keys = tuple(index.keys)
        if keys not in by_keys:
            by_keys[keys] = j
            continue
        first = indexes[by_keys[keys]]
        if index == first:
            report(f"{where}[{j}]", f"this index repeats indexes[{by_keys[keys]}]; remove one")
        elif index.name is None and first.name is None:
            report(
                f"{where}[{j}].name",
                f"this index has the keys of indexes[{by_keys[keys]}], so both get the same default name and "
                "MongoDB refuses the second: give this one a 'name' (or merge the two)",
            )
        elif index.partial == first.partial and index.collation == first.collation:
            report(
                f"{where}[{j}].keys",
                f"indexes[{by_keys[keys]}] has the same keys, filter and collation; MongoDB keeps one index per "
                "such spec: merge the two into one",
            )


def _check_field_index_clashes(entity: Entity, where: str, report: Report) -> None:
    """A declared ``{f: 1}`` next to the index that ``unique`` / ``expire_after_s`` on field ``f`` creates.

    Both would be ``{f: 1}``; MongoDB refuses the second when it has the same
    default name, or the same filter and collation under another name. Without
    a filter or collation the engine merges them into one index, unless the two
    ask for different TTLs.
    """
    top = {f.name: f for f in all_fields(entity) if f.unique or f.expire_after_s is not None}
    if not top:
        return
    for j, index in enumerate(entity.indexes):
        if len(index.keys) != 1 or index.keys[0][1] != 1:
            continue
        field = top.get(index.keys[0][0])
        if field is None or field.name == "_id":
            continue
        path = field.name
        default_name = index.name in (None, f"{path}_1")
        plain = index.partial is None and not index.collation
        ttls = {t for t in (index.expire_after_s, field.expire_after_s) if t is not None}
        if plain and len(ttls) <= 1:
            continue  # the engine merges the two into one index (unique and TTL together)
        if not default_name and not plain:
            continue  # another filter or collation under its own name: a distinct index
        made = " and ".join(
            part
            for part in (
                "'unique'" if field.unique else "",
                f"'expire_after_s' ({field.expire_after_s} s)" if field.expire_after_s is not None else "",
            )
            if part
        )
        report(
            f"{where}[{j}]",
            f"field {path[:80]!r} already gets the index {{{path[:80]}: 1}} from its {made}; MongoDB refuses "
            "a second index on the same key with other options: remove this index, or give it the same options",
        )


def _check_index_ttl(index: Index, where: str, report: Report) -> None:
    if index.expire_after_s is None:
        return
    check_ttl(index.expire_after_s, f"{where}.expire_after_s", report)
    if len(index.keys) > 1:
        report(
            f"{where}.expire_after_s",
            "TTL indexes are single-field indexes (MongoDB refuses expire_after_s on a compound index): "
            "declare a separate index on the date field alone",
        )
    elif index.keys[0][0] == "_id":
        report(
            f"{where}.expire_after_s",
            "MongoDB does not support a TTL on _id; put expire_after_s on an index of a date field",
        )


def _check_index_name(index: Index, where: str, report: Report) -> None:
    name = index.name
    if name is None:
        return
    if name == "*":
        report(f"{where}.name", "MongoDB refuses the index name '*' (it means 'all indexes'); choose another name")
    elif name == "_id_" and list(index.keys) != [("_id", 1)]:
        report(f"{where}.name", "the index name '_id_' is reserved for the _id index; choose another name")
    elif "\x00" in name:
        report(f"{where}.name", "index names cannot contain a NUL character; remove it")


def _has_mangled_key(value: Any) -> bool:
    """Whether a JSON value holds an object key that a JavaScript object literal does not keep."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if JS_MANGLED_NAMES.intersection(item):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _pattern_bytes(keys: Iterable[tuple[str, Any]]) -> int:
    """Size of the key pattern as BSON: header, then per key a type byte, the name, and an int32 or a string."""
    size = 5
    for path, kind in keys:
        size += 2 + len(path.encode("utf-8", "surrogatepass"))
        size += 4 if isinstance(kind, int) else 5 + len(str(kind))
    return size


def _older_than(version: str | None, minimum: tuple[int, int]) -> bool:
    if version is None:
        return False
    # each part is digits (the model's pattern); a few keep int() clear of Python's digit limit
    parts = [int(p[:6]) if len(p) <= 6 else 999_999 for p in version.split(".")]
    return tuple([*parts, 0][:2]) < minimum


def _geo_capable(field: Field) -> bool:
    if field.type in _GEO_TYPES:
        return True
    if field.type != "array":
        return False
    items = field.items
    while items is not None and items.type == "array":
        items = items.items
    # an array of GeoJSON, or a legacy coordinate pair [longitude, latitude]
    return items is None or items.type in _GEO_TYPES or items.type in ("double", "int", "long", "decimal")


# -- field values -------------------------------------------------------------------------------------


#: _id types the server refuses (an array) or that cannot tell documents apart (two booleans; a point)
_BAD_ID_TYPES = {
    "array": "MongoDB refuses an array as _id",
    "bool": "a boolean _id allows two documents only",
    "point": "a GeoJSON point cannot identify a document",
}


def _check_fields(fields: Sequence[Field], path: str, report: Report, top: bool = False) -> None:
    for i, field in enumerate(fields):
        if top and field.name == "_id" and field.type in _BAD_ID_TYPES:
            report(
                f"{path}[{i}].type", f"{_BAD_ID_TYPES[field.type]}; declare _id as objectId, string, a number or a date"
            )
        # paths are built only for fields that carry something to check (load time on big projects)
        if field.faker is not None or field.enum or field.example is not None:
            _check_node(field, f"{path}[{i}]", report)
        if field.expire_after_s is not None:
            check_ttl(field.expire_after_s, f"{path}[{i}].expire_after_s", report)
            if top and field.name == "_id":
                report(
                    f"{path}[{i}].expire_after_s",
                    "MongoDB does not support a TTL on _id; put expire_after_s on a date field",
                )
        if field.fields:
            _check_fields(field.fields, f"{path}[{i}].fields", report)
        if field.items is not None:
            items: ArrayItems | None = field.items
            sub = f"{path}[{i}].items"
            while items is not None:
                _check_node(items, sub, report)
                if items.fields:
                    _check_fields(items.fields, f"{sub}.fields", report)
                items, sub = items.items, sub + ".items"


def _check_node(node: Field | ArrayItems, where: str, report: Report) -> None:
    """``enum``, ``example`` and ``faker`` of one field or array element, against its type."""
    if node.faker is not None:
        problem = faker_problem(node.faker, node.type)
        if problem is not None:
            report(f"{where}.faker", problem)
    if node.enum:
        _check_enum(node.enum, node.type, f"{where}.enum", report)
    if node.example is not None:
        problem = _example_problem(node.example, node.type)
        if problem is not None:
            report(f"{where}.example", problem)


def _check_enum(values: Sequence[Any], field_type: str, where: str, report: Report) -> None:
    if field_type == "array":
        report(where, "'enum' on an array field would compare whole arrays; put 'enum' on 'items' instead")
        return
    if field_type in _NO_ENUM:
        report(
            where,
            f"a {field_type!r} field cannot have an enum ({_NO_ENUM[field_type]}, so no document would pass "
            "the validator); remove 'enum'",
        )
        return
    seen: dict[tuple[str, Any], int] = {}
    for k, value in enumerate(values):
        problem = _enum_value_problem(value, field_type)
        if problem is not None:
            report(f"{where}[{k}]", problem)
            continue
        key = ("bool", value) if isinstance(value, bool) else (type(value).__name__, value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            key = ("number", value)
        if key in seen:
            report(
                f"{where}[{k}]",
                f"{_short(value)} is already enum[{seen[key]}]; MongoDB refuses an enum with duplicates: remove one",
            )
        seen.setdefault(key, k)


def _enum_value_problem(value: Any, field_type: str) -> str | None:
    kind = _json_kind(value)
    if field_type == "string":
        ok = kind == "string"
    elif field_type == "bool":
        ok = kind == "boolean"
    elif field_type in _INT_RANGES:
        if kind == "integer":
            message = _integer_range_problem(value, field_type)
            return None if message is None else f"enum value {message}"
        ok = False
    elif field_type in _NUMBER_TYPES:
        if kind == "integer" and not INT64[0] <= value <= INT64[1]:
            return (
                f"enum value {_short(value)} is too large for BSON (integers stop at {INT64[1]}); use a smaller value"
            )
        ok = kind in ("integer", "number")
    else:
        ok = True
    if ok:
        return None
    return (
        f"enum value {_short(value)} is {'an' if kind[0] in 'aeiou' else 'a'} {kind}, but the field is "
        f"{field_type!r}: no document could hold it; "
        f"list {field_type} values only"
    )


def _integer_range_problem(value: int, field_type: str) -> str | None:
    low, high = _INT_RANGES[field_type]
    if low <= value <= high:
        return None
    if field_type == "int":
        return f"{_short(value)} is outside the 'int' range {low}..{high}; use type 'long' or a smaller value"
    return f"{_short(value)} is outside the 'long' range {low}..{high}, the largest BSON integer; use a smaller value"


#: what a field of each type takes as its ``example`` (the samples use it, a migration converts it with
#: ``$convert``, which stops the whole run on a value it cannot convert); other types take any JSON
_EXAMPLE_WANTS = {
    "int": "an integer such as 42",
    "long": "an integer such as 42",
    "double": "a number such as 2.5",
    "decimal": "a number such as 9.99",
    "bool": "true or false",
    "date": 'an ISO 8601 date such as "2024-05-01T12:00:00Z"',
    "objectId": 'an ObjectId of 24 hexadecimal digits such as "665f1c2ab0e4d3a1c8f2e901"',
    "object": "a JSON object",
    "array": "a JSON array",
}
#: a date ``$convert`` and the sample exporter both read: YYYY-MM-DD, optionally a time and a zone
_ISO_DATE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,3})?)?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?"
)
_INTEGER = re.compile(r"-?[0-9]+")
_NUMERAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_OBJECT_ID = re.compile(r"[0-9a-fA-F]{24}")


def _example_problem(value: Any, field_type: str) -> str | None:
    """Why ``value`` cannot be an example of a ``field_type`` field (None when it can): say it at load, not
    when a migration's ``$convert`` fails halfway through a collection."""
    if field_type in _INT_RANGES:
        number = _as_integer(value)
        if number is not None:
            message = _integer_range_problem(number, field_type)
            return None if message is None else f"example {message}"
        ok = False
    elif field_type in ("double", "decimal"):
        ok = _json_kind(value) in ("integer", "number") or (
            isinstance(value, str) and len(value) < 400 and _NUMERAL.fullmatch(value) is not None
        )
    elif field_type == "bool":
        ok = isinstance(value, bool)
    elif field_type == "date":
        ok = isinstance(value, str) and _ISO_DATE.fullmatch(value) is not None and _is_date(value)
    elif field_type == "objectId":
        ok = isinstance(value, str) and _OBJECT_ID.fullmatch(value) is not None
    elif field_type == "object":
        ok = isinstance(value, Mapping)
    elif field_type == "array":
        ok = isinstance(value, Sequence) and not isinstance(value, str)
    else:
        return None
    if ok:
        return None
    return (
        f"example {_short(value)} cannot be converted to the field's type {field_type!r}; "
        f"write {_EXAMPLE_WANTS[field_type]}, or remove 'example'"
    )


def _is_date(text: str) -> bool:
    try:
        dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:  # a month 13, a February 30th
        return False
    return True


def _as_integer(value: Any) -> int | None:
    """The integer the sample exporter makes of an int/long ``example``, or None when it makes none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return int(value)
    # ASCII digits only: "²" is a digit to str.isdigit but no number to int() nor to $convert
    if isinstance(value, str) and len(value) < 400 and _INTEGER.fullmatch(value):
        return int(value)
    return None


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# -- time series --------------------------------------------------------------------------------------


def _check_timeseries(entity: Entity, ts: TimeSeries, where: str, report: Report) -> None:
    fields = all_fields(entity)
    if "." in ts.time_field:
        report(
            f"{where}.time_field",
            f"{ts.time_field[:80]!r} is inside a sub-document; a time-series collection needs a top-level "
            "time field: name a top-level 'date' field",
        )
    else:
        time = find_field(fields, ts.time_field)
        if time is not None and time.type != "date":
            report(
                f"{where}.time_field",
                f"field {ts.time_field[:80]!r} is {time.type!r}; a time-series collection refuses every document "
                "whose time field is not a date: make it type 'date' or name a 'date' field",
            )
    meta = ts.meta_field
    if meta is not None:
        if "." in meta:
            report(
                f"{where}.meta_field",
                f"{meta[:80]!r} is inside a sub-document; a time-series collection needs a top-level meta field: "
                "name a top-level field",
            )
        elif meta == "_id":
            report(f"{where}.meta_field", "a time-series meta field cannot be _id; name another field")
        elif meta == ts.time_field:
            report(f"{where}.meta_field", "the meta field cannot be the time field; name another field or remove it")
    if ts.retention_s is not None and ts.retention_s > MAX_RETENTION_S:
        report(
            f"{where}.retention_s",
            f"retention of {ts.retention_s} s is above {MAX_RETENTION_S} s (50 years), more than MongoDB accepts "
            "for a time-series collection's expireAfterSeconds; use a smaller number of seconds",
        )
