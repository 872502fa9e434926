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


def test_cards_dropped_at_one_screen_spot_land_at_one_scene_spot(window, qtbot) -> None:
    """A card dropped at the right edge stuck out; its rename box scrolled the view, so the next card dropped
    at the same screen x landed 130-260 px further left in the scene."""
    viewport = window.view.viewport()
    edge = QPoint(viewport.width() - 40, 80)
    below = QPoint(viewport.width() - 40, viewport.height() - 30)
    first = drop_and_name(window, QPoint(60, 60), "Customer")
    still = scroll(window)
    right = drop_and_name(window, edge, "Product")
    assert scroll(window) == still, "the rename of a card dropped at the edge scrolled the view"
    corner = drop_and_name(window, below, "Review")
    assert scroll(window) == still
    again = drop_and_name(window, edge + QPoint(0, 200), "Category")
    assert scroll(window) == still
    items = window.scene.entity_items
    # cards dropped at one screen x share their scene x; the edge moved them in, whole, with their add-field row
    assert items[right].pos().x() == items[corner].pos().x() == items[again].pos().x()
    shown = window.view.mapToScene(viewport.rect()).boundingRect()
    for key in (first, right, corner, again):
        card = items[key].mapRectToScene(items[key].rect().united(items[key].footer_rect()))
        assert shown.contains(card), (window.document.entity(key).name, card, shown)
    # a drop away from the edges lands exactly under the pointer
    inner = drop_and_name(window, QPoint(300, 200), "Order")
    assert window.view.mapFromScene(items[inner].pos()) == QPoint(300, 200)


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
