"""``modeller export``'s setup script, run twice in the real mongosh against the live server, leaves the design there.

The collections, validators (with level and action) and indexes read back with pymongo are the design's; the
sample documents it inserts are there once; the second run changes nothing; and ``modeller drift`` agrees.
"""

from __future__ import annotations

import json
from pathlib import Path

import pymongo
import pytest
from bson import json_util
from live_support import LiveServer, print_server
from mongosh_support import mongosh, ran, state
from roundtrip import modeller

from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.physical.server_options import index_key, index_options

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

pytestmark = [pytest.mark.node, pytest.mark.slow]


def _in_database(sample: str, database: str, folder: Path) -> Path:
    """The sample project with its database renamed to the test's own (the script uses the project's)."""
    data = json.loads((SAMPLES / f"{sample}.modeller.json").read_text(encoding="utf-8"))
    data["database"] = database
    path = folder / f"{sample}.modeller.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("sample", ["ecommerce", "product-parts"])
def test_the_setup_script_runs_twice_and_the_server_holds_the_design(
    sample: str, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, name = live_db
    print_server(server)
    project = _in_database(sample, name, tmp_path)
    exported = modeller(
        "export", str(project), "--out", str(tmp_path / "out"), "--only", "setup,samples", "--with-samples"
    )
    assert exported.returncode == 0, exported.stderr
    script = tmp_path / "out" / "setup.mongosh.js"
    samples = {p.stem: json_util.loads(p.read_text(encoding="utf-8")) for p in (tmp_path / "out" / "samples").glob("*")}

    first = ran(mongosh(server.uri, script, home=tmp_path / "home"))
    after_first = state(server.uri, name)
    second = ran(mongosh(server.uri, script, home=tmp_path / "home"))
    assert state(server.uri, name) == after_first, "a second run changed the database"
    assert first != second  # the first run created, the second found everything there
    assert (tmp_path / "home" / ".mongodb" / "mongosh").is_dir(), "mongosh wrote its logs into the test's HOME"

    design = analyse(load_project(project)).design
    assert sorted(after_first) == sorted(c.name for c in design.collections)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        for coll in design.collections:
            (info,) = db.list_collections(filter={"name": coll.name})
            options = info["options"]
            assert options["validator"] == coll.validator, coll.name
            assert options.get("validationLevel", "strict") == coll.validation_level, coll.name
            assert options.get("validationAction", "error") == coll.validation_action, coll.name
            indexes = {ix["name"]: ix for ix in db[coll.name].list_indexes()}
            assert set(indexes) == {"_id_"} | {ix.name for ix in coll.indexes}, coll.name
            for ix in coll.indexes:
                got = indexes[ix.name]
                assert dict(got["key"]) == index_key(ix), (coll.name, ix.name)
                for option, value in index_options(ix).items():
                    assert got.get(option) == value, (coll.name, ix.name, option)
            want = sorted(json_util.dumps(d, sort_keys=True) for d in samples[coll.name])
            have = sorted(json_util.dumps(d, sort_keys=True) for d in db[coll.name].find())
            assert want and have == want, f"{coll.name}: the documents are the exported samples, once"
    finally:
        client.close()
    drift = modeller("drift", str(project), server.uri, "--format", "json")
    assert drift.returncode == 0, drift.stdout + drift.stderr
    assert json.loads(drift.stdout)["in_sync"]
