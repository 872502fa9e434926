"""``export --only pydantic,typescript``: the generated models accept every sample document and refuse wrong ones.

The pydantic models are imported from the exported ``models.py`` and validate
the exported ``samples/*.json`` (read back as pymongo would give them); the
TypeScript interfaces are type-checked with ``tsc --noEmit --strict`` together
with a program that assigns every sample document to its collection's type.
Node and the npm ``typescript`` and ``bson`` packages are required
(``scripts/setup-node-deps.sh``): the tests fail, never skip, without them.
"""

from __future__ import annotations

import ast
import copy
import datetime as dt
import importlib.util
import itertools
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from bson import Binary, Decimal128, Int64, ObjectId, json_util
from hand_designs import HOSTILE, tracker_design, tracker_project
from js_harness import ROOT, node_binary
from pydantic import TypeAdapter, ValidationError

from modeller.export import export_project, pydantic_models, sample_documents, typescript_models
from modeller.export.files import safe_file_stem
from modeller.export.literals import js_key, js_string
from modeller.model.text import is_neutral
from modeller.persistence import load_project
from modeller.rules import analyse

PROJECTS = sorted((ROOT / "samples").glob("*.modeller.json")) + sorted(
    (ROOT / "tests" / "export" / "hostile").glob("*.modeller.json")
)
TSC = ROOT / ".cache" / "node" / "node_modules" / "typescript" / "bin" / "tsc"
_COUNTER = itertools.count()


def import_models(path: Path) -> ModuleType:
    """Import a generated ``models.py`` under a fresh module name; any warning it raises is an error."""
    name = f"_generated_models_{next(_COUNTER)}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec.loader.exec_module(module)
    return module


def exported(path: Path, out: Path) -> tuple[ModuleType, dict[str, list[dict[str, Any]]]]:
    """Export samples and both models; the models module and each collection's documents as pymongo reads them."""
    project = load_project(path)
    analysis = analyse(project)
    export_project(project, analysis, out, kinds="samples,pydantic,typescript", samples=4, seed=3)
    taken: set[str] = set()
    docs = {}
    for coll in analysis.design.collections:
        stem = safe_file_stem(coll.name, taken)
        docs[coll.name] = json_util.loads((out / "samples" / f"{stem}.json").read_text(encoding="utf-8"))
    return import_models(out / "models.py"), docs


@pytest.mark.parametrize("path", PROJECTS, ids=lambda p: p.name)
def test_pydantic_models_validate_every_exported_sample(path: Path, tmp_path: Path) -> None:
    models, docs = exported(path, tmp_path)
    assert set(models.COLLECTIONS) == set(docs)
    assert sum(map(len, docs.values())) > 0
    for name, items in docs.items():
        adapter = TypeAdapter(models.COLLECTIONS[name])
        for doc in items:
            value = adapter.validate_python(doc)
            # every key maps back to itself: aliases, nested models and unset optional fields
            assert adapter.dump_python(value, by_alias=True, exclude_unset=True) == doc


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleType, dict[str, list[dict[str, Any]]]]:
    return exported(ROOT / "samples" / "ecommerce.modeller.json", tmp_path_factory.mktemp("shop"))


def _drop(doc: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != key}


@pytest.mark.parametrize(
    ("collection", "wrong", "problem"),
    [
        ("orders", lambda d: _drop(d, "_id"), "_id"),
        ("orders", lambda d: {**d, "status": "lost"}, "status"),
        ("orders", lambda d: {**d, "items": [d["items"][0]] * 51}, "items"),
        ("orders", lambda d: {**d, "user": {**d["user"], "name": 5}}, "user.name"),
        ("orders", lambda d: {**d, "created_at": "2024-01-01"}, "created_at"),
        ("orders", lambda d: {**d, "user": {**d["user"], "_id": "not an id"}}, "user._id"),
        ("orders", lambda d: {**d, "amount": 12.5}, "amount"),
        ("products", lambda d: {**d, "type": "car"}, "type"),
        ("products", lambda d: {**d, "specs": {**d.get("specs", {}), "ram": "8"}}, "specs.ram"),
        ("products", lambda d: {**d, "specs": {**d.get("specs", {}), "ram": 2**31}}, "specs.ram"),
        ("reviews", lambda d: {**d, "stars": 6}, "stars"),
        ("reviews", lambda d: {**d, "stars": True}, "stars"),
        ("reviews", lambda d: {**d, "stars": 3.0}, "stars"),  # Literal[3] accepts 3.0; the validator's int does not
    ],
)
def test_a_wrong_document_is_refused(
    shop: tuple[ModuleType, dict[str, list[dict[str, Any]]]], collection: str, wrong: Any, problem: str
) -> None:
    models, docs = shop
    adapter = TypeAdapter(models.COLLECTIONS[collection])
    doc = next(d for d in docs[collection] if collection != "products" or d["type"] == "phone")
    adapter.validate_python(doc)  # the right one passes
    with pytest.raises(ValidationError) as caught:
        adapter.validate_python(wrong(copy.deepcopy(doc)))
    located = {
        ".".join(str(p) for p in error["loc"] if not str(p).startswith("Product")) for error in caught.value.errors()
    }
    if problem == "type":  # an unknown discriminator value: the union itself refuses, naming the tag
        assert [e["type"] for e in caught.value.errors()] == ["union_tag_invalid"]
        assert "'car'" in str(caught.value)
    else:
        assert any(loc.endswith(problem) or problem + "." in loc + "." for loc in located), located


def test_subtypes_are_a_discriminated_union_and_unknown_keys_are_kept(
    shop: tuple[ModuleType, dict[str, list[dict[str, Any]]]],
) -> None:
    models, docs = shop
    adapter = TypeAdapter(models.COLLECTIONS["products"])
    laptop = next(d for d in docs["products"] if d["type"] == "laptop")
    assert type(adapter.validate_python(laptop)).__name__ == "ProductLaptop"
    assert adapter.validate_python({**laptop, "colour": "grey"}).colour == "grey"
    order = models.Order.model_validate(docs["orders"][0])
    assert isinstance(order.id, ObjectId) and isinstance(order.amount, Decimal128)
    as_json = json.loads(order.model_dump_json(by_alias=True))
    assert as_json["_id"] == str(docs["orders"][0]["_id"])
    assert models.Order.model_validate_json(json.dumps(as_json)).id == order.id


def test_hostile_names_stay_data(tmp_path: Path) -> None:
    design, project = tracker_design(HOSTILE), tracker_project(HOSTILE)
    source = pydantic_models(design, project)
    # user names are only ever data: every identifier is plain ASCII, and no line holds a control or bidi character
    identifiers = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
    identifiers |= {n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)}
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) for name in identifiers), identifiers
    assert all(is_neutral(line) for line in source.split("\n"))
    assert '"ta\\nsks */ ${x} `tick`"' in source  # the collection's name, as a string literal
    (tmp_path / "models.py").write_text(source, encoding="utf-8")
    models = import_models(tmp_path / "models.py")
    docs = sample_documents(design, project, 3, 1)
    assert set(models.COLLECTIONS) == set(docs)
    for name, items in docs.items():
        adapter = TypeAdapter(models.COLLECTIONS[name])
        for doc in items:
            assert adapter.dump_python(adapter.validate_python(doc), by_alias=True, exclude_unset=True) == doc
    (tmp_path / "models.ts").write_text(typescript_models(design, project), encoding="utf-8")
    (tmp_path / "check.ts").write_text(ts_program(docs, models.COLLECTIONS), encoding="utf-8")
    assert tsc(tmp_path, [tmp_path / "models.ts", tmp_path / "check.ts"]) == ""


# ---- TypeScript


def ts_value(value: Any) -> str:
    """A sample value as a TypeScript expression of the type the Node.js driver returns."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{js_key(k)}: {ts_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(ts_value(v) for v in value) + "]"
    if isinstance(value, ObjectId):
        return f'new ObjectId("{value}")'
    if isinstance(value, Decimal128):
        return f'Decimal128.fromString("{value}")'
    if isinstance(value, dt.datetime):
        return f'new Date("{value.isoformat()}")'
    if isinstance(value, Binary | bytes):
        subtype = value.subtype if isinstance(value, Binary) else 0
        return f"new Binary(new Uint8Array([{', '.join(str(b) for b in bytes(value))}]), {subtype})"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Int64 | int | float):
        return repr(int(value) if isinstance(value, Int64) else value)
    assert isinstance(value, str), type(value)
    return js_string(value)


def ts_program(docs: dict[str, list[dict[str, Any]]], collections: dict[str, Any]) -> str:
    """Assign every document to its collection's type (through the ``Collections`` map: no name guessing)."""
    lines = [
        'import { Binary, Decimal128, ObjectId } from "bson";',
        'import type { Collections } from "./models";',
    ]
    for n, (name, items) in enumerate(docs.items()):
        assert name in collections
        for i, doc in enumerate(items):
            lines.append(f"export const doc_{n}_{i}: Collections[{js_string(name)}] = {ts_value(doc)};")
    return "\n".join(lines) + "\n"


def tsc(folder: Path, files: list[Path]) -> str:
    """``tsc --noEmit --strict`` on ``files`` (``bson`` resolved from .cache/node); its complaints, or ''."""
    if not TSC.is_file():
        pytest.fail("the npm package 'typescript' is missing: run scripts/setup-node-deps.sh")
    link = folder / "node_modules"
    if not link.exists():
        link.symlink_to(TSC.parents[2], target_is_directory=True)
    command = [node_binary(), str(TSC), "--noEmit", "--strict", "--target", "es2022", "--module", "nodenext"]
    proc = subprocess.run([*command, *map(str, files)], capture_output=True, text=True, timeout=300, cwd=folder)
    return (proc.stdout + proc.stderr).strip() if proc.returncode else ""


@pytest.mark.slow
def test_typescript_models_type_check_with_every_sample_assigned(tmp_path: Path) -> None:
    files = []
    for n, path in enumerate(PROJECTS):
        folder = tmp_path / f"p{n}"
        models, docs = exported(path, folder)
        (folder / "check.ts").write_text(ts_program(docs, models.COLLECTIONS), encoding="utf-8")
        files += [folder / "models.ts", folder / "check.ts"]
    assert tsc(tmp_path, files) == ""


def test_typescript_refuses_a_wrong_document(shop: tuple[ModuleType, dict[str, Any]], tmp_path: Path) -> None:
    project = load_project(ROOT / "samples" / "ecommerce.modeller.json")
    (tmp_path / "models.ts").write_text(typescript_models(analyse(project).design, project), encoding="utf-8")
    models, docs = shop
    wrong = {
        "orders": [{**docs["orders"][0], "status": "lost"}],
        "products": [{**docs["products"][0], "type": "car"}],
        "reviews": [_drop(docs["reviews"][0], "created_at")],
    }
    (tmp_path / "check.ts").write_text(ts_program(wrong, models.COLLECTIONS), encoding="utf-8")
    complaints = tsc(tmp_path, [tmp_path / "models.ts", tmp_path / "check.ts"])
    assert '"lost"' in complaints
    assert '"car"' in complaints
    assert "created_at" in complaints
