"""Sampling a live server: options, indexes, hostile collections, and one-line failures with no password shown."""

from __future__ import annotations

import socket
import subprocess
import sys

import pymongo
import pytest
from bson import ObjectId
from live_support import LiveServer, print_server

from modeller.live.errors import LiveError
from modeller.live.infer import infer_project
from modeller.live.source import Source, redact


def _modeller(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "modeller", *args], capture_output=True, text=True, timeout=120, check=False
    )


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_redact_hides_the_password_and_password_options() -> None:
    assert redact("mongodb://ann:s3cr%40t@db.example:27017/x?authSource=admin") == (
        "mongodb://ann:***@db.example:27017/x?authSource=admin"
    )
    assert redact("mongodb+srv://ann@cluster/?tlsCertificateKeyFilePassword=pw&w=1") == (
        "mongodb+srv://ann@cluster/?tlsCertificateKeyFilePassword=***&w=1"
    )


def test_an_unreachable_server_is_one_line_without_the_password() -> None:
    uri = f"mongodb://ann:hunter2@127.0.0.1:{_closed_port()}/?directConnection=true"
    result = _modeller("infer", uri, "--db", "x", "--timeout", "0.5")
    assert result.returncode == 2
    assert "hunter2" not in result.stderr + result.stdout
    assert result.stderr.count("\n") == 1 and "cannot reach mongodb://ann:***@127.0.0.1" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_broken_connection_string_is_one_line() -> None:
    result = _modeller("infer", "mongodb://ann:pw@host:notaport", "--db", "x")
    assert result.returncode == 2 and "not usable" in result.stderr and ":pw@" not in result.stderr


def test_the_sampled_database_gives_indexes_timeseries_and_skips_views(live_db: tuple[LiveServer, str]) -> None:
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        db.users.insert_many([{"_id": ObjectId(), "email": f"u{i}@x", "tier": "gold"} for i in range(30)])
        db.users.create_index([("email", 1)], unique=True, name="email_unique")
        db.users.create_index([("tier", 1), ("email", -1)], name="tier_email")
        db.create_collection("empty")
        db.create_collection(
            "readings", timeseries={"timeField": "at", "metaField": "sensor", "granularity": "minutes"}
        )
        db.command({"create": "gold_users", "viewOn": "users", "pipeline": [{"$match": {"tier": "gold"}}]})
    finally:
        client.close()
    with Source(server.uri) as source:
        samples, known = source.sample_database(name, size=10)
    project = infer_project(samples, name="t", database=name, known_ids=known)
    entities = {e.collection: e for e in project.entities}
    assert sorted(entities) == ["empty", "readings", "users"]  # the view is not a collection
    users = entities["users"]
    assert users.count == 30 and "10 documents sampled" in (users.description or "")
    assert [(i.name, i.keys, i.unique) for i in users.indexes] == [
        ("email_unique", (("email", 1),), True),
        ("tier_email", (("tier", 1), ("email", -1)), False),
    ]
    assert entities["empty"].fields == ()
    timeseries = entities["readings"].timeseries
    assert timeseries is not None and (timeseries.time_field, timeseries.meta_field) == ("at", "sensor")


def test_a_missing_collection_names_the_ones_there(live_db: tuple[LiveServer, str]) -> None:
    server, name = live_db
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].things.insert_one({"a": 1})
    finally:
        client.close()
    with (
        Source(server.uri) as source,
        pytest.raises(LiveError, match=r"has no collection 'nope'; its collections: things"),
    ):
        source.sample_database(name, ["nope"])


def test_a_database_without_collections_is_one_line_naming_the_servers_databases(
    live_db: tuple[LiveServer, str], tmp_path
) -> None:
    """Tryout a13 item 7: ``infer --db`` with a typo wrote an empty project and exited 0."""
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].things.insert_one({"a": 1})
    finally:
        client.close()
    typo = name + "x"
    out = tmp_path / "typo.modeller.json"
    result = _modeller("infer", server.uri, "--db", typo, "-o", str(out))
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"modeller: error: {redact(server.uri)}: database '{typo}' has no collections; check its name; "
    )
    assert "the server's databases: " in line and "Traceback" not in result.stderr
    if server.name == "mongoeco":  # a real server may hold more than the 20 named
        assert name in line and "admin" not in line
    assert not out.exists()


def test_a_mistyped_scheme_is_not_read_as_a_file(tmp_path) -> None:
    """Tryout a13 item 11: ``infer mongo://x`` said "mongo:/x: cannot read the file"."""
    result = _modeller("infer", "mongo://ann:hunter2@x:27017", "--db", "shop", "-o", str(tmp_path / "p.json"))
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "modeller: error: mongo://ann:***@x:27017 looks like a mistyped connection string: one starts with "
        "mongodb:// or mongodb+srv://"
    ]


def test_large_and_deep_documents_and_odd_keys(live_db: tuple[LiveServer, str], tmp_path) -> None:
    server, name = live_db
    deep: dict = {"leaf": 1}
    for _ in range(90):
        deep = {"d": deep}
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].big.insert_many(
            [{"blob": "x" * 10_000_000, "deep": deep}, {"blob": "y", "deep": deep, "a.b": 1, "$odd": 2}]
        )
    finally:
        client.close()
    out = tmp_path / "big.modeller.json"
    result = _modeller("infer", server.uri, "--db", name, "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert _modeller("validate", str(out)).returncode == 0
    text = out.read_text(encoding="utf-8")
    assert '"name": "blob"' in text and '"bytes": 5000001' in text  # the text's average; the engine adds BSON's 5 bytes
