"""The seed samples are valid, canonical, laid out, and carry their scenario's annotations.

They are the engine's acceptance inputs (RULES.md §4): if an annotation a rule trigger reads
goes missing here, the engine could not reproduce the seed's advice, so each scenario's key
annotations are asserted explicitly.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from functools import cache
from pathlib import Path

import pytest

from modeller.model import Entity, Field, Project, Query, Relationship, check_project
from modeller.model.paths import all_fields, find_field
from modeller.persistence import dumps_project, load_project

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "samples"
SEED_SLUGS = (
    "person-addresses",
    "product-parts",
    "host-logs",
    "task-tracker",
    "iot-sensors",
    "blog",
    "ecommerce",
    "orders-esr",
)
#: one sample per pattern family beyond the seeds (Building with Patterns, the Manual's tree and versioning pages)
PATTERN_SLUGS = ("category-tree", "movie-catalog", "insurance-audit", "viral-posts")
#: samples of rule families beyond the seeds (sharding)
FAMILY_SLUGS = ("saas-sharded",)
SLUGS = SEED_SLUGS + PATTERN_SLUGS + FAMILY_SLUGS

#: Size of an entity card on the canvas (DESIGN: cards of about 220 x 180 px).
CARD_W, CARD_H = 220, 180
#: Related cards must be within this distance (centre to centre) to be "near each other": one Documents-view
#: card (up to 460 px wide, ui/canvas/documents.py) and a line with its badge (tests/ui/test_sample_layout.py).
NEAR = 480


@cache
def text_of(slug: str) -> str:
    return (SAMPLES_DIR / f"{slug}.modeller.json").read_text(encoding="utf-8")


@cache
def load(slug: str) -> Project:
    return Project.model_validate(json.loads(text_of(slug)))


def entity(project: Project, entity_id: str) -> Entity:
    return next(e for e in project.entities if e.id == entity_id)


def rel(project: Project, rel_id: str) -> Relationship:
    return next(r for r in project.relationships if r.id == rel_id)


def query(project: Project, query_id: str) -> Query:
    return next(q for q in project.queries if q.id == query_id)


def field(project: Project, entity_id: str, path: str) -> Field:
    found = find_field(all_fields(entity(project, entity_id)), path)
    assert found is not None, f"{entity_id} has no field {path}"
    return found


def read_write_ratio(f: Field) -> float:
    """RULES.md §0.1 ``F.rw``: reads over updates, infinite for immutable fields."""
    if f.immutable:
        return math.inf
    assert f.reads_per_sec is not None and f.updates_per_sec is not None
    return f.reads_per_sec / max(f.updates_per_sec, 1e-9)


def denorm(relationship: Relationship, name: str, direction: str) -> str:
    """Staleness of the copy of ``name`` in ``direction``; fails when it is not declared."""
    matches = [d for d in relationship.denormalize if d.field == name and d.direction == direction]
    assert len(matches) == 1, f"{relationship.id}: expected one {direction} copy of {name}"
    return matches[0].staleness


# -- every sample --------------------------------------------------------------------------------


def test_the_samples_folder_holds_exactly_the_seed_and_family_samples() -> None:
    found = sorted(p.name.removesuffix(".modeller.json") for p in SAMPLES_DIR.glob("*.modeller.json"))
    assert found == sorted(SLUGS)


@pytest.mark.parametrize("slug", SLUGS)
def test_sample_validates_without_problems(slug: str) -> None:
    project = load(slug)
    assert check_project(project) == []
    assert project.server_version is not None and project.database
    assert project.entities and project.relationships and project.queries


@pytest.mark.parametrize("slug", SLUGS)
def test_sample_loads_through_the_project_file_loader(slug: str) -> None:
    assert load_project(SAMPLES_DIR / f"{slug}.modeller.json") == load(slug)


@pytest.mark.parametrize("slug", SLUGS)
def test_sample_is_in_canonical_form(slug: str) -> None:
    assert text_of(slug) == dumps_project(load(slug))
    assert (SAMPLES_DIR / f"{slug}.modeller.json").read_bytes() == dumps_project(load(slug)).encode("utf-8")


@pytest.mark.parametrize("slug", SLUGS)
def test_every_entity_has_a_card_and_cards_do_not_overlap(slug: str) -> None:
    project = load(slug)
    assert set(project.layout) == {e.id for e in project.entities}
    for (a, pa), (b, pb) in itertools.combinations(project.layout.items(), 2):
        apart = abs(pa.x - pb.x) >= CARD_W or abs(pa.y - pb.y) >= CARD_H
        assert apart, f"cards {a} and {b} overlap"


@pytest.mark.parametrize("slug", SLUGS)
def test_related_entities_sit_near_each_other(slug: str) -> None:
    project = load(slug)
    for r in project.relationships:
        one, many = project.layout[r.one], project.layout[r.many]
        assert math.dist((one.x, one.y), (many.x, many.y)) <= NEAR, f"{r.id}: {r.one} and {r.many} are far apart"


#: the seed articles, as a sample's description names them for its reader
SEED_TITLES = (
    '"6 Rules of Thumb for MongoDB Schema Design"',
    '"MongoDB Schema Design Best Practices"',
    '"MongoDB Schema Design Pattern - Extended Reference Pattern"',
)


@pytest.mark.parametrize("slug", SEED_SLUGS)
def test_description_names_the_article_and_the_advice(slug: str) -> None:
    description = load(slug).description or ""
    assert description.startswith("From ") and any(title in description for title in SEED_TITLES), description
    assert "What Modeller advises: " in description


@pytest.mark.parametrize("slug", PATTERN_SLUGS)
def test_a_pattern_sample_names_its_source_and_the_advice(slug: str) -> None:
    description = load(slug).description or ""
    assert description.startswith("Building with Patterns ("), description
    assert "What Modeller advises: " in description


def readme_scenarios() -> dict[str, set[str]]:
    """Sample slug -> SD ids, read from the table in samples/README.md."""
    rows: dict[str, set[str]] = {}
    for line in (SAMPLES_DIR / "README.md").read_text(encoding="utf-8").splitlines():
        slug = re.match(r"\| \[`([a-z-]+)\.modeller\.json`\]", line)
        if slug:
            rows[slug.group(1)] = set(re.findall(r"SD\d\d", line))
    return rows


def test_readme_lists_every_sample_and_together_they_cover_all_seed_scenarios() -> None:
    rows = readme_scenarios()
    assert set(rows) == set(SLUGS)
    assert set().union(*rows.values()) == {f"SD{n:02d}" for n in range(1, 15)}


# -- SD01 person-addresses -----------------------------------------------------------------------


def test_person_addresses_is_a_bounded_one_to_few_read_with_the_person() -> None:
    p = load("person-addresses")
    r = rel(p, "person_addresses")
    assert (r.one, r.many, r.name, r.cardinality) == ("person", "address", "addresses", "one-to-few")
    assert r.growth == "bounded" and r.max is not None and r.max <= 100
    assert r.read_together == 1.0 and not r.many_standalone
    assert [f.name for f in entity(p, "person").fields] == ["name", "ssn"]
    assert [f.name for f in entity(p, "address").fields] == ["street", "city", "state", "zip", "cc"]
    assert query(p, "person_by_ssn").joins == ("person_addresses",)


# -- SD02, SD05, SD06 product-parts --------------------------------------------------------------


def test_product_parts_is_one_to_many_with_standalone_parts() -> None:
    p = load("product-parts")
    r = rel(p, "product_parts")
    assert (r.one, r.many, r.name, r.cardinality, r.growth) == ("product", "part", "parts", "one-to-many", "bounded")
    assert r.many_standalone
    assert r.max is not None and 250 < r.max <= 2_000  # "a few hundred, never more than a few thousand"
    assert [f.name for f in entity(p, "part").fields] == ["partno", "name", "qty", "cost", "price"]
    assert [f.name for f in entity(p, "product").fields] == ["name", "manufacturer", "catalog_number"]
    assert query(p, "part_by_partno").filter == {"partno": "eq"}


def test_product_parts_copies_read_mostly_names_but_not_the_volatile_qty() -> None:
    p = load("product-parts")
    r = rel(p, "product_parts")
    assert denorm(r, "name", "many-to-one") == "hours"  # SD05: part names into product.parts
    assert denorm(r, "name", "one-to-many") == "hours"  # SD06: product name into each part
    assert {d.field for d in r.denormalize} == {"name"}
    assert read_write_ratio(field(p, "part", "name")) >= 10
    assert read_write_ratio(field(p, "product", "name")) >= 10
    assert read_write_ratio(field(p, "part", "qty")) < 10  # "qty on hand changes often": no copy
    product_page = query(p, "product_by_catalog_number")
    assert product_page.hot and "parts.name" in product_page.projection
    assert "product.name" in query(p, "part_by_partno").projection


# -- SD03, SD07, SD08 host-logs ------------------------------------------------------------------


def test_host_logs_is_one_to_squillions_keeping_the_latest_thousand() -> None:
    p = load("host-logs")
    r = rel(p, "host_logmsgs")
    assert (r.one, r.many, r.cardinality, r.growth) == ("host", "logmsg", "one-to-squillions", "unbounded")
    assert r.show_latest == 1000 and r.name == "logmsgs"
    assert [f.name for f in entity(p, "host").fields] == ["name", "ipaddr"]
    assert [f.name for f in entity(p, "logmsg").fields] == ["time", "message"]
    latest = query(p, "latest_messages_of_host")
    assert latest.scope == "host_logmsgs" and latest.filter == {}  # the Log messages of one Host
    assert latest.sort == (("time", -1),) and latest.limit == 5000
    assert query(p, "host_page").hot and query(p, "host_page").joins == ("host_logmsgs",)


def test_host_logs_copies_the_immutable_ipaddr_into_messages() -> None:
    p = load("host-logs")
    r = rel(p, "host_logmsgs")
    assert [(d.field, d.direction) for d in r.denormalize] == [("ipaddr", "one-to-many")]
    assert field(p, "host", "ipaddr").immutable
    by_ip = query(p, "latest_messages_by_ipaddr")
    assert by_ip.hot and by_ip.filter == {"host.ipaddr": "eq"} and by_ip.sort == (("time", -1),)


# -- SD04 task-tracker ---------------------------------------------------------------------------


def test_task_tracker_reads_both_directions_of_the_reference() -> None:
    p = load("task-tracker")
    r = rel(p, "person_tasks")
    assert (r.one, r.many, r.name, r.inverse) == ("person", "task", "tasks", "owner")
    assert r.cardinality == "one-to-many" and r.growth == "bounded" and r.many_standalone
    assert not r.atomic  # the seed accepts a non-atomic reassignment
    assert r.writes_per_sec  # tasks get reassigned
    assert [f.name for f in entity(p, "task").fields] == ["description", "due_date"]
    person_side = query(p, "person_with_tasks")
    task_side = query(p, "tasks_due")
    assert person_side.hot and person_side.joins == ("person_tasks",)
    assert task_side.hot and task_side.joins == ("person_tasks",) and "owner.name" in task_side.projection
    assert query(p, "tasks_of_owner").scope == "person_tasks" and query(p, "tasks_of_owner").filter == {}


# -- SD09 iot-sensors ----------------------------------------------------------------------------


def test_iot_sensors_buckets_sixty_per_minute_readings() -> None:
    p = load("iot-sensors")
    reading = entity(p, "reading")
    assert reading.timeseries is not None
    assert reading.timeseries.bucket_size == 60 and reading.timeseries.interval_s == 60
    assert (reading.timeseries.time_field, reading.timeseries.meta_field) == ("timestamp", "sensor_id")
    assert reading.collection == "sensor_data" and reading.append_only
    assert [f.name for f in reading.fields] == ["timestamp", "temperature", "humidity"]
    r = rel(p, "sensor_readings")
    assert (r.one, r.many, r.cardinality, r.growth) == ("sensor", "reading", "one-to-squillions", "unbounded")
    dashboard = query(p, "sensor_hour")
    assert dashboard.hot and dashboard.scope == "sensor_readings" and dashboard.filter == {"timestamp": "range"}
    assert dashboard.limit == 60
    assert p.server_version is not None and tuple(map(int, p.server_version.split("."))) >= (5, 0)


# -- SD12 blog -----------------------------------------------------------------------------------


def test_blog_copies_stable_user_fields_into_posts_and_comments() -> None:
    p = load("blog")
    authors = rel(p, "user_posts")
    assert (authors.one, authors.many, authors.inverse) == ("user", "post", "author")
    assert denorm(authors, "name", "one-to-many") == "hours"
    assert denorm(authors, "profile_pic", "one-to-many") == "hours"
    commenters = rel(p, "user_comments")
    assert (commenters.one, commenters.many, commenters.inverse) == ("user", "comment", "user")
    assert [(d.field, d.direction) for d in commenters.denormalize] == [("name", "one-to-many")]
    for name in ("name", "profile_pic"):
        assert read_write_ratio(field(p, "user", name)) >= 10
    comments = rel(p, "post_comments")
    assert comments.name == "comments" and comments.growth == "bounded" and comments.read_together == 1.0
    page = query(p, "post_page")
    assert page.hot and set(page.joins) == {"user_posts", "post_comments", "user_comments"}
    assert {"author.name", "author.profile_pic", "comments.content"} <= set(page.projection)
    assert [f.name for f in entity(p, "user").fields] == ["name", "email", "profile_pic"]


# -- SD10, SD11, SD13 ecommerce ------------------------------------------------------------------


def test_ecommerce_has_the_esr_query_on_orders() -> None:
    p = load("ecommerce")
    esr = query(p, "active_orders_of_user")
    assert esr.entity == "order" and esr.hot
    assert esr.scope == "user_orders" and esr.filter == {"status": "eq", "amount": "range"}
    assert esr.sort == (("created_at", -1),)
    assert rel(p, "user_orders").inverse == "user"  # so the extended reference is user (its id user._id)


def test_ecommerce_order_snapshots_user_and_item_price() -> None:
    p = load("ecommerce")
    users = rel(p, "user_orders")
    assert {d.field for d in users.denormalize} == {"name", "phone"}
    assert all(d.direction == "one-to-many" and d.staleness in {"hours", "days"} for d in users.denormalize)
    items = rel(p, "order_items")
    assert (items.one, items.many, items.name, items.growth) == ("order", "order_item", "items", "bounded")
    products = rel(p, "product_order_items")
    assert (products.one, products.many) == ("product", "order_item")
    assert denorm(products, "price", "one-to-many") == "forever"  # 下单时的价格(快照)
    assert denorm(products, "name", "one-to-many") != "forever"
    page = query(p, "order_page")
    assert page.hot and {"user_orders", "order_items", "product_order_items"} == set(page.joins)
    assert [f.name for f in entity(p, "order").fields] == ["status", "amount", "created_at"]


def test_ecommerce_product_rating_is_computed_from_reviews() -> None:
    p = load("ecommerce")
    reviews = rel(p, "product_reviews")
    assert {(a.op, a.field) for a in reviews.aggregates} == {("count", None), ("sum", "stars"), ("avg", "stars")}
    page = query(p, "product_page")
    assert page.hot and {"rating_avg", "rating_count"} <= set(page.projection)
    assert (page.per_sec or 0) >= 10 * (entity(p, "review").writes_per_sec or 0)


def test_ecommerce_products_are_polymorphic_with_specs() -> None:
    p = load("ecommerce")
    product = entity(p, "product")
    assert product.subtypes is not None and product.subtypes.discriminator == "type"
    variants = product.subtypes.variants
    assert set(variants) == {"phone", "laptop", "headphone"}
    specs = {name: [f for f in fields if f.name == "specs"] for name, fields in variants.items()}
    assert all(len(found) == 1 and found[0].type == "object" for found in specs.values())
    assert {f.name for f in specs["phone"][0].fields or []} == {"screen_size", "ram", "storage", "camera"}
    assert {f.name for f in specs["laptop"][0].fields or []} == {"screen_size", "ram", "storage", "cpu", "battery"}
    assert {f.name for f in specs["headphone"][0].fields or []} == {"driver_size", "noise_cancellation", "battery_life"}
    assert field(p, "product", "type").enum == ("phone", "laptop", "headphone")
    assert query(p, "products_of_brand").filter == {"brand": "eq"}
    assert query(p, "phones_with_ram").filter == {"type": "eq", "specs.ram": "range"}


# -- saas-sharded (RULES.md 44, 45) ----------------------------------------------------------------


def test_saas_sharded_invoices_shard_on_the_tenant_and_the_audit_log_is_hashed() -> None:
    from modeller.rules import analyse

    project = load("saas-sharded")
    assert project.sharded and project.shards == 4
    assert field(project, "invoice", "created_at").monotonic and field(project, "audit", "seq").monotonic
    advice = analyse(project).design.shard_advice
    assert sorted(advice) == ["audit_events", "invoices"]  # tenants and users stay on one replica set
    invoices, audit = advice["invoices"], advice["audit_events"]
    assert invoices.reason == "size" and invoices.chosen is not None
    # the tenant, then the time the tenant's hot read sorts by (tryout a15 item 3: ties with {tenant_id, _id} go to
    # the key that keeps one tenant's recent invoices in neighbouring chunks)
    assert invoices.chosen.keys == [("tenant_id", 1), ("created_at", 1)]
    assert invoices.chosen.targeted == 1.0
    assert audit.reason == "marked" and audit.chosen is not None and audit.chosen.keys == [("seq", "hashed")]


# -- SD14 orders-esr -----------------------------------------------------------------------------


def test_orders_esr_references_the_user_plainly_and_has_the_seeds_query() -> None:
    """The article's index example: each order holds user_id (no copied fields), the hot query filters on the
    user, the status and an amount range and sorts by created_at."""
    p = load("orders-esr")
    users = rel(p, "user_orders")
    assert (users.one, users.many, users.inverse, users.denormalize) == ("user", "order", "user", ())
    esr = query(p, "recent_active_orders")
    assert esr.entity == "order" and esr.hot and esr.scope == "user_orders"
    assert esr.filter == {"status": "eq", "amount": "range"} and esr.sort == (("created_at", -1),)
    assert "active" in (next(f for f in entity(p, "order").fields if f.name == "status").enum or [])
