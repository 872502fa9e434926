"""An undeclared event stream (tryout a14 item 7): page views of a post, read by a range of time, get the bucket or
time series advice before the user ticks "Time series", and applying its fix gives the design it promises."""

from __future__ import annotations

from typing import Any

from test_cases import build

from modeller.rules import analyse


def _blog(server_version: str | None = None, timeseries: dict[str, Any] | None = None) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": "page_view",
        "name": "PageView",
        "append_only": True,
        "count": 5_000_000_000,
        "writes_per_sec": 2000,
        "fields": [{"name": "at", "type": "date"}, {"name": "ip", "type": "string"}],
    }
    if timeseries is not None:
        view["timeseries"] = timeseries
    data: dict[str, Any] = {
        "entities": [{"id": "post", "name": "Post", "fields": [{"name": "title", "type": "string"}]}, view],
        "relationships": [
            {
                "id": "post_views",
                "one": "post",
                "many": "page_view",
                "cardinality": "one-to-squillions",
                "typical": 100_000,
                "max": 50_000_000,
            }
        ],
        "queries": [
            {
                "id": "q",
                "entity": "page_view",
                "name": "views of a post today",
                "scope": "post_views",
                "filter": {"at": "range"},
            },
        ],
    }
    if server_version:
        data["server_version"] = server_version
    return data


def _stream_findings(data: dict[str, Any]) -> list[Any]:
    return [
        f
        for f in analyse(build(data)).findings
        if f.rule in ("bucket-pattern", "time-series-collection") and f.subject.id == "page_view"
    ]


def test_an_unknown_server_gets_buckets_and_the_fix_declares_the_time_field() -> None:
    (f,) = _stream_findings(_blog())
    assert f.rule == "bucket-pattern" and f.severity == "suggestion"
    assert f.message.startswith("PageView looks like an event stream (about 2,000 new a second, up to 50,000,000")
    assert "'views of a post today' reads by ranges of 'at' per Post" in f.message
    assert "time series with time field 'at'" in f.message and "retention" in f.message
    assert "5.0 or later" in f.message  # what else to set: the server version
    assert f.fix is not None
    ((change),) = f.fix.changes
    assert (change.op, change.subject.id, change.key, change.value) == (
        "set",
        "page_view",
        "timeseries",
        {"time_field": "at"},
    )


def test_applying_the_fix_gives_the_buckets_it_promises() -> None:
    analysis = analyse(build(_blog(timeseries={"time_field": "at"})))
    assert next(r for r in analysis.design.relationships if r.id == "post_views").strategy == "bucket"
    stream = [f for f in analysis.findings if "looks like an event stream" in f.message]
    assert stream == []  # declared now: the advice is the design's own bucket finding


def test_a_known_recent_server_gets_a_time_series_collection() -> None:
    (f,) = _stream_findings(_blog(server_version="7.0"))
    assert f.rule == "time-series-collection" and f.severity == "suggestion"
    assert "on MongoDB 7.0 the design then makes page_view a time series collection" in f.message
    analysis = analyse(build(_blog(server_version="7.0", timeseries={"time_field": "at"})))
    coll = next(c for c in analysis.design.collections if c.root == "page_view")
    assert coll.timeseries is not None and coll.timeseries["timeField"] == "at"


def test_an_undeclared_bound_is_not_quoted_as_the_users() -> None:
    data = _blog()
    del data["relationships"][0]["max"]
    (f,) = _stream_findings(data)
    assert "(about 2,000 new a second, without bound per Post, small and never updated)" in f.message
