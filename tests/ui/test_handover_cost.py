"""Issue 16, the UI thread's share of an open and of an analysis: what the docks and the canvas do is
proportional to what changed or is in sight, and still shows everything right.

The entity combos read one list model that follows the document; the findings rows keep their texts
until a name they show changes; the counts and the canvas markers come from one pass per analysis
(made in the analysis worker); a large canvas is marked in sight first, the rest in slices.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.ui import live
from modeller.ui.analysis import _prepared, engine_analyse
from modeller.ui.analysis_changes import relabelled
from modeller.ui.commands import EditRelationshipCommand
from modeller.ui.commands.entity import AddEntityCommand, EditEntityCommand
from modeller.ui.panels import analysis_facts
from modeller.ui.panels.analysis_facts import count, facts
from modeller.ui.panels.finding_item import lookup
from modeller.ui.panels.findings_model import FINDING_ROLE
from modeller.ui.panels.preview import _linked_collections


def small_project(n: int = 40) -> Project:
    return generate_project(n, 1.5, 0.5, seed=3)


def combo_texts(combo) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]


def test_entity_choices_list_every_entity_and_a_rename_changes_one_row(window) -> None:
    project = small_project()
    window.document.reset(project)
    ends = window.properties.relationship_editor
    query_entity = window.queries.editor.entity
    assert combo_texts(ends.one.combo) == [e.name for e in project.entities]  # names, never generated ids
    assert combo_texts(ends.many.combo) == combo_texts(ends.one.combo)
    assert combo_texts(query_entity.combo) == [e.name for e in project.entities]
    assert [ends.one.combo.itemData(i) for i in range(ends.one.combo.count())] == [e.id for e in project.entities]

    rel = project.relationships[0]
    ends.show_relationship(rel.id)
    assert ends.one.combo.currentData() == rel.one and ends.many.combo.currentData() == rel.many
    changed: list[tuple[int, int]] = []
    ends.entity_choices.dataChanged.connect(lambda top, bottom, *_: changed.append((top.row(), bottom.row())))
    resets: list[bool] = []
    ends.entity_choices.modelReset.connect(lambda: resets.append(True))

    target = window.document.entity(rel.one)
    assert target is not None
    row = [e.id for e in project.entities].index(rel.one)
    window.document.push(EditEntityCommand(window.document, target.model_copy(update={"name": "Renamed Thing"})))

    assert changed == [(row, row)] and not resets  # one row, no refill
    assert ends.one.combo.itemText(row) == "Renamed Thing"
    assert query_entity.combo.itemText(row) == "Renamed Thing"
    assert ends.one.combo.currentData() == rel.one  # the shown end stays chosen
    assert "Renamed Thing" in ends.title.text()


def test_a_new_entity_refills_the_choices_without_editing_the_shown_relationship(window) -> None:
    project = small_project()
    window.document.reset(project)
    ends = window.properties.relationship_editor
    rel = project.relationships[5]
    ends.show_relationship(rel.id)
    steps = window.document.undo_stack.count()

    added = project.entities[0].model_copy(update={"id": "zz_added", "name": "Zz Added"})
    window.document.push(AddEntityCommand(window.document, added, None))

    assert window.document.undo_stack.count() == steps + 1  # the add alone: the combos' refill applied nothing
    assert window.document.relationship(rel.id) == rel
    assert ends.one.combo.currentData() == rel.one and ends.many.combo.currentData() == rel.many
    assert combo_texts(window.queries.editor.entity.combo)[-1] == "Zz Added"

    window.document.undo_stack.undo()
    assert "Zz Added" not in combo_texts(window.queries.editor.entity.combo)
    assert ends.one.combo.currentData() == rel.one


def test_opening_another_project_lists_its_entities(window) -> None:
    window.document.reset(small_project(40))
    other = generate_project(25, 1.0, 0.5, seed=11)
    window.document.reset(other)
    assert combo_texts(window.queries.editor.entity.combo) == [e.name for e in other.entities]
    assert window.properties.relationship_editor.one.combo.count() == len(other.entities)


def test_a_rename_reaches_the_rows_of_the_findings_list(make_window) -> None:
    window = make_window(use_engine=True)
    window.document.reset(small_project())
    window.analysis.run_now()
    model = window.recommendations.model
    rows = [model.index(r) for r in range(model.rowCount())]
    about = next(i for i in rows if (f := i.data(FINDING_ROLE)) is not None and f.subject.kind == "entity")
    entity = window.document.entity(about.data(FINDING_ROLE).subject.id)
    assert entity is not None and entity.name in about.data()

    window.document.push(EditEntityCommand(window.document, entity.model_copy(update={"name": "Quokka Ledger"})))
    window.analysis.run_now()

    texts = [model.index(r).data() for r in range(model.rowCount())]
    mentions = [t for t in texts if "Quokka Ledger" in t]
    assert mentions, "the renamed entity's rows must show its new name"
    assert not any(t.startswith(f"{entity.name}:") for t in texts)


def test_subject_labels_are_rechecked_only_for_what_an_edit_touched(window) -> None:
    project = small_project()
    window.document.reset(project)
    before = lookup(window.document.project)
    rel = project.relationships[2]
    edited = rel.model_copy(update={"cardinality": "one-to-squillions", "max": None, "typical": None})
    window.document.push(EditRelationshipCommand(window.document, edited))
    after = lookup(window.document.project)
    assert after.names is before.names  # the entities were not touched: their map is shared
    assert after.rels is not before.rels and after.rels[rel.id].cardinality == "one-to-squillions"
    assert not relabelled(before.project, after.project)  # same ends, same names: no row reads differently

    flipped = edited.model_copy(update={"one": rel.many, "many": rel.one})
    window.document.push(EditRelationshipCommand(window.document, flipped))
    assert relabelled(after.project, window.document.project)

    entity = window.document.project.entities[0]
    current = lookup(window.document.project)
    window.document.push(EditEntityCommand(window.document, entity.model_copy(update={"name": "Other Name"})))
    assert relabelled(current.project, window.document.project)


def test_the_worker_prepares_the_facts_the_hand_over_reads() -> None:
    project = small_project()
    result = _prepared(engine_analyse())(project)
    prepared = [known for a, p, known in analysis_facts._recent if a is result and p is project]
    assert len(prepared) == 1
    assert facts(result, project) is prepared[0]  # the UI thread counts nothing again
    again = count(result, project)
    assert again == prepared[0]
    assert sum(again.opened.values()) == sum(1 for f in result.findings if not f.overridden)
    assert again.decisions + sum(again.todo.values()) == sum(again.opened.values())


def test_a_large_canvas_is_marked_in_sight_first_and_completely_in_the_end(
    make_window, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "SYNC_BUILD_MAX", 0)  # every canvas counts as large
    window = make_window(use_engine=True)
    window.document.reset(small_project(60))
    window.scene.finish_build()
    window.view.resetTransform()
    window.view.centerOn(window.scene.entity_items[window.document.project.entities[0].id])
    window.analysis.run_now()
    analysis = window.analysis.latest
    known = facts(analysis, window.document.project)
    assert known.entity_marks or known.rel_marks, "the project must have markers, or this test proves nothing"

    controller = window.live
    assert controller.markers_pending, "a large canvas leaves the items out of sight for later slices"
    for item in controller._in_sight():
        if hasattr(item, "entity_id"):
            assert item.marker == known.entity_marks.get(item.entity_id)
        elif hasattr(item, "rel_id"):
            assert item.marker == known.rel_marks.get(item.rel_id)

    qtbot.waitUntil(lambda: not controller.markers_pending, timeout=20_000)
    for entity_id, item in window.scene.entity_items.items():
        assert item.marker == known.entity_marks.get(entity_id)
    for rel_id, item in window.scene.relationship_items.items():
        assert item.marker == known.rel_marks.get(rel_id)


def test_the_preview_stops_walking_references_at_its_limit() -> None:
    project = generate_project(120, 1.5, 0.5, seed=0)
    design = engine_analyse()(project).design
    name = design.collections[0].name
    whole = _linked_collections(design, name)
    assert len(whole) > 12, "the generated references must reach far, or this test proves nothing"
    part = _linked_collections(design, name, limit=10)
    assert 10 < len(part) < len(whole)
    assert part == whole[: len(part)]


def test_the_query_list_shows_every_query_and_keeps_its_rows_through_an_entity_rename(window) -> None:
    project = small_project()
    window.document.reset(project)
    panel = window.queries
    assert project.queries, "the generated project must declare queries, or this test proves nothing"
    rows = panel.rows
    assert [rows.index(r).data(Qt.ItemDataRole.UserRole) for r in range(rows.rowCount())] == [
        q.id for q in project.queries
    ]
    query = project.queries[len(project.queries) // 2]
    panel.select(query.id)
    assert panel.editor.query_id == query.id
    resets: list[bool] = []
    rows.modelReset.connect(lambda: resets.append(True))

    entity = window.document.entity(query.entity)
    assert entity is not None
    window.document.push(EditEntityCommand(window.document, entity.model_copy(update={"name": "Wombat Files"})))

    assert not resets  # the same queries: their texts are re-read, the rows stay
    assert "Wombat Files" in rows.index(rows.row_of(query.id)).data()
    assert panel.list.currentIndex().data(Qt.ItemDataRole.UserRole) == query.id
    assert panel.editor.query_id == query.id
