"""Run generated scripts in the real mongosh against the live tests' server, and read back what they left.

mongosh 2.12.0 is installed by ``scripts/setup-node-deps.sh`` into ``.cache/node``; a test fails (never
skips) with that command when it is missing. Each run gets its own HOME (mongosh writes its logs under
``~/.mongodb``), no telemetry and no update check (``--quiet``), so a test leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pymongo
import pytest
from bson import json_util
from pymongo.errors import WriteError

from modeller.rules.physical.design import CollectionDesign

ROOT = Path(__file__).resolve().parents[2]
MONGOSH = ROOT / ".cache" / "node" / "node_modules" / ".bin" / "mongosh"
SETUP_HINT = "run `bash scripts/setup-node-deps.sh` (installs mongosh 2.12.0 into .cache/node)"
TIMEOUT_S = 180

#: loaded before a script: the shell kills itself (SIGKILL) right after the Nth batch's progress line
_KILLER = """\
(function () {
  const original = print;
  let batches = 0;
  globalThis.print = function (...args) {
    original(...args);
    if (/ document\\(s\\) so far$/.test(String(args[args.length - 1])) && ++batches === %d) {
      process.kill(process.pid, "SIGKILL");
    }
  };
})();
"""


def mongosh(uri: str, *scripts: Path, home: Path, kill_after_batches: int | None = None) -> subprocess.CompletedProcess:
    """``mongosh URI --quiet --norc SCRIPT...``; with ``kill_after_batches`` the shell is killed between two batches."""
    if not MONGOSH.exists():
        pytest.fail(f"mongosh is missing at {MONGOSH}: {SETUP_HINT}")
    home.mkdir(parents=True, exist_ok=True)
    files = [str(s) for s in scripts]
    if kill_after_batches is not None:
        killer = home / "kill-between-batches.js"
        killer.write_text(_KILLER % kill_after_batches, encoding="utf-8")
        files.insert(0, str(killer))
    env = {**os.environ, "HOME": str(home), "MONGOSH_FORCE_DISABLE_TELEMETRY_FOR_TESTING": "1"}
    return subprocess.run(
        [str(MONGOSH), uri, "--quiet", "--norc", *files],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env=env,
        check=False,
    )


def ran(result: subprocess.CompletedProcess) -> str:
    """The run's output; fails the test with mongosh's own words when it did not exit 0."""
    assert result.returncode == 0, (
        f"mongosh exited {result.returncode}:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    )
    return result.stdout


def state(uri: str, database: str) -> dict[str, Any]:
    """Everything a script can change in ``database``: per collection its options, indexes and documents."""
    client: pymongo.MongoClient = pymongo.MongoClient(uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[database]
        out: dict[str, Any] = {}
        for info in sorted(db.list_collections(), key=lambda i: i["name"]):
            name = info["name"]
            out[name] = {
                "options": info.get("options", {}),
                "indexes": sorted((dict(ix) for ix in db[name].list_indexes()), key=lambda ix: ix["name"]),
                "documents": list(db[name].find().sort("_id", 1)),
            }
        return json.loads(json_util.dumps(out))  # plain data: SON key order and BSON types compare as text
    finally:
        client.close()


def failing(db: Any, coll: CollectionDesign) -> list[Any]:
    """The ``_id`` of every document of ``coll`` its design validator refuses, asked of the server twice over.

    A query with the validator (``$nor``) finds the documents it does not match; and each document is inserted
    into a scratch collection created with that validator, strict and error, so the server's own write path
    judges it too.
    """
    assert coll.validator is not None, coll.name
    by_query = [doc["_id"] for doc in db[coll.name].find({"$nor": [coll.validator]}, {"_id": 1})]
    scratch = f"check_{coll.name}"
    db.drop_collection(scratch)
    db.create_collection(scratch, validator=coll.validator, validationLevel="strict", validationAction="error")
    refused = []
    try:
        for doc in db[coll.name].find():
            try:
                db[scratch].insert_one(doc)
            except WriteError:
                refused.append(doc["_id"])
    finally:
        db.drop_collection(scratch)
    return sorted(set(by_query) | set(refused), key=str)
