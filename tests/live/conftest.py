"""The live-database tests' server: a mongoeco wire-protocol server started here, plus a real one if given.

``.venv-mongo`` (made by ``scripts/setup-mongo-server.sh``, which bootstrap
runs) holds mongoeco on Python 3.13; the session starts it on 127.0.0.1 with a
free port and stops it at the end. When ``MODELLER_TEST_MONGODB_URI`` is set,
every live test runs against that server as well. Each test's id names the
server it ran against (``[mongoeco]`` / ``[env]``). A server that cannot start
fails the tests with the command that installs it: a live test never skips.
The test server is mongoeco with ``mongoeco_extras`` (collMod, and replies mongosh
reads); ``limited_server`` is one without collMod and $collStats, for the tests of
what a user is told by such a server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_support import ENV_URI, LiveServer

ROOT = Path(__file__).resolve().parents[2]
# the query-plan tests reuse the Node harness (tests/export) and the review tests' many-to-many project
for _folder in ("export", "review"):
    if str(ROOT / "tests" / _folder) not in sys.path:
        sys.path.append(str(ROOT / "tests" / _folder))
SERVER_PYTHON = ROOT / ".venv-mongo" / "bin" / "python"
SERVE = Path(__file__).with_name("serve_mongoeco.py")
INSTALL = "run `bash scripts/setup-mongo-server.sh` (needs Python >= 3.13, e.g. `pyenv install 3.13.0`)"
START_TIMEOUT_S = 60


def _server_names() -> list[str]:
    return ["mongoeco", "env"] if os.environ.get(ENV_URI) else ["mongoeco"]


def pytest_report_header(config: pytest.Config) -> str:
    """Say in the run's header which servers the live tests use."""
    extra = f" and {ENV_URI}" if os.environ.get(ENV_URI) else f" (set {ENV_URI} to add a real MongoDB)"
    return f"live tests: mongoeco from .venv-mongo{extra}"


def _start_mongoeco(*options: str) -> tuple[subprocess.Popen[str], str]:
    """Start serve_mongoeco.py and read the URI it prints; fail with the install command if it cannot."""
    if not SERVER_PYTHON.exists():
        pytest.fail(f"the live tests need the mongoeco test server, and {SERVER_PYTHON} is missing: {INSTALL}")
    proc = subprocess.Popen(
        [str(SERVER_PYTHON), str(SERVE), *options],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        # The first line is the URI; a crash closes stdout and gives "" (readline blocks no longer than the process).
        line = proc.stdout.readline().strip()
    except Exception:  # pragma: no cover - the process is gone; reported below
        line = ""
    if not line.startswith("mongodb://"):
        proc.kill()
        _, err = proc.communicate(timeout=START_TIMEOUT_S)
        last = (err.strip().splitlines() or ["no output"])[-1]
        pytest.fail(f"the mongoeco test server did not start ({last}): {INSTALL}")
    return proc, line


def _stop(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()  # the server stops when its stdin closes
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session", params=_server_names())
def live_server(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    """One server per session and parameter; mongoeco is stopped when the session ends."""
    if request.param == "env":
        yield LiveServer("env", os.environ[ENV_URI])
        return
    proc, uri = _start_mongoeco()
    try:
        yield LiveServer("mongoeco", uri)
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def limited_server() -> Iterator[LiveServer]:
    """Plain mongoeco (no collMod) that refuses $collStats too (``mongoeco_extras.limit``), as some servers do."""
    proc, uri = _start_mongoeco("--limited")
    try:
        yield LiveServer("mongoeco-limited", uri)
    finally:
        _stop(proc)


def _fresh_db(server: LiveServer) -> Iterator[tuple[LiveServer, str]]:
    import pymongo

    name = f"modeller_test_{uuid.uuid4().hex[:12]}"
    yield server, name
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client.drop_database(name)
    finally:
        client.close()


@pytest.fixture
def live_db(live_server: LiveServer) -> Iterator[tuple[LiveServer, str]]:
    """A fresh database name on the server, dropped afterwards (so a real server is left as it was)."""
    yield from _fresh_db(live_server)


@pytest.fixture
def limited_db(limited_server: LiveServer) -> Iterator[tuple[LiveServer, str]]:
    """A fresh database on the limited server (no collMod, no $collStats), dropped afterwards."""
    yield from _fresh_db(limited_server)
