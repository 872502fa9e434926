"""Readable ids: a placeholder id is offered the name's id; renaming moves every reference in one undo entry."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt

from modeller.model import Override, Query, Subject
from modeller.model.checks import check_project
from modeller.persistence import load_project, save_project
from modeller.ui.commands import AddQueryCommand
from modeller.ui.commands.apply_fix import SetOverridesCommand
from modeller.ui.ids import is_placeholder, offered_id
from modeller.ui.main_window import MainWindow

from .conftest import load_sample, sample
from .helpers import body_point, drag, drop_from_palette, handle_point


def rename(window: MainWindow, name: str, qtbot) -> None:
    line = window.properties.entity_editor.form.editor(["name"]).widget
    line.setFocus()
    line.selectAll()
    qtbot.keyClicks(line, name)
    qtbot.keyClick(line, Qt.Key.Key_Tab)


def drawn_person_and_task(window: MainWindow, qtbot) -> None:
    """Two palette entities connected by a mouse drag, a query joining them, two overrides."""
    drop_from_palette(window, 0, QPoint(150, 150))
    rename(window, "Person", qtbot)
    drop_from_palette(window, 0, QPoint(600, 170))
    rename(window, "Task", qtbot)
    drag(window, handle_point(window, "entity"), body_point(window, "entity_2"))
    doc = window.document
    assert [r.id for r in doc.project.relationships] == ["entity_entity_2"]
    doc.push(AddQueryCommand(doc, Query(id="open_tasks", entity="entity_2", joins=["entity_entity_2"])))
    overrides = [
        Override(rule="unbounded-array", subject=Subject(kind="entity", id="entity"), note="kept"),
        Override(rule="index-missing", subject=Subject(kind="field", id="entity_2.title"), note="later"),
        Override(rule="two-way", subject=Subject(kind="relationship", id="entity_entity_2"), note="fine"),
    ]
    doc.push(SetOverridesCommand(doc, overrides, "Override"))


def test_placeholder_ids_follow_names_with_every_reference(window: MainWindow, qtbot, tmp_path: Path) -> None:
    drawn_person_and_task(window, qtbot)
    doc, stack = window.document, window.document.undo_stack
    before = doc.project.model_copy(deep=True)
    position = doc.position("entity")

    window.scene.select_only(entity_ids=["entity"])
    row = window.properties.entity_editor.id_row
    assert row.line.text() == "entity"
    assert row.offer.isVisibleTo(window.properties) and row.offer.text() == "Use id 'person'"
    count = stack.count()
    row.offer.click()

    p = doc.project
    assert [e.id for e in p.entities] == ["person", "entity_2"]  # same place in the list
    assert (p.relationships[0].one, p.relationships[0].many) == ("person", "entity_2")
    assert doc.position("person") == position and "entity" not in p.layout
    assert [o.subject.id for o in p.overrides] == ["person", "entity_2.title", "entity_entity_2"]
    assert stack.count() == count + 1 and stack.undoText() == "Rename id entity → person"
    # the canvas and the panel follow the object under its new id
    assert set(window.scene.entity_items) == {"person", "entity_2"}
    assert window.scene.selected_entity_ids() == ["person"]
    assert window.properties.entity_editor.entity_id == "person"
    assert not row.offer.isVisibleTo(window.properties) and row.line.text() == "person"
    line = window.scene.relationship_items["entity_entity_2"]
    assert line.isVisible() and line.end_points()[0] != line.end_points()[1]

    window.scene.select_only(entity_ids=["entity_2"])
    window.properties.entity_editor.id_row.offer.click()
    p = doc.project
    assert p.queries[0].entity == "task" and p.overrides[1].subject.id == "task.title"

    window.scene.select_only(rel_ids=["entity_entity_2"])
    rel_row = window.properties.relationship_editor.id_row
    assert rel_row.offer.text() == "Use id 'person_tasks'"
    rel_row.offer.click()
    p = doc.project
    assert [r.id for r in p.relationships] == ["person_tasks"]
    assert p.queries[0].joins == ("person_tasks",) and p.overrides[2].subject.id == "person_tasks"
    assert window.scene.selected_relationship_ids() == ["person_tasks"]
    assert check_project(p) == []
    after = p.model_copy(deep=True)

    for _ in range(3):
        stack.undo()
    assert doc.project == before
    assert set(window.scene.entity_items) == {"entity", "entity_2"}
    for _ in range(3):
        stack.redo()
    assert doc.project == after

    path = tmp_path / "renamed.modeller.json"
    save_project(doc.project, path)
    assert load_project(path) == after


def test_manual_rename_refused_inline(window: MainWindow, qtbot) -> None:
    assert window.open_path(sample("task-tracker"), ask=False)
    window.scene.select_only(entity_ids=["task"])
    row = window.properties.entity_editor.id_row
    before = window.document.project.model_copy(deep=True)
    for text, reason in (("bad id!", "must start with a letter"), ("person", "'person' is already used")):
        row.line.setFocus()
        row.line.selectAll()
        qtbot.keyClicks(row.line, text)
        qtbot.keyClick(row.line, Qt.Key.Key_Return)
        assert reason in row.error.text() and row.error.isVisibleTo(window.properties)
    assert window.document.project == before and window.document.undo_stack.count() == 0

    row.line.selectAll()
    qtbot.keyClicks(row.line, "todo")
    qtbot.keyClick(row.line, Qt.Key.Key_Return)
    assert [e.id for e in window.document.project.entities] == ["person", "todo"]
    assert window.document.project.relationships[0].many == "todo"
    assert all(q.entity in ("person", "todo") for q in window.document.project.queries)
    assert window.document.undo_stack.undoText() == "Rename id task → todo"
    assert not row.error.isVisibleTo(window.properties)


def test_ids_a_person_chose_are_never_offered_a_change(window: MainWindow, qtbot) -> None:
    assert window.open_path(sample("task-tracker"), ask=False)
    window.scene.select_only(entity_ids=["person"])
    rename(window, "Human", qtbot)
    assert window.document.entity("person").name == "Human"
    assert not window.properties.entity_editor.id_row.offer.isVisibleTo(window.properties)


def test_placeholder_rules() -> None:
    assert is_placeholder("entity", "entity") and is_placeholder("entity", "lookup_12")
    assert not is_placeholder("entity", "person") and not is_placeholder("entity", "entity_x")
    assert is_placeholder("relationship", "entity_entity_2") and not is_placeholder("relationship", "person_tasks")
    assert is_placeholder("query", "task_query_2") and not is_placeholder("query", "open_tasks")
    project = load_sample("task-tracker")
    # a placeholder whose name still is the default is not offered anything
    renamed = project.model_copy(
        update={"entities": [project.entities[0].model_copy(update={"id": "entity", "name": "Entity"})]}
    )
    assert offered_id(renamed, "entity", "entity") is None
    hostile = project.model_copy(
        update={"entities": [project.entities[0].model_copy(update={"id": "entity", "name": 'Ta"sk </script> ${x}'})]}
    )
    offer = offered_id(hostile, "entity", "entity")
    assert offer is not None and offer.replace("_", "").isalnum()
    chinese = project.model_copy(
        update={"entities": [project.entities[0].model_copy(update={"id": "entity", "name": "用户"})]}
    )
    assert offered_id(chinese, "entity", "entity") is None
