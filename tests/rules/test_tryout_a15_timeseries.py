"""Tryout a15 items 9 and 8: on MongoDB 6.3+ the server builds a time series collection's metaField + timeField index
itself (``<meta>_1_<time>_1``); the design names that index instead of adding a second one beside it."""

from __future__ import annotations

from typing import Any

from modeller.export import mongosh_script
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse


def iot(server: str, **query: Any) -> Project:
    """Device -> Reading (one-to-squillions), Reading a time series on ts; readings of a device in a time range."""
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "iot",
            "server_version": server,
            "entities": [
                {"id": "device", "name": "Device", "count": 200_000, "fields": [{"name": "serial", "type": "string"}]},
                {
                    "id": "reading",
                    "name": "Reading",
                    "count": 20_000_000_000,
                    "writes_per_sec": 20000,
                    "append_only": True,
                    "timeseries": {"time_field": "ts", "interval_s": 10, "retention_s": 7_776_000},
                    "fields": [{"name": "ts", "type": "date"}, {"name": "temperature", "type": "double"}],
                },
            ],
            "relationships": [
                {
                    "id": "device_readings",
                    "one": "device",
                    "many": "reading",
                    "cardinality": "one-to-squillions",
                    "typical": 100_000,
                    "max": 10_000_000,
                }
            ],
            "queries": [
                {
                    "id": "range",
                    "entity": "reading",
                    "name": "readings of a device in a time range",
                    "scope": "device_readings",
                    "filter": {"ts": "range"},
                    "sort": [["ts", -1]],
                    "per_sec": 200,
                    **query,
                }
            ],
        }
    )


def test_on_6_3_the_design_names_the_index_the_server_builds_and_adds_none_beside_it() -> None:
    project = iot("7.0")
    design = analyse(project).design
    reading = design.collection("reading")
    assert reading is not None and reading.timeseries is not None
    assert reading.timeseries["metaField"] == "device_id"
    assert [(i.name, i.keys) for i in reading.indexes] == [("device_id_1_ts_1", [("device_id", 1), ("ts", 1)])]
    assert reading.indexes[0].why.startswith("the server builds {device_id: 1, ts: 1} itself on a time series")
    (plan,) = design.queries
    main = plan.steps[plan.main]
    assert main.index is not None and main.index.name == "device_id_1_ts_1" and main.index.sort
    # the script's createIndex names the server's own index: it finds it and creates nothing
    script = mongosh_script(design, project)
    assert 'ensureIndex("reading", {"device_id": 1, "ts": 1}, {"name": "device_id_1_ts_1"});' in script
    assert '"ts": -1' not in script


def test_before_6_3_the_engine_index_stays_as_the_query_needs_it() -> None:
    reading = analyse(iot("6.0")).design.collection("reading")
    assert reading is not None
    assert [(i.name, i.keys) for i in reading.indexes] == [("device_id_1_ts_-1", [("device_id", 1), ("ts", -1)])]


def test_a_many_to_many_read_by_the_ids_a_user_holds_keeps_its_declared_sort() -> None:
    """Tryout a15 item 8: "groups of a user" (sorted by created_at) reads the Groups by the ids in the User; the
    _id index returns them unordered, so the plan sorts them in memory instead of dropping the sort."""
    project = Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "m2m",
            "entities": [
                {"id": "user", "name": "User", "count": 50_000_000, "fields": [{"name": "name", "type": "string"}]},
                {"id": "group", "name": "Group", "count": 200_000, "fields": [{"name": "created_at", "type": "date"}]},
            ],
            "relationships": [
                {
                    "id": "members",
                    "one": "group",
                    "many": "user",
                    "cardinality": "many-to-many",
                    "typical": 250,
                    "max": 5_000_000,
                    "reads_per_sec": 1000,
                    "writes_per_sec": 300,
                }
            ],
            "queries": [
                {
                    "id": "groups",
                    "entity": "group",
                    "name": "groups of a user",
                    "scope": "members",
                    "sort": [["created_at", -1]],
                    "per_sec": 2000,
                },
                {
                    "id": "members",
                    "entity": "user",
                    "name": "members of a group",
                    "scope": "members",
                    "sort": [["name", 1]],
                    "per_sec": 300,
                },
            ],
        }
    )
    plan = next(p for p in analyse(project).design.queries if p.id == "groups")
    assert plan.scope is not None and plan.scope.kind == "via-many"
    main = plan.steps[plan.main]
    assert main.filter["_id"]["$in"] is not None
    assert main.sort == [("created_at", -1)]
    assert plan.blocking_sort
