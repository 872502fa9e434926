"""The setup and index scripts: valid JS, exact recorded calls, idempotent, hostile names stay data."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from hand_designs import HOSTILE, tracker_design, tracker_findings, tracker_project
from js_harness import calls, node_binary, node_check, run_scripts

from modeller.export import indexes_script, mongosh_script, sample_documents
from modeller.export.common import index_options, js_reorders
from modeller.export.literals import comment, js_string
from modeller.export.validators import validator_document
from modeller.rules.physical.design import IndexDesign

pytestmark = pytest.mark.node


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def relaxed(value: Any) -> Any:
    return json.loads(json_util.dumps(value, json_options=json_util.RELAXED_JSON_OPTIONS))


def test_setup_script_records_collections_validators_and_indexes_in_order(tmp_path: Path) -> None:
    design, project = tracker_design(), tracker_project()
    script = write(tmp_path, "setup.mongosh.js", mongosh_script(design, project, findings=tracker_findings()))
    node_check(script)
    rec = run_scripts(script)
    first = calls(rec, 0)
    assert first[0] == {"op": "getSiblingDB", "db": "tracker_db"}
    created = calls(rec, 0, "createCollection")
    assert [c["collection"] for c in created] == [c.name for c in design.collections]
    for call, coll in zip(created, design.collections, strict=True):
        assert call["db"] == "tracker_db"
        if coll.timeseries:
            assert call["options"] == {
                "timeseries": {"timeField": "ts", "metaField": "sensor_id", "granularity": "minutes"},
                "expireAfterSeconds": 86400,
            }
        else:
            assert call["options"] == {
                "validator": validator_document(coll),
                "validationLevel": "strict",
                "validationAction": "error",
            }
    expected = [
        (coll.name, [[k, v] for k, v in index.keys], relaxed(index_options(index)))
        for coll in design.collections
        for index in coll.indexes
        if index.name != "blocked_hashed"
    ]
    recorded = [(c["collection"], c["key"], c["options"]) for c in calls(rec, 0, "createIndex")]
    assert recorded == expected
    assert all(c["created"] for c in calls(rec, 0, "createIndex"))
    ttl = next(c for c in calls(rec, 0, "createIndex") if c["options"]["name"] == "due_ttl")
    assert ttl["options"] == {
        "name": "due_ttl",
        "expireAfterSeconds": 86400,
        "partialFilterExpression": {"priority": {"$gte": 2}},
    }


def test_second_run_creates_nothing_and_updates_validators_with_collmod(tmp_path: Path) -> None:
    design, project = tracker_design(), tracker_project()
    script = write(tmp_path, "setup.mongosh.js", mongosh_script(design, project))
    rec = run_scripts(script, runs=2)
    assert calls(rec, 1, "createCollection") == []
    assert all(not c["created"] for c in calls(rec, 1, "createIndex"))
    mods = calls(rec, 1, "collMod")
    assert [m["collection"] for m in mods] == [c.name for c in design.collections]
    plain = next(m for m in mods if m["collection"] == "people")
    assert plain["options"]["validator"] == validator_document(design.collections[0])
    ts = next(m for m in mods if m["collection"] == "measurements")
    assert ts["options"] == {"expireAfterSeconds": 86400}
    state = rec["state"]["databases"]["tracker_db"]["collections"]
    assert sorted(state) == sorted(c.name for c in design.collections)
    assert len(state["tasks"]["indexes"]) == 3


def test_blocked_index_becomes_a_comment_with_the_reason() -> None:
    text = mongosh_script(tracker_design(), tracker_project(), findings=tracker_findings())
    blocked = [line for line in text.splitlines() if "blocked_hashed" in line]
    assert blocked and all(line.lstrip().startswith("//") for line in blocked)
    assert any("NOT CREATED (index-hard-limits)" in line for line in text.splitlines())


def test_samples_are_inserted_once_with_exact_bson_types(tmp_path: Path) -> None:
    design, project = tracker_design(), tracker_project()
    samples = sample_documents(design, project, n=3, seed=5)
    script = write(tmp_path, "setup.mongosh.js", mongosh_script(design, project, samples=samples))
    node_check(script)
    rec = run_scripts(script, runs=2)
    inserted = calls(rec, 0, "insertOne")
    expected = [
        (name, json.loads(json_util.dumps(doc, json_options=json_util.CANONICAL_JSON_OPTIONS)))
        for name, docs in samples.items()
        for doc in docs
    ]
    assert [(c["collection"], c["doc"]) for c in inserted] == expected
    assert calls(rec, 1, "insertOne") == []
    assert "already there" in rec["runs"][1]["prints"][-1]


def test_sharding_only_when_asked_and_the_project_is_sharded(tmp_path: Path) -> None:
    design = tracker_design()
    not_sharded = mongosh_script(design, tracker_project(sharded=False), with_sharding=True)
    assert "sh.shardCollection(" not in not_sharded and "sh.enableSharding(" not in not_sharded
    assert "sh.shardCollection(" not in mongosh_script(design, tracker_project(), with_sharding=False)
    script = write(tmp_path, "setup.mongosh.js", mongosh_script(design, tracker_project(), with_sharding=True))
    rec = run_scripts(script, runs=2)
    assert calls(rec, 0, "shardCollection") == [
        {"op": "shardCollection", "ns": "tracker_db.tasks", "key": [["owner_id", 1]]}
    ]
    assert calls(rec, 1, "shardCollection") == []


def test_index_script_only_creates_indexes_in_esr_order_with_reasons(tmp_path: Path) -> None:
    design, project = tracker_design(), tracker_project()
    text = indexes_script(design, project)
    script = write(tmp_path, "indexes.mongosh.js", text)
    node_check(script)
    rec = run_scripts(script, runs=2)
    ops = {c["op"] for c in calls(rec, 0)}
    assert ops == {"getSiblingDB", "createIndex"}
    task_index = next(c for c in calls(rec, 0, "createIndex") if c["collection"] == "tasks")
    assert task_index["key"] == [["owner_id", 1], ["due_date", -1]]
    assert (
        "// Index \"owner_id_1_due_date_-1\": serves query 'tasks_of_owner' in Equality, Sort, Range order"
        " - Equality: owner_id = value; Sort: due_date descending - added by the engine" in text
    )
    assert all(not c["created"] for c in calls(rec, 1, "createIndex"))


def test_header_says_what_and_where_from() -> None:
    text = mongosh_script(tracker_design(), tracker_project())
    head = text.split("(function", 1)[0]
    assert head.startswith("// Modeller setup script\n")
    assert 'Project "Tracker", database "tracker_db".' in head
    assert "Generated by modeller " in head and "from project sha256:" in head
    assert "use " not in text.replace("use strict", "") and "await" not in text


def test_hostile_names_parse_and_are_recorded_exactly(tmp_path: Path) -> None:
    design, project = tracker_design(HOSTILE), tracker_project(HOSTILE)
    samples = sample_documents(design, project, n=2, seed=1)
    text = mongosh_script(design, project, samples=samples, with_sharding=True, findings=tracker_findings(HOSTILE))
    assert "</script" not in text and "\u2028" not in text and "\u2029" not in text
    for line in text.splitlines():
        if line.lstrip().startswith("//"):
            assert "\r" not in line
    script = write(tmp_path, "setup.mongosh.js", text)
    node_check(script)
    rec = run_scripts(script, runs=2)
    assert calls(rec, 0)[0]["db"] == HOSTILE["tracker_db"]
    assert [c["collection"] for c in calls(rec, 0, "createCollection")] == [c.name for c in design.collections]
    people = design.collections[0]
    created = calls(rec, 0, "createCollection")[0]
    assert created["options"]["validator"] == validator_document(people)
    assert HOSTILE["email"] in created["options"]["validator"]["$jsonSchema"]["properties"]
    keys = [c["key"] for c in calls(rec, 0, "createIndex") if c["collection"] == HOSTILE["tasks"]]
    assert keys[0] == [[HOSTILE["owner_id"], 1], [HOSTILE["due_date"], -1]]
    inserted = calls(rec, 0, "insertOne")[0]["doc"]
    assert HOSTILE["name"] in inserted and HOSTILE["email"] in inserted
    assert calls(rec, 1, "createCollection") == [] and calls(rec, 1, "insertOne") == []
    assert calls(rec, 0, "shardCollection")[0]["key"] == [[HOSTILE["owner_id"], 1]]


def test_js_string_and_comment_escape_what_would_break_out() -> None:
    assert js_string("a</script>b") == '"a<\\/script>b"'
    assert js_string("\u2028") == '"\\u2028"'
    assert comment("x\ny\rz\u2028w */") == "// x\\ny\\rz\\u2028w */"


@pytest.mark.parametrize(
    "names",
    [
        ["a", "b"],
        ["2024", "a"],
        ["a", "2024"],
        ["10", "9"],
        ["9", "10", "x"],
        ["007", "a"],
        ["a", "007"],
        ["a", "0"],
        ["a", "-1"],
        ["a", "1.5"],
        ["a", "4294967294"],
        ["a", "4294967295"],
        ["a", "\u0661"],  # an Arabic-Indic digit is not an array index
    ],
)
def test_js_reorders_agrees_with_node(names: list[str]) -> None:
    """What JavaScript does with an object literal's key order, asked of Node itself."""
    literal = "{" + ", ".join(f"{json.dumps(n)}: 1" for n in names) + "}"
    proc = subprocess.run(
        [node_binary(), "-e", f"process.stdout.write(JSON.stringify(Object.keys({literal})))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert js_reorders(names) == (json.loads(proc.stdout) != names)


def test_keys_javascript_would_reorder_are_not_created_and_the_run_says_why(tmp_path: Path) -> None:
    design, project = tracker_design(), tracker_project()
    tasks = next(c for c in design.collections if c.name == "tasks")
    tasks.indexes.append(IndexDesign(keys=[("owner_id", 1), ("2024", -1)], name="by_year"))
    tasks.shard_key = ["owner_id", "2024"]
    text = mongosh_script(design, project, with_sharding=True)
    script = write(tmp_path, "setup.mongosh.js", text)
    node_check(script)
    rec = run_scripts(script, runs=1)
    assert "by_year" not in [c["options"]["name"] for c in calls(rec, 0, "createIndex")]
    assert calls(rec, 0, "shardCollection") == []
    prints = rec["runs"][0]["prints"]
    assert any("'by_year' on 'tasks' not created" in p and '"2024"' in p for p in prints)
    assert any("'tasks' not sharded" in p for p in prints)
    lines = text.splitlines()
    assert any(line.strip().startswith("// NOT CREATED: field names that look like numbers") for line in lines)
    assert any(line.strip().startswith("// NOT SHARDED:") for line in lines)
    # the other indexes of the collection are still created
    assert {i.name for i in tasks.indexes} - {"by_year", "blocked_hashed"} <= {
        c["options"]["name"] for c in calls(rec, 0, "createIndex")
    }
