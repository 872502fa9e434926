"""A many-to-many (Room <-> User "members", tests/review/chat_members.py) whose strategy changes to or from embed,
extended reference, subset, bucket or single collection. After the script runs on the stand-in of ``db``: every NEW
document validates against the NEW validators, the NEW shape holds exactly the OLD memberships (one document per
user, wherever users have documents), a second run writes nothing, and a run killed between batches ends as an
uncut one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from bson_checker import LOAD_OPTIONS, errors
from chat_members import PAIRS, USER_IDS, chat, chat_data, held, members, old_documents, stays
from js_harness import calls, node_check, run_scripts

from modeller.export.mongosh import mongosh_script
from modeller.export.validators import validator_document
from modeller.model.project import Project
from modeller.review import SchemaDiff, diff_projects
from modeller.review.copy_storage import Storage, storage
from modeller.review.migration import MARKERS, migration_script

pytestmark = pytest.mark.node


def _docs(recording: dict[str, Any], collection: str) -> list[dict[str, Any]]:
    text = json.dumps(recording["documents"]["chat"].get(collection, []))
    return json_util.loads(text, json_options=LOAD_OPTIONS)


def _held(recording: dict[str, Any], where: Storage) -> tuple[set[tuple[str, str]], list[str]]:
    return held(lambda coll: _docs(recording, coll), where)


def _diff(old: str, new: str) -> SchemaDiff:
    return diff_projects(chat(old), chat(new))


def _where(diff: SchemaDiff) -> tuple[Storage, Storage]:
    old, new = storage(diff.old_design, diff.old, "room_members"), storage(diff.new_design, diff.new, "room_members")
    assert old is not None and new is not None and old.shared and new.shared
    return old, new


def _run(diff: SchemaDiff, old: str, folder: Path, batch: int | None = None, **kw: Any) -> dict[str, Any]:
    before, _ = _where(diff)
    samples = old_documents(before, members(old))
    for coll in diff.old_design.collections:  # the OLD documents are documents of the OLD design
        for doc in samples.get(coll.name, []):
            assert errors(validator_document(coll), doc) == [], (coll.name, doc)
    setup = folder / "setup.mongosh.js"
    setup.write_text(mongosh_script(diff.old_design, diff.old, samples=samples), encoding="utf-8")
    text = migration_script(diff)
    if batch is not None:
        text = text.replace("const BATCH = 1000;", f"const BATCH = {batch};", 1)
    migration = folder / "migration.mongosh.js"
    migration.write_text(text, encoding="utf-8")
    node_check(migration)
    return run_scripts(migration, seeds=(setup,), **kw)


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=lambda v: str(v))
def test_a_many_to_many_pattern_change_keeps_every_membership_once(old: str, new: str, tmp_path: Path) -> None:
    diff = _diff(old, new)
    assert [(c.details["old"], c.details["new"]) for c in diff.changes if c.kind == "strategy-changed"] == [(old, new)]
    assert "NOT MIGRATED" not in migration_script(diff)
    twice = _run(diff, old, tmp_path, runs=2)
    _, after = _where(diff)
    found, handles = _held(twice, after)
    assert found == members(old)
    assert len(handles) == len(set(handles)), f"one document per user: {sorted(handles)}"
    if new == "subset":  # each room's copies: its latest members, newest first
        assert after.parent is not None and after.subset is not None
        for room in _docs(twice, after.parent):
            theirs = sorted((h for t, h in found if t == room["title"]), key=lambda h: USER_IDS[h], reverse=True)
            assert [c["handle"] for c in room[after.subset]] == theirs[: after.subset_k], room["title"]
    left = stays(old, new)
    if left:  # the user in no room has no place in the NEW shape: it stays as it is, and the run says so
        said = [p for p in twice["runs"][0]["prints"] if left[1] in p]
        assert len(said) == 1, twice["runs"][0]["prints"]
    for coll in diff.new_design.collections:
        for doc in _docs(twice, coll.name):
            if left and doc.get("handle") == left[0]:
                continue
            assert errors(validator_document(coll), doc) == [], (coll.name, doc)
    for op in ("insertMany", "updateOne", "updateMany", "deleteMany"):  # the second run finds every step done
        assert [c for c in calls(twice, 1, op) if c["collection"] != MARKERS] == [], op


#: pairs whose steps merge copies or split documents, killed after the first, second and third write
KILLED = [
    ("embed", "two-way"),
    ("bucket", "parent-ref"),
    ("single-collection", "bucket"),
    ("child-refs", "bucket"),
    ("embed", "single-collection"),
    ("bucket", "single-collection"),
    ("child-refs", "extended-ref"),
    ("extended-ref", "bucket"),
]


@pytest.mark.parametrize(("old", "new"), KILLED, ids=lambda v: str(v))
@pytest.mark.parametrize("kill_after", [1, 2, 3])
def test_a_many_to_many_pattern_change_killed_between_batches_completes(
    old: str, new: str, kill_after: int, tmp_path: Path
) -> None:
    diff = _diff(old, new)
    (tmp_path / "whole").mkdir()
    (tmp_path / "killed").mkdir()
    whole = _run(diff, old, tmp_path / "whole", batch=2, runs=1)
    killed = _run(diff, old, tmp_path / "killed", batch=2, runs=2, kill_after=kill_after)
    assert killed["runs"][0].get("killed") is True
    _, after = _where(diff)
    found, handles = _held(killed, after)
    assert found == _held(whole, after)[0] == members(old)
    assert len(handles) == len(set(handles))


@pytest.mark.parametrize("old", ["parent-ref", "child-refs", "embed", "single-collection"])
def test_into_extended_references_each_element_copies_its_room(old: str, tmp_path: Path) -> None:
    """Into an array of extended references copying the Room's title: every User lists each of its Rooms once,
    with that Room's title, and the script says what it does in the user's words."""
    new = chat_data("extended-ref")
    new["relationships"][0]["denormalize"] = [{"field": "title", "direction": "one-to-many"}]
    diff = diff_projects(chat(old), Project.model_validate(new))
    _, after = _where(diff)
    assert after.ext_array and after.copies == (("title", "title"),)
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text
    assert 'each User gets one element of "rooms" per Room it belongs to' in text
    twice = _run(diff, old, tmp_path, runs=2)
    found, handles = _held(twice, after)  # held() checks each element's title against its Room
    assert found == members(old) and len(handles) == len(set(handles))
    titled = [e for u in _docs(twice, "users") for e in u["rooms"]]
    assert len(titled) == len(members(old)) and all("title" in e for e in titled)
    for op in ("insertMany", "updateOne", "updateMany", "deleteMany"):
        assert [c for c in calls(twice, 1, op) if c["collection"] != MARKERS] == [], op
