"""Hand-built resolved designs for the exporters' unit tests.

An exporter's unit test builds its own input: these designs exercise every
shape role (embedded, child refs, parent refs, extended refs, subsets,
denormalized copies, computed values, buckets, polymorphic variants, a
time-series collection, GeoJSON, UUID, TTL/partial/collation/2dsphere indexes)
without depending on the engine's current choices.
"""

from __future__ import annotations

from typing import Any

from modeller.model.project import Project
from modeller.rules.framework.findings import Finding, Fix, SubjectRef
from modeller.rules.physical.design import (
    BucketDesign,
    CollectionDesign,
    Computation,
    DenormalizedCopy,
    Design,
    IndexDesign,
    Placement,
    RelationshipDesign,
    ShapeNode,
    Source,
    SyncUpdate,
)


def node_schema(node: ShapeNode) -> dict[str, Any]:
    schema: dict[str, Any] = {"bsonType": node.bson_type}
    if node.enum:
        schema["enum"] = list(node.enum)
    if node.bson_type == "object" and node.children:
        schema.update(object_schema(node.children))
    if node.bson_type == "array":
        if node.max_items is not None:
            schema["maxItems"] = node.max_items
        if node.items is not None:
            schema["items"] = node_schema(node.items)
    return schema


def object_schema(children: list[ShapeNode]) -> dict[str, Any]:
    props = {child.name: node_schema(child) for child in children}
    required = [child.name for child in children if child.required]
    out: dict[str, Any] = {"properties": props}
    if required:
        out["required"] = required
    return out


def validator_for(shape: list[ShapeNode], variants: list[str] | None = None) -> dict[str, Any]:
    """A ``$jsonSchema`` validator for a shape (shared fields on top, one ``oneOf`` branch per variant)."""
    shared = [n for n in shape if n.variant is None]
    schema: dict[str, Any] = {"bsonType": "object", **object_schema(shared)}
    disc = next((n for n in shared if n.role == "discriminator"), None)
    if variants and disc is not None:
        branches = []
        for variant in variants:
            body = object_schema([n for n in shape if n.variant == variant])
            body["properties"] = {disc.name: {"enum": [variant]}, **body["properties"]}
            branches.append(body)
        schema["oneOf"] = branches
    return {"$jsonSchema": schema}


def _id() -> ShapeNode:
    return ShapeNode("_id", "objectId", role="id", required=True)


def _coll(
    name: str, entities: list[str], shape: list[ShapeNode], indexes: list[IndexDesign], **extra: Any
) -> CollectionDesign:
    variants = extra.get("variants")
    return CollectionDesign(
        name=name, entities=entities, shape=shape, indexes=indexes, validator=validator_for(shape, variants), **extra
    )


def tracker_design(names: dict[str, str] | None = None) -> Design:
    """Every role in one design. ``names`` renames collections and fields (hostile-name tests)."""
    n = names or {}

    def nm(key: str) -> str:
        return n.get(key, key)

    people, tasks, sensors, buckets, products, measures = (
        nm("people"),
        nm("tasks"),
        nm("sensors"),
        nm("sensor_data"),
        nm("products"),
        nm("measurements"),
    )
    person_shape = [
        _id(),
        ShapeNode(nm("name"), "string", required=True),
        ShapeNode(nm("email"), "string", required=True, unique=True),
        ShapeNode(
            nm("addresses"),
            "array",
            role="embedded",
            entity="address",
            relationship="person_addresses",
            max_items=3,
            items=ShapeNode(
                "",
                "object",
                role="embedded",
                entity="address",
                children=[ShapeNode(nm("street"), "string", required=True), ShapeNode(nm("city"), "string")],
            ),
        ),
        ShapeNode(
            nm("task_ids"),
            "array",
            role="child-refs",
            relationship="person_tasks",
            ref_collection=tasks,
            entity="task",
            max_items=50,
            items=ShapeNode("", "objectId", role="child-refs"),
        ),
        ShapeNode(
            nm("task_count"),
            "int",
            role="computed",
            required=True,
            computation=Computation("person_tasks", "count", None),
        ),
        ShapeNode(
            nm("recent_tasks"),
            "array",
            role="subset",
            relationship="person_tasks",
            ref_collection=tasks,
            entity="task",
            max_items=2,
            sort=(nm("due_date"), -1),
            items=ShapeNode(
                "",
                "object",
                role="subset",
                entity="task",
                children=[
                    ShapeNode("_id", "objectId", required=True, source=Source("task", "_id")),
                    ShapeNode(nm("description"), "string", source=Source("task", nm("description"))),
                    ShapeNode(nm("due_date"), "date", required=True, source=Source("task", nm("due_date"))),
                ],
            ),
        ),
    ]
    task_shape = [
        _id(),
        ShapeNode(nm("description"), "string", required=True),
        ShapeNode(nm("due_date"), "date", required=True),
        ShapeNode(nm("priority"), "int", enum=[1, 2, 3]),
        ShapeNode(
            nm("owner_id"),
            "objectId",
            role="parent-ref",
            required=True,
            relationship="person_tasks",
            ref_collection=people,
            entity="person",
        ),
        ShapeNode(
            nm("owner"),
            "object",
            role="extended-ref",
            relationship="person_tasks",
            ref_collection=people,
            entity="person",
            children=[
                ShapeNode("_id", "objectId", required=True, source=Source("person", "_id")),
                ShapeNode(
                    nm("name"), "string", required=True, role="denormalized", source=Source("person", nm("name"))
                ),
            ],
        ),
        ShapeNode(
            nm("owner_email"),
            "string",
            role="denormalized",
            relationship="person_tasks",
            source=Source("person", nm("email")),
        ),
    ]
    sensor_shape = [
        _id(),
        ShapeNode(nm("name"), "string", required=True),
        ShapeNode(nm("serial"), "binData", field_type="uuid", required=True),
        ShapeNode(
            nm("location"),
            "object",
            field_type="point",
            children=[
                ShapeNode("type", "string", required=True, enum=["Point"]),
                ShapeNode("coordinates", "array", required=True, items=ShapeNode("", "double")),
            ],
        ),
    ]
    bucket_shape = [
        _id(),
        ShapeNode(
            nm("sensor_id"),
            "objectId",
            role="parent-ref",
            required=True,
            relationship="sensor_readings",
            ref_collection=sensors,
            entity="sensor",
        ),
        ShapeNode("start", "date", role="bucket-stat", required=True),
        ShapeNode("end", "date", role="bucket-stat", required=True),
        ShapeNode("count", "int", role="bucket-stat", required=True),
        ShapeNode("sum", "double", role="bucket-stat", required=True),
        ShapeNode("min", "double", role="bucket-stat", required=True),
        ShapeNode("max", "double", role="bucket-stat", required=True),
        ShapeNode(
            nm("readings"),
            "array",
            role="bucket-items",
            required=True,
            max_items=60,
            entity="reading",
            items=ShapeNode(
                "",
                "object",
                role="bucket-items",
                children=[ShapeNode("ts", "date", required=True), ShapeNode(nm("value"), "double", required=True)],
            ),
        ),
    ]
    product_shape = [
        _id(),
        ShapeNode(nm("kind"), "string", role="discriminator", required=True, enum=["book", "album"]),
        ShapeNode(nm("title"), "string", required=True),
        ShapeNode(nm("price"), "decimal", required=True),
        ShapeNode(nm("pages"), "int", required=True, variant="book"),
        ShapeNode(nm("isbn"), "string", variant="book", faker="isbn13"),
        ShapeNode(nm("duration_s"), "long", required=True, variant="album"),
    ]
    measure_shape = [
        _id(),
        ShapeNode("ts", "date", required=True),
        ShapeNode(
            nm("sensor_id"),
            "objectId",
            role="parent-ref",
            required=True,
            relationship="sensor_measurements",
            ref_collection=sensors,
            entity="sensor",
        ),
        ShapeNode(nm("temperature"), "double", required=True),
    ]
    collections = [
        _coll(
            people,
            ["person", "address"],
            person_shape,
            [
                IndexDesign(
                    [(nm("email"), 1)],
                    f"{nm('email')}_1",
                    unique=True,
                    why="email is unique in the model",
                    key_reasons=["Unique: no two people share an email"],
                ),
            ],
            count=10_000,
            avg_bytes=900,
            max_bytes=4000,
            why="Person documents with embedded addresses",
        ),
        _coll(
            tasks,
            ["task"],
            task_shape,
            [
                IndexDesign(
                    [(nm("owner_id"), 1), (nm("due_date"), -1)],
                    f"{nm('owner_id')}_1_{nm('due_date')}_-1",
                    why="serves query 'tasks_of_owner' in Equality, Sort, Range order",
                    key_reasons=["Equality: owner_id = value", "Sort: due_date descending"],
                    queries=["tasks_of_owner"],
                ),
                IndexDesign(
                    [(nm("due_date"), 1)],
                    "due_ttl",
                    expire_after_s=86_400,
                    partial={nm("priority"): {"$gte": 2}},
                    why="TTL: done tasks expire",
                ),
                IndexDesign(
                    [(nm("description"), 1)],
                    "description_ci",
                    collation={"locale": "en", "strength": 2},
                    why="case-insensitive search",
                    origin="user",
                ),
            ],
            count=1_000_000,
            avg_bytes=300,
            max_bytes=600,
            shard_key=[nm("owner_id")],
        ),
        _coll(
            sensors,
            ["sensor"],
            sensor_shape,
            [
                IndexDesign([(nm("location"), "2dsphere")], f"{nm('location')}_2dsphere", why="geo query"),
            ],
            count=500,
        ),
        _coll(
            buckets,
            ["reading"],
            bucket_shape,
            [
                IndexDesign(
                    [(nm("sensor_id"), 1), ("start", -1)], f"{nm('sensor_id')}_1_start_-1", why="bucket lookups"
                ),
            ],
            count=20_000,
            bucket=BucketDesign(60, nm("sensor_id"), nm("readings"), "ts", nm("value")),
        ),
        _coll(
            products,
            ["product"],
            product_shape,
            [
                IndexDesign([(nm("title"), "text")], f"{nm('title')}_text", why="keyword search"),
                IndexDesign([(nm("kind"), 1), (nm("price"), 1)], "kind_price", why="catalog listing"),
                IndexDesign(
                    [(nm("title"), 1), (nm("pages"), "hashed")], "blocked_hashed", why="user wanted it", origin="user"
                ),
            ],
            discriminator=nm("kind"),
            variants=["book", "album"],
        ),
        _coll(
            measures,
            ["measurement"],
            measure_shape,
            [],
            timeseries={
                "timeField": "ts",
                "metaField": nm("sensor_id"),
                "granularity": "minutes",
                "expireAfterSeconds": 86_400,
            },
        ),
    ]
    relationships = [
        RelationshipDesign(
            "person_addresses",
            "embed",
            "engine",
            ["embed-one-to-few"],
            [],
            why="few addresses, always read with the person",
            tradeoff="bigger person document",
        ),
        RelationshipDesign(
            "person_tasks",
            "two-way",
            "user",
            ["many-to-many-refs"],
            [
                DenormalizedCopy(
                    nm("name"),
                    "person",
                    "one-to-many",
                    "hours",
                    tasks,
                    f"{nm('owner')}.{nm('name')}",
                    "change-stream",
                    "updateMany on owner._id when a person is renamed",
                    fanout=0.5,
                    update=SyncUpdate(
                        "set", tasks, f"{nm('owner')}._id", f"{nm('owner')}.{nm('name')}", people, nm("name")
                    ),
                ),
                DenormalizedCopy(
                    nm("email"),
                    "person",
                    "one-to-many",
                    "forever",
                    tasks,
                    nm("owner_email"),
                    "none",
                    "point-in-time: never synchronized",
                ),
            ],
            why="both directions are read",
            tradeoff="reassignment touches two documents",
            warnings=["reassignment is not atomic without a transaction"],
        ),
        RelationshipDesign("sensor_readings", "bucket", "engine", ["bucket-pattern"], [], why="60 readings per bucket"),
        RelationshipDesign(
            "sensor_measurements",
            "parent-ref",
            "engine",
            ["parent-ref-one-to-squillions"],
            [],
            why="squillions of measurements",
        ),
    ]
    return Design(
        database=nm("tracker_db"),
        collections=collections,
        relationships=relationships,
        embedded={"address": Placement(people, nm("addresses"))},
    )


def tracker_project(names: dict[str, str] | None = None, sharded: bool = True) -> Project:
    """A valid project whose entities and relationships match :func:`tracker_design`."""
    n = names or {}

    def nm(key: str) -> str:
        return n.get(key, key)

    def entity(eid: str, name: str, fields: list[str]) -> dict[str, Any]:
        return {
            "id": eid,
            "name": n.get("entity:" + eid, name),
            "fields": [{"name": nm(f), "type": "string"} for f in fields],
        }

    data = {
        "format": "mongo-schema-modeller",
        "format_version": 1,
        "name": n.get("project", "Tracker"),
        "description": n.get("description", "Hand-built design for the exporter tests."),
        "database": nm("tracker_db"),
        "sharded": sharded,
        "entities": [
            entity("person", "Person", ["name", "email"]),
            entity("address", "Address", ["street", "city"]),
            entity("task", "Task", ["description"]),
            entity("sensor", "Sensor", ["name"]),
            entity("reading", "Reading", ["value"]),
            entity("product", "Product", ["title"]),
            entity("measurement", "Measurement", ["temperature"]),
        ],
        "relationships": [
            {"id": "person_addresses", "one": "person", "many": "address", "cardinality": "one-to-few"},
            {"id": "person_tasks", "one": "person", "many": "task", "cardinality": "one-to-many"},
            {"id": "sensor_readings", "one": "sensor", "many": "reading", "cardinality": "one-to-squillions"},
            {"id": "sensor_measurements", "one": "sensor", "many": "measurement", "cardinality": "one-to-squillions"},
        ],
    }
    return Project.model_validate(data)


def tracker_findings(names: dict[str, str] | None = None) -> list[Finding]:
    """Findings of every severity, one blocking the hashed index of ``products``."""
    n = names or {}
    products = n.get("products", "products")
    return [
        Finding(
            "index-hard-limits",
            "error",
            SubjectRef("index", f"{products}#blocked_hashed"),
            "a compound index cannot mix a hashed key like this",
            "the server refuses it",
            "none",
            "[Manual-limits] https://www.mongodb.com/docs/manual/reference/limits/",
        ),
        Finding(
            "unbounded-array",
            "warning",
            SubjectRef("relationship", "person_tasks"),
            "task_ids may grow without bound",
            "arrays must not grow without bound",
            "second query",
            "[Zola-3]",
            fix=Fix("use parent-ref", ()),
        ),
        Finding(
            "embed-one-to-few",
            "suggestion",
            SubjectRef("relationship", "person_addresses"),
            "embed the addresses",
            "read together",
            "bigger document",
            "[Zola-1]",
        ),
        Finding(
            "index-hot-queries",
            "info",
            SubjectRef("query", "tasks_of_owner"),
            "the query is served by an index",
            "",
            "",
            "[Manual-best-practices]",
            overridden=True,
            note="accepted by the team",
        ),
    ]


#: Names that try to break every output format at once.
HOSTILE: dict[str, str] = {
    "people": 'pe"ople\\</script><!--',
    "tasks": "ta\nsks */ ${x} `tick`",
    "name": "na\"me's \\ </script>",
    "email": "e-mail\u2028line\u2029para",
    "description": "*/ desc /* <b>&amp;</b> | pipe",
    "due_date": "due ${date} `x`",
    "owner": "own\rer",
    "owner_id": 'owner "id"',
    "sensors": "sensor{s}[] <>",
    "products": "prödücts 名前 🚀",
    "title": "ti\ttle",
    "tracker_db": "trackér-db",
    "project": 'Hostile "project" </script>\n*/ ${p}',
    "entity:person": 'Pe"rson</script>\n*/ <&>',
    "entity:task": "Task ${t} `x` | y",
}
