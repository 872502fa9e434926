"""Project files that validate must analyse, export, run twice in the stand-in and give samples the server accepts.

One regression file per reproducer in ``hostile/``; each test runs ``validate``,
``check``, ``design`` and ``export`` through the CLI, runs the setup script
twice on the recording ``db``, checks every sample against its collection's
exported validator and unique indexes, and then asserts what the fix is about.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hand_designs import tracker_design, tracker_project
from hostile_support import HOSTILE, Exported, assert_server_would_accept, export_all
from js_harness import calls, node_check, run_scripts

from modeller.export import mongosh_script, sample_documents
from modeller.export.validators import validator_document
from modeller.rules.physical.design import IndexDesign

FILES = sorted(path.name.removesuffix(".modeller.json") for path in HOSTILE.glob("*.modeller.json"))


def exported(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Exported:
    result = export_all(HOSTILE / f"{name}.modeller.json", tmp_path, capsys)
    assert_server_would_accept(result)
    return result


def test_there_are_regression_files() -> None:
    assert len(FILES) >= 1


@pytest.mark.node
def test_compound_index_led_by_a_special_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A plain index next to ``{f: "hashed", g: 1}`` crashed the prefix comparison; text indexes stay one."""
    out = exported("compound-special-index", tmp_path, capsys)
    indexes = {ix["name"]: ix["keys"] for ix in out.collection("item")["indexes"]}
    assert indexes["f_hashed_g_1"] == [["f", "hashed"], ["g", 1]]
    assert indexes["f_1"] == [["f", 1]]  # a hashed key is no prefix of an ordered one: the query keeps its index
    texts = [name for name, keys in indexes.items() if any(kind == "text" for _, kind in keys)]
    assert texts == ["body_text_g_1"]  # the declared text index serves the search; the server allows only one


@pytest.mark.node
def test_the_root_of_a_tree_has_a_null_parent_the_validator_accepts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = exported("tree", tmp_path, capsys)
    for name, field in (("category", "category_id"), ("employee", "employee_id")):
        schema = out.validators[name]["$jsonSchema"]
        assert schema["properties"][field]["bsonType"] == ["objectId", "null"]
        assert field in schema["required"]  # a forgotten parent is still refused; only null marks a root
        docs = out.samples[name]
        assert docs[0][field] is None
        ids = [doc["_id"] for doc in docs]
        assert all(doc[field] in ids[:position] for position, doc in enumerate(docs) if position)
    folders = out.samples["folder"]
    ids = {doc["_id"] for doc in folders}
    assert all(set(doc["folder_ids"]) <= ids for doc in folders)


@pytest.mark.node
def test_unique_indexes_hold_in_the_samples_and_unique_ttl_fields_get_one_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = exported("unique-indexes", tmp_path, capsys)  # checks every unique index on the samples
    sessions = {ix["name"]: ix for ix in out.collection("session")["indexes"]}
    assert sorted(sessions) == ["created_1", "seen_1", "token_1"]
    assert (sessions["created_1"]["unique"], sessions["created_1"]["expire_after_s"]) == (True, 3600)
    assert (sessions["seen_1"]["unique"], sessions["seen_1"]["expire_after_s"]) == (True, 600)
    accounts = out.samples["account"]
    # status (2 values) x tier (2 values) is unique: 4 documents at most, each combination once
    assert sorted((d["status"], d["tier"]) for d in accounts) == [
        ("active", 1),
        ("active", 2),
        ("closed", 1),
        ("closed", 2),
    ]
    assert len({d["email"] for d in accounts}) == len({d["profile"]["handle"] for d in accounts}) == len(accounts)
    # a partial unique index and a case-insensitive one hold too; so do unique enum and bool fields (2 values each)
    assert len({d["nick"] for d in accounts}) == len({d["login"].casefold() for d in accounts}) == len(accounts)
    switches = out.samples["switch"]
    assert sorted(d["level"] for d in switches) == ["high", "low"] and {d["on"] for d in switches} == {True, False}
    notes = [line for line in out.printed.splitlines() if line.startswith("note: ") and "sample" in line]
    assert notes == [
        'note: 4 sample document(s) for "account" instead of 6: the unique index(es) "status_tier" allow no more '
        "distinct values",
        'note: 2 sample document(s) for "switch" instead of 6: the unique index(es) "level_1", "on_1" allow no more '
        "distinct values",
    ]


@pytest.mark.node
def test_a_bucket_forced_without_a_time_series_spans_a_time_and_values_fit_their_types(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = exported("forced-bucket", tmp_path, capsys)
    for name, items in (("sale", "sales"), ("note", "notes")):
        for doc in out.samples[name]:
            assert doc["start"] <= doc["end"] and doc["count"] == len(doc[items]) >= 1
    readings = [reading for doc in out.samples["sale"] for reading in doc["sales"]]
    assert {r["qty"] for r in readings} <= {1, 2, 3} and {r["channel"] for r in readings} <= {"web", "store"}
    # the example is the largest int: values stay in the int range (validate refuses an example beyond it)
    assert all(type(r["big"]) is int and -(2**31) <= r["big"] < 2**31 for r in readings)


@pytest.mark.node
def test_a_proto_key_survives_in_validators_indexes_samples_and_shard_keys(tmp_path: Path) -> None:
    """``"__proto__": v`` in a JS object literal sets the prototype and the key vanishes; the script keeps it.

    The loader refuses the name, so a hand-built design stands for whatever still carries it to the exporter
    (the project, which refuses it too, keeps its plain names: exporters write what the design holds).
    """
    names = {"email": "__proto__", "owner_id": "__proto__"}
    design, project = tracker_design(names), tracker_project()
    text = mongosh_script(design, project, samples=sample_documents(design, project, n=2, seed=1), with_sharding=True)
    script = tmp_path / "setup.mongosh.js"
    script.write_text(text, encoding="utf-8")
    node_check(script)
    rec = run_scripts(script, runs=2)
    people, tasks = design.collections[0].name, design.collections[1].name
    created = next(c for c in calls(rec, 0, "createCollection") if c["collection"] == people)
    assert created["options"]["validator"] == validator_document(design.collections[0])
    assert "__proto__" in created["options"]["validator"]["$jsonSchema"]["properties"]
    keys = [c["key"] for c in calls(rec, 0, "createIndex") if c["collection"] == tasks]
    assert [["__proto__", 1], ["due_date", -1]] in keys
    inserted = [c["doc"] for c in calls(rec, 0, "insertOne") if c["collection"] == people]
    assert inserted and all("__proto__" in doc for doc in inserted)
    assert next(c["key"] for c in calls(rec, 0, "shardCollection")) == [["__proto__", 1]]
    assert '"__proto__":' not in text.replace('["__proto__"]:', "")  # no literal key left to lose


@pytest.mark.node
def test_indexes_the_server_refuses_are_left_out_and_the_run_says_why(tmp_path: Path) -> None:
    design, project = tracker_design(), tracker_project()
    products = next(c for c in design.collections if any(k == "text" for ix in c.indexes for _, k in ix.keys))
    title = next(path for ix in products.indexes for path, kind in ix.keys if kind == "text")
    products.indexes += [
        IndexDesign([("kind", "text")], "second_text", why="a second text index", origin="user"),
        IndexDesign([("kind", "hashed")], "unique_hashed", unique=True, why="unique and hashed", origin="user"),
        IndexDesign([("kind", "hashed"), ("price", "hashed")], "two_hashed", why="two hashed keys", origin="user"),
        IndexDesign([("expires", 1)], "long_ttl", expire_after_s=2**31, why="TTL out of range", origin="user"),
        *(IndexDesign([(f"f{i}", 1)], f"extra_{i}", why="one too many", origin="user") for i in range(70)),
    ]
    script = tmp_path / "setup.mongosh.js"
    script.write_text(mongosh_script(design, project), encoding="utf-8")
    node_check(script)
    rec = run_scripts(script, runs=2)
    made = [c["options"]["name"] for c in calls(rec, 0, "createIndex") if c["collection"] == products.name]
    assert len(made) == 63  # with _id, 64: the server's limit
    assert not {"second_text", "unique_hashed", "two_hashed", "long_ttl"} & set(made)
    assert [k for c in calls(rec, 0, "createIndex") for k, kind in c["key"] if kind == "text"] == [title]
    prints = rec["runs"][0]["prints"]
    for name, why in (
        ("second_text", 'has a text index already ("title_text") and can have one only'),
        ("unique_hashed", "a hashed index cannot be unique"),
        ("two_hashed", "it hashes more than one field"),
        ("long_ttl", "expireAfterSeconds 2147483648 is outside what the server takes (0 to 2147483647)"),
        ("extra_69", "more than 64 indexes"),
    ):
        assert any(f"index '{name}' on '{products.name}' not created: " in p and why in p for p in prints), name


@pytest.mark.node
def test_a_time_series_collection_gets_no_unique_text_2d_or_plain_ttl_index(tmp_path: Path) -> None:
    design, project = tracker_design(), tracker_project()
    measures = next(c for c in design.collections if c.timeseries)
    measures.indexes = [
        IndexDesign([("value", 1)], "unique_value", unique=True, why="unique", origin="user"),
        IndexDesign([("note", "text")], "note_text", why="text", origin="user"),
        IndexDesign([("where", "2d")], "where_2d", why="2d", origin="user"),
        IndexDesign([("ts", 1)], "ts_ttl", expire_after_s=60, why="TTL", origin="user"),
        IndexDesign([("ts", -1)], "meta_ttl", expire_after_s=60, partial={"sensor": "a"}, why="TTL", origin="user"),
        IndexDesign([("value", -1)], "value_-1", why="plain", origin="user"),
    ]
    script = tmp_path / "setup.mongosh.js"
    script.write_text(mongosh_script(design, project), encoding="utf-8")
    node_check(script)
    rec = run_scripts(script, runs=2)
    made = [c["options"]["name"] for c in calls(rec, 0, "createIndex") if c["collection"] == measures.name]
    assert made == ["meta_ttl", "value_-1"]
    prints = "\n".join(rec["runs"][0]["prints"])
    for name, kind in (("unique_value", "unique"), ("note_text", "text"), ("where_2d", "2d"), ("ts_ttl", "TTL")):
        assert f"index '{name}' on '{measures.name}' not created: a time-series collection takes no {kind} index" in (
            prints
        )


@pytest.mark.node
def test_edge_cases_empty_entities_deep_nesting_subtyped_time_series_and_self_references(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = exported("edge-cases", tmp_path, capsys)
    boxes = out.samples["box"]
    assert all(1 <= len(box["things"]) <= 3 and all(thing == {} for thing in box["things"]) for box in boxes)
    for doc in out.samples["deep"]:
        value = doc
        for level in range(11, -1, -1):
            value = value[f"l{level}"]
        assert isinstance(value["leaf"], str)
    created = next(c for c in calls(out.recording, 0, "createCollection") if c["collection"] == "reading")
    assert created["options"]["timeseries"] == {"timeField": "t", "granularity": "minutes", "metaField": "sensor"}
    assert created["options"]["expireAfterSeconds"] == 604800 and "validator" not in created["options"]
    readings = out.samples["reading"]
    assert {r["kind"] for r in readings} == {"temp", "door"}
    assert all(type(r["celsius"]) is float for r in readings if r["kind"] == "temp")
    assert all(type(r["open"]) is bool for r in readings if r["kind"] == "door")
    # an extended reference to the same collection is a tree too: the root copies no parent (null, allowed)
    people = out.samples["person"]
    assert out.validators["person"]["$jsonSchema"]["properties"]["person"]["bsonType"] == ["object", "null"]
    assert people[0]["person"] is None
    for position, doc in enumerate(people[1:], start=1):
        parent = next(p for p in people[:position] if p["_id"] == doc["person"]["_id"])
        assert doc["person"]["name"] == parent["name"]
