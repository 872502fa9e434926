"""Connections are safe: no password in any message, TLS options reach pymongo, each failure is one line."""

from __future__ import annotations

import socket
from pathlib import Path

import pymongo
import pytest
from cutting_proxy import CuttingProxy
from live_support import LiveServer, print_server
from roundtrip import modeller

from modeller.live.errors import LiveError
from modeller.live.source import Source, redact

TRACKER = Path(__file__).resolve().parents[2] / "samples" / "task-tracker.modeller.json"


def _host(server: LiveServer) -> str:
    return server.uri.split("//", 1)[1].split("/", 1)[0]


@pytest.mark.parametrize(
    ("uri", "shown"),
    [
        ("mongodb://ann:s3cr%40t@h:1/db", "mongodb://ann:***@h:1/db"),
        ("mongodb://ann:pw@h1:1,h2:2/?replicaSet=rs", "mongodb://ann:***@h1:1,h2:2/?replicaSet=rs"),
        ("mongodb://h/?password=pw&w=1", "mongodb://h/?password=***&w=1"),
        (
            "mongodb+srv://ann:pw@cluster.example/?tlsCertificateKeyFilePassword=k",
            "mongodb+srv://ann:***@cluster.example/?tlsCertificateKeyFilePassword=***",
        ),
        ("mongodb://ann@h", "mongodb://ann@h"),
    ],
)
def test_redact_masks_every_password(uri: str, shown: str) -> None:
    assert redact(uri) == shown


def test_wrong_credentials_are_one_line_that_says_what_to_check(live_server: LiveServer) -> None:
    """mongoeco answers a SCRAM login with an authentication failure, as MongoDB does."""
    print_server(live_server)
    uri = f"mongodb://ann:hunter2@{_host(live_server)}/?directConnection=true&authSource=admin"
    result = modeller("drift", str(TRACKER), uri, "--db", "x")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "hunter2" not in result.stderr + result.stdout
    assert "authentication failed at mongodb://ann:***@" in result.stderr and "authSource" in result.stderr


def test_tls_options_reach_the_driver(live_server: LiveServer, tmp_path: Path) -> None:
    """A TLS option in the URI is used: a missing CA file and a server without TLS are each one line."""
    print_server(live_server)
    base = f"mongodb://ann:hunter2@{_host(live_server)}/?directConnection=true&tls=true"
    missing = modeller("infer", base + f"&tlsCAFile={tmp_path / 'none.pem'}", "--db", "x", "--timeout", "1")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1, missing.stderr
    assert "tlsCAFile" in missing.stderr and "hunter2" not in missing.stderr
    plain = modeller("infer", base, "--db", "x", "--timeout", "5")  # a loaded machine may need more than 1 s
    assert plain.returncode == 2 and plain.stderr.count("\n") == 1, plain.stderr
    assert "the TLS handshake with mongodb://ann:***@" in plain.stderr


def test_an_unknown_option_is_a_one_line_warning_with_its_value_hidden(live_server: LiveServer) -> None:
    print_server(live_server)
    uri = f"mongodb://{_host(live_server)}/?directConnection=true&password=hunter2"
    result = modeller("drift", str(TRACKER), uri, "--db", "modeller_test_unknown_option")
    assert "hunter2" not in result.stderr + result.stdout
    (warning,) = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warning.startswith("modeller: warning: mongodb://") and "password=***" in warning
    assert "docstring" not in warning and warning.endswith("or maybe a camelCase version of one?")  # pymongo's own


def test_a_dropped_connection_is_one_line(live_db: tuple[LiveServer, str]) -> None:
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].things.insert_many([{"n": i} for i in range(10)])
    finally:
        client.close()
    proxy = CuttingProxy(server.uri)
    try:
        with Source(proxy.uri, timeout_s=1) as source:
            assert sorted(source.read_state(name).collections) == ["things"]
            proxy.cut()
            with pytest.raises(LiveError) as caught:
                source.sample(name, "things", 5)
    finally:
        proxy.close()
    message = str(caught.value)
    assert "\n" not in message and f"127.0.0.1:{proxy.port}" in message and "'things'" in message
    assert "the connection to mongodb://127.0.0.1" in message and "dropped while sampling 'things'" in message


def test_an_unreachable_port_fails_within_the_timeout() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(LiveError, match=r"cannot reach mongodb://127\.0\.0\.1:\d+ within 0\.3 s"):
        Source(f"mongodb://127.0.0.1:{port}", timeout_s=0.3).ping()


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (
            pymongo.errors.OperationFailure("not authorized on x to execute command", 13, {"errmsg": "not authorized"}),
            "not allowed while creating 'x' at mongodb://ann:***@h (not authorized); use a user with the dbAdmin role on",
        ),
        (
            pymongo.errors.OperationFailure("no such command: 'collMod'", 59, {"errmsg": "no such command: 'collMod'"}),
            "the server at mongodb://ann:***@h has no collMod command, which this needs: creating 'x'; run that step",
        ),
    ],
)
def test_missing_privileges_and_commands_are_named_with_the_role_or_command(
    failure: pymongo.errors.OperationFailure, expected: str
) -> None:
    """The server's refusals as MongoDB sends them (error codes 13 and 59), mapped without a server."""
    source = Source("mongodb://ann:hunter2@h", timeout_s=0.2)
    try:
        with pytest.raises(LiveError) as caught, source._errors("creating 'x'", role="dbAdmin", command="collMod"):
            raise failure
    finally:
        source.client.close()
    assert expected in str(caught.value) and "hunter2" not in str(caught.value)
