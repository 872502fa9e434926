"""A many-to-many (Room <-> User "members") whose strategy changes to or from embed, extended reference, subset,
bucket or single collection. The OLD documents are written by hand from one list of memberships, with users in
several rooms (so embedded copies and bucket items of one user appear in several rooms), a user in none and an
empty room. After the script runs on the stand-in of ``db``: every NEW document validates against the NEW
validators, the NEW shape holds exactly the OLD memberships (one document per user, wherever users have documents),
a second run writes nothing, and a run killed between batches ends as an uncut one."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from bson import ObjectId, json_util
from bson_checker import LOAD_OPTIONS, errors
from js_harness import calls, node_check, run_scripts
from test_review_many_to_many_copies import _chat

from modeller.export.mongosh import mongosh_script
from modeller.export.validators import validator_document
from modeller.review import SchemaDiff, diff_projects
from modeller.review.copy_storage import Storage, storage
from modeller.review.migration import MARKERS, migration_script

pytestmark = pytest.mark.node

STRATEGIES = ["embed", "child-refs", "parent-ref", "two-way", "extended-ref", "subset", "bucket", "single-collection"]
#: the pairs of the one-to-many steps' id arrays (tests/review/test_review_many_to_many_copies.py)
IDS_ONLY = {"child-refs", "parent-ref", "two-way"}
PAIRS = [
    (old, new)
    for old in STRATEGIES
    for new in STRATEGIES
    if old != new and not (old in IDS_ONLY and new in IDS_ONLY) and new != "extended-ref"
]

ROOMS = ["lobby", "games", "music", "empty"]
USERS = ["ann", "bob", "cy", "dee", "eve", "fay"]
#: (room, user): ann and bob in three rooms, cy in two, fay in none, "empty" has no members
MEMBERS = {
    ("lobby", "ann"),
    ("games", "ann"),
    ("music", "ann"),
    ("lobby", "bob"),
    ("games", "bob"),
    ("music", "bob"),
    ("lobby", "cy"),
    ("music", "cy"),
    ("games", "dee"),
    ("music", "eve"),
}
ROOM_IDS = {title: ObjectId(f"{i + 1:024x}") for i, title in enumerate(ROOMS)}
USER_IDS = {handle: ObjectId(f"{i + 0x100:024x}") for i, handle in enumerate(USERS)}
T0 = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def _members(old: str) -> set[tuple[str, str]]:
    """The memberships an OLD design holds: an extended reference names one room per user (its first)."""
    if old != "extended-ref":
        return set(MEMBERS)
    return {(min(r for r, u in MEMBERS if u == user), user) for user in {u for _, u in MEMBERS}}


def _old_documents(where: Storage, members: set[tuple[str, str]]) -> dict[str, list[dict[str, Any]]]:
    """The OLD design's documents of ``members``, written in the OLD shape."""
    assert where.parent is not None
    rooms: list[dict[str, Any]] = [{"_id": ROOM_IDS[t], "title": t} for t in ROOMS]
    users: list[dict[str, Any]] = [{"_id": USER_IDS[h], "handle": h} for h in USERS]
    of_room = {t: [h for h in USERS if (t, h) in members] for t in ROOMS}
    of_user = {h: [t for t in ROOMS if (t, h) in members] for h in USERS}
    if where.embed is not None:
        for room in rooms:
            room[where.embed] = [{"handle": h} for h in of_room[room["title"]]]
        return {where.parent: rooms}
    if where.bucket is not None:
        b = where.bucket
        buckets = [
            {
                "_id": ObjectId(f"{0x200 + i:024x}"),
                b.series_field: ROOM_IDS[t],
                b.start_field: T0,
                b.end_field: T0,
                "count": len(of_room[t]),
                b.items_field: [{"handle": h} for h in of_room[t]],
            }
            for i, t in enumerate(ROOMS)
            if of_room[t]
        ]
        return {where.parent: rooms, where.child or "": buckets}
    if where.discriminator is not None:
        for room in rooms:
            room[where.discriminator] = where.one_type
        for user in users:
            user[where.discriminator] = where.many_type
            links = [{where.link_target: ROOM_IDS[t], where.link_type: where.one_type} for t in of_user[user["handle"]]]
            user[where.links] = links
        return {where.parent: rooms + users}
    if where.refs is not None:
        for room in rooms:
            room[where.refs] = [USER_IDS[h] for h in of_room[room["title"]]]
    if where.ext is not None:
        for user in users:
            if of_user[user["handle"]]:
                user[where.ext] = {"_id": ROOM_IDS[of_user[user["handle"]][0]]}
        users = [u for u in users if where.ext in u]  # the extended reference is required
    elif where.ref is not None:
        for user in users:
            user[where.ref] = [ROOM_IDS[t] for t in of_user[user["handle"]]]
    if where.subset is not None:
        for room in rooms:
            latest = sorted(of_room[room["title"]], key=lambda h: USER_IDS[h], reverse=True)[: where.subset_k]
            room[where.subset] = [{"handle": h} for h in latest]
    return {where.parent: rooms, where.child or "": users}


def _docs(recording: dict[str, Any], collection: str) -> list[dict[str, Any]]:
    text = json.dumps(recording["documents"]["chat"].get(collection, []))
    return json_util.loads(text, json_options=LOAD_OPTIONS)


def _held(recording: dict[str, Any], where: Storage) -> tuple[set[tuple[str, str]], list[str]]:
    """(room title, user handle) of every membership the NEW shape holds, and the handles of the user documents
    (each once when users have documents of their own)."""
    assert where.parent is not None
    parents = _docs(recording, where.parent)
    title = {str(r["_id"]): r.get("title") for r in parents}
    if where.embed is not None:
        return {(r["title"], u["handle"]) for r in parents for u in r.get(where.embed) or []}, []
    children = _docs(recording, where.child or "")
    if where.bucket is not None:  # a user in no room is in no bucket: it stays a document of its own
        held = {
            (title[str(b[where.bucket.series_field])], item["handle"])
            for b in children
            if where.bucket.items_field in b
            for item in b[where.bucket.items_field]
        }
        return held, []
    if where.discriminator is not None:
        users = [d for d in children if d.get(where.discriminator) == where.many_type]
        held = {
            (title[str(link[where.link_target])], u["handle"])
            for u in users
            for link in u.get(where.links) or []
            if link[where.link_type] == where.one_type
        }
        return held, [u["handle"] for u in users]
    handle = {str(u["_id"]): u["handle"] for u in children}
    held_refs = {(r["title"], handle[str(i)]) for r in parents for i in r.get(where.refs) or []} if where.refs else None
    held_ref = {(title[str(i)], u["handle"]) for u in children for i in u.get(where.ref) or []} if where.ref else None
    if held_refs is not None and held_ref is not None:
        assert held_refs == held_ref, "both sides of a two-way name the same memberships"
    held = held_ref if held_ref is not None else held_refs
    assert held is not None
    return held, [u["handle"] for u in children]


def _stays(old: str, new: str) -> tuple[str, str] | None:
    """The user in no room ("fay"), when it stays in a NEW collection it does not fit, and what the run prints."""
    if new == "bucket" and old not in ("embed", "extended-ref", "bucket"):
        return "fay", "names no single series; left as it is"
    if new == "embed" and old == "single-collection":
        return "fay", "1 document(s) link to no parent and stay"
    return None


def _diff(old: str, new: str) -> SchemaDiff:
    return diff_projects(_chat(old), _chat(new))


def _where(diff: SchemaDiff) -> tuple[Storage, Storage]:
    old, new = storage(diff.old_design, diff.old, "room_members"), storage(diff.new_design, diff.new, "room_members")
    assert old is not None and new is not None and old.shared and new.shared
    return old, new


def _run(diff: SchemaDiff, old: str, folder: Path, batch: int | None = None, **kw: Any) -> dict[str, Any]:
    before, _ = _where(diff)
    samples = _old_documents(before, _members(old))
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
    held, handles = _held(twice, after)
    assert held == _members(old)
    assert len(handles) == len(set(handles)), f"one document per user: {sorted(handles)}"
    if new == "subset":  # each room's copies: its latest members, newest first
        assert after.parent is not None and after.subset is not None
        for room in _docs(twice, after.parent):
            theirs = sorted((h for t, h in held if t == room["title"]), key=lambda h: USER_IDS[h], reverse=True)
            assert [c["handle"] for c in room[after.subset]] == theirs[: after.subset_k], room["title"]
    stays = _stays(old, new)
    if stays:  # the user in no room has no place in the NEW shape: it stays as it is, and the run says so
        said = [p for p in twice["runs"][0]["prints"] if stays[1] in p]
        assert len(said) == 1, twice["runs"][0]["prints"]
    for coll in diff.new_design.collections:
        for doc in _docs(twice, coll.name):
            if stays and doc.get("handle") == "fay":
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
    held, handles = _held(killed, after)
    assert held == _held(whole, after)[0] == _members(old)
    assert len(handles) == len(set(handles))


@pytest.mark.parametrize("old", [s for s in STRATEGIES if s != "extended-ref"])
def test_a_many_to_many_into_one_extended_reference_says_what_to_run_by_hand(old: str, tmp_path: Path) -> None:
    diff = _diff(old, "extended-ref")
    text = migration_script(diff)
    line = next(x for x in text.splitlines() if "NOT MIGRATED" in x)
    assert "names one Room per User" in line and "more than one Room" in line
    assert 'target.getCollection("users").updateOne({_id: USER_ID}, {$set: {"rooms": {"_id": ROOM_ID}}})' in line
    script = tmp_path / "migration.mongosh.js"
    script.write_text(text, encoding="utf-8")
    node_check(script)
