"""End to end on the seed samples: analyse, export, run the script, check every sample document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bson_checker import errors, load_docs
from js_harness import calls, node_check, run_scripts
from seed_support import analysed, check_golden, check_golden_folder, sample_ids

from modeller.export import dot_source, export_project, mongosh_script, sample_documents, validator_json
from modeller.export.mongosh import shard_key_index
from modeller.export.validators import validator_document
from modeller.rules.physical.design import Design, ShapeNode

SAMPLES = sample_ids()


def test_there_are_seed_samples() -> None:
    assert len(SAMPLES) >= 5


def _walk(nodes: list[ShapeNode], value: Any, found: list[tuple[ShapeNode, Any]]) -> None:
    """Pairs (node, value) for every node that holds a reference, down through sub-documents and arrays."""
    if not isinstance(value, dict):
        return
    for node in nodes:
        if node.name not in value:
            continue
        item = value[node.name]
        holds_ids = node.items is None or node.items.bson_type != "object"
        if node.ref_collection and node.role in ("parent-ref", "child-refs") and holds_ids:
            found.append((node, item))
        if node.ref_collection and node.source is not None and node.source.path == "_id":
            found.append((node, item))
        if node.role in ("extended-ref", "subset") and node.ref_collection:
            elements = item if isinstance(item, list) else [item]
            found.extend((node, element.get("_id")) for element in elements if isinstance(element, dict))
        children = node.children if node.bson_type == "object" else (node.items.children if node.items else [])
        elements = item if isinstance(item, list) else [item]
        for element in elements:
            _walk(children, element, found)


def _references(design: Design, docs: dict[str, list[dict[str, Any]]]) -> list[tuple[str, str, Any]]:
    out = []
    for coll in [*design.collections, *design.companions]:
        for doc in docs[coll.name]:
            found: list[tuple[ShapeNode, Any]] = []
            _walk(coll.shape, doc, found)
            for node, value in found:
                values = value if isinstance(value, list) else [value]
                out.extend((coll.name, node.ref_collection or "", v) for v in values if v is not None)
    return out


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_document_passes_its_validator_and_references_resolve(sample: str) -> None:
    project, analysis = analysed(sample)
    design = analysis.design
    docs = sample_documents(design, project, n=5, seed=0)
    every = [*design.collections, *design.companions]  # revisions, archive, overflow: the setup script fills them too
    for coll in every:
        assert docs[coll.name], coll.name
        for doc in docs[coll.name]:
            assert errors(coll.validator, doc) == [], (coll.name, doc)
    ids = {coll.name: {doc["_id"] for doc in docs[coll.name]} for coll in every}
    for holder, target, value in _references(design, docs):
        assert value in ids[target], f"{holder} references {value!r}, which is not a document of {target}"


@pytest.mark.parametrize("sample", SAMPLES)
def test_copies_equal_their_sources(sample: str) -> None:
    project, analysis = analysed(sample)
    design = analysis.design
    docs = sample_documents(design, project, n=5, seed=3)
    by_entity = {c.entities[0]: c.name for c in design.collections}
    index = {c.name: {d["_id"]: d for d in docs[c.name]} for c in design.collections}
    for coll in design.collections:
        refs = {n.relationship: n.name for n in coll.shape if n.role == "parent-ref" and n.relationship}
        for node in coll.shape:
            if node.role != "denormalized" or node.source is None or node.relationship not in refs:
                continue
            source_coll = by_entity.get(node.source.entity)
            if source_coll is None:
                continue
            for doc in docs[coll.name]:
                source = index[source_coll][doc[refs[node.relationship]]]
                assert doc.get(node.name) == source.get(node.source.path), (coll.name, node.name)


@pytest.mark.parametrize("sample", SAMPLES)
def test_golden_script_validators_and_dot(sample: str) -> None:
    project, analysis = analysed(sample)
    design = analysis.design
    check_golden(f"{sample}/setup.mongosh.js", mongosh_script(design, project, findings=analysis.findings))
    check_golden(f"{sample}/diagram.dot", dot_source(design, project))
    for coll in design.collections:
        check_golden(f"{sample}/validators/{coll.name}.json", validator_json(coll))
    check_golden_folder(f"{sample}/validators", {f"{coll.name}.json" for coll in design.collections})


@pytest.mark.node
@pytest.mark.parametrize("sample", SAMPLES)
def test_full_export_runs_idempotently_in_the_stand_in(sample: str, tmp_path: Path) -> None:
    project, analysis = analysed(sample)
    design = analysis.design
    result = export_project(
        project, analysis, tmp_path / "out", with_samples=True, with_sharding=True, render_diagram=False
    )
    out = tmp_path / "out"
    for name in ("setup.mongosh.js", "indexes.mongosh.js"):
        node_check(out / name)
    rec = run_scripts(out / "setup.mongosh.js", runs=2)
    created = calls(rec, 0, "createCollection")
    made = [*design.collections, *design.companions]  # companions: revisions and archive collections
    assert [c["collection"] for c in created] == [c.name for c in made]
    for call, coll in zip(created, made, strict=True):
        if not coll.timeseries:
            assert call["options"]["validator"] == validator_document(coll)
    indexes = [(c["collection"], c["options"]["name"]) for c in calls(rec, 0, "createIndex")]
    shard_indexes = [(c.name, found[1]) for c in design.collections if (found := shard_key_index(design, c))]
    assert indexes == [(c.name, i.name) for c in made for i in c.indexes] + shard_indexes
    assert calls(rec, 1, "createCollection") == [] and calls(rec, 1, "insertOne") == []
    assert all(not c["created"] for c in calls(rec, 1, "createIndex"))
    for coll in design.collections:
        written = load_docs((out / "samples" / f"{coll.name}.json").read_text(encoding="utf-8"))
        assert len(written) >= 5
        assert all(errors(coll.validator, doc) == [] for doc in written)
    assert (out / "DESIGN.md") in result.files and (out / "diagram.dot") in result.files


@pytest.mark.parametrize("sample", SAMPLES)
def test_same_project_and_seed_give_byte_identical_exports(sample: str, tmp_path: Path) -> None:
    project, analysis = analysed(sample)
    first = export_project(project, analysis, tmp_path / "a", seed=4, with_samples=True, render_diagram=False)
    second = export_project(project, analysis, tmp_path / "b", seed=4, with_samples=True, render_diagram=False)
    names = [p.relative_to(tmp_path / "a") for p in first.files]
    assert names == [p.relative_to(tmp_path / "b") for p in second.files]
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
