"""Strategy changes of a many-to-many (Room <-> User "members") in the migration script: the id arrays on one side
(the Room's ``user_ids``: child-refs; each User's ``room_ids``: parent-ref) or on both (two-way). Documents of the
OLD design, run through the script on the stand-in of ``db``, validate against the NEW validators and keep who
belongs to whom; a second run writes nothing; a run killed between batches completes when run again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from bson_checker import LOAD_OPTIONS, errors
from chat_members import chat
from js_harness import calls, node_check, run_scripts
from review_projects import edited, project

from modeller.export.mongosh import mongosh_script
from modeller.export.samples import sample_documents
from modeller.export.validators import validator_document
from modeller.model.project import Project
from modeller.review import SchemaDiff, diff_projects
from modeller.review.copy_storage import Storage, storage
from modeller.review.migration import MARKERS, migration_script

pytestmark = pytest.mark.node


def _diff(old: str, new: str) -> SchemaDiff:
    return diff_projects(chat(old), chat(new))


def _where(diff: SchemaDiff) -> tuple[Storage, Storage]:
    old, new = storage(diff.old_design, diff.old, "room_members"), storage(diff.new_design, diff.new, "room_members")
    assert old is not None and new is not None
    return old, new


def _docs(recording: dict[str, Any], collection: str) -> list[dict[str, Any]]:
    text = json.dumps(recording["documents"]["chat"].get(collection, []))
    return json_util.loads(text, json_options=LOAD_OPTIONS)


def _members(recording: dict[str, Any], where: Storage, side: str) -> set[tuple[str, str]]:
    """(room title, user handle) for every membership the Rooms' arrays (``side="refs"``) or the Users' arrays
    (``side="ref"``) name, between documents that exist."""
    assert where.parent is not None and where.child is not None
    rooms = {str(r["_id"]): r for r in _docs(recording, where.parent)}
    users = {str(u["_id"]): u for u in _docs(recording, where.child)}
    out: set[tuple[str, str]] = set()
    if side == "refs":
        assert where.refs is not None
        for room in rooms.values():
            out.update((room["title"], users[str(i)]["handle"]) for i in room.get(where.refs) or [] if str(i) in users)
    else:
        assert where.ref is not None
        for user in users.values():
            out.update((rooms[str(i)]["title"], user["handle"]) for i in user.get(where.ref) or [] if str(i) in rooms)
    return out


def _both_sides(samples: dict[str, list[dict[str, Any]]], old: Storage) -> dict[str, list[dict[str, Any]]]:
    """Two-way samples whose Rooms list exactly the Users that list them (the generator fills one side only)."""
    if old.ref is None or old.refs is None or old.parent is None or old.child is None:
        return samples
    for room in samples[old.parent]:
        room[old.refs] = [u["_id"] for u in samples[old.child] if room["_id"] in (u.get(old.ref) or [])]
    return samples


def _run(diff: SchemaDiff, folder: Path, runs: int = 1, batch: int | None = None, **kw: Any) -> dict[str, Any]:
    setup = folder / "setup.mongosh.js"
    samples = _both_sides(sample_documents(diff.old_design, diff.old, n=6, seed=5), _where(diff)[0])
    setup.write_text(mongosh_script(diff.old_design, diff.old, samples=samples), encoding="utf-8")
    migration = folder / "migration.mongosh.js"
    text = migration_script(diff)
    if batch is not None:
        text = text.replace("const BATCH = 1000;", f"const BATCH = {batch};", 1)
    migration.write_text(text, encoding="utf-8")
    node_check(migration)
    return run_scripts(migration, runs=runs, seeds=(setup,), **kw)


#: (OLD, NEW, the OLD side the NEW arrays are built from: "ref" = the Users' room_ids, "refs" = the Rooms' user_ids)
TRANSITIONS = [
    ("parent-ref", "two-way", "ref"),
    ("child-refs", "two-way", "refs"),
    ("parent-ref", "child-refs", "ref"),
    ("child-refs", "parent-ref", "refs"),
    ("two-way", "parent-ref", "ref"),
    ("two-way", "child-refs", "refs"),
]


@pytest.mark.parametrize(("old", "new", "source"), TRANSITIONS, ids=lambda v: str(v))
def test_a_many_to_many_change_keeps_every_membership(old: str, new: str, source: str, tmp_path: Path) -> None:
    diff = _diff(old, new)
    assert [(c.details["old"], c.details["new"]) for c in diff.changes if c.kind == "strategy-changed"] == [(old, new)]
    before_where, after_where = _where(diff)
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text
    twice = _run(diff, tmp_path, runs=2)
    before = _members(run_scripts(tmp_path / "setup.mongosh.js", runs=1), before_where, source)
    assert before, "the samples make users members of rooms"
    for side in ("ref", "refs"):  # every array the NEW design reads names exactly the OLD memberships
        if getattr(after_where, side) is not None:
            assert _members(twice, after_where, side) == before, side
    for coll in diff.new_design.collections:
        for doc in _docs(twice, coll.name):
            assert errors(validator_document(coll), doc) == [], (coll.name, doc)
    for op in ("insertMany", "updateOne", "updateMany"):  # the second run finds every step done
        assert [c for c in calls(twice, 1, op) if c["collection"] != MARKERS] == [], op


@pytest.mark.parametrize(("old", "new"), [("parent-ref", "two-way"), ("child-refs", "parent-ref")])
def test_a_many_to_many_copy_killed_between_batches_completes(old: str, new: str, tmp_path: Path) -> None:
    diff = _diff(old, new)
    (tmp_path / "whole").mkdir()
    (tmp_path / "killed").mkdir()
    whole = _run(diff, tmp_path / "whole", runs=1, batch=2)
    killed = _run(diff, tmp_path / "killed", runs=2, batch=2, kill_after=1)
    assert killed["runs"][0].get("killed") is True
    _, after_where = _where(diff)
    for side in ("ref", "refs"):
        if getattr(after_where, side) is not None:
            assert _members(killed, after_where, side) == _members(whole, after_where, side) != set(), side


def test_two_way_to_one_side_copies_nothing_and_says_so(tmp_path: Path) -> None:
    diff = _diff("two-way", "parent-ref")
    change = next(c for c in diff.changes if c.kind == "strategy-changed")
    assert "must be copied" not in change.risk and "no documents are copied" in change.risk
    assert "nothing to copy" in migration_script(diff)
    recording = _run(diff, tmp_path, runs=1)
    for op in ("insertMany", "updateOne", "updateMany"):
        assert [c for c in calls(recording, 0, op) if c["collection"] != MARKERS] == [], op


def test_one_side_to_two_way_is_listed_under_the_collection_that_gets_the_new_array() -> None:
    change = next(c for c in _diff("parent-ref", "two-way").changes if c.kind == "strategy-changed")
    assert change.collection == "rooms"
    assert "must be copied" not in change.risk
    assert '"user_ids"' in change.risk and '"room_ids"' in change.risk and "1k" in change.risk
    change = next(c for c in _diff("child-refs", "two-way").changes if c.kind == "strategy-changed")
    assert change.collection == "users"
    assert '"room_ids"' in change.risk and "50k" in change.risk


def test_a_one_to_many_two_way_to_its_reference_says_nothing_is_copied_too() -> None:
    def shop(strategy: str) -> Project:
        return project(edited(lambda d: d["relationships"][0].update(strategy=strategy)))

    change = next(c for c in diff_projects(shop("two-way"), shop("parent-ref")).changes if c.kind == "strategy-changed")
    assert change.risk.startswith("no documents are copied") and '"review_ids"' in change.risk
    change = next(c for c in diff_projects(shop("embed"), shop("parent-ref")).changes if c.kind == "strategy-changed")
    assert change.risk.startswith("200k documents must be copied")  # documents that really move keep the old line
