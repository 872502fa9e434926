"""Format 1 -> 2: a filter equality on a generated parent-reference name becomes the query's ``scope``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from modeller.cli.main import main as cli_main
from modeller.model import FORMAT_VERSION
from modeller.model.names import snake
from modeller.persistence import ProjectFileError, dumps_project, load_project, loads_project
from modeller.persistence.migrations import filter_on_parent_reference_to_scope
from modeller.rules import analyse

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.modeller.json"))


def as_format_1(data: dict[str, Any]) -> dict[str, Any]:
    """The file a format-1 user wrote for ``data``: each N-side scope as an equality on the generated reference."""
    old = copy.deepcopy(data)
    old["format_version"] = 1
    entities = {e["id"]: e for e in old["entities"]}
    rels = {r["id"]: r for r in old.get("relationships", [])}
    for query in old.get("queries", []):
        rel = rels.get(query.get("scope", ""))
        if rel is None or rel["many"] != query["entity"]:
            continue
        ref = f"{rel.get('inverse') or snake(entities[rel['one']]['name'])}_id"
        query["filter"] = {ref: "eq", **query.get("filter", {})}
        del query["scope"]
    return old


def test_the_samples_are_written_in_the_current_format() -> None:
    assert FORMAT_VERSION == 2
    assert {json.loads(p.read_text(encoding="utf-8"))["format_version"] for p in SAMPLES} == {2}


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_every_sample_written_in_format_1_opens_as_the_sample(sample: Path) -> None:
    text = sample.read_text(encoding="utf-8")
    current = json.loads(text)
    old = as_format_1(current)
    migrated = loads_project(json.dumps(old), "old.modeller.json")
    assert migrated == load_project(sample)
    assert dumps_project(migrated) == text  # saved: the sample, byte for byte
    assert dumps_project(loads_project(dumps_project(migrated))) == text  # and a second round trip changes nothing


def test_the_samples_keep_their_scopes() -> None:
    scopes = {
        q.id: q.scope for p in SAMPLES for q in load_project(p).queries if q.scope is not None
    }  # what the migration made of the format-1 samples
    assert scopes == {
        "posts_of_author": "user_posts",
        "active_orders_of_user": "user_orders",
        "recent_active_orders": "user_orders",
        "latest_messages_of_host": "host_logmsgs",
        "sensor_hour": "sensor_readings",
        "tasks_of_owner": "person_tasks",
        "audit_of_policy": "policy_audit",
        "products_in_category": "category_products",
        "tenant_recent_invoices": "tenant_invoices",  # saas-sharded: written in format 2 from the start
    }


V1: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": "Hosts",
    "entities": [
        {"id": "host", "name": "Host", "fields": [{"name": "ipaddr", "type": "string"}]},
        {
            "id": "logmsg",
            "name": "Log message",
            "fields": [
                {"name": "time", "type": "date"},
                {"name": "level", "type": "string"},
            ],
        },
        {"id": "user", "name": "User", "fields": [{"name": "name", "type": "string"}]},
        {"id": "team", "name": "Team", "fields": [{"name": "team_id", "type": "string"}]},
        {"id": "tag", "name": "Tag", "fields": [{"name": "label", "type": "string"}]},
    ],
    "relationships": [
        {"id": "host_logmsgs", "one": "host", "many": "logmsg", "cardinality": "one-to-squillions"},
        {"id": "owner_hosts", "one": "user", "many": "host", "inverse": "owner", "cardinality": "one-to-many"},
        {"id": "org_teams", "one": "team", "many": "team", "cardinality": "one-to-many"},
        {"id": "tags_hosts", "one": "tag", "many": "host", "cardinality": "many-to-many"},
    ],
    "queries": [
        {"id": "of_host", "entity": "logmsg", "filter": {"level": "eq", "host_id": "eq"}, "sort": [["time", -1]]},
        {"id": "of_owner", "entity": "host", "filter": {"owner_id": "eq"}, "per_sec": 3},
        {"id": "of_hosts", "entity": "logmsg", "filter": {"host_id": "in"}},
        {"id": "sorted_only", "entity": "logmsg", "sort": [["host_id", 1]]},
        {"id": "declared", "entity": "team", "filter": {"team_id": "eq"}},
        {"id": "of_tag", "entity": "host", "filter": {"tag_id": "eq"}},
        {"id": "of_user", "entity": "host", "filter": {"user_id": "eq"}},
    ],
}


def test_a_generated_parent_reference_filter_becomes_the_scope_and_nothing_else_changes() -> None:
    project = loads_project(json.dumps(V1), "hosts.modeller.json", check=False)
    queries = {q.id: q for q in project.queries}
    assert project.format_version == 2
    # the N of one Host: the other filters and the sort stay as written
    assert queries["of_host"].scope == "host_logmsgs"
    assert dict(queries["of_host"].filter) == {"level": "eq"} and queries["of_host"].sort == (("time", -1),)
    # the relationship's inverse names the reference (owner_id); the filter had nothing else: it goes
    assert queries["of_owner"].scope == "owner_hosts" and dict(queries["of_owner"].filter) == {}
    assert queries["of_owner"].per_sec == 3
    # not an equality, only a sort, a field the entity declares, a many-to-many, a name of no relationship: kept
    for qid, filters in [
        ("of_hosts", {"host_id": "in"}),
        ("sorted_only", {}),
        ("declared", {"team_id": "eq"}),
        ("of_tag", {"tag_id": "eq"}),
        ("of_user", {"user_id": "eq"}),
    ]:
        assert queries[qid].scope is None and dict(queries[qid].filter) == filters, qid
    assert queries["sorted_only"].sort == (("host_id", 1),)


def test_the_migrated_query_is_planned_as_the_format_1_filter_was() -> None:
    project = loads_project(json.dumps(V1), "hosts.modeller.json", check=False)
    plan = next(p for p in analyse(project).design.queries if p.id == "of_host")
    assert plan.scope is not None and plan.scope.label == "the Log messages of one Host"
    assert plan.index is not None and plan.index.keys[0] == ("host_id", 1) and not plan.blocking_sort


def test_the_step_leaves_data_of_the_wrong_shape_to_validation() -> None:
    for data in (
        {"entities": "x", "relationships": [1, None], "queries": {"q": 1}},
        {"entities": [{"id": "a"}], "relationships": [{"id": "r", "one": "a", "many": 3}], "queries": [7]},
        {"entities": [{"id": "a", "name": "A"}], "relationships": [{"one": "a", "many": "a"}], "queries": []},
        {"queries": [{"entity": "a", "filter": ["a_id"]}]},
    ):
        before = copy.deepcopy(data)
        assert filter_on_parent_reference_to_scope(data) == before
    bad = copy.deepcopy(V1)
    bad["entities"][1]["fields"] = "oops"
    with pytest.raises(ProjectFileError, match=r"\$\.entities\[1\]\.fields"):
        loads_project(json.dumps(bad), "bad.modeller.json")


def test_fmt_upgrades_a_format_1_file_in_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hosts.modeller.json"
    old = copy.deepcopy(V1)
    old["queries"] = old["queries"][:2]  # a valid project (the other queries name fields on purpose)
    path.write_text(json.dumps(old, indent=2) + "\n", encoding="utf-8")
    assert cli_main(["fmt", "--check", str(path)]) == 1
    assert cli_main(["fmt", str(path)]) == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format_version"] == 2
    assert [q.get("scope") for q in data["queries"]] == ["host_logmsgs", "owner_hosts"]
    assert "owner_id" not in path.read_text(encoding="utf-8")
    assert cli_main(["fmt", "--check", str(path)]) == 0
    capsys.readouterr()
