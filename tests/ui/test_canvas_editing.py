"""Direct manipulation on the canvas: drops land under the pointer, in-place rename, context menus."""

from __future__ import annotations

from PySide6.QtCore import QPoint

from modeller.ui.main_window import MainWindow

from .conftest import sample
from .helpers import drop_from_palette


def card_corner(window: MainWindow, entity_id: str) -> QPoint:
    item = window.scene.entity_items[entity_id]
    return window.view.mapFromScene(item.scenePos())


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
