"""Tryout item 9, the canvas while drawing: the view keeps still between drops, and the legend keeps out of
the cards' way."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from modeller.ui.canvas.legend import legend_corners

from .helpers import drop_from_palette


def scroll(window) -> tuple[int, int]:
    return window.view.horizontalScrollBar().value(), window.view.verticalScrollBar().value()


def drop_and_name(window, at: QPoint, name: str) -> str:
    """Drop an entity at viewport point ``at``, then rename it in place as a user does (Enter applies)."""
    before = {e.id for e in window.document.project.entities}
    drop_from_palette(window, 0, at)
    (new,) = {e.id for e in window.document.project.entities} - before
    editor = window.view.rename_card(new)
    assert editor is not None
    editor.name.selectAll()
    QTest.keyClicks(editor.name, name)
    QTest.keyClick(editor.name, Qt.Key.Key_Return)
    assert window.document.entity(new).name == name
    return new


def test_the_legend_moves_to_a_corner_with_no_card_under_it(window, qtbot) -> None:
    """The legend sat in the bottom-left corner over a card dropped there, hiding it."""
    view = window.view
    legend = view.legend
    assert legend.isVisible()
    start = legend.geometry()
    assert start.bottom() > view.viewport().height() // 2 and start.left() < view.viewport().width() // 2
    under = view.viewport().mapFrom(view, start.center())
    hidden = drop_and_name(window, under - QPoint(40, 20), "Address")
    qtbot.waitUntil(lambda: legend.geometry() != start)
    card = view.mapFromScene(window.scene.entity_items[hidden].scene_rect()).boundingRect()
    card.translate(view.viewport().pos())  # into the view's coordinates, the legend's
    assert not legend.geometry().intersects(card)
    # every card stays in sight: the legend took a corner where it covers none of them
    for item in window.scene.entity_items.values():
        rect = view.mapFromScene(item.scene_rect()).boundingRect().translated(view.viewport().pos())
        assert not legend.geometry().intersects(rect)
    # the card gone, the legend takes its first corner again
    window.document.undo_stack.undo()  # the rename
    window.document.undo_stack.undo()  # the drop
    qtbot.waitUntil(lambda: legend.geometry() == legend_corners(view.viewport().geometry(), legend.size(), 10)[0])
    assert legend.geometry().left() == start.left()  # (scroll bars may have come, the bottom moves with them)
