"""What a new user stumbles on: an empty canvas says what to do; the property forms fit the dock."""

from __future__ import annotations

from PySide6.QtCore import QPoint

from modeller.ui.main_window import MainWindow

from .conftest import sample
from .helpers import drop_from_palette

#: the properties dock opens 420 px wide; its scroll area never scrolls sideways
DOCK_CONTENT = 400


def test_empty_canvas_shows_a_first_step_hint_until_an_entity_exists(window: MainWindow) -> None:
    hint = window.empty_hint
    assert hint.isVisible() and "Drag an <b>Entity</b>" in hint.text()
    assert hint.geometry() == window.view.viewport().rect()
    drop_from_palette(window, 0, QPoint(200, 200))
    assert not hint.isVisible()
    window.document.undo_stack.undo()
    assert hint.isVisible()


def test_property_forms_fit_the_dock_without_cutting_labels(window: MainWindow) -> None:
    assert window.open_path(sample("ecommerce"), ask=False)
    product = next(e.id for e in window.document.project.entities if e.name == "Product")
    window.scene.select_only(entity_ids=[product])
    assert window.properties.entity_editor.minimumSizeHint().width() <= DOCK_CONTENT
    rel = window.document.project.relationships[0].id
    window.scene.select_only(rel_ids=[rel])
    editor = window.properties.relationship_editor
    assert editor.minimumSizeHint().width() <= DOCK_CONTENT
    # the long strategy explanations are still there in the open list
    combo = editor.strategy.combo
    assert any("single-collection — both entity types" in combo.itemText(i) for i in range(combo.count()))
    assert combo.view().minimumWidth() >= combo.view().sizeHintForColumn(0)
