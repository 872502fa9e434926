"""Data-level mutations of a project file for the end-to-end fuzzer.

Each mutation edits the parsed JSON of a sample project the way a user (or
a hostile file) could: cardinalities, forced strategies, field types, indexes,
enums, queries, self-relationships, subtypes, time series, names and numbers.
Most mutations keep the references of the file intact (a renamed field is
renamed everywhere it is named), so most mutated projects still load and
reach the engine and the exporters; the ones that do not load are checked by
the loader's own contract.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from modeller.model.vocabulary import (
    AGGREGATE_OPS,
    CARDINALITIES,
    FIELD_TYPES,
    FILTER_OPS,
    STALENESS,
    STRATEGIES,
    TREE_OPS,
)

Doc = dict[str, Any]
Mutation = Callable[[Doc, st.DataObject], None]

#: Names a user may type that are hard on generated code: quotes, dots, `$`, unicode, JS prototype keys.
HOSTILE_NAMES = [
    "é名前",
    "naïve café",
    'quo"te',
    "it's",
    "back\\slash",
    "a b",
    "dot.ted",
    "$dollar",
    "mid$dle",
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
    "😀",
    "</script>",
    "${x}",
    "*/ x /*",
    "\u202eRTL",
    "0",
    "123",
    "-1",
    "_id",
    "type",
    "null",
    "x" * 200,
    "tab\there",
    "new\nline",
    "Ünïcödé",
    "system.x",
    "_",
]
#: Numbers at the edges: zero, negative, int32/int53 limits, the largest the file allows, tiny fractions.
EDGE_NUMBERS = [0, 1, 2, 3, -1, 7, 100, 101, 200, 250, 2001, 2**31 - 1, 2**31, 2**53, 10**15, 10**15 + 1, 0.5, 1e-9]
SCALAR_TYPES = [t for t in FIELD_TYPES if t not in ("object", "array")]
INDEX_KINDS: list[Any] = [1, -1, 1, -1, "text", "2dsphere", "hashed"]

names = st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(min_size=1, max_size=12))
plain_names = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
numbers = st.one_of(st.sampled_from(EDGE_NUMBERS), st.integers(0, 5000))
scalars = st.one_of(
    st.sampled_from(HOSTILE_NAMES),
    st.text(max_size=8),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
)


def _pick(data: st.DataObject, items: list[Any]) -> Any:
    return items[data.draw(st.integers(0, len(items) - 1))] if items else None


def _entity(doc: Doc, data: st.DataObject) -> Doc | None:
    return _pick(data, doc.get("entities", []))


def _relationship(doc: Doc, data: st.DataObject) -> Doc | None:
    return _pick(data, doc.get("relationships", []))


def _paths(fields: list[Doc], prefix: str = "") -> list[tuple[str, Doc]]:
    """Dotted paths of a field list, into sub-documents and arrays of sub-documents."""
    out: list[tuple[str, Doc]] = []
    for field in fields:
        path = prefix + str(field.get("name"))
        out.append((path, field))
        children = field.get("fields") or (field.get("items") or {}).get("fields") or []
        out.extend(_paths(children, path + "."))
    return out


def _entity_paths(entity: Doc) -> list[str]:
    fields = list(entity.get("fields", []))
    for variant in ((entity.get("subtypes") or {}).get("variants") or {}).values():
        fields.extend(variant)
    return [path for path, _ in _paths(fields)]


def _by_id(doc: Doc, entity_id: str) -> Doc | None:
    return next((e for e in doc.get("entities", []) if e.get("id") == entity_id), None)


def _field_of_type(entity: Doc, kinds: tuple[str, ...]) -> str | None:
    return next((path for path, f in _paths(entity.get("fields", [])) if f.get("type") in kinds), None)


def _new_field(data: st.DataObject, depth: int = 0) -> Doc:
    kind = data.draw(st.sampled_from(FIELD_TYPES if depth < 2 else SCALAR_TYPES))
    field: Doc = {"name": data.draw(st.one_of(names, plain_names)), "type": kind}
    if kind == "object":
        field["fields"] = [_new_field(data, depth + 1) for _ in range(data.draw(st.integers(1, 2)))]
    elif kind == "array":
        item_kind = data.draw(st.sampled_from([*SCALAR_TYPES, "object"]))
        items: Doc = {"type": item_kind}
        if item_kind == "object":
            items["fields"] = [_new_field(data, depth + 1)]
        field["items"] = items
        if data.draw(st.booleans()):
            field["max_items"] = data.draw(numbers)
    for flag in ("required", "unique", "immutable", "monotonic"):
        if data.draw(st.integers(0, 4)) == 0:
            field[flag] = True
    if data.draw(st.integers(0, 5)) == 0:
        field["enum"] = data.draw(st.lists(scalars, max_size=4))
    if data.draw(st.integers(0, 6)) == 0:
        field["expire_after_s"] = data.draw(numbers)
    return field


def set_cardinality(doc: Doc, data: st.DataObject) -> None:
    rel = _relationship(doc, data)
    if rel is not None:
        rel["cardinality"] = data.draw(st.sampled_from(CARDINALITIES))


def force_strategy(doc: Doc, data: st.DataObject) -> None:
    rel = _relationship(doc, data)
    if rel is None:
        return
    strategy = data.draw(st.sampled_from(STRATEGIES))
    if data.draw(st.booleans()):
        rel["strategy"] = strategy
    else:
        rel["decision"] = {"strategy": strategy, "note": data.draw(names)}


def relationship_numbers(doc: Doc, data: st.DataObject) -> None:
    rel = _relationship(doc, data)
    if rel is None:
        return
    key = data.draw(st.sampled_from(["typical", "max", "show_latest", "reads_per_sec", "writes_per_sec"]))
    rel[key] = data.draw(numbers)
    if data.draw(st.booleans()):
        rel["growth"] = data.draw(st.sampled_from(["bounded", "unbounded"]))
    if data.draw(st.booleans()):
        rel["read_together"] = data.draw(st.sampled_from([0, 0.49, 0.5, 1]))
    for flag in ("many_standalone", "atomic"):
        if data.draw(st.integers(0, 3)) == 0:
            rel[flag] = not rel.get(flag, False)


def add_relationship(doc: Doc, data: st.DataObject, self_link: bool = False) -> None:
    one = _entity(doc, data)
    many = one if self_link else _entity(doc, data)
    if one is None or many is None:
        return
    rel: Doc = {
        "id": f"fz_rel_{len(doc.get('relationships', []))}",
        "one": one["id"],
        "many": many["id"],
        "cardinality": data.draw(st.sampled_from(CARDINALITIES)),
        "strategy": data.draw(st.sampled_from(STRATEGIES)),
    }
    if data.draw(st.booleans()):
        rel["name"] = data.draw(st.one_of(names, plain_names))
    if data.draw(st.booleans()):
        rel["max"] = data.draw(numbers)
    if self_link:
        rel["tree_ops"] = data.draw(st.lists(st.sampled_from(TREE_OPS), unique=True, max_size=5))
    doc.setdefault("relationships", []).append(rel)


def add_self_relationship(doc: Doc, data: st.DataObject) -> None:
    add_relationship(doc, data, self_link=True)


def change_field_type(doc: Doc, data: st.DataObject) -> None:
    entity = _entity(doc, data)
    if entity is None or not entity.get("fields"):
        return
    _, field = _pick(data, _paths(entity["fields"]))
    replacement = _new_field(data, depth=1)
    for key in ("fields", "items", "max_items"):
        field.pop(key, None)
    field["type"] = replacement["type"]
    for key in ("fields", "items", "max_items"):
        if key in replacement:
            field[key] = replacement[key]


def add_field(doc: Doc, data: st.DataObject) -> None:
    entity = _entity(doc, data)
    if entity is not None:
        entity.setdefault("fields", []).append(_new_field(data))


def field_properties(doc: Doc, data: st.DataObject) -> None:
    entity = _entity(doc, data)
    if entity is None or not entity.get("fields"):
        return
    _, field = _pick(data, _paths(entity["fields"]))
    key = data.draw(
        st.sampled_from(
            [
                "required",
                "unique",
                "immutable",
                "counter",
                "exact",
                "monotonic",
                "expire_after_s",
                "distinct",
                "bytes",
                "reads_per_sec",
                "updates_per_sec",
                "example",
                "enum",
            ]
        )
    )
    if key == "enum":
        field["enum"] = data.draw(st.lists(scalars, max_size=4))
    elif key == "example":
        field["example"] = data.draw(scalars)
    elif key in ("expire_after_s", "distinct", "bytes", "reads_per_sec", "updates_per_sec"):
        field[key] = data.draw(numbers)
    else:
        field[key] = not field.get(key, False)


def add_index(doc: Doc, data: st.DataObject) -> None:
    entity = _entity(doc, data)
    if entity is None:
        return
    paths = [*_entity_paths(entity), "_id"]
    chosen = data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=3, unique=True))
    index: Doc = {"keys": [[path, data.draw(st.sampled_from(INDEX_KINDS))] for path in chosen]}
    if data.draw(st.booleans()):
        index["unique"] = True
    if data.draw(st.integers(0, 2)) == 0:
        index["expire_after_s"] = data.draw(numbers)
    if data.draw(st.integers(0, 2)) == 0:
        index["name"] = data.draw(st.one_of(names, plain_names))
    if data.draw(st.integers(0, 5)) == 0:
        index["partial"] = {chosen[0]: {"$exists": True}}
    if data.draw(st.integers(0, 5)) == 0:
        index["collation"] = {"locale": "en", "strength": 2}
    entity.setdefault("indexes", []).append(index)


def add_query(doc: Doc, data: st.DataObject) -> None:
    entity = _entity(doc, data)
    if entity is None:
        return
    paths = _entity_paths(entity) or ["_id"]
    query: Doc = {
        "id": f"fz_query_{len(doc.get('queries', []))}",
        "entity": entity["id"],
        "filter": {p: data.draw(st.sampled_from(FILTER_OPS)) for p in data.draw(st.lists(st.sampled_from(paths)))[:3]},
    }
    if data.draw(st.booleans()):
        query["sort"] = [[p, data.draw(st.sampled_from([1, -1]))] for p in data.draw(st.lists(st.sampled_from(paths)))]
        query["sort"] = [
            pair for i, pair in enumerate(query["sort"]) if pair[0] not in {q[0] for q in query["sort"][:i]}
        ]
    rels = [r["id"] for r in doc.get("relationships", []) if entity["id"] in (r.get("one"), r.get("many"))]
    if rels and data.draw(st.booleans()):
        query["joins"] = data.draw(st.lists(st.sampled_from(rels), max_size=2, unique=True))
    if data.draw(st.booleans()):
        query["projection"] = data.draw(st.lists(st.sampled_from(paths), max_size=3, unique=True))
    if data.draw(st.booleans()):
        query["limit"] = data.draw(numbers)
    query["per_sec"] = data.draw(numbers)
    query["hot"] = data.draw(st.booleans())
    if data.draw(st.booleans()):
        query["name"] = data.draw(names)
    doc.setdefault("queries", []).append(query)


def add_subtypes(doc: Doc, data: st.DataObject) -> None:
    entity = _entity(doc, data)
    if entity is None:
        return
    variants = {
        data.draw(names): [_new_field(data, depth=1) for _ in range(data.draw(st.integers(0, 2)))]
        for _ in range(data.draw(st.integers(1, 3)))
    }
    subtypes: Doc = {"variants": variants}
    if data.draw(st.booleans()):
        subtypes["discriminator"] = data.draw(st.one_of(names, plain_names))
    entity["subtypes"] = subtypes


def add_timeseries(doc: Doc, data: st.DataObject) -> None:
    entity = _entity(doc, data)
    if entity is None:
        return
    time_field = _field_of_type(entity, ("date",))
    if time_field is None or data.draw(st.booleans()):
        time_field = data.draw(plain_names) + "_at"
        entity.setdefault("fields", []).append(
            {"name": time_field, "type": "date", "required": data.draw(st.booleans())}
        )
    series: Doc = {"time_field": time_field}
    others = [p for p in _entity_paths(entity) if p != time_field]
    if others and data.draw(st.booleans()):
        series["meta_field"] = data.draw(st.sampled_from(others))
    for key in ("interval_s", "retention_s", "bucket_size"):
        if data.draw(st.booleans()):
            series[key] = data.draw(numbers)
    entity["timeseries"] = series


def add_denormalize(doc: Doc, data: st.DataObject) -> None:
    rel = _relationship(doc, data)
    if rel is None:
        return
    direction = data.draw(st.sampled_from(["many-to-one", "one-to-many"]))
    source = _by_id(doc, rel.get("many") if direction == "many-to-one" else rel.get("one"))
    paths = _entity_paths(source) if source else []
    if paths:
        rel.setdefault("denormalize", []).append(
            {"field": _pick(data, paths), "direction": direction, "staleness": data.draw(st.sampled_from(STALENESS))}
        )


def add_aggregate(doc: Doc, data: st.DataObject) -> None:
    rel = _relationship(doc, data)
    if rel is None:
        return
    many = _by_id(doc, rel.get("many"))
    op = data.draw(st.sampled_from(AGGREGATE_OPS))
    agg: Doc = {"name": data.draw(st.one_of(names, plain_names)), "op": op}
    paths = _entity_paths(many) if many else []
    if op != "count" and paths:
        agg["field"] = _pick(data, paths)
    rel.setdefault("aggregates", []).append(agg)


def shard(doc: Doc, data: st.DataObject) -> None:
    doc["sharded"] = True
    if data.draw(st.booleans()):
        doc["shards"] = data.draw(numbers)
    entity = _entity(doc, data)
    if entity is not None:
        paths = [*_entity_paths(entity), "_id"]
        entity["shard_key"] = data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=3, unique=True))


def archive_and_flags(doc: Doc, data: st.DataObject) -> None:
    entity = _entity(doc, data)
    if entity is None:
        return
    date_field = _field_of_type(entity, ("date",))
    if date_field is not None and data.draw(st.booleans()):
        entity["archive"] = {"age_field": date_field, "cold_after_s": data.draw(numbers)}
    for flag in ("append_only", "history", "schema_change"):
        if data.draw(st.booleans()):
            entity[flag] = not entity.get(flag, False)
    if data.draw(st.booleans()):
        entity[data.draw(st.sampled_from(["count", "growth_per_day", "reads_per_sec", "writes_per_sec"]))] = data.draw(
            numbers
        )


def _rename_in_path(path: Any, old: str, new: str) -> Any:
    if not isinstance(path, str):
        return path
    if path == old:
        return new
    return new + path[len(old) :] if path.startswith(old + ".") else path


def rename_field(doc: Doc, entity_id: str, old: str, new: str) -> None:
    """Rename a top-level field of an entity and every place the file names it."""
    entity = _by_id(doc, entity_id)
    if entity is None:
        return
    for field in entity.get("fields", []):
        if field.get("name") == old:
            field["name"] = new
    for index in entity.get("indexes", []):
        index["keys"] = [[_rename_in_path(k[0], old, new), *k[1:]] for k in index.get("keys", [])]
    if entity.get("shard_key"):
        entity["shard_key"] = [_rename_in_path(k, old, new) for k in entity["shard_key"]]
    for key, attr in (("timeseries", "time_field"), ("timeseries", "meta_field"), ("archive", "age_field")):
        block = entity.get(key)
        if isinstance(block, dict) and attr in block:
            block[attr] = _rename_in_path(block[attr], old, new)
    for query in doc.get("queries", []):
        if query.get("entity") != entity_id:
            continue
        query["filter"] = {_rename_in_path(k, old, new): v for k, v in query.get("filter", {}).items()}
        query["sort"] = [[_rename_in_path(k, old, new), d] for k, d in query.get("sort", [])]
        query["projection"] = [_rename_in_path(k, old, new) for k in query.get("projection", [])]
    for rel in doc.get("relationships", []):
        for denorm in rel.get("denormalize", []):
            side = rel.get("many") if denorm.get("direction") == "many-to-one" else rel.get("one")
            if side == entity_id:
                denorm["field"] = _rename_in_path(denorm.get("field"), old, new)
        for agg in rel.get("aggregates", []):
            if rel.get("many") == entity_id and "field" in agg:
                agg["field"] = _rename_in_path(agg["field"], old, new)


def rename(doc: Doc, data: st.DataObject) -> None:
    """Give something the user names a hostile name."""
    where = data.draw(
        st.sampled_from(["project", "database", "entity", "collection", "field", "role", "index", "query"])
    )
    new = data.draw(st.one_of(names, names.map(lambda s: s + "_x")))
    if where == "project":
        doc["name"] = new
        doc["description"] = data.draw(names)
    elif where == "database":
        doc["database"] = new
    elif where in ("entity", "collection", "field"):
        entity = _entity(doc, data)
        if entity is None:
            return
        if where == "field" and entity.get("fields"):
            rename_field(doc, entity["id"], _pick(data, entity["fields"])["name"], new)
        elif where == "entity":
            entity["name"] = new
        else:
            entity["collection"] = new
    elif where == "role":
        rel = _relationship(doc, data)
        if rel is not None:
            rel[data.draw(st.sampled_from(["name", "inverse"]))] = new
    elif where == "index":
        entity = _entity(doc, data)
        if entity is not None and entity.get("indexes"):
            _pick(data, entity["indexes"])["name"] = new
    else:
        query = _pick(data, doc.get("queries", []))
        if query is not None:
            query["name"] = new


def _number_slots(node: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    if isinstance(node, dict):
        items: Any = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return out
    for key, value in items:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append((node, key))
        else:
            _number_slots(value, out)
    return out


def edge_number(doc: Doc, data: st.DataObject) -> None:
    """Any number of the file becomes 0, negative, huge or fractional."""
    slots = [(c, k) for c, k in _number_slots(doc, []) if k != "format_version"]
    if slots:
        container, key = _pick(data, slots)
        container[key] = data.draw(st.one_of(st.sampled_from(EDGE_NUMBERS), st.sampled_from([-1, -5, 10**16])))


def delete_item(doc: Doc, data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["relationships", "queries", "indexes", "fields"]))
    if kind in ("indexes", "fields"):
        entity = _entity(doc, data)
        holder = entity.get(kind, []) if entity else []
    else:
        holder = doc.get(kind, [])
    if holder:
        del holder[data.draw(st.integers(0, len(holder) - 1))]


MUTATIONS: list[Mutation] = [
    set_cardinality,
    force_strategy,
    force_strategy,
    relationship_numbers,
    add_relationship,
    add_self_relationship,
    change_field_type,
    add_field,
    field_properties,
    add_index,
    add_index,
    add_query,
    add_subtypes,
    add_timeseries,
    add_denormalize,
    add_aggregate,
    shard,
    archive_and_flags,
    rename,
    rename,
    edge_number,
    delete_item,
]


def mutated(base: Doc, data: st.DataObject, max_mutations: int = 6) -> Doc:
    """A deep copy of ``base`` with 1..max_mutations mutations applied."""
    doc = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, max_mutations))):
        data.draw(st.sampled_from(MUTATIONS))(doc, data)
    return doc


def changes(base: Any, doc: Any, path: str = "$") -> list[str]:
    """What a mutation changed, one line per JSON path (for failure messages)."""
    if type(base) is not type(doc):
        return [f"{path}: {json.dumps(doc, ensure_ascii=False)[:300]}"]
    if isinstance(base, dict):
        out = [f"{path}.{key}: removed" for key in base if key not in doc]
        for key, value in doc.items():
            out.extend(
                changes(base[key], value, f"{path}.{key}") if key in base else [f"{path}.{key}: {_short(value)}"]
            )
        return out
    if isinstance(base, list):
        out = [f"{path}[{i}]: removed" for i in range(len(doc), len(base))]
        for i, value in enumerate(doc):
            out.extend(changes(base[i], value, f"{path}[{i}]") if i < len(base) else [f"{path}[{i}]: {_short(value)}"])
        return out
    return [] if base == doc else [f"{path}: {_short(doc)}"]


def _short(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:300]
