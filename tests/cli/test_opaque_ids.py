"""No id reaches text a user reads: every sample with its ids renamed to opaque tokens (``zq001x``) goes
through check (text, json, sarif), design (text, json), export (every kind), diff (text, markdown, json, the
migration script) and the GUI's finding texts; a token anywhere outside the keys that hold ids by contract is a
leaked id. Generated ids (``entity_2``, ``entity_entity_2``) read almost like words, so only a token shows them.

Keys that hold ids by contract (scripts join on them) and may carry a token: ``check --format json``
``subject.id``, ``fix.changes[].subject.id`` and ``numbers``; SARIF ``logicalLocations`` (``fullyQualifiedName``)
and ``properties``; ``design --format json`` ``id``, ``entities``, ``entity``, ``relationship``, ``queries``, ``source_entity``, ``targeted_queries``
(each relationship and query also carries its ``name``, each collection its ``entity_names``, each copy its
``source_name``); ``diff --format
json`` ``subject``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modeller.cli.main import main
from modeller.model import Field
from modeller.persistence import dumps_project, load_project
from tests.opaque_ids import TOKEN, opaque

SAMPLES = sorted(Path(__file__).resolve().parents[2].joinpath("samples").glob("*.modeller.json"))

#: JSON keys that hold ids by contract (see the module docstring)
ID_KEYS = {
    "id",
    "entities",
    "entity",
    "relationship",
    "queries",
    "source_entity",
    "targeted_queries",
    "numbers",
    "logicalLocations",
    "subject",
}


def without_id_keys(data: Any) -> Any:
    """``data`` with every key that holds ids by contract dropped, at any depth."""
    if isinstance(data, dict):
        return {k: without_id_keys(v) for k, v in data.items() if k not in ID_KEYS}
    if isinstance(data, list):
        return [without_id_keys(v) for v in data]
    return data


def leaks(where: str, text: str) -> list[str]:
    return [f"{where}: {m.group(0)} in …{text[max(0, m.start() - 60) : m.end() + 30]}…" for m in TOKEN.finditer(text)]


def test_the_tokens_are_found_and_every_reference_follows(tmp_path: Path) -> None:
    project, renamed = opaque(load_project(SAMPLES[0]))
    assert leaks("x", "copy zq001x.name") and not leaks("x", "copy User.name")
    assert all(TOKEN.fullmatch(e.id) for e in project.entities) and len(renamed) >= 3
    path = tmp_path / "p.modeller.json"
    path.write_text(dumps_project(project), encoding="utf-8")
    assert main(["validate", str(path)]) == 0  # every reference was rewritten


def _run(capsys, *args: str) -> str:
    main(list(args))
    return capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_no_id_in_cli_output_exports_or_diffs(sample: Path, tmp_path: Path, capsys) -> None:
    project, _ = opaque(load_project(sample))
    path = tmp_path / sample.name
    path.write_text(dumps_project(project), encoding="utf-8")
    found: list[str] = []
    found += leaks("check text", _run(capsys, "check", str(path)))
    found += leaks(
        "check json", json.dumps(without_id_keys(json.loads(_run(capsys, "check", "--format", "json", str(path)))))
    )
    sarif = json.loads(_run(capsys, "check", "--format", "sarif", str(path)))
    found += leaks("check sarif", json.dumps(without_id_keys(sarif), ensure_ascii=False))
    found += leaks("design text", _run(capsys, "design", str(path)))
    design = json.loads(_run(capsys, "design", "--format", "json", str(path)))
    assert all(rel["name"] for rel in design["relationships"]) and all(q["name"] for q in design["queries"])
    found += leaks("design json", json.dumps(without_id_keys(design), ensure_ascii=False))
    out = tmp_path / "out"
    assert main(["export", "--no-render", "--with-samples", "--with-sharding", "--out", str(out), str(path)]) == 0
    capsys.readouterr()
    for file in sorted(p for p in out.rglob("*") if p.is_file()):
        found += leaks(f"export {file.name}", file.read_text(encoding="utf-8"))
    # the diff against the same project with an edit: every entity given a field, one strategy
    # changed, one query removed
    added = Field(name="zz_added", type="string")
    rels = list(project.relationships)
    if rels:
        rels[0] = rels[0].model_copy(update={"strategy": "parent-ref" if rels[0].strategy != "parent-ref" else "auto"})
    edited = project.model_copy(
        update={
            "entities": tuple(e.model_copy(update={"fields": (*e.fields, added)}) for e in project.entities),
            "relationships": tuple(rels),
            "queries": project.queries[:-1],
        }
    )
    new = tmp_path / "new.modeller.json"
    new.write_text(dumps_project(edited), encoding="utf-8")
    migration = tmp_path / "migration.mongosh.js"
    for fmt in ("text", "markdown"):
        found += leaks(f"diff {fmt}", _run(capsys, "diff", "--format", fmt, str(path), str(new)))
    diff = json.loads(_run(capsys, "diff", "--format", "json", "--migration", str(migration), str(path), str(new)))
    found += leaks("diff json", json.dumps(without_id_keys(diff), ensure_ascii=False))
    found += leaks("migration", migration.read_text(encoding="utf-8"))
    assert not found, "\n".join(found)
