"""Acceptance: the engine reproduces each seed scenario of RULES.md §4 (SD01-SD14) from the samples."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from model_edits import changed

from modeller.model import Project
from modeller.persistence import load_project
from modeller.rules import Analysis, analyse
from modeller.rules.framework.findings import Finding
from modeller.rules.physical.design import CollectionDesign, RelationshipDesign, ShapeNode
from modeller.rules.physical.sizes import elements_within

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@cache
def run(slug: str) -> Analysis:
    return analyse(load_project(SAMPLES / f"{slug}.modeller.json"))


def coll(slug: str, name: str) -> CollectionDesign:
    found = run(slug).design.collection(name)
    assert found is not None, f"{slug}: no collection {name}; have {[c.name for c in run(slug).design.collections]}"
    return found


def rel(slug: str, rel_id: str) -> RelationshipDesign:
    return next(r for r in run(slug).design.relationships if r.id == rel_id)


def node(c: CollectionDesign, path: str) -> ShapeNode:
    nodes = c.shape
    found: ShapeNode | None = None
    for part in path.split("."):
        found = next((n for n in nodes if n.name == part), None)
        assert found is not None, f"{c.name} has no {path}"
        nodes = found.items.children if found.items is not None else found.children
    assert found is not None
    return found


def names(n: ShapeNode) -> list[str]:
    children = n.items.children if n.items is not None else n.children
    return [c.name for c in children]


def index_keys(c: CollectionDesign) -> list[list[tuple[str, object]]]:
    return [list(i.keys) for i in c.indexes]


def findings(slug: str, rule: str, subject: str | None = None) -> list[Finding]:
    # what the rule says on its own (before the engine folds one decision's findings into one)
    return [f for f in run(slug).reported if f.rule == rule and (subject is None or f.subject.id == subject)]


def test_sd01_embed_addresses_with_max_items() -> None:
    person = coll("person-addresses", "person")
    addresses = node(person, "addresses")
    assert addresses.role == "embedded" and addresses.bson_type == "array" and addresses.max_items == 5
    assert names(addresses) == ["street", "city", "state", "zip", "cc"]
    assert "address" not in [c.name for c in run("person-addresses").design.collections]
    assert run("person-addresses").design.embedded["address"].path == "addresses"
    schema = person.validator["$jsonSchema"]["properties"]["addresses"]
    assert schema["maxItems"] == 5 and schema["items"]["required"] == ["street", "city"]
    (f,) = findings("person-addresses", "embed-one-to-few")
    assert (
        f.severity == "suggestion"
        and "maxItems 5" in f.message
        and "6 Rules of Thumb for MongoDB Schema Design, part 1" in f.reference
    )


def test_sd02_child_refs_and_application_join() -> None:
    r = rel("product-parts", "product_parts")
    assert (r.strategy, r.chosen_by) == ("child-refs", "engine")
    products = coll("product-parts", "products")
    parts = node(products, "parts")  # {id, name} elements because part names are copied (SD05)
    assert parts.role == "child-refs" and parts.max_items == 600 and parts.ref_collection == "parts"
    (f,) = findings("product-parts", "child-refs-one-to-many")
    assert "$in" in f.message and "don't fear" in f.message
    (big,) = findings("product-parts", "unbounded-array")
    assert big.severity == "info" and big.numbers["n_max"] == 600 and "250" in big.message


def test_sd02_without_copies_names_the_array_part_ids() -> None:
    project = load_project(SAMPLES / "product-parts.modeller.json")
    project = changed(project, project.relationships[0], denormalize=())
    products = analyse(project).design.collection("products")
    assert products is not None
    ids = node(products, "part_ids")
    assert ids.items is not None and ids.items.bson_type == "objectId" and ids.max_items == 600


def test_sd03_parent_reference_index_and_no_unbounded_array() -> None:
    logmsg = coll("host-logs", "logmsg")
    ref = node(logmsg, "host_id")
    assert ref.role == "parent-ref" and ref.required and ref.ref_collection == "hosts"
    assert [("host_id", 1), ("time", -1)] in index_keys(logmsg)
    assert [("host_id", 1)] not in index_keys(logmsg)  # redundant prefix removed
    hosts = coll("host-logs", "hosts")
    arrays = [n for n in hosts.shape if n.bson_type == "array"]
    assert [(a.name, a.role, a.max_items) for a in arrays] == [("recent_logmsgs", "subset", 1000)]
    # the subset copies the latest 1,000; the full set stays in the logmsg collection
    (recent,) = arrays
    assert recent.ref_collection == "logmsg" and recent.items is not None
    assert recent.items.ref_collection == "logmsg"
    assert recent.to_json()["ref_collection"] == "logmsg"
    (f,) = findings("host-logs", "parent-ref-one-to-squillions")
    assert "16 MiB" in f.message and f.subject.id == "host_logmsgs"


def test_sd03_embedding_squillions_explicitly_is_an_error_with_the_day() -> None:
    project = load_project(SAMPLES / "host-logs.modeller.json")
    # a young host: 1,000 messages today, 4,320 more per day
    project = changed(project, project.relationships[0], strategy="embed", typical=1000)
    a = analyse(project)
    r = next(r for r in a.design.relationships if r.id == "host_logmsgs")
    assert r.chosen_by == "user" and r.strategy == "embed"
    assert any("16 MiB" in w and "days" in w for w in r.warnings)
    errors = [f for f in a.findings if f.rule == "unbounded-array"]
    assert errors and errors[0].severity == "error"
    # each day 4,320 more messages of the design's size (embedded: no _id of their own) until 16 MiB: about a month
    nums = errors[0].numbers
    room = elements_within(16 * 1024 * 1024, nums["element_bytes"]) - 1000
    assert nums["days_to_16mib"] == round(room / 4320, 1) and 30 < nums["days_to_16mib"] < 35
    assert any(f.rule == "document-size-and-nesting" and f.severity == "error" for f in a.reported)
    # the document is too large because of that array: said once, by the array's finding
    assert "document-size-and-nesting" in errors[0].also
    assert not any(f.rule == "document-size-and-nesting" for f in a.findings)


def test_sd04_two_way_references_with_non_atomic_reassignment() -> None:
    r = rel("task-tracker", "person_tasks")
    assert r.strategy == "two-way" and "many-to-many-refs" in r.rules
    people, tasks = coll("task-tracker", "people"), coll("task-tracker", "tasks")
    task_ids = node(people, "task_ids")
    assert task_ids.items is not None and task_ids.items.bson_type == "objectId" and task_ids.max_items == 500
    assert node(tasks, "owner_id").role == "parent-ref"
    assert any(keys[0] == ("owner_id", 1) for keys in index_keys(tasks))
    (f,) = findings("task-tracker", "many-to-many-refs")
    assert "not atomic" in f.message and "withTransaction" in f.message
    # the join each direction needs is the design itself (one indexed query): no excessive-lookup against it
    assert findings("task-tracker", "excessive-lookup") == []
    plans = {p.id: p for p in run("task-tracker").design.queries}
    owner = plans["tasks_due"].lookups[0]
    assert (owner.collection, owner.foreign_field, owner.index is not None) == ("people", "_id", True)
    tasks = plans["person_with_tasks"].lookups[0]
    assert (tasks.collection, tasks.local_field, tasks.index is not None) == ("tasks", "task_ids", True)


def _tracker_told_by_queries_only() -> Project:
    """The seed as Zola tells it: no back-reference role and no query on it, only "tasks due tomorrow with their
    owner" (a Task query joining the relationship for ``person.name``) and the person page listing its tasks."""
    project = load_project(SAMPLES / "task-tracker.modeller.json")
    project = changed(project, project.relationships[0], inverse=None)
    queries = tuple(q for q in project.queries if q.id != "tasks_of_owner")
    due = next(q for q in queries if q.id == "tasks_due")
    queries = tuple(
        q.model_copy(update={"projection": ("description", "due_date", "person.name")}) if q is due else q
        for q in queries
    )
    return project.model_copy(update={"queries": queries})


def test_sd04_a_join_to_the_one_from_the_n_side_gives_two_way_references() -> None:
    a = analyse(_tracker_told_by_queries_only())
    r = next(r for r in a.design.relationships if r.id == "person_tasks")
    assert (r.strategy, r.chosen_by) == ("two-way", "engine")
    assert "reassigning one Task updates two documents" in r.tradeoff
    tasks = a.design.collection("tasks")
    assert tasks is not None and node(tasks, "person_id").role == "parent-ref"
    assert [f.rule for f in a.findings if f.rule == "excessive-lookup"] == []
    (f,) = [f for f in a.findings if f.rule == "many-to-many-refs"]
    assert "not atomic" in f.message


def test_a_join_to_the_one_that_the_one_never_reads_back_is_a_parent_reference() -> None:
    project = _tracker_told_by_queries_only()
    project = changed(project, project.relationships[0], read_together=0.0)
    project = project.model_copy(update={"queries": tuple(q for q in project.queries if q.entity == "task")})
    a = analyse(project)
    r = next(r for r in a.design.relationships if r.id == "person_tasks")
    assert r.strategy == "parent-ref" and "many-to-many-refs" in r.rules
    people = a.design.collection("people")
    assert people is not None and all(n.role != "child-refs" for n in people.shape)


def test_a_join_whose_fields_are_copied_into_the_n_needs_no_reference_back() -> None:
    # SD02/SD06: a part shows its product's name, copied into the part: the product stays child-refs
    r = rel("product-parts", "product_parts")
    assert r.strategy == "child-refs"


def test_sd05_part_names_copied_into_product_with_array_filters() -> None:
    products = coll("product-parts", "products")
    assert names(node(products, "parts")) == ["id", "name"]
    assert node(products, "parts.name").source is not None
    copy = next(c for c in rel("product-parts", "product_parts").denormalized if c.direction == "many-to-one")
    assert (copy.collection, copy.path, copy.sync) == ("products", "parts.name", "application")
    assert copy.update is not None and (copy.update.filter_path, copy.update.array_filter) == ("parts.id", "e.id")
    assert copy.update.set_path == "parts.$[e].name" and "arrayFilters" in copy.sync_advice
    (f,) = findings("product-parts", "denorm-many-to-one-read-mostly")
    assert f.severity == "suggestion" and f.numbers["read_write_ratio"] == 25000.0


def test_sd06_product_name_copied_into_parts() -> None:
    parts = coll("product-parts", "parts")
    assert node(parts, "product_name").role == "denormalized"
    copy = next(c for c in rel("product-parts", "product_parts").denormalized if c.direction == "one-to-many")
    assert copy.path == "product_name" and copy.update is not None and copy.update.set_path == "product_name"
    assert "updateMany sets product_name" in copy.sync_advice
    assert findings("product-parts", "denorm-one-to-many-into-children")[0].numbers["copies_per_update"] == 120


def test_sd07_ipaddr_copied_at_insert_without_sync() -> None:
    logmsg = coll("host-logs", "logmsg")
    assert node(logmsg, "ipaddr").role == "denormalized"
    copy = next(c for c in rel("host-logs", "host_logmsgs").denormalized if c.field == "ipaddr")
    assert copy.sync == "none" and "never" in copy.sync_advice
    assert [("ipaddr", 1), ("time", -1)] in index_keys(logmsg)
    assert findings("host-logs", "denorm-into-squillions-immutable")[0].severity == "suggestion"


def test_sd08_latest_thousand_messages_with_push_each_sort_slice() -> None:
    hosts = coll("host-logs", "hosts")
    recent = node(hosts, "recent_logmsgs")
    assert recent.max_items == 1000 and names(recent) == ["time", "message"] and recent.sort == ("time", -1)
    assert rel("host-logs", "host_logmsgs").strategy == "subset"
    (f,) = findings("host-logs", "squillions-to-one-last-n")
    for part in ("$push", "$each", "$sort by time", "$slice -1000", "recent_logmsgs"):
        assert part in f.message
    copy = next(c for c in rel("host-logs", "host_logmsgs").denormalized if c.update and c.update.kind == "push-latest")
    assert (copy.update.set_path, copy.update.keep, copy.update.sort_field) == ("recent_logmsgs", 1000, "time")


def test_sd09_bucket_of_sixty_with_stats_and_time_series_alternative() -> None:
    data = coll("iot-sensors", "sensor_data")
    assert data.bucket is not None and data.bucket.size == 60 and data.bucket.series_field == "sensor_id"
    assert [n.name for n in data.shape if n.role == "bucket-stat"] == ["start", "end", "count", "sum", "min", "max"]
    assert node(data, "readings").max_items == 60
    assert index_keys(data)[0] == [("sensor_id", 1), ("start", -1)]
    assert rel("iot-sensors", "sensor_readings").strategy == "bucket"
    (bucket,) = findings("iot-sensors", "bucket-pattern")
    assert "fewer than 60 items" in bucket.message and "$inc" in bucket.message and "upsert: true" in bucket.message
    (ts,) = findings("iot-sensors", "time-series-collection")
    assert ts.severity == "info" and "granularity 'minutes'" in ts.message


def test_sd10_product_rating_computed() -> None:
    products = coll("ecommerce", "products")
    rating = node(products, "rating")
    assert rating.role == "computed" and names(rating) == ["count", "sum", "avg"]
    assert node(products, "rating.avg").computation is not None
    (f,) = findings("ecommerce", "computed-pattern")
    assert "rating.count by 1" in f.message and "rating.sum by the new" in f.message


def test_sd11_order_with_user_snapshot_and_item_prices() -> None:
    orders = coll("ecommerce", "orders")
    assert names(node(orders, "user")) == ["_id", "name", "phone"]
    # the seed's order keeps the user's id once, in user {_id, name, phone}; its line items have no _id
    assert [n.name for n in orders.shape] == ["_id", "status", "amount", "created_at", "user", "items"]
    assert sorted(names(node(orders, "items"))) == ["name", "price", "product_id", "quantity"]
    price = next(c for c in rel("ecommerce", "product_order_items").denormalized if c.field == "price")
    assert price.sync == "none" and price.path == "items.price" and "point-in-time" in price.sync_advice
    assert rel("ecommerce", "user_orders").strategy == "extended-ref"
    assert findings("ecommerce", "point-in-time-snapshot")[0].severity == "info"


def test_sd12_post_with_author_and_comments_and_three_sync_strategies() -> None:
    posts = coll("blog", "posts")
    assert names(node(posts, "author")) == ["_id", "name", "profile_pic"]
    # the seed's post: {_id, title, content, author: {_id, ...}, comments: [{_id, content, user: {_id, name}}]} —
    # the author's id once, and each (edited) comment keeps its _id
    assert [n.name for n in posts.shape] == ["_id", "title", "content", "created_at", "author", "comments"]
    comments = node(posts, "comments")
    assert comments.role == "embedded" and names(comments)[:2] == ["_id", "content"]
    assert names(node(posts, "comments.user")) == ["_id", "name"]
    user_copy = next(c for c in rel("blog", "user_comments").denormalized if c.field == "name")
    assert user_copy.path == "comments.user.name" and "arrayFilters" in user_copy.sync_advice
    assert user_copy.update is not None and user_copy.update.set_path == "comments.$[e].user.name"
    for f in findings("blog", "extended-reference"):
        assert "application code" in f.message and "change stream" in f.message and "scheduled job" in f.message
        assert "rarely change" in f.message
    assert "comment" not in [c.name for c in run("blog").design.collections]


def test_sd13_polymorphic_products() -> None:
    products = coll("ecommerce", "products")
    assert products.discriminator == "type" and products.variants == ["phone", "laptop", "headphone"]
    keys = index_keys(products)
    assert [("type", 1), ("specs.ram", 1)] in keys and [("brand", 1)] in keys
    branches = products.validator["$jsonSchema"]["oneOf"]
    assert [b["properties"]["type"]["enum"] for b in branches] == [["phone"], ["laptop"], ["headphone"]]
    assert "ram" in branches[0]["properties"]["specs"]["properties"]
    assert findings("ecommerce", "polymorphic-pattern")


def test_sd14_esr_index_for_orders() -> None:
    """The article's index example: the order holds a plain reference user_id, and the hot query's index is
    exactly {user_id: 1, status: 1, created_at: -1, amount: 1}."""
    orders = coll("orders-esr", "orders")
    assert [n.name for n in orders.shape] == ["_id", "status", "amount", "created_at", "user_id"]
    assert node(orders, "user_id").role == "parent-ref"
    esr = [("user_id", 1), ("status", 1), ("created_at", -1), ("amount", 1)]
    assert index_keys(orders) == [esr]
    idx = orders.indexes[0]
    assert [r.split(":")[0] for r in idx.key_reasons] == ["Equality", "Equality", "Sort", "Range"]
    (f,) = findings("orders-esr", "esr-compound-index", "recent_active_orders")
    assert f.fix is not None and f.fix.changes[0].value == {"keys": [[k, v] for k, v in esr]}
    (plan,) = run("orders-esr").design.queries
    assert plan.index is not None and plan.index.name == idx.name and plan.index.sort and not plan.blocking_sort


def test_sd11_order_serves_the_users_orders_through_the_id_in_its_extended_reference() -> None:
    """The SD11 order keeps its user's id only in user {_id, name, phone}: the same query reads user._id."""
    orders = coll("ecommerce", "orders")
    esr = [("user._id", 1), ("status", 1), ("created_at", -1), ("amount", 1)]
    assert esr in index_keys(orders)
    idx = next(i for i in orders.indexes if list(i.keys) == esr)
    assert idx.key_reasons[0] == "Equality: the query filters user._id = value"
    (f,) = findings("ecommerce", "esr-compound-index", "active_orders_of_user")
    # the fix declares the index in the model's words: the user's reference is user_id there
    logical = [["user_id", 1], *([k, v] for k, v in esr[1:])]
    assert f.fix is not None and f.fix.changes[0].value == {"keys": logical}


@pytest.mark.parametrize(
    "slug",
    [
        "person-addresses",
        "product-parts",
        "host-logs",
        "task-tracker",
        "iot-sensors",
        "blog",
        "ecommerce",
        "orders-esr",
    ],
)
def test_samples_have_no_errors(slug: str) -> None:
    assert [f for f in run(slug).findings if f.severity == "error"] == []
