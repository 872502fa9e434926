"""A large, valid, realistic project for benchmarks (and for tests that need volume).

``generate_project(1000, 1.5, 0.5)`` gives 1,000 entities, 1,500
relationships and 500 queries with the variety real designs have: nested
objects and arrays of sub-documents, enums, every cardinality, self
relationships with tree operations, denormalized copies both ways,
aggregates, decisions, time series, subtypes, archives, declared indexes,
queries with filters, sorts, projections and joins, and a layout.
The same seed always gives the same project.
"""

from __future__ import annotations

import random
from typing import Any

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.model.conventions import parent_ref_field
from modeller.model.paths import iter_paths
from modeller.model.vocabulary import CARDINALITIES, FILTER_OPS, STALENESS, STRATEGIES, TREE_OPS

NOUNS = [
    "Customer", "Order", "Product", "Review", "Address", "Invoice", "Shipment", "Warehouse", "Supplier",
    "Category", "Tag", "Log Message", "Host", "Sensor", "Reading", "Session", "User", "Comment", "Post",
    "Photo", "Task", "Project", "Part", "Account", "Payment", "Ticket", "Employee", "Department", "Device",
    "Event", "Playlist", "Song", "Course", "Lesson", "Patient", "Visit", "Store", "Coupon", "Flight", "Seat",
]  # fmt: skip
SCALARS = ["string", "int", "long", "double", "decimal", "bool", "date", "objectId", "uuid", "binData", "point"]
WORDS = [
    "title", "status", "amount", "price", "created_at", "updated_at", "email", "phone", "city", "zip",
    "street", "country", "score", "rating", "quantity", "sku", "label", "colour", "size", "weight",
    "notes", "code", "level", "region", "total", "currency", "priority", "due_date", "owner_name", "version",
]  # fmt: skip
NUMERIC = {"int", "long", "double", "decimal"}


def _field(rng: random.Random, name: str, depth: int) -> dict[str, Any]:
    roll = rng.random()
    if depth < 2 and roll < 0.12:
        return {"name": name, "type": "object", "fields": _fields(rng, rng.randint(2, 4), depth + 1)}
    if depth < 2 and roll < 0.2:
        items: dict[str, Any]
        if rng.random() < 0.5:
            items = {"type": "object", "fields": _fields(rng, rng.randint(2, 3), depth + 1)}
        else:
            items = {"type": rng.choice(["string", "int", "objectId"])}
        return {"name": name, "type": "array", "items": items, "max_items": rng.choice([5, 20, 100, 1000])}
    field: dict[str, Any] = {"name": name, "type": rng.choice(SCALARS)}
    if field["type"] == "string" and rng.random() < 0.2:
        field["enum"] = rng.sample(["new", "open", "closed", "archived", "draft", "done"], 3)
    if rng.random() < 0.3:
        field["required"] = True
    if rng.random() < 0.05:
        field["unique"] = True
    if rng.random() < 0.2:
        field["updates_per_sec"] = round(rng.uniform(0, 20), 2)
    if rng.random() < 0.15:
        field["bytes"] = rng.randint(4, 2000)
    if rng.random() < 0.1:
        field["description"] = f"The {name.replace('_', ' ')} as the user typed it"
    return field


def _fields(rng: random.Random, count: int, depth: int = 0) -> list[dict[str, Any]]:
    names = rng.sample(WORDS, count)
    return [_field(rng, name, depth) for name in names]


def _entity(rng: random.Random, index: int) -> dict[str, Any]:
    noun = NOUNS[index % len(NOUNS)]
    fields = [{"name": "created", "type": "date", "required": True}, *_fields(rng, rng.randint(3, 10))]
    entity: dict[str, Any] = {
        "id": f"{noun.lower().replace(' ', '_')}_{index}",
        "name": f"{noun} {index}",
        "count": rng.choice([10, 500, 10_000, 1_000_000, 500_000_000]),
        "reads_per_sec": round(rng.uniform(0, 500), 1),
        "writes_per_sec": round(rng.uniform(0, 50), 1),
        "fields": fields,
    }
    if rng.random() < 0.3:
        entity["growth_per_day"] = rng.randint(0, 100_000)
    roll = rng.random()
    if roll < 0.05:
        entity["append_only"] = True
        entity["timeseries"] = {
            "time_field": "created",
            "interval_s": 60,
            "retention_s": 86_400 * 30,
            "bucket_size": 200,
        }
    elif roll < 0.1:
        entity["subtypes"] = {
            "discriminator": "kind",
            "variants": {
                "basic": [{"name": "basic_level", "type": "int"}],
                "premium": [{"name": "perks", "type": "array", "items": {"type": "string"}}],
            },
        }
    elif roll < 0.14:
        entity["archive"] = {"age_field": "created", "cold_after_s": 86_400 * 365}
        entity["history"] = True
    if rng.random() < 0.3:
        paths = [p for p, f in iter_paths(_as_fields(fields)) if f.type not in ("object", "array")]
        keys = [[p, rng.choice([1, -1])] for p in rng.sample(paths, min(len(paths), rng.randint(1, 3)))]
        if len(keys) == 1 and any(f.get("unique") and f["name"] == keys[0][0] for f in fields):
            keys[0][1] = -1  # {f: 1} would clash with the unique index of f that the engine creates
        entity["indexes"] = [{"keys": keys, "name": f"ix_{index}", "unique": rng.random() < 0.1}]
    if rng.random() < 0.05:
        entity["shard_key"] = ["created"]
    return entity


def _as_fields(fields: list[dict[str, Any]]) -> list[Any]:
    from modeller.model import Field

    return [Field.model_validate(f) for f in fields]


def _leaf_paths(entity: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p, f.type) for p, f in iter_paths(_as_fields(entity["fields"])) if f.type not in ("object",)]


def _relationship(
    rng: random.Random, index: int, entities: list[dict[str, Any]], paths: dict[str, list[tuple[str, str]]]
) -> dict[str, Any]:
    self_rel = rng.random() < 0.04
    one = rng.choice(entities)
    many = one if self_rel else rng.choice(entities)
    while many is one and not self_rel:
        many = rng.choice(entities)
    cardinality = rng.choice(CARDINALITIES)
    rel: dict[str, Any] = {"id": f"rel_{index}", "one": one["id"], "many": many["id"], "cardinality": cardinality}
    if rng.random() < 0.5:
        rel["name"] = f"{rng.choice(WORDS)}_items_{index}"
    if rng.random() < 0.3:
        rel["inverse"] = f"owner_{index}"
    typical = {
        "one-to-one": 1,
        "one-to-few": 5,
        "one-to-many": 200,
        "one-to-squillions": 1_000_000,
        "many-to-many": 50,
    }[cardinality]
    rel["typical"] = typical
    if rng.random() < 0.6:
        rel["max"] = typical * rng.choice([1, 2, 10])
    rel["growth"] = "unbounded" if cardinality in ("one-to-squillions", "one-to-many") else "bounded"
    rel["many_standalone"] = rng.random() < 0.5
    rel["read_together"] = round(rng.random(), 2)
    rel["reads_per_sec"] = round(rng.uniform(0, 200), 1)
    rel["writes_per_sec"] = round(rng.uniform(0, 20), 1)
    if rng.random() < 0.3:
        rel["strategy"] = rng.choice(STRATEGIES[1:])
    if cardinality == "one-to-squillions" and rng.random() < 0.3:
        rel["show_latest"] = 10
    if rng.random() < 0.35:
        direction = rng.choice(["many-to-one", "one-to-many"])
        source = many if direction == "many-to-one" else one
        field, _ = rng.choice(paths[source["id"]])
        rel["denormalize"] = [{"field": field, "direction": direction, "staleness": rng.choice(STALENESS)}]
    if rng.random() < 0.2:
        numeric = [p for p, t in paths[many["id"]] if t in NUMERIC]
        aggs: list[dict[str, Any]] = [{"name": f"{many['id']}_count_{index}", "op": "count"}]
        if numeric:
            aggs.append({"name": f"avg_{index}", "op": "avg", "field": rng.choice(numeric)})
        rel["aggregates"] = aggs
    if self_rel:
        rel["tree_ops"] = rng.sample(TREE_OPS, rng.randint(1, 3))
    if rng.random() < 0.1:
        rel["decision"] = {"strategy": rng.choice(STRATEGIES[1:]), "note": "Reviewed with the team; keep as is."}
    return rel


def _query(
    rng: random.Random,
    index: int,
    entities: list[dict[str, Any]],
    paths: dict[str, list[tuple[str, str]]],
    rels_by_many: dict[str, list[dict[str, Any]]],
    by_id: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    entity = rng.choice(entities)
    candidates = [p for p, t in paths[entity["id"]] if t != "array"]
    query: dict[str, Any] = {"id": f"q_{index}", "entity": entity["id"], "name": f"Query {index}"}
    chosen = rng.sample(candidates, min(len(candidates), rng.randint(1, 3)))
    filters = {p: rng.choice(FILTER_OPS) for p in chosen}
    incoming = rels_by_many.get(entity["id"], [])
    if incoming and rng.random() < 0.4:
        from modeller.model import Entity, Relationship

        rel = rng.choice(incoming)
        one = Entity.model_validate(by_id[rel["one"]])
        filters[parent_ref_field(Relationship.model_validate(rel), one)] = "eq"
    query["filter"] = filters
    if rng.random() < 0.6:
        query["sort"] = [[rng.choice(candidates), rng.choice([1, -1])]]
    if rng.random() < 0.3:
        query["projection"] = rng.sample(candidates, min(2, len(candidates)))
    if incoming and rng.random() < 0.2:
        query["joins"] = [rng.choice(incoming)["id"]]
    if rng.random() < 0.5:
        query["limit"] = rng.choice([10, 20, 50])
    query["per_sec"] = round(rng.uniform(0, 300), 1)
    query["hot"] = rng.random() < 0.1
    return query


def generate_data(
    n_entities: int = 1000, rels_per_entity: float = 1.5, queries_per_entity: float = 0.5, seed: int = 0
) -> dict[str, Any]:
    """The project as plain JSON data (what a file would hold)."""
    rng = random.Random(seed)
    entities = [_entity(rng, i) for i in range(n_entities)]
    by_id = {e["id"]: e for e in entities}
    paths = {e["id"]: _leaf_paths(e) for e in entities}
    rels = (
        [_relationship(rng, i, entities, paths) for i in range(round(n_entities * rels_per_entity))]
        if n_entities > 1
        else []
    )
    rels_by_many: dict[str, list[dict[str, Any]]] = {}
    for rel in rels:
        rels_by_many.setdefault(rel["many"], []).append(rel)
    queries = (
        [_query(rng, i, entities, paths, rels_by_many, by_id) for i in range(round(n_entities * queries_per_entity))]
        if entities
        else []
    )
    columns = max(1, int(n_entities**0.5))
    layout = {e["id"]: {"x": 40 + 260 * (i % columns), "y": 60 + 200 * (i // columns)} for i, e in enumerate(entities)}
    overrides = (
        [
            {
                "rule": "unbounded-array",
                "subject": {"kind": "relationship", "id": r["id"]},
                "note": "Capped by the application.",
            }
            for r in rels[:: max(1, len(rels) // 10)]
        ]
        if rels
        else []
    )
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "name": f"Generated project ({n_entities} entities, seed {seed})",
        "description": "Synthetic design for benchmarks: every cardinality, nested fields, denormalizations.",
        "database": "bench",
        "server_version": "7.0",
        "sharded": True,
        "shards": 4,
        "entities": entities,
        "relationships": rels,
        "queries": queries,
        "overrides": overrides,
        "layout": layout,
    }


def generate_project(
    n_entities: int = 1000, rels_per_entity: float = 1.5, queries_per_entity: float = 0.5, seed: int = 0
) -> Project:
    """A valid :class:`Project` (``check_project`` finds nothing) of the requested size."""
    return Project.model_validate(generate_data(n_entities, rels_per_entity, queries_per_entity, seed))
