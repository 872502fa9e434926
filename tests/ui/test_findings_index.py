"""The findings of a canvas selection: the maps that file them live with the project version (``Lookup``) and the
design (``DesignIndex``) they were made from, not in a module-wide cache two windows would share (review of
session 9); the filter finds a finding's row through the model's own lookup."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.rules.engine import Analyser
from modeller.ui.panels import findings_index
from modeller.ui.panels.design_index import DesignIndex
from modeller.ui.panels.finding_item import Lookup, Selection
from modeller.ui.panels.findings_index import FindingsIndex
from modeller.ui.panels.findings_model import FINDING_ROLE, FindingsFilter, FindingsModel
from modeller.ui.panels.sections import SECTIONS


def _with_rel(project: Project, i: int, **update: object) -> Project:
    rels = project.relationships
    return project.model_copy(update={"relationships": (*rels[:i], rels[i].model_copy(update=update), *rels[i + 1 :])})


def _concerning(project: Project, analyser: Analyser, entity_id: str) -> tuple[list[str], list[str]]:
    """The findings a one-card selection concerns, through the index and by asking every finding."""
    analysis = analyser.analyse(project)
    ids, chosen = Lookup(project), Selection({("entity", entity_id)})
    filed = FindingsIndex(analysis.findings).concerning(chosen, ids, analysis.design)
    asked = [f for f in analysis.findings if chosen.concerns(f, ids, analysis.design)]
    return sorted(map(repr, filed)), sorted(map(repr, asked))


def test_two_projects_asked_in_turn_each_get_their_own_findings() -> None:
    one, two = generate_project(40, 1.5, 0.5, seed=3), generate_project(50, 1.5, 0.5, seed=4)
    analyser_one, analyser_two = Analyser(), Analyser()
    found = 0
    for round_ in range(2):  # in turn, as two windows ask: neither answers with the other's maps
        for project, analyser in ((one, analyser_one), (two, analyser_two)):
            entity = project.entities[7 + round_].id
            filed, asked = _concerning(project, analyser, entity)
            assert filed == asked
            found += len(filed)
    assert found > 8, "the chosen cards must have findings beyond their own, or this test proves nothing"
    module_state = [
        name
        for name, value in vars(findings_index).items()
        if isinstance(value, (dict, list, set)) and not name.startswith("__")
    ]
    assert module_state == []  # nothing a closed project's design stays held by


def test_the_lookup_keeps_the_ends_while_the_relationships_stay() -> None:
    project = generate_project(30, 1.5, 0.5, seed=2)
    ids = Lookup(project)
    ends = ids.ends
    assert ends == _ends(project)
    assert ids.queries_of == {
        e.id: [q.id for q in project.queries if q.entity == e.id] for e in project.entities if _queried(project, e.id)
    }
    first, *rest = project.entities
    renamed = project.model_copy(update={"entities": (first.model_copy(update={"name": "Zed"}), *rest)})
    kept = Lookup(renamed, ids)
    assert kept.name(first.id) == "Zed"
    assert kept.ends is ends and kept.queries_of is ids.queries_of  # relationships and queries are the same tuples
    gone = project.model_copy(update={"relationships": project.relationships[1:]})
    changed = Lookup(gone, kept)
    assert changed.ends == _ends(gone) != ends


def test_the_design_index_keeps_the_listing_while_the_collections_stay() -> None:
    project = generate_project(60, 1.5, 0.5, seed=2)
    analyser = Analyser()
    index = DesignIndex(analyser.analyse(project).design)
    listing = index.listing
    assert listing == _listing(index)
    annotated = DesignIndex(analyser.analyse(_with_rel(project, 0, read_together=0.3)).design, index)
    assert annotated.holder is index.holder and annotated.listing is listing
    for i in range(1, 30, 4):
        project = _with_rel(project, i, strategy="embed", decision=None)
    moved = DesignIndex(analyser.analyse(project).design, annotated)
    assert any(len(coll.entities) > 1 for coll in moved.design.collections), "embedded entities are listed too"
    assert moved.listing == _listing(moved) != listing


def test_the_filter_finds_rows_through_the_model(qapp) -> None:
    project = generate_project(40, 1.5, 0.5, seed=9)
    analysis = Analyser().analyse(project)
    model = FindingsModel()
    model.set_analysis(analysis, Lookup(project))
    for finding in analysis.findings:
        assert model.data(model.index(model.row_of(finding)), FINDING_ROLE) is finding
    other = Analyser().analyse(project).findings[0]  # alike, but not the object listed
    assert model.row_of(other) == -1
    proxy = FindingsFilter(model)
    for section in SECTIONS:
        proxy.set_collapsed(section, False)
    chosen = project.entities[5].id
    proxy.set_filter({("entity", chosen)}, None)
    assert proxy.selecting
    shown = [proxy.data(proxy.index(r, 0), FINDING_ROLE) for r in range(proxy.rowCount())]
    listed = [f for f in shown if f is not None]
    ids = Lookup(project)
    expected = [f for g in model.groups for f in g if Selection({("entity", chosen)}).concerns(f, ids, model.design)]
    assert listed == expected and listed
    proxy.set_filter(None, None)
    assert not proxy.selecting
    assert proxy.rowCount() == model.rowCount()


def _ends(project: Project) -> dict[str, list[str]]:
    return {
        e.id: [r.id for r in project.relationships if e.id in (r.one, r.many)]
        for e in project.entities
        if any(e.id in (r.one, r.many) for r in project.relationships)
    }


def _queried(project: Project, entity_id: str) -> bool:
    return any(q.entity == entity_id for q in project.queries)


def _listing(index: DesignIndex) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for coll in index.design.collections:
        for entity in coll.entities:
            if coll.name not in found.setdefault(entity, []):
                found[entity].append(coll.name)
    return found
