"""The ``collMod`` success path of ``modeller apply``: the validator the server then reports and enforces is the design's.

Runs against the test server (mongoeco with ``mongoeco_extras``' collMod) and a real MongoDB when one is given.
"""

from __future__ import annotations

from pathlib import Path

import pymongo
import pytest
from bson import ObjectId
from live_support import LiveServer, print_server
from pymongo.errors import OperationFailure, WriteError
from roundtrip import modeller

from modeller.persistence import load_project
from modeller.rules import analyse

TRACKER = Path(__file__).resolve().parents[2] / "samples" / "task-tracker.modeller.json"
OLD_VALIDATOR = {"$jsonSchema": {"bsonType": "object", "required": ["description"]}}


def _task(**extra: object) -> dict[str, object]:
    import datetime

    doc: dict[str, object] = {
        "_id": ObjectId(),
        "description": "write the report",
        "due_date": datetime.datetime(2026, 11, 30, tzinfo=datetime.UTC),
        "owner_id": ObjectId(),
    }
    doc.update(extra)
    return doc


def _options(client: pymongo.MongoClient, name: str, collection: str) -> dict:
    (info,) = client[name].list_collections(filter={"name": collection})
    return dict(info["options"])


def test_apply_replaces_a_differing_validator_and_the_server_enforces_the_designs(
    live_db: tuple[LiveServer, str],
) -> None:
    server, name = live_db
    print_server(server)
    design = analyse(load_project(TRACKER)).design
    wanted = design.collection("tasks")
    assert wanted is not None
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000, tz_aware=True)
    try:
        db = client[name]
        db.create_collection("tasks", validator=OLD_VALIDATOR)
        db.tasks.insert_one(_task())  # passes both validators: apply sets the design's at once (strict, error)

        plan = modeller("apply", str(TRACKER), server.uri, "--db", name, "--dry-run")
        assert plan.returncode == 0, plan.stderr
        assert "set the validator of 'tasks' (strict, error)" in plan.stdout
        assert _options(client, name, "tasks") == {"validator": OLD_VALIDATOR}, "--dry-run changed nothing"

        applied = modeller("apply", str(TRACKER), server.uri, "--db", name)
        assert applied.returncode == 0, applied.stderr
        options = _options(client, name, "tasks")
        assert options["validator"] == wanted.validator
        assert options.get("validationLevel", "strict") == wanted.validation_level == "strict"
        assert options.get("validationAction", "error") == wanted.validation_action == "error"
        with pytest.raises(WriteError) as refused:
            db.tasks.insert_one({"description": "the old validator lets this in"})
        assert refused.value.code == 121
        db.tasks.insert_one(_task(description="passes the design"))
        assert db.tasks.count_documents({}) == 2

        drift = modeller("drift", str(TRACKER), server.uri, "--db", name)
        assert drift.returncode == 0, drift.stdout + drift.stderr
        assert "matches the design" in drift.stdout
        again = modeller("apply", str(TRACKER), server.uri, "--db", name, "--dry-run")
        assert again.returncode == 0 and "nothing to do" in again.stdout, again.stdout
    finally:
        client.close()


def test_failing_documents_get_moderate_warn_then_apply_tightens_once_they_pass(
    live_db: tuple[LiveServer, str],
) -> None:
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000, tz_aware=True)
    try:
        db = client[name]
        db.tasks.insert_many([_task(), _task(description=7)])  # the second fails the design (description: int)
        first = modeller("apply", str(TRACKER), server.uri, "--db", name)
        assert first.returncode == 0, first.stderr
        assert "as moderate, warn: 1 existing document(s) would fail it" in first.stdout
        options = _options(client, name, "tasks")
        assert (options["validationLevel"], options["validationAction"]) == ("moderate", "warn")
        db.tasks.insert_one(_task(description=8))  # warn: the server takes it (and would log it)
        db.tasks.update_many(
            {"description": {"$type": "int"}}, [{"$set": {"description": {"$toString": "$description"}}}]
        )

        tighten = modeller("apply", str(TRACKER), server.uri, "--db", name)
        assert tighten.returncode == 0, tighten.stderr
        assert "tighten the validator of 'tasks' to strict, error" in tighten.stdout
        options = _options(client, name, "tasks")
        assert (options["validationLevel"], options["validationAction"]) == ("strict", "error")
        with pytest.raises(WriteError):
            db.tasks.insert_one(_task(description=9))
        third = modeller("apply", str(TRACKER), server.uri, "--db", name, "--dry-run")
        assert "nothing to do" in third.stdout, third.stdout
        drift = modeller("drift", str(TRACKER), server.uri, "--db", name)
        assert drift.returncode == 0, drift.stdout + drift.stderr
    finally:
        client.close()


def test_collmod_errors_are_the_servers(live_db: tuple[LiveServer, str]) -> None:
    """A missing collection or index is refused with MongoDB's codes; hiding an index shows in listIndexes."""
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        with pytest.raises(OperationFailure) as missing:
            db.command({"collMod": "nowhere", "validator": OLD_VALIDATOR})
        assert missing.value.code == 26
        db.tasks.create_index([("due_date", 1)], name="due")
        with pytest.raises(OperationFailure) as no_index:
            db.command({"collMod": "tasks", "index": {"name": "nope", "hidden": True}})
        assert no_index.value.code == 27
        db.command({"collMod": "tasks", "index": {"name": "due", "hidden": True}})
        hidden = {ix["name"]: ix.get("hidden", False) for ix in db.tasks.list_indexes()}
        assert hidden == {"_id_": False, "due": True}
        db.command({"collMod": "tasks", "index": {"keyPattern": {"due_date": 1}, "hidden": False}})
        assert not any(ix.get("hidden", False) for ix in db.tasks.list_indexes())
        assert client.server_info()["version"]  # pymongo's `buildinfo`
    finally:
        client.close()
