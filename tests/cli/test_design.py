"""``modeller design``: the DESIGN.md JSON shape and a readable text view."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from modeller.cli.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
COLLECTION_KEYS = {"name", "entities", "shape", "indexes", "validator", "timeseries", "shard_key"}
INDEX_KEYS = {"keys", "name", "unique", "expire_after_s", "partial", "collation", "why"}
REL_KEYS = {"id", "strategy", "chosen_by", "rules", "denormalized", "why"}


def design(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["design", *args])
    out, _ = capsys.readouterr()
    return code, out


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = design(capsys, str(SAMPLES / "host-logs.modeller.json"), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["collections", "relationships", "queries", "writes"]
    logmsg = next(c for c in data["collections"] if c["name"] == "logmsg")
    assert set(logmsg) >= COLLECTION_KEYS
    idx = next(i for i in logmsg["indexes"] if i["keys"] == [["host_id", 1], ["time", -1]])
    assert set(idx) >= INDEX_KEYS and "Equality" in idx["key_reasons"][0]
    assert logmsg["validator"]["$jsonSchema"]["required"][:3] == ["_id", "time", "message"]
    (rel,) = data["relationships"]
    assert set(rel) >= REL_KEYS
    assert rel["strategy"] == "subset" and rel["chosen_by"] == "engine"
    assert {d["path"] for d in rel["denormalized"]} == {"ipaddr", "recent_logmsgs.time", "recent_logmsgs.message"}


QUERY_KEYS = {"id", "collection", "index", "blocking_sort", "sort_bytes", "round_trips", "lookups", "docs_examined"}
WRITE_KEYS = {"source", "collection", "filter_path", "index", "docs_per_write", "per_sec"}


def test_json_queries_and_writes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = design(capsys, str(SAMPLES / "task-tracker.modeller.json"), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert [q["id"] for q in data["queries"]] == ["person_with_tasks", "tasks_due", "tasks_of_owner"]
    page, _, of_owner = data["queries"]
    assert set(page) >= QUERY_KEYS | {"mongosh"}
    assert page["round_trips"] == 2 and page["lookups"][0]["from"] == "tasks"
    assert page["lookups"][0]["index"] == {"name": "_id_", "keys": [["_id", 1]]}
    assert of_owner["index"] == {"name": "owner_id_1_due_date_1", "keys": [["owner_id", 1], ["due_date", 1]]}
    assert of_owner["blocking_sort"] is False and of_owner["sort_bytes"] == 0
    assert of_owner["mongosh"] == (
        'db.getCollection("tasks").find({"owner_id": params["Person"]}).sort({"due_date": 1})'
    )
    (write,) = data["writes"]
    assert set(write) >= WRITE_KEYS
    assert write["source"] == {
        "kind": "reference-array",
        "relationship": "person_tasks",
        "entity": "task",
        "field": None,
        "relationship_name": "Person → Task",  # the user's words next to the ids, as elsewhere in the JSON
        "entity_name": "Task",
    }
    assert (write["collection"], write["filter_path"], write["docs_per_write"]) == ("people", "_id", 1)


def test_text_view_shows_each_plan_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = design(capsys, str(SAMPLES / "blog.modeller.json"))
    assert code == 0
    lines = out.splitlines()
    assert (
        '  query "An author\'s posts, newest first" (the Posts of one User): posts by index author._id_1_created_at_-1; '
        "examines about 4 documents, returns 4" in (lines)
    )
    assert any(
        line.startswith(
            "  copy (User → Post): User.name changes -> update posts by author._id using index author._id_1_created_at_-1"
        )
        for line in lines
    )
    code, out = design(capsys, str(SAMPLES / "product-parts.modeller.json"))
    assert any(
        line.startswith(
            "  copy (Product → Part): Part.name changes -> update products by parts.id using a collection scan"
        )
        for line in out.splitlines()
    )


def test_text_view(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = design(capsys, str(SAMPLES / "iot-sensors.modeller.json"))
    assert code == 0
    assert "collection sensor_data  (Reading)" in out
    assert "readings: array  (bucket-items, required, maxItems 60)" in out
    assert "{sensor_id: 1, start: -1}  [engine]" in out
    assert "relationship Sensor → Reading: bucket (chosen by engine;" in out


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["design", str(tmp_path / "nope.modeller.json")])
    _, err = capsys.readouterr()
    assert code == 2 and "nope.modeller.json" in err


def test_text_names_the_subtype_of_each_variant_field(capsys: pytest.CaptureFixture[str]) -> None:
    """The three ``specs`` of phone, laptop and headphone read apart, in the subtypes' own words."""
    code, out = design(capsys, str(SAMPLES / "ecommerce.modeller.json"))
    assert code == 0
    shape = out.split("collection products", 1)[1].split("indexes:", 1)[0]
    specs = [line.strip() for line in shape.splitlines() if line.strip().startswith("specs")]
    assert specs == ["specs (phone): object", "specs (laptop): object", "specs (headphone): object"]
    assert "      ram: int" in shape  # the subtype's fields below it are not relabelled
    assert "(phone)" not in shape.split("specs (phone): object", 1)[1].split("specs (laptop)", 1)[0]


def test_text_unique_reason_uses_the_plural_and_the_right_article(capsys: pytest.CaptureFixture[str]) -> None:
    _, out = design(capsys, str(SAMPLES / "ecommerce.modeller.json"))
    assert "email: Unique: no two Users share an email" in out
    assert "share a email" not in out
