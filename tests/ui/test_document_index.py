"""The document's id -> object indexes follow each edit instead of being built again (issue 16: edit -> findings
<= 200 ms at 10,000 entities; rebuilding the relationship index after every edit was about 60 ms)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.ui import document as document_module
from modeller.ui.document import ProjectDocument as Document


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    built = [0]
    index = document_module._index

    def counted(items):  # type: ignore[no-untyped-def]
        built[0] += 1
        return index(items)

    monkeypatch.setattr(document_module, "_index", counted)
    return built


def _agrees(doc: Document) -> None:
    project = doc.project
    for r in project.relationships:
        assert doc.relationship(r.id) is r
    for e in project.entities:
        assert doc.entity(e.id) is e
    assert doc.relationship("no such relationship") is None
    assert doc.entity("no such entity") is None


def test_edits_keep_the_indexes_without_building_them_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entities and relationships added, removed and replaced (and undone as commands undo them): every lookup
    gives the project's object, and each index was built once."""
    built = _count_builds(monkeypatch)
    doc = Document(generate_project(40, 1.5, 0.5, seed=2))
    _agrees(doc)
    assert built[0] == 2
    rng = random.Random(5)
    for k in range(60):
        rels, ents = doc.project.relationships, doc.project.entities
        roll = k % 6
        if roll == 0:
            at, rel = doc.remove_relationship(rels[rng.randrange(len(rels))].id)
            assert doc.relationship(rel.id) is None
            doc.insert_relationship(at, rel)  # undone
        elif roll == 1:
            doc.remove_relationship(rels[rng.randrange(len(rels))].id)
        elif roll == 2:
            r = rels[rng.randrange(len(rels))]
            doc.replace_relationship(r.model_copy(update={"cardinality": "one-to-few", "max": None}))
        elif roll == 3:
            e = ents[rng.randrange(len(ents))]
            doc.replace_entity(e.model_copy(update={"name": f"{e.name} {k}"}))
        elif roll == 4:
            r = rels[0].model_copy(update={"id": f"drawn_{k}"})
            doc.insert_relationship(len(rels), r)
        else:
            at, e, position = doc.remove_entity(ents[-1].id)
            doc.insert_entity(at, e, position)
        _agrees(doc)
    assert built[0] == 2, "an edit built an index again"


def test_a_repeated_id_is_looked_up_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken file with a repeated relationship id: the lookup gives the last one, also after edits (the index
    cannot follow them and is built again)."""
    project = generate_project(20, 1.5, 0.5, seed=3)
    rels = project.relationships
    twin = rels[1].model_copy(update={"id": rels[0].id})
    doc = Document(project.model_copy(update={"relationships": (*rels, twin)}))
    assert isinstance(doc.project, Project)
    assert doc.relationship(rels[0].id) is twin
    doc.remove_relationship(rels[0].id)  # the first of the two
    assert doc.relationship(rels[0].id) is twin
    doc.remove_relationship(rels[0].id)
    assert doc.relationship(rels[0].id) is None
