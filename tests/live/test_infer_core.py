"""The pure inference core: documents in, a project out (no server)."""

from __future__ import annotations

import datetime

from bson import Int64, ObjectId, Regex

from modeller.export.pydantic_models import pydantic_models
from modeller.export.typescript import typescript_models
from modeller.live.drift import compare
from modeller.live.infer import CollectionSample, infer_project
from modeller.live.mixed import undeclared_paths
from modeller.live.state import DatabaseState, ObservedCollection
from modeller.live.stats import CollectionStats, percentile
from modeller.model.checks import check_project
from modeller.rules.engine import analyse


def _sample(name: str, docs: list[dict], count: int | None = None) -> CollectionSample:
    return CollectionSample(CollectionStats(name).add_all(docs), count=count)


def _oids(n: int) -> list[ObjectId]:
    return [ObjectId() for _ in range(n)]  # ObjectId() grows with each call: insertion order


def test_fields_types_required_and_a_mixed_field_declared_with_its_other_types() -> None:
    docs = [
        {"_id": oid, "name": f"n{i}", "age": i if i % 10 else f"{i}", "score": Int64(i)}
        for i, oid in enumerate(_oids(40))
    ]
    docs[3]["nick"] = "x"
    project = infer_project([_sample("users", docs)], name="t")
    (entity,) = project.entities
    assert (entity.id, entity.name, entity.collection, entity.count) == ("user", "User", "users", 40)
    fields = {f.name: f for f in entity.fields}
    assert [f.name for f in entity.fields] == ["name", "age", "score", "nick"]  # no _id: the default ObjectId
    assert fields["name"].type == "string" and fields["name"].required and fields["name"].other_types is None
    # int and string: one declared type would refuse the other's documents, so both are declared
    assert (fields["age"].type, fields["age"].other_types, fields["age"].required) == ("int", ("string",), True)
    assert undeclared_paths(entity.description) == set()
    assert all(f.description is None for f in entity.fields)  # nothing of inference's goes into a validator
    assert fields["score"].type == "long"
    assert fields["nick"].required is False
    assert check_project(project) == []


def test_nested_objects_enum_distinct_and_monotonic() -> None:
    start = datetime.datetime(2024, 1, 1)
    docs = [
        {
            "_id": oid,
            "status": ["new", "paid", "shipped"][i % 3],
            "created": start + datetime.timedelta(minutes=i),
            "shipping": {"city": f"c{i % 7}", "geo": {"type": "Point", "coordinates": [1.0, 2.0]}},
        }
        for i, oid in enumerate(_oids(60))
    ]
    fields = {f.name: f for f in infer_project([_sample("orders", docs)], name="t").entities[0].fields}
    assert fields["status"].enum == ("new", "paid", "shipped")
    assert fields["status"].distinct == 3
    assert fields["created"].monotonic is True and fields["created"].type == "date"
    assert fields["status"].monotonic is False
    shipping = fields["shipping"]
    assert shipping.type == "object"
    assert [(f.name, f.type) for f in shipping.fields or ()] == [("city", "string"), ("geo", "point")]


def test_array_of_subdocuments_becomes_an_embedded_entity_with_length_percentiles() -> None:
    lengths = [1, 2, 2, 3, 3, 3, 4, 150]
    docs = [{"_id": ObjectId(), "name": "p", "addresses": [{"city": "x", "zip": "1"}] * n} for n in lengths]
    project = infer_project([_sample("people", docs)], name="t")
    assert [e.id for e in project.entities] == ["person", "address"]
    address = project.entities[1]
    assert address.collection is None and [f.name for f in address.fields] == ["city", "zip"]
    (rel,) = project.relationships
    assert (rel.one, rel.many, rel.name, rel.strategy) == ("person", "address", "addresses", "embed")
    # the class follows the longest seen; the bound (maxItems) has headroom: a sample seldom holds the longest
    assert (rel.typical, rel.max, rel.cardinality) == (percentile(lengths, 0.5), 500, "one-to-many")
    assert "'addresses': array length p50 3, p95 150, max 150" in (project.entities[0].description or "")
    assert [f.name for f in project.entities[0].fields] == ["name"]  # the array is the relationship, not a field


def test_references_parent_child_two_way_and_extended() -> None:
    people = [{"_id": oid, "name": f"p{i}"} for i, oid in enumerate(_oids(10))]
    tasks = [{"_id": oid, "title": "t", "owner_id": people[i % 10]["_id"]} for i, oid in enumerate(_oids(30))]
    for person in people:
        person["task_ids"] = [t["_id"] for t in tasks if t["owner_id"] == person["_id"]]
    posts = [{"_id": ObjectId(), "author": {"_id": p["_id"], "name": p["name"]}} for p in people]
    project = infer_project([_sample("people", people), _sample("tasks", tasks), _sample("posts", posts)], name="t")
    rels = {(r.one, r.many): r for r in project.relationships}
    two_way = rels[("person", "task")]
    assert (two_way.strategy, two_way.name, two_way.inverse) == ("two-way", "tasks", "owner")
    assert (two_way.typical, two_way.max, two_way.cardinality) == (3, 3, "one-to-few")
    extended = rels[("person", "post")]
    assert (extended.strategy, extended.inverse) == ("extended-ref", "author")
    assert [(d.field, d.direction) for d in extended.denormalize] == [("name", "one-to-many")]
    fields = {e.id: [f.name for f in e.fields] for e in project.entities}
    assert fields == {"person": ["name"], "task": ["title"], "post": []}
    assert check_project(project) == []


def test_parent_ref_counts_scale_with_the_share_sampled() -> None:
    hosts = [{"_id": oid} for oid in _oids(2)]
    logs = [{"_id": ObjectId(), "host_id": hosts[i % 2]["_id"]} for i in range(100)]
    project = infer_project([_sample("hosts", hosts), _sample("logs", logs, count=100_000)], name="t")
    (rel,) = project.relationships
    assert (rel.strategy, rel.inverse, rel.max, rel.cardinality) == ("parent-ref", "host", 50_000, "one-to-squillions")


def test_values_that_match_no_collection_are_not_references() -> None:
    docs = [{"_id": ObjectId(), "other_id": ObjectId()} for _ in range(20)]
    project = infer_project([_sample("things", docs), _sample("others", [{"_id": ObjectId()}])], name="t")
    assert project.relationships == ()
    assert [(f.name, f.type) for f in project.entities[0].fields] == [("other_id", "objectId")]


def test_hostile_keys_deep_nesting_and_empty_collections() -> None:
    deep: dict = {"leaf": 1}
    for _ in range(200):
        deep = {"d": deep}
    docs = [{"_id": ObjectId(), "a.b": 1, "$x": 2, "ok": 3, "deep": deep}]
    project = infer_project([_sample("weird", docs), _sample("empty", [])], name="t")
    weird, empty = project.entities
    assert [f.name for f in weird.fields] == ["ok", "deep"]
    assert "'a.b'" in (weird.description or "") and "'$x'" in (weird.description or "")
    assert empty.fields == () and empty.count == 0
    assert check_project(project) == []


def test_many_types_in_one_field_are_declared_and_what_the_format_cannot_name_is_named() -> None:
    values: list = (
        [1] * 5 + ["s"] * 3 + [1.5, True, None, ObjectId(), datetime.datetime(2024, 1, 1), b"x", [1], {"a": 1}]
    )
    docs = [
        {"_id": ObjectId(), "v": v, "n": None, "w": 1 if i else None, "r": Regex("a") if i % 2 else "a", "l": [1, "a"]}
        for i, v in enumerate(values)
    ]
    (entity,) = infer_project([_sample("mixed", docs)], name="t").entities
    fields = {f.name: f for f in entity.fields}
    assert sorted(fields) == ["v", "w"]
    assert fields["v"].type == "int" and fields["v"].required
    # the others commonest first, then by name
    assert fields["v"].other_types == (
        "string",
        "array",
        "binData",
        "bool",
        "date",
        "double",
        "null",
        "object",
        "objectId",
    )
    assert (fields["w"].type, fields["w"].other_types, fields["w"].required) == ("int", ("null",), True)
    # only nulls, a type with no name in the format (a regex), an array of mixed elements: named, not declared
    assert undeclared_paths(entity.description) == {"n", "r", "l"}
    assert "`r`: Regex in 8, string in 8" in (entity.description or "")


def test_a_mixed_field_reaches_the_validator_the_models_the_check_and_drift() -> None:
    docs = [
        {"_id": ObjectId(), "total": f"{i}.5" if i % 5 == 0 else i + 0.5, "code": None if i % 4 else "A"}
        for i in range(20)
    ]
    project = infer_project([_sample("orders", docs)], name="t")
    analysis = analyse(project)
    (coll,) = analysis.design.collections
    props = coll.validator["$jsonSchema"]["properties"]
    assert props["total"]["bsonType"] == ["double", "string"]
    assert props["code"]["bsonType"] == ["string", "null"]
    py = pydantic_models(analysis.design, project)
    assert "total: float | str" in py and "code: str | None" in py
    ts = typescript_models(analysis.design, project)
    assert "total: number | string;" in ts and "code: string | null;" in ts
    (finding,) = [f for f in analysis.findings if f.rule == "mixed-types"]
    assert "1 field(s)" in finding.message and "'total' (double, also string)" in finding.message
    stats = CollectionStats("orders").add_all(docs)
    state = DatabaseState("t", {"orders": ObservedCollection("orders")})
    report = compare(analysis.design, state, {"orders": stats})
    assert not [d for d in report.drifts if d.kind in ("field-type", "field-extra")], report.drifts
    stats = CollectionStats("orders").add_all([*docs, {"_id": ObjectId(), "total": True}])
    report = compare(analysis.design, state, {"orders": stats})
    assert [d.path for d in report.drifts if d.kind == "field-type"] == ["total"]


def test_an_enum_needs_strong_evidence_and_code_like_values() -> None:
    def field(values: list) -> tuple[str, ...] | None:
        docs = [{"_id": ObjectId(), "v": v} for v in values if v is not None]
        (f,) = infer_project([_sample("things", docs)], name="t").entities[0].fields
        return f.enum

    assert field(["new", "paid", "shipped"] * 20) == ("new", "paid", "shipped")
    assert field(["EUR", "USD"] * 30) == ("EUR", "USD")
    assert field(["WELCOME10"] * 25) is None  # one value says nothing about the next one
    assert field(["Berlin", "Paris", "Rome"] * 40) is None  # names of places are text, not codes
    assert field(["in progress", "done"] * 40) is None
    assert field(["a", "b"] * 20) is None  # 40 documents: too few
    assert field(["a"] * 60 + ["b"] * 3) is None  # a value seen 3 times may be one of many rare ones


def test_reference_counts_are_the_ones_seen_the_median_scaled_never_the_maximum() -> None:
    customers = [{"_id": oid} for oid in _oids(4)]
    per = [1, 2, 2, 9]
    orders = [
        {"_id": ObjectId(), "customer_id": c["_id"]} for c, n in zip(customers, per, strict=True) for _ in range(n)
    ]
    (rel,) = infer_project([_sample("customers", customers), _sample("orders", orders)], name="t").relationships
    assert (rel.typical, rel.max) == (2, 9)  # everything read: as measured
    sampled = [_sample("customers", customers), _sample("orders", orders, count=2 * len(orders))]
    (rel,) = infer_project(sampled, name="t").relationships
    assert (rel.typical, rel.max) == (4, 9)  # half read: the median doubles, the largest stays the one seen


def test_an_inferred_project_is_laid_out_one_above_many_not_in_one_row() -> None:
    people = [{"_id": oid, "name": "p"} for oid in _oids(3)]
    tasks = [{"_id": ObjectId(), "owner_id": people[i % 3]["_id"]} for i in range(9)]
    notes = [{"_id": ObjectId(), "task_id": tasks[i % 9]["_id"]} for i in range(18)]
    project = infer_project([_sample("people", people), _sample("tasks", tasks), _sample("notes", notes)], name="t")
    layout = project.layout
    assert set(layout) == {"person", "task", "note"}
    assert layout["person"].y < layout["task"].y < layout["note"].y  # each One above its Many


def test_the_designs_size_of_an_inferred_collection_is_the_measured_one() -> None:
    import bson

    from modeller.rules import analyse

    docs = [
        {
            "_id": ObjectId(),
            "email": f"user{i}@example.com",
            "name": f"Customer {i}",
            "created_at": datetime.datetime(2026, 1, 1),
            "address": {"street": f"{i} Main St", "city": "Berlin", "zip": "10000"},
        }
        for i in range(100)
    ]
    project = infer_project([_sample("customers", docs)], name="t")
    assert {f.name: f.bytes for f in project.entities[0].fields}["name"] == len("Customer 50")  # the text only
    measured = sum(len(bson.encode(d)) for d in docs) / len(docs)
    (coll,) = analyse(project).design.collections
    assert abs(coll.avg_bytes - measured) <= 2, (coll.avg_bytes, measured)  # a string's 5 bytes counted once


def test_an_array_of_sub_documents_sometimes_null_stays_a_field_its_validator_accepts() -> None:
    docs = [{"_id": ObjectId(), "lines": None if i % 5 == 0 else [{"sku": f"s{i}", "qty": i}]} for i in range(20)]
    project = infer_project([_sample("orders", docs)], name="t")
    (entity,) = project.entities  # no embedded entity: its array would refuse the nulls
    (lines,) = entity.fields
    assert (lines.type, lines.other_types, lines.required) == ("array", ("null",), True)
    assert lines.items is not None and [f.name for f in lines.items.fields or ()] == ["sku", "qty"]
    (coll,) = analyse(project).design.collections
    assert coll.validator is not None
    assert coll.validator["$jsonSchema"]["properties"]["lines"]["bsonType"] == ["array", "null"]


def test_an_index_on_a_reference_in_an_embedded_array_is_kept_on_that_reference() -> None:
    """Tryout a13 item 1: ``apply`` creates ``items.product_id_1`` for the inferred design; inferring the
    database again crashed on it (the check refused the path). It stays, on the embedded Item's reference."""
    products = [{"_id": oid, "name": f"p{i}", "price": 1.5 * i} for i, oid in enumerate(_oids(20))]
    orders = [
        {
            "_id": ObjectId(),
            "items": [{"product_id": products[(i + k) % 20]["_id"], "qty": k + 1} for k in range(1 + i % 3)],
        }
        for i in range(40)
    ]
    sample = _sample("orders", orders)
    sample.indexes = [
        {"v": 2, "key": {"_id": 1}, "name": "_id_"},
        {"v": 2, "key": {"items.product_id": 1}, "name": "items.product_id_1"},
    ]
    notices: list[str] = []
    project = infer_project([_sample("products", products), sample], name="t", notices=notices)
    assert check_project(project) == [] and notices == []
    order = next(e for e in project.entities if e.collection == "orders")
    assert [(ix.name, ix.keys) for ix in order.indexes] == [("items.product_id_1", (("items.product_id", 1),))]
    rel = next(r for r in project.relationships if r.one == "product")
    assert (rel.many, rel.strategy, rel.inverse) == ("item", "parent-ref", "product")
    (coll,) = [c for c in analyse(project).design.collections if c.name == "orders"]
    assert [ix.keys for ix in coll.indexes if ix.name == "items.product_id_1"] == [[("items.product_id", 1)]]
    # the check follows the embedded entity's own generated names, and still refuses a path nothing holds
    wrong = order.indexes[0].model_copy(update={"keys": (("items.nosuch", 1),)})
    broken = project.model_copy(
        update={
            "entities": tuple(e.model_copy(update={"indexes": (wrong,)}) if e is order else e for e in project.entities)
        }
    )
    assert [str(p) for p in check_project(broken)] == [
        f"$.entities[{project.entities.index(order)}].indexes[0].keys[0]: 'Order' has no field 'items.nosuch'; "
        "declare the field or fix the name"
    ]


def test_an_index_on_a_path_no_sampled_document_holds_is_left_out_with_a_notice() -> None:
    docs = [{"_id": ObjectId(), "name": f"n{i}"} for i in range(10)]
    sample = _sample("users", docs)
    sample.indexes = [
        {"v": 2, "key": {"deleted_at": 1}, "name": "deleted_at_1", "expireAfterSeconds": 60},
        {"v": 2, "key": {"name": 1}, "name": "name_1", "sparse": True},
    ]
    notices: list[str] = []
    project = infer_project([sample], name="t", notices=notices)
    assert check_project(project) == []
    (entity,) = project.entities
    assert [ix.name for ix in entity.indexes] == ["name_1"]
    assert notices == [
        "'users': index 'name_1' is sparse on the server; the project format has no sparse option, so it is kept "
        "as a plain index (drift and apply report the difference)",
        "'users': index 'deleted_at_1' left out of the project: 'User' has no field 'deleted_at'; "
        "declare the field or fix the name",
    ]
    assert "index 'deleted_at_1' left out: 'User' has no field 'deleted_at'" in (entity.description or "")


def test_a_reference_only_some_documents_hold_is_optional() -> None:
    """Tryout a13 item 4: half the orders have customer_id (the others an older cust_id); the inferred validator
    required it, so drift right after infer and apply's validator failed on every second order."""
    customers = [{"_id": oid, "name": f"c{i}"} for i, oid in enumerate(_oids(10))]
    orders = [{"_id": ObjectId(), "total": 1.5} for _ in range(40)]
    for i, order in enumerate(orders):
        if i % 2:
            order["customer_id"] = customers[i % 10]["_id"]
    products = [{"_id": oid, "sku": f"s{i}"} for i, oid in enumerate(_oids(5))]
    for i, order in enumerate(orders):  # every line names its product: that reference stays required
        order["items"] = [{"product_id": products[i % 5]["_id"], "qty": 1}]
    samples = [_sample("customers", customers), _sample("orders", orders), _sample("products", products)]
    project = infer_project(samples, name="t")
    rels = {(r.one, r.many): r for r in project.relationships}
    assert (rels[("customer", "order")].strategy, rels[("customer", "order")].optional) == ("parent-ref", True)
    assert rels[("product", "item")].optional is False
    design = analyse(project).design
    (coll,) = [c for c in design.collections if c.name == "orders"]
    schema = (coll.validator or {})["$jsonSchema"]
    assert "customer_id" in schema["properties"] and "customer_id" not in schema.get("required", [])
    item = schema["properties"]["items"]["items"]
    assert "product_id" in item["required"]
    state = DatabaseState("t", {"orders": ObservedCollection("orders", "collection", {})})
    drifted = compare(design, state, {"orders": CollectionStats("orders").add_all(orders)})
    assert not [d for d in drifted.drifts if d.path == "customer_id"], drifted.lines()
    assert not any("'customer_id': required" in line for line in drifted.lines()), drifted.lines()
