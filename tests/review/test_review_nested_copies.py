"""A relationship below the top level: a User embeds its Profile (one-to-one), and the Profile's Addresses change
strategy between embedded in the Profile (``profile.addresses``), a reference to the Profile in each Address
(``profile_id``, to the Profile's own ``_id``), the Profile's array of Address ids (``profile.address_ids``) and both.
After the migration on the stand-in of ``db``: every NEW document validates against the NEW validators, each
Address still belongs to its User, a second run writes nothing, and a run killed between batches completes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bson import ObjectId, json_util
from bson_checker import LOAD_OPTIONS, errors
from js_harness import calls, node_check, run_scripts

from modeller.export.mongosh import mongosh_script
from modeller.export.validators import validator_document
from modeller.model.project import Project
from modeller.review import SchemaDiff, diff_projects
from modeller.review.copy_storage import Storage, storage
from modeller.review.migration import MARKERS, migration_script

pytestmark = pytest.mark.node

#: each user's profile bio and address cities; "dan" has no profile, "cat" a profile without addresses
USERS = {"ann": ("hi", ["Oslo", "Rome"]), "bob": ("yo", ["Lima"]), "cat": ("hey", []), "dan": None}
USER_IDS = {name: ObjectId(f"{i + 1:024x}") for i, name in enumerate(USERS)}
PROFILE_IDS = {name: ObjectId(f"{i + 0x100:024x}") for i, name in enumerate(USERS)}


def _project(strategy: str) -> Project:
    return Project.model_validate(
        {
            "format": "mongo-schema-modeller",
            "format_version": 1,
            "name": "People",
            "database": "people",
            "entities": [
                {
                    "id": "user",
                    "name": "User",
                    "collection": "users",
                    "fields": [{"name": "name", "type": "string", "required": True}],
                },
                {"id": "profile", "name": "Profile", "fields": [{"name": "bio", "type": "string"}]},
                {
                    "id": "address",
                    "name": "Address",
                    "collection": "addresses",
                    "fields": [{"name": "city", "type": "string", "required": True}],
                },
            ],
            "relationships": [
                {
                    "id": "user_profile",
                    "one": "user",
                    "many": "profile",
                    "name": "profile",
                    "cardinality": "one-to-one",
                    "strategy": "embed",
                },
                {
                    "id": "profile_addresses",
                    "one": "profile",
                    "many": "address",
                    "name": "addresses",
                    "cardinality": "one-to-few",
                    "max": 5,
                    "strategy": strategy,
                },
            ],
        }
    )


def _where(diff: SchemaDiff) -> tuple[Storage, Storage]:
    old = storage(diff.old_design, diff.old, "profile_addresses")
    new = storage(diff.new_design, diff.new, "profile_addresses")
    assert old is not None and new is not None and old.one_path == new.one_path == "profile"
    return old, new


def _old_documents(where: Storage) -> dict[str, list[dict[str, Any]]]:
    """The users (and addresses) of USERS in the OLD shape."""
    users: list[dict[str, Any]] = []
    addresses: list[dict[str, Any]] = []
    for name, profile in USERS.items():
        user: dict[str, Any] = {"_id": USER_IDS[name], "name": name}
        users.append(user)
        if profile is None:
            continue
        bio, cities = profile
        user["profile"] = {"bio": bio}
        if where.embed is not None:
            user["profile"]["addresses"] = [{"city": c} for c in cities]
            continue
        user["profile"]["_id"] = PROFILE_IDS[name]
        mine = [{"_id": ObjectId(), "city": c} for c in cities]
        if where.ref is not None:
            for address in mine:
                address[where.ref] = PROFILE_IDS[name]
        if where.refs is not None:
            user["profile"][where.refs.split(".")[1]] = [a["_id"] for a in mine]
        addresses += mine
    return {"users": users, "addresses": addresses} if where.embed is None else {"users": users}


def _docs(recording: dict[str, Any], collection: str) -> list[dict[str, Any]]:
    text = json.dumps(recording["documents"]["people"].get(collection, []))
    return json_util.loads(text, json_options=LOAD_OPTIONS)


def _pick(doc: Any, path: str) -> Any:
    for part in path.split("."):
        doc = doc.get(part) if isinstance(doc, dict) else None
    return doc


def _owned(recording: dict[str, Any], where: Storage) -> set[tuple[str, str]]:
    """(user name, city) of every address the NEW shape gives a user."""
    users = _docs(recording, "users")
    if where.embed is not None:
        return {(u["name"], a["city"]) for u in users for a in _pick(u, where.embed) or []}
    addresses = {str(a["_id"]): a for a in _docs(recording, "addresses")}
    by_refs = {(u["name"], addresses[str(i)]["city"]) for u in users for i in _pick(u, where.refs or "") or []}
    profile_of = {str(_pick(u, "profile._id")): u["name"] for u in users if _pick(u, "profile._id") is not None}
    by_ref = (
        {(profile_of[str(a[where.ref])], a["city"]) for a in addresses.values() if where.ref in a}
        if where.ref
        else set()
    )
    if where.ref is not None and where.refs is not None:
        assert by_ref == by_refs, "both sides name the same addresses"
    return by_ref if where.ref is not None else by_refs


OWNED = {(name, city) for name, profile in USERS.items() if profile for city in profile[1]}
PAIRS = [
    ("embed", "parent-ref"),
    ("embed", "child-refs"),
    ("embed", "two-way"),
    ("parent-ref", "embed"),
    ("child-refs", "embed"),
    ("two-way", "embed"),
    ("parent-ref", "child-refs"),
    ("child-refs", "parent-ref"),
]


def _run(diff: SchemaDiff, folder: Path, batch: int | None = None, **kw: Any) -> dict[str, Any]:
    samples = _old_documents(_where(diff)[0])
    for coll in diff.old_design.collections:
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
def test_a_relationship_below_the_top_level_keeps_each_address_with_its_user(
    old: str, new: str, tmp_path: Path
) -> None:
    diff = diff_projects(_project(old), _project(new))
    assert [(c.details["old"], c.details["new"]) for c in diff.changes if c.kind == "strategy-changed"] == [(old, new)]
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text
    twice = _run(diff, tmp_path, runs=2)
    _, after = _where(diff)
    assert _owned(twice, after) == OWNED
    for coll in diff.new_design.collections:
        for doc in _docs(twice, coll.name):
            assert errors(validator_document(coll), doc) == [], (coll.name, doc)
    for op in ("insertMany", "updateOne", "updateMany"):
        assert [c for c in calls(twice, 1, op) if c["collection"] != MARKERS] == [], op


@pytest.mark.parametrize(("old", "new"), [("embed", "parent-ref"), ("child-refs", "embed")], ids=lambda v: str(v))
def test_a_relationship_below_the_top_level_killed_between_batches_completes(
    old: str, new: str, tmp_path: Path
) -> None:
    diff = diff_projects(_project(old), _project(new))
    killed = _run(diff, tmp_path, batch=1, runs=2, kill_after=2)
    assert killed["runs"][0].get("killed") is True
    assert _owned(killed, _where(diff)[1]) == OWNED
    if new == "embed":  # nothing copied twice
        assert sum(len(_pick(u, "profile.addresses") or []) for u in _docs(killed, "users")) == len(OWNED)
    else:
        assert len(_docs(killed, "addresses")) == len(OWNED)
