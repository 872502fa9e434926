"""Checks every exported project must pass: the CLI commands, the setup script run twice, samples vs. validators.

The recording stand-in (``js/harness.js``) enforces what makes a rerun fail
(existing collections, index names reused with other keys, duplicate ``_id``);
the server-side checks it does not make (unique indexes, TTL range, the
validators) are made here on the files the export wrote.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from bson_checker import errors, load_docs
from js_harness import calls, node_check, run_scripts

from modeller.cli.main import main
from modeller.export.samples import index_entries

HOSTILE = Path(__file__).resolve().parent / "hostile"
TTL_MAX = 2**31 - 1


@dataclass
class Exported:
    """What ``modeller check/design/export`` said about one project file."""

    findings: list[dict[str, Any]]
    design: dict[str, Any]
    out: Path
    recording: dict[str, Any]
    validators: dict[str, dict[str, Any]]
    samples: dict[str, list[dict[str, Any]]]
    #: what ``modeller export`` printed (written files, notes)
    printed: str

    def collection(self, name: str) -> dict[str, Any]:
        return next(c for c in self.design["collections"] if c["name"] == name)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``modeller ARGS`` in process: exit code and stdout; stderr must not hold a traceback."""
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out, err
    return code, out


def export_all(path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], samples: int = 6) -> Exported:
    """Run validate, check, design and export on ``path``; run the setup script twice; read what it wrote."""
    code, out = cli(capsys, "validate", str(path))
    assert code == 0, out
    code, out = cli(capsys, "check", str(path), "--format", "json")
    assert code in (0, 1), out
    findings = json.loads(out)["findings"]
    code, out = cli(capsys, "design", str(path), "--format", "json")
    assert code == 0, out
    design = json.loads(out)
    target = tmp_path / "out"
    code, out = cli(
        capsys,
        "export",
        str(path),
        "--out",
        str(target),
        "--with-samples",
        "--with-sharding",
        "--no-render",
        "--samples",
        str(samples),
    )
    assert code == 0, out
    printed = out
    for name in ("setup.mongosh.js", "indexes.mongosh.js"):
        node_check(target / name)
    recording = run_scripts(target / "setup.mongosh.js", runs=2)
    names = [c["name"] for c in all_collections(design)]
    validators = {
        name: json_util.loads((target / "validators" / f"{name}.json").read_text(encoding="utf-8"))
        for name in names
        if (target / "validators" / f"{name}.json").exists()
    }
    samples = {name: load_docs((target / "samples" / f"{name}.json").read_text(encoding="utf-8")) for name in names}
    return Exported(findings, design, target, recording, validators, samples, printed)


def all_collections(design: dict[str, Any]) -> list[dict[str, Any]]:
    """The design's collections and their companions (revisions, archive, overflow): the export writes all."""
    return [*design["collections"], *design.get("companions", [])]


def assert_server_would_accept(exported: Exported) -> None:
    """The checks a real server makes that the stand-in does not, plus the rerun being a no-op."""
    rec = exported.recording
    assert calls(rec, 1, "createCollection") == [] and calls(rec, 1, "insertOne") == []
    assert all(not c["created"] for c in calls(rec, 1, "createIndex"))
    for coll in all_collections(exported.design):
        name = coll["name"]
        index_names = [ix["name"] for ix in coll["indexes"]]
        assert len(index_names) == len(set(index_names)), f"{name}: two indexes share a name: {index_names}"
        for ix in coll["indexes"]:
            ttl = ix.get("expire_after_s")
            assert ttl is None or 0 <= ttl <= TTL_MAX, (name, ix)
        docs = exported.samples[name]
        assert docs, f"{name}: no sample documents"
        validator = exported.validators.get(name)  # a time series has one too, for the application to check
        assert validator is not None, f"{name}: no validator file"
        for doc in docs:
            assert errors(validator, doc) == [], (name, doc)
        for ix in coll["indexes"]:
            if ix.get("unique"):
                assert_unique(name, ix, docs)
    inserted = {(c["collection"], json.dumps(c["doc"]["_id"], sort_keys=True)) for c in calls(rec, 0, "insertOne")}
    expected = {
        (name, json.dumps(json.loads(_text(doc["_id"])), sort_keys=True))
        for name, docs in exported.samples.items()
        for doc in docs
    }
    assert inserted == expected


def _text(value: Any) -> str:
    return json_util.dumps(value, json_options=json_util.CANONICAL_JSON_OPTIONS, sort_keys=True)


def assert_unique(collection: str, index: dict[str, Any], docs: list[dict[str, Any]]) -> None:
    """No two sample documents share an entry of a unique index (missing fields index as null).

    A partial index is checked over every document: stricter than the server, never looser.
    """
    collation = index.get("collation") or {}
    caseless = collation.get("strength") in (1, 2)
    owner: dict[str, int] = {}
    for position, doc in enumerate(docs):
        for entry in index_entries(doc, [path for path, _kind in index["keys"]], caseless):
            other = owner.setdefault(entry, position)
            assert other == position, (
                f"{collection}: samples {other} and {position} both hold {entry} in unique index {index['name']}"
            )
