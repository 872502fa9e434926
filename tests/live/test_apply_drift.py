"""``modeller apply`` and ``modeller drift`` against the test server (and a real MongoDB when one is given)."""

from __future__ import annotations

import json
from pathlib import Path

import pymongo
import pytest
from bson import ObjectId
from live_support import LiveServer, print_server
from pymongo import monitoring
from roundtrip import load_samples, modeller

from modeller.live.apply import plan_apply, run_plan
from modeller.live.errors import LiveError
from modeller.live.source import Source
from modeller.persistence import load_project
from modeller.rules import analyse

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
TRACKER = SAMPLES / "task-tracker.modeller.json"


class _Recorder(monitoring.CommandListener):
    """pymongo command monitoring: every command sent, and how each ended."""

    def __init__(self) -> None:
        self.sent: list[dict] = []
        self.failures: list[str] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.sent.append(dict(event.command))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        self.failures.append(event.command_name)


def test_apply_on_an_empty_database_then_drift_is_in_sync_and_a_second_apply_plans_nothing(
    live_db: tuple[LiveServer, str],
) -> None:
    server, name = live_db
    print_server(server)
    dry = modeller("apply", str(TRACKER), server.uri, "--db", name, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "plan for database" in dry.stdout and "5 step(s)" in dry.stdout
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        assert client[name].list_collection_names() == []  # --dry-run changed nothing
        first = modeller("apply", str(TRACKER), server.uri, "--db", name)
        assert first.returncode == 0, first.stderr
        assert "applied 5 step(s)" in first.stderr
        assert sorted(client[name].list_collection_names()) == ["people", "tasks"]
        assert {ix["name"] for ix in client[name].tasks.list_indexes()} == {
            "_id_",
            "due_date_1",
            "owner_id_1_due_date_1",
        }
        second = modeller("apply", str(TRACKER), server.uri, "--db", name, "--format", "json")
        assert second.returncode == 0, second.stderr
        assert json.loads(second.stdout)["steps"] == []
        drift = modeller("drift", str(TRACKER), server.uri, "--db", name)
        assert drift.returncode == 0, drift.stdout + drift.stderr
        assert "matches the design" in drift.stdout
    finally:
        client.close()


def test_drift_names_a_changed_validator_a_dropped_index_and_a_document_of_another_shape(
    live_db: tuple[LiveServer, str],
) -> None:
    server, name = live_db
    print_server(server)
    assert modeller("apply", str(TRACKER), server.uri, "--db", name).returncode == 0
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        db.drop_collection("people")  # a changed validator (the test server has no collMod): created again
        db.create_collection("people", validator={"$jsonSchema": {"bsonType": "object", "required": ["name"]}})
        db.people.create_index([("email", 1)], unique=True, name="email_1")
        db.tasks.drop_index("due_date_1")
        db.tasks.insert_one(
            {"_id": ObjectId(), "description": 42, "owner_id": ObjectId(), "colour": "red"},
            bypass_document_validation=True,
        )
        db.create_collection("audit")
    finally:
        client.close()
    result = modeller("drift", str(TRACKER), server.uri, "--db", name, "--format", "json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    found = {(d["kind"], d["collection"], d["path"]) for d in report["drift"]}
    assert found == {
        ("validator", "people", None),
        ("index-missing", "tasks", None),
        ("field-type", "tasks", "description"),
        ("field-missing", "tasks", "due_date"),
        ("field-extra", "tasks", "colour"),
        ("collection-extra", "audit", None),
    }
    text = modeller("drift", str(TRACKER), server.uri, "--db", name)
    assert text.returncode == 1
    assert "index 'due_date_1' on 'tasks' is in the design, not in the database" in text.stdout
    assert "'tasks' 'description': the design says string, found int in 1" in text.stdout


def _set_validator_of_failing_tasks(server: LiveServer, name: str) -> tuple[LiveError | None, _Recorder, bool]:
    """Plan and run apply where existing tasks fail the design: (error, commands sent, only to-tighten is left)."""
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].tasks.insert_many([{"description": "ok"}, {"description": 1}])  # neither has the design's shape
    finally:
        client.close()
    design = analyse(load_project(TRACKER)).design
    recorder = _Recorder()
    with Source(server.uri, listeners=[recorder]) as source:
        plan = plan_apply(design, source.read_state(name, design))
        kinds = [s.kind for s in plan.steps]
        assert kinds == ["create-collection", "create-index", "create-index", "create-index", "set-validator"]
        (note,) = [n for n in plan.notes if n.kind == "to-tighten"]  # which fields fail, and how many documents
        assert "'tasks' 'description': the design says string, found int in 1" in note.details, note.details
        assert any(
            line.startswith("'tasks' 'owner_id': required in the design, missing in 2 of 2 failing")
            for line in note.details
        ), note.details
        assert "updateMany per field named below" in note.text
        assert "      'tasks' 'description': the design says string, found int in 1" in plan.lines()
        error: LiveError | None = None
        try:
            run_plan(plan, lambda step: source.command(name, step.command, step.summary))
        except LiveError as exc:
            error = exc
        again = plan_apply(design, source.read_state(name, design))
    sent = recorder.sent
    counts = [c for c in sent if c.get("aggregate") == "tasks"]
    assert counts and counts[0]["pipeline"][0] == {"$match": {"$nor": [design.collection("tasks").validator]}}  # type: ignore[union-attr]
    (collmod,) = [c for c in sent if "collMod" in c]
    assert collmod["collMod"] == "tasks"
    assert (collmod["validationLevel"], collmod["validationAction"]) == ("moderate", "warn")
    assert collmod["validator"] == design.collection("tasks").validator  # type: ignore[union-attr]
    return error, recorder, again.steps == [] and [n.kind for n in again.notes] == ["to-tighten"]


def test_set_validator_sends_collmod_moderate_warn_after_counting_failures(live_db: tuple[LiveServer, str]) -> None:
    """The collMod path on the recorded command stream, and the server runs it: the next plan only says to tighten."""
    server, name = live_db
    print_server(server)
    error, recorder, only_tighten = _set_validator_of_failing_tasks(server, name)
    assert error is None and recorder.failures == []
    assert only_tighten


def test_a_server_without_collmod_gets_one_line_naming_the_step(limited_db: tuple[LiveServer, str]) -> None:
    server, name = limited_db
    print_server(server)
    error, recorder, only_tighten = _set_validator_of_failing_tasks(server, name)
    assert error is not None and recorder.failures == ["collMod"] and not only_tighten
    assert "has no collMod command, which this needs: set the validator of 'tasks' as moderate, warn" in str(error)
    assert "run that step by hand" in str(error) and "\n" not in str(error)


def test_apply_through_the_cli_names_the_missing_collmod_step(limited_db: tuple[LiveServer, str]) -> None:
    server, name = limited_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].people.insert_one({"name": "ann"})
    finally:
        client.close()
    result = modeller("apply", str(TRACKER), server.uri, "--db", name)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("modeller: error: step 5 of 5 failed (4 done; apply again continues)")
    assert "has no collMod command" in last


def test_apply_and_drift_fail_fast_and_in_one_line_on_an_unreachable_server(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    uri = f"mongodb://ann:hunter2@127.0.0.1:{port}/?directConnection=true"
    for command in ("apply", "drift"):
        result = modeller(command, str(TRACKER), uri, "--timeout", "0.5")
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and "cannot reach mongodb://ann:***@127.0.0.1" in result.stderr
        assert "hunter2" not in result.stdout + result.stderr


@pytest.mark.parametrize("bad", ["not-a-uri", "mongodb://h:notaport"])
def test_bad_connection_strings_are_one_line(bad: str) -> None:
    result = modeller("drift", str(TRACKER), bad)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("sample", sorted(p.name.split(".")[0] for p in SAMPLES.glob("*.modeller.json")))
def test_every_sample_applies_takes_its_own_documents_and_shows_no_drift(
    sample: str, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """The validators apply creates accept the exporter's sample documents, and drift sees them as the design."""
    server, name = live_db
    print_server(server)
    source = SAMPLES / f"{sample}.modeller.json"
    applied = modeller("apply", str(source), server.uri, "--db", name)
    assert applied.returncode == 0, applied.stderr
    load_samples(source, server, name, tmp_path, count=30)  # insert_many fails on a document the validator refuses
    drift = modeller("drift", str(source), server.uri, "--db", name, "--format", "json")
    report = json.loads(drift.stdout)
    assert drift.returncode == 0 and report["in_sync"], report["drift"]
    assert sum(report["sampled"].values()) > 0
