"""One project through the whole product: load, analyse, every exporter, the setup script, the validators.

:func:`run_python` does everything that runs in this process and returns the
failures it saw; what it exported for Node (the two scripts, the validators
and samples they must create) is an :class:`Exported`. :func:`run_node` runs
many exports in one Node process (``js/harness.js --batch``): each project's
``setup.mongosh.js`` then ``indexes.mongosh.js``, twice, against a fresh
recording stand-in, and compares what the script created and inserted with
the exported files.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from bson_checker import LOAD_OPTIONS, BsonValidator, load_docs, unwrap
from js_harness import HARNESS, ROOT, SETUP_HINT, node_binary

from modeller.export import ExportError, export_project
from modeller.export.common import database_name
from modeller.export.files import safe_file_stem
from modeller.model import Project
from modeller.persistence import ProjectFileError, loads_project
from modeller.rules import analyse

#: Projects per Node process (each runs its two scripts twice against a fresh stand-in).
NODE_BATCH = 400


@dataclass(frozen=True, slots=True)
class Failure:
    """Something the product must not do: ``stage`` says where, ``message`` what happened."""

    stage: str
    message: str

    def __str__(self) -> str:
        return f"[{self.stage}] {self.message}"


@dataclass(slots=True)
class Exported:
    """An export waiting for its Node run: the scripts, and what they must create and insert."""

    label: str
    project_text: str
    scripts: list[Path]
    #: "db.collection" -> the exported validator (validators/<stem>.json)
    validators: dict[str, Any] = field(default_factory=dict)
    #: "db.collection" of the time-series collections (created without a validator: the server refuses one)
    timeseries: set[str] = field(default_factory=set)
    #: "db.collection" -> the exported sample documents (samples/<stem>.json), as BSON values
    samples: dict[str, list[Any]] = field(default_factory=dict)


def load(text: str, name: str = "fuzz.modeller.json") -> Project | None:
    """The project, or None when the loader refuses it with its documented error (one located message)."""
    try:
        return loads_project(text, name)
    except ProjectFileError as exc:
        message = str(exc)
        assert message.startswith(name) and "Traceback" not in message, message
        return None


def run_python(
    project: Project, project_text: str, out_dir: Path, label: str, seed: int = 0
) -> tuple[list[Failure], Exported | None]:
    """Analyse and export ``project`` into ``out_dir``; check every file; return failures and the Node work."""
    try:
        analysis = analyse(project)
        json.dumps(analysis.design.to_json())
        json.dumps([finding.to_json() for finding in analysis.findings])
    except Exception as exc:  # the engine is a pure function of a valid project: any exception is a bug
        return [Failure("analyse", f"{type(exc).__name__}: {exc}")], None
    try:
        export_project(
            project,
            analysis,
            out_dir,
            samples=3,
            seed=seed,
            with_samples=True,
            with_sharding=True,
            render_diagram=False,
        )
    except ExportError as exc:  # the documented refusal: one line that says what to do
        message = str(exc)
        if not message or "\n" in message or "Traceback" in message:
            return [Failure("export-message", repr(message[:300]))], None
        return [], None
    except Exception as exc:
        return [Failure("export", f"{type(exc).__name__}: {exc}")], None
    return _check_files(analysis.design, database_name(analysis.design, project), out_dir, project_text, label)


def _check_files(
    design: Any, db_name: str, out_dir: Path, project_text: str, label: str
) -> tuple[list[Failure], Exported]:
    failures: list[Failure] = []
    exported = Exported(label, project_text, [out_dir / "setup.mongosh.js", out_dir / "indexes.mongosh.js"])
    for name in ("setup.mongosh.js", "indexes.mongosh.js", "diagram.dot", "DESIGN.md"):
        if not (out_dir / name).is_file() or not (out_dir / name).read_text(encoding="utf-8").strip():
            failures.append(Failure("files", f"{name} is missing or empty"))
    taken: set[str] = set()
    for coll in design.collections:
        stem = safe_file_stem(coll.name, taken)
        ns = f"{db_name}.{coll.name}"
        try:
            validator = json.loads((out_dir / "validators" / f"{stem}.json").read_text(encoding="utf-8"))
            json.loads((out_dir / "schema" / f"{stem}.schema.json").read_text(encoding="utf-8"))
            docs = load_docs((out_dir / "samples" / f"{stem}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            failures.append(Failure("files", f"collection {coll.name!r}: {type(exc).__name__}: {exc}"))
            continue
        if validator != json.loads(json.dumps(coll.validator)):
            failures.append(Failure("files", f"validators/{stem}.json differs from the design's validator"))
        exported.validators[ns] = validator
        if coll.timeseries:
            exported.timeseries.add(ns)
        exported.samples[ns] = docs
        for doc in docs:
            try:
                problem = _first_problem(validator, doc)
            except Exception as exc:  # a validator the checker cannot even read is a broken export
                failures.append(Failure("validator", f"{coll.name!r}: unreadable validator: {exc}"))
                break
            if problem:
                failures.append(Failure("sample-vs-validator", f"{coll.name!r}: {problem}"))
                break
        failures.extend(_unique_clashes(coll, docs))
    for coll in design.companions:  # revisions, archive and overflow collections: a validator and samples
        stem = safe_file_stem(coll.name, taken)
        try:
            validator = json.loads((out_dir / "validators" / f"{stem}.json").read_text(encoding="utf-8"))
            docs = load_docs((out_dir / "samples" / f"{stem}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            failures.append(Failure("files", f"companion {coll.name!r}: {type(exc).__name__}: {exc}"))
            continue
        if validator != json.loads(json.dumps(coll.validator)):
            failures.append(Failure("files", f"validators/{stem}.json differs from the design's validator"))
        exported.validators[f"{db_name}.{coll.name}"] = validator
        exported.samples[f"{db_name}.{coll.name}"] = docs
        problem = next((p for p in map(partial(_first_problem, validator), docs) if p), None)
        if problem:
            failures.append(Failure("sample-vs-validator", f"companion {coll.name!r}: {problem}"))
        failures.extend(_unique_clashes(coll, docs))
    return failures, exported


def _first_problem(validator: dict[str, Any], doc: Any) -> str | None:
    """The first way ``doc`` breaks ``validator``: path, keyword, and the message's ends (its middle is the doc)."""
    found = sorted(BsonValidator(unwrap(validator)).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    if not found:
        return None
    error = found[0]
    message = error.message if len(error.message) <= 240 else f"{error.message[:80]} ... {error.message[-140:]}"
    where = "/".join(map(str, error.absolute_path)) or "(document)"
    if error.context:  # oneOf/anyOf: also say why the branches refused it, deepest reasons first
        reasons = sorted(error.context, key=lambda e: -len(e.absolute_path))[:4]
        message += "".join(
            f" | branch: {'/'.join(map(str, e.absolute_path)) or '(document)'}: {e.validator}: {e.message[:120]}"
            for e in reasons
        )
    return f"{where}: {error.validator}: {message}"


def _key_value(doc: Any, path: str) -> Any:
    value = doc
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _unique_clashes(coll: Any, docs: list[Any]) -> list[Failure]:
    """Samples that a unique index would refuse (two documents with the same key; arrays and partial skipped)."""
    out: list[Failure] = []
    for index in coll.indexes:
        if not index.unique or index.partial:
            continue
        seen: set[str] = set()
        for doc in docs:
            values = [_key_value(doc, name) for name, _kind in index.keys]
            if any(isinstance(v, list) for v in values):
                continue
            key = json_util.dumps(values, json_options=json_util.CANONICAL_JSON_OPTIONS)
            if key in seen:
                names = ", ".join(name for name, _ in index.keys)
                out.append(Failure("sample-vs-unique-index", f"{coll.name!r}: two samples share {{{names}}} = {key}"))
                break
            seen.add(key)
    return out


def run_node(exports: Sequence[Exported], work: Path) -> list[tuple[Exported, Failure]]:
    """Run every export's scripts in the stand-in (batched); compare created validators and inserted samples."""
    out: list[tuple[Exported, Failure]] = []
    for start in range(0, len(exports), NODE_BATCH):
        chunk = list(exports[start : start + NODE_BATCH])
        results = _node_batch([[str(p) for p in e.scripts] for e in chunk], work / f"batch-{start}.json")
        for exported, result in zip(chunk, results, strict=True):
            out.extend((exported, failure) for failure in _compare(exported, result))
    return out


def _node_batch(groups: list[list[str]], listing: Path) -> list[dict[str, Any]]:
    listing.write_text(json.dumps(groups), encoding="utf-8")
    env = dict(os.environ)
    env.setdefault("MODELLER_NODE_MODULES", str(ROOT / ".cache" / "node" / "node_modules"))
    proc = subprocess.run(
        [node_binary(), str(HARNESS), "--runs", "2", "--batch", str(listing)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    if proc.returncode == 3:
        pytest.fail(f"{proc.stderr.strip()} -- {SETUP_HINT}")
    assert proc.returncode == 0, f"the batch harness failed:\n{proc.stderr[-3000:]}"
    results: list[dict[str, Any]] = json.loads(proc.stdout)["results"]
    assert len(results) == len(groups)
    return results


def _compare(exported: Exported, result: dict[str, Any]) -> list[Failure]:
    if result["error"] is not None:
        return [Failure("script", result["error"])]
    failures: list[Failure] = []
    created = result["validators"]
    if set(created) != set(exported.validators):
        failures.append(
            Failure("script-collections", f"created {sorted(created)[:5]}, exported {sorted(exported.validators)[:5]}")
        )
    for ns, validator in exported.validators.items():
        expected = None if ns in exported.timeseries else validator
        if ns in created and created[ns] != expected:
            failures.append(Failure("script-validator", f"{ns}: the script's validator differs from the exported one"))
    inserted = {
        ns: json_util.loads(json.dumps(docs), json_options=LOAD_OPTIONS) for ns, docs in result["inserted"].items()
    }
    for ns, docs in exported.samples.items():
        if inserted.get(ns, []) != docs:
            failures.append(Failure("script-samples", f"{ns}: the script inserts other documents than the samples"))
    return failures
