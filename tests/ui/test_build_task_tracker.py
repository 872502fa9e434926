"""The issue's acceptance story: draw the seeds' task tracker through the UI only."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from modeller.model import Entity, Position, Relationship
from modeller.ui.document import empty_project
from modeller.ui.main_window import MainWindow

from .helpers import body_point, drag, drop_from_palette, handle_point


def rename(window: MainWindow, name: str, qtbot) -> None:
    line = window.properties.entity_editor.form.editor(["name"]).widget
    line.setFocus()
    line.selectAll()
    qtbot.keyClicks(line, name)
    qtbot.keyClick(line, Qt.Key.Key_Return)


def dropped_at(window: MainWindow, point: QPoint) -> Position:
    """Where a drop at viewport ``point`` puts the card: exactly under the pointer (no grid snap)."""
    scene = window.view.mapToScene(point)
    return Position(x=round(scene.x(), 1), y=round(scene.y(), 1))


def test_task_tracker_drawn_with_palette_properties_and_mouse(window: MainWindow, qtbot) -> None:
    stack = window.document.undo_stack
    person_at, task_at = QPoint(150, 150), QPoint(450, 170)  # the Task card wholly in the view

    person_pos = dropped_at(window, person_at)
    drop_from_palette(window, 0, person_at)
    assert window.scene.selected_entity_ids() == ["entity"]
    rename(window, "Person", qtbot)
    task_pos = dropped_at(window, task_at)
    drop_from_palette(window, 0, task_at)
    rename(window, "Task", qtbot)
    # typing "Person" letter by letter is one undo entry: add, rename, add, rename
    assert stack.count() == 4
    assert [e.name for e in window.document.project.entities] == ["Person", "Task"]
    assert window.scene.entity_items["entity"].toolTip().startswith("Person")

    drag(window, handle_point(window, "entity"), body_point(window, "entity_2"))
    assert [r.id for r in window.document.project.relationships] == ["entity_entity_2"]
    assert window.undo_action.text().endswith("Add relationship Person → Task")
    # the new relationship is selected and its properties are open
    editor = window.properties.relationship_editor
    assert editor.rel_id == "entity_entity_2"
    combo = editor.cardinality.combo
    combo.setCurrentIndex(combo.findData("one-to-few"))
    combo.setCurrentIndex(combo.findData("one-to-many"))
    box = editor.standalone.box
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))  # on the indicator

    expected = empty_project().model_copy(
        update={
            "entities": [
                Entity(id="entity", name="Person", fields=[]),
                Entity(id="entity_2", name="Task", fields=[]),
            ],
            "relationships": [
                Relationship(
                    id="entity_entity_2",
                    one="entity",
                    many="entity_2",
                    cardinality="one-to-many",
                    many_standalone=True,
                )
            ],
            "layout": {"entity": person_pos, "entity_2": task_pos},
        }
    )
    final = window.document.project.model_copy(deep=True)
    assert final.layout == expected.layout
    assert final.relationships == expected.relationships
    assert final == expected
    assert window.title_text().endswith("* — Modeller")

    while stack.canUndo():
        stack.undo()
    assert window.document.project == empty_project()
    assert window.scene.entity_items == {} and window.scene.relationship_items == {}
    while stack.canRedo():
        stack.redo()
    assert window.document.project == final
    assert set(window.scene.relationship_items) == {"entity_entity_2"}


def test_drop_on_empty_canvas_cancels_connect(window: MainWindow) -> None:
    drop_from_palette(window, 0, QPoint(150, 150))
    before = window.document.undo_stack.count()
    drag(window, handle_point(window, "entity"), QPoint(700, 600))
    assert window.document.project.relationships == ()
    assert window.document.undo_stack.count() == before
    assert not any(item.type() == 6 for item in window.scene.items())  # the rubber line is gone


def test_event_stream_and_lookup_presets(window: MainWindow) -> None:
    drop_from_palette(window, 1, QPoint(150, 150))
    drop_from_palette(window, 2, QPoint(500, 150))
    stream, lookup = window.document.project.entities
    assert stream.timeseries is not None and stream.timeseries.time_field == "time" and stream.append_only
    assert any(f.name == "time" and f.type == "date" for f in stream.fields)
    assert lookup.count == 100 and lookup.fields[0].unique
