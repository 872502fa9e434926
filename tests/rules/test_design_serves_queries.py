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
