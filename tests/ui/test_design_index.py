"""The design index built from the previous design's index answers as a fresh one does (issue 16: after a
patched edit only the replaced collections are looked up again)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.rules.engine import Analyser
from modeller.ui.panels.design_index import DesignIndex


def _with_rel(project: Project, i: int, **update: object) -> Project:
    rels = project.relationships
    return project.model_copy(update={"relationships": (*rels[:i], rels[i].model_copy(update=update), *rels[i + 1 :])})


def _answers(index: DesignIndex, project: Project) -> tuple[dict[str, object], dict[str, str | None]]:
    return dict(index.collections), {e.id: index.collection_for_entity(e.id) for e in project.entities}


def test_an_index_built_from_the_previous_one_equals_a_fresh_one() -> None:
    project = generate_project(80, 1.5, 0.5, seed=2)
    analyser = Analyser()
    index = DesignIndex(analyser.analyse(project).design)
    shared = regrouped = 0
    # annotations that keep the collections (patched), then strategies that move entities between collections
    steps = [
        *[(i, {"read_together": 0.1 * (i % 9)}) for i in range(0, 30, 3)],
        *[(i, {"strategy": "embed", "decision": None}) for i in range(1, 30, 4)],
        *[(i, {"strategy": "parent-ref", "decision": None}) for i in range(1, 30, 4)],
    ]
    for i, update in steps:
        project = _with_rel(project, i, **update)
        design = analyser.analyse(project).design
        built = DesignIndex(design, index)
        fresh = DesignIndex(design)
        assert _answers(built, project) == _answers(fresh, project), (i, update)
        assert all(built.collections[name] is coll for name, coll in fresh.collections.items())
        shared += built.holder is index.holder
        regrouped += fresh.holder != index.holder
        index = built
    assert shared >= 5, "most annotation edits must reuse the previous holders, or this test proves nothing"
    assert regrouped >= 1, "a strategy edit must move an entity to another collection, or this test proves nothing"
