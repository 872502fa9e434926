"""Direct manipulation on the canvas: drops land under the pointer, in-place rename, context menus."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from modeller.ui.main_window import MainWindow

from .conftest import sample
from .helpers import body_point, drag, drop_from_palette, handle_point


def card_corner(window: MainWindow, entity_id: str) -> QPoint:
    item = window.scene.entity_items[entity_id]
    return window.view.mapFromScene(item.scenePos())


def title_point(window: MainWindow, entity_id: str) -> QPoint:
    item = window.scene.entity_items[entity_id]
    return window.view.mapFromScene(item.mapToScene(item.title_rect().center()))


def test_a_palette_drop_lands_under_the_pointer_on_an_empty_canvas(window: MainWindow) -> None:
    for at in (QPoint(150, 150), QPoint(600, 170), QPoint(333, 407)):
        before = {e.id for e in window.document.project.entities}
        drop_from_palette(window, 0, at)
        (new,) = {e.id for e in window.document.project.entities} - before
        corner = card_corner(window, new)
        assert abs(corner.x() - at.x()) <= 2 and abs(corner.y() - at.y()) <= 2, (at, corner)


def test_a_palette_drop_lands_under_the_pointer_on_an_open_diagram(window: MainWindow) -> None:
    assert window.open_path(sample("blog"), ask=False)
    for at in (QPoint(40, 40), QPoint(700, 500), QPoint(901, 77)):
        before = {e.id for e in window.document.project.entities}
        drop_from_palette(window, 1, at)
        (new,) = {e.id for e in window.document.project.entities} - before
        corner = card_corner(window, new)
        assert abs(corner.x() - at.x()) <= 2 and abs(corner.y() - at.y()) <= 2, (at, corner)


def test_double_click_renames_a_card_in_place_and_enter_commits_once(window: MainWindow, qtbot) -> None:
    drop_from_palette(window, 0, QPoint(200, 200))
    stack = window.document.undo_stack
    count = stack.count()
    QTest.mouseDClick(window.view.viewport(), Qt.MouseButton.LeftButton, pos=title_point(window, "entity"))
    editor = window.view.inline_editor
    assert editor is not None and editor.isVisible() and editor.name.text() == "Entity"
    assert editor.name.hasFocus()
    qtbot.keyClicks(editor.name, "Person")  # the text was selected: typing replaces it
    QTest.keyClick(editor.name, Qt.Key.Key_Return)
    assert window.document.entity("entity").name == "Person"
    assert stack.count() == count + 1 and stack.undoText() == "Rename Entity to Person"
    assert window.view.inline_editor is None
    assert window.scene.entity_items["entity"].toolTip().startswith("Person")
    stack.undo()
    assert window.document.entity("entity").name == "Entity"


def test_f2_renames_and_escape_cancels(window: MainWindow, qtbot) -> None:
    drop_from_palette(window, 0, QPoint(200, 200))
    window.view.setFocus()
    count = window.document.undo_stack.count()
    QTest.keyClick(window.view, Qt.Key.Key_F2)
    editor = window.view.inline_editor
    assert editor is not None
    qtbot.keyClicks(editor.name, "Nobody")
    QTest.keyClick(editor.name, Qt.Key.Key_Escape)
    assert window.view.inline_editor is None
    assert window.document.entity("entity").name == "Entity"
    assert window.document.undo_stack.count() == count


def test_a_refused_name_keeps_the_editor_open_with_the_reason(window: MainWindow, qtbot) -> None:
    drop_from_palette(window, 0, QPoint(200, 200))
    drop_from_palette(window, 0, QPoint(600, 200))
    window.scene.select_only(entity_ids=["entity_2"])
    window.view.setFocus()
    count = window.document.undo_stack.count()
    QTest.keyClick(window.view, Qt.Key.Key_F2)
    editor = window.view.inline_editor
    qtbot.keyClicks(editor.name, "Entity")
    QTest.keyClick(editor.name, Qt.Key.Key_Return)
    assert window.view.inline_editor is editor
    assert "already called 'Entity'" in editor.error_text()
    assert window.document.undo_stack.count() == count


def test_enter_on_a_selected_card_adds_a_field_with_its_type(window: MainWindow, qtbot) -> None:
    drop_from_palette(window, 0, QPoint(200, 200))
    window.view.setFocus()
    stack = window.document.undo_stack
    count = stack.count()
    QTest.keyClick(window.view, Qt.Key.Key_Return)
    editor = window.view.inline_editor
    assert editor is not None and editor.type is not None
    qtbot.keyClicks(editor.name, "born")
    editor.type.setFocus()
    qtbot.keyClicks(editor.type, "date")  # keyboard search in the type box
    assert editor.type.currentText() == "date"
    QTest.keyClick(editor.type, Qt.Key.Key_Return)
    fields = window.document.entity("entity").fields
    assert [(f.name, f.type) for f in fields] == [("born", "date")]
    assert stack.count() == count + 1 and stack.undoText() == "Add field born to Entity"
    # the card shows it
    assert any(row.name == "born" for row in window.scene.entity_items["entity"]._rows)
    # Ctrl+Shift+F does the same; a second field with the same name is refused, Escape adds nothing
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    editor = window.view.inline_editor
    assert editor is not None
    editor.name.selectAll()
    qtbot.keyClicks(editor.name, "born")
    QTest.keyClick(editor.name, Qt.Key.Key_Return)
    assert "already has a field 'born'" in editor.error_text()
    QTest.keyClick(editor.name, Qt.Key.Key_Escape)
    assert stack.count() == count + 1


def test_connecting_from_the_handle_never_draws_a_rubber_band(window: MainWindow) -> None:
    drop_from_palette(window, 0, QPoint(150, 150))
    drop_from_palette(window, 0, QPoint(600, 400))
    window.scene.clearSelection()
    bands = []
    window.view.rubberBandChanged.connect(lambda rect, *_: bands.append(rect) if not rect.isNull() else None)
    # cancelled on empty canvas: nothing selected, no band drawn across the cards
    drag(window, handle_point(window, "entity"), QPoint(900, 700))
    assert window.scene.selectedItems() == []
    assert bands == []
    # finished on a card: only the new relationship is selected, no card
    drag(window, handle_point(window, "entity"), body_point(window, "entity_2"))
    assert [r.id for r in window.document.project.relationships] == ["entity_entity_2"]
    assert window.scene.selected_entity_ids() == []
    assert window.scene.selected_relationship_ids() == ["entity_entity_2"]
    assert bands == []
    # a press on empty canvas still starts the rubber band (the check above can fail)
    drag(window, QPoint(100, 100), QPoint(1000, 750))
    assert bands and set(window.scene.selected_entity_ids()) == {"entity", "entity_2"}
