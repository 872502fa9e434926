"""The resolver chooses strategies and indexes from the queries it must serve (issue 10, item 3)."""

from __future__ import annotations

from typing import Any

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import Analysis, analyse
from modeller.rules.physical.design import CollectionDesign


def project(**data: Any) -> Project:
    data.setdefault("entities", [])
    for e in data["entities"]:
        e.setdefault("name", e["id"].capitalize())
        e.setdefault("fields", [])
    return Project.model_validate({"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "name": "t", **data})


def coll(a: Analysis, name: str) -> CollectionDesign:
    found = a.design.collection(name)
    assert found is not None, [c.name for c in a.design.collections]
    return found


def keys_of(c: CollectionDesign) -> list[list[tuple[str, Any]]]:
    return [list(i.keys) for i in c.indexes]


# ------------------------------------------------------------------------------------------ paged streams -> bucket

TRADE_FIELDS = [
    {"name": "symbol", "type": "string", "bytes": 6},
    {"name": "qty", "type": "int"},
    {"name": "price", "type": "double"},
    {"name": "time", "type": "date"},
]


def trades(limit: int = 10, **query: Any) -> Project:
    """The Manual's bucket example: a customer's trade history, read a page at a time."""
    q = {"id": "trade_history", "entity": "trade", "filter": {"customer_id": "eq"}, "sort": [["time", -1]]}
    q.update({"limit": limit, "per_sec": 40, **query})
    return project(
        server_version="7.0",
        entities=[
            {"id": "customer", "count": 100_000, "fields": [{"name": "name", "type": "string"}]},
            {"id": "trade", "count": 500_000_000, "fields": TRADE_FIELDS},
        ],
        relationships=[
            {"id": "customer_trades", "one": "customer", "many": "trade", "cardinality": "one-to-squillions"}
        ],
        queries=[q],
    )


def test_a_paged_read_of_a_stream_of_small_documents_is_bucketed_by_the_page_size() -> None:
    a = analyse(trades(limit=10))
    r = next(r for r in a.design.relationships if r.id == "customer_trades")
    assert r.strategy == "bucket" and "bucket-pattern" in r.rules and "'trade_history'" in r.why
    trade = coll(a, "trade")
    assert trade.bucket is not None
    assert (trade.bucket.size, trade.bucket.series_field, trade.bucket.time_field) == (10, "customer_id", "time")
    assert keys_of(trade) == [[("customer_id", 1), ("start", -1)]]
    (plan,) = a.design.queries
    assert plan.index is not None and plan.index.name == "customer_id_1_start_-1" and plan.index.sort
    assert not plan.blocking_sort and plan.steps[0].limit == 1  # one bucket is one page
    assert trade.count == 50_000_000


def test_the_bucket_size_comes_from_the_page_limit() -> None:
    # the Manual's discussion comments: 100 per page
    trade = coll(analyse(trades(limit=100)), "trade")
    assert trade.bucket is not None and trade.bucket.size == 100


def test_no_bucket_for_pages_larger_than_a_ui_page_or_for_reads_that_filter_other_fields() -> None:
    assert coll(analyse(trades(limit=5000)), "trade").bucket is None  # Zola's 5,000 log lines: a parent reference
    other = trades(filter={"customer_id": "eq", "symbol": "eq"})
    assert coll(analyse(other), "trade").bucket is None
    unpaged = trades(limit=10, sort=[["symbol", 1]])
    assert coll(analyse(unpaged), "trade").bucket is None  # not a time-like order


def test_no_bucket_for_a_stream_whose_documents_change() -> None:
    p = trades()
    trade = p.entities[1]
    fields = (*trade.fields[:-1], trade.fields[-1].model_copy(update={"updates_per_sec": 0.5}))
    p = p.model_copy(update={"entities": (p.entities[0], trade.model_copy(update={"fields": fields}))})
    assert coll(analyse(p), "trade").bucket is None


# ------------------------------------------------------------------------------------------ one text index


def articles(*queries: dict[str, Any], indexes: list[dict[str, Any]] | None = None) -> Project:
    fields = [{"name": n, "type": "string"} for n in ("title", "body", "summary", "lang")]
    return project(
        entities=[{"id": "article", "count": 200_000, "fields": fields, "indexes": indexes or []}],
        queries=list(queries),
    )


def text_indexes(c: CollectionDesign) -> list[list[tuple[str, Any]]]:
    return [list(i.keys) for i in c.indexes if any(v == "text" for _, v in i.keys)]


def test_one_text_index_covers_every_text_searched_field_of_a_collection() -> None:
    a = analyse(
        articles(
            {"id": "search", "entity": "article", "filter": {"title": "text", "body": "text"}, "per_sec": 5},
            {"id": "search_summary", "entity": "article", "filter": {"summary": "text"}, "per_sec": 1},
        )
    )
    (keys,) = text_indexes(coll(a, "article"))
    assert keys == [("title", "text"), ("body", "text"), ("summary", "text")]
    for plan in a.design.queries:
        assert plan.index is not None and plan.index.special == "text" and plan.index.keys == tuple(keys)
    assert [f for f in a.findings if f.rule == "index-hard-limits"] == []


def test_a_declared_text_index_is_never_joined_by_a_second_one() -> None:
    declared = [{"keys": [["title", "text"]]}]
    a = analyse(articles({"id": "search", "entity": "article", "filter": {"body": "text"}}, indexes=declared))
    assert text_indexes(coll(a, "article")) == [[("title", "text")]]
    assert [f for f in a.findings if f.rule == "index-hard-limits"] == []


# ------------------------------------------------------------------------------------------ sync filter paths


def test_every_sync_filter_path_is_indexed_unless_its_scans_are_negligible() -> None:
    from modeller.persistence import load_project
    from tests.rules.test_seeds import SAMPLES

    for slug in ("blog", "ecommerce"):
        design = analyse(load_project(SAMPLES / f"{slug}.modeller.json")).design
        copies = [w for w in design.writes if w.kind == "copy"]
        assert copies and all(w.index is not None for w in copies), slug
    blog = analyse(load_project(SAMPLES / "blog.modeller.json"))
    (synced,) = [i for i in coll(blog, "posts").indexes if i.keys == [("comments.user._id", 1)]]
    assert "User.name" in synced.why and "(0.01/s) scans 1,200,000 documents" in synced.why
    assert "index-reference-fields" in synced.rules
    # a part rename (0.01/s) scans 20,000 products: 200 documents/s, under the 1,000/s the rule allows unindexed
    parts = analyse(load_project(SAMPLES / "product-parts.modeller.json"))
    (names,) = [w for w in parts.design.writes if w.kind == "copy" and w.filter_path == "parts.id"]
    assert names.index is None and names.per_sec == 0.01 and names.docs_examined == 20_000
    assert all(("parts.id", 1) not in i.keys for i in coll(parts, "products").indexes)


def test_a_sync_path_with_an_unknown_rate_is_indexed() -> None:
    p = project(
        entities=[
            {"id": "user", "count": 1000, "fields": [{"name": "name", "type": "string"}]},
            {"id": "post", "count": 5000, "fields": [{"name": "title", "type": "string"}]},
        ],
        relationships=[
            {
                "id": "user_posts",
                "one": "user",
                "many": "post",
                "inverse": "author",
                "cardinality": "one-to-many",
                "max": 5000,
                "denormalize": [{"field": "name", "direction": "one-to-many"}],
            }
        ],
    )
    a = analyse(p)
    (write,) = [w for w in a.design.writes if w.kind == "copy"]
    assert write.filter_path == "author._id" and write.per_sec is None
    assert write.index is not None and write.index.keys == (("author._id", 1),)
    (f,) = [f for f in a.findings if f.rule == "index-reference-fields"]
    assert "reference field author._id of post needs an index" in f.message


# ------------------------------------------------------------------------------------------ no unused index


def audit_log() -> Project:
    return project(
        entities=[
            {"id": "tenant", "count": 2000},
            {"id": "actor", "count": 1_000_000},
            {"id": "event", "count": 4_000_000_000, "fields": [{"name": "at", "type": "date"}]},
        ],
        relationships=[
            {"id": "tenant_events", "one": "tenant", "many": "event", "cardinality": "one-to-squillions"},
            {"id": "actor_events", "one": "actor", "many": "event", "cardinality": "one-to-squillions"},
        ],
        queries=[
            {"id": "recent", "entity": "event", "filter": {"tenant_id": "eq"}, "sort": [["at", -1]], "limit": 50},
            {"id": "by_actor", "entity": "event", "filter": {"tenant_id": "eq", "actor_id": "eq"}, "limit": 50},
        ],
    )


def test_no_index_that_no_plan_uses_on_a_tenant_scoped_audit_log() -> None:
    a = analyse(audit_log())
    event = coll(a, "event")
    assert [("actor_id", 1)] not in keys_of(event)
    used = {step.index.name for plan in a.design.queries for step in plan.steps if step.index is not None}
    assert {i.name for i in event.indexes} <= used
    (recent,) = [i for i in event.indexes if i.keys == [("tenant_id", 1), ("at", -1)]]
    assert "index-reference-fields" in recent.rules and "reference to the Tenant" in recent.why


def test_a_join_from_the_one_keeps_the_reference_index() -> None:
    p = audit_log()
    join = {"id": "actor_page", "entity": "actor", "filter": {"_id": "eq"}, "joins": ["actor_events"]}
    a = analyse(p.model_copy(update={"queries": (*p.queries, p.queries[0].model_validate(join))}))
    assert [("actor_id", 1)] in keys_of(coll(a, "event"))
    (page,) = [q for q in a.design.queries if q.id == "actor_page"]
    assert page.lookups[0].index is not None and page.lookups[0].index.keys == (("actor_id", 1),)


def test_no_b_tree_index_for_what_a_text_search_sorts_or_what_the_id_index_serves() -> None:
    a = analyse(
        articles(
            {"id": "search", "entity": "article", "filter": {"body": "text"}, "sort": [["title", 1]], "per_sec": 5},
            {"id": "newest_ids", "entity": "article", "sort": [["_id", -1]], "limit": 20, "per_sec": 5},
        )
    )
    assert keys_of(coll(a, "article")) == [[("body", "text")]]
    plans = {p.id: p for p in a.design.queries}
    assert plans["search"].blocking_sort and plans["search"].index is not None
    newest = plans["newest_ids"].index
    assert newest is not None and newest.name == "_id_" and newest.sort


def test_a_query_with_two_geo_predicates_gets_one_2dsphere_index() -> None:
    fields = [{"name": "home", "type": "point"}, {"name": "work", "type": "point"}]
    a = analyse(
        project(
            entities=[{"id": "commuter", "count": 1000, "fields": fields}],
            queries=[{"id": "near", "entity": "commuter", "filter": {"home": "geo", "work": "geo"}, "per_sec": 3}],
        )
    )
    assert keys_of(coll(a, "commuter")) == [[("home", "2dsphere")]]
    (plan,) = a.design.queries
    assert plan.index is not None and plan.index.special == "2dsphere"
