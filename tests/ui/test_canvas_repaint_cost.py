"""A repaint costs what it shows: the line layer finds lines by their segments, not their bounding boxes, a long
line whose box only crosses the repainted area draws nothing there, lines that did not change come from a
picture, and the grid comes from the view's background cache unless the user changes it."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QGraphicsView, QStyleOptionGraphicsItem

from benchmarks.generate import generate_project
from modeller.model import Position, Relationship
from modeller.ui.canvas.items.line_layer import LineLayer
from modeller.ui.canvas.items.relationship_item import RelationshipItem
from modeller.ui.canvas.items.segment_grid import SegmentGrid, segment_meets_rect
from modeller.ui.canvas.items.style import CanvasStyle
from modeller.ui.commands import MoveCommand

from .conftest import sample


def test_segment_meets_rect() -> None:
    rect = QRectF(0, 0, 100, 100)
    assert segment_meets_rect(-50, 50, 150, 50, rect)  # straight through
    assert segment_meets_rect(10, 10, 20, 20, rect)  # inside
    assert segment_meets_rect(-10, -10, 10, 10, rect)  # ends inside
    assert not segment_meets_rect(-10, 150, 150, 300, rect)  # below
    assert not segment_meets_rect(50, -100, 250, 40, rect)  # its box overlaps the rect's corner, the line does not
    assert not segment_meets_rect(-100, 60, 60, 220, rect)  # a diagonal passing the bottom-left corner
    assert segment_meets_rect(-100, -40, 60, 120, rect)  # ... and one cutting it


def test_the_grid_files_a_line_under_the_cells_it_crosses_only() -> None:
    grid = SegmentGrid(cell=100)
    grid.put_segment("diagonal", 0, 0, 999, 999)
    grid.put_segment("short", 450, 50, 460, 60)
    assert grid.near(QRectF(510, 510, 10, 10)) == {"diagonal"}
    assert grid.near(QRectF(820, 120, 50, 50)) == set()  # inside the diagonal's box, far from the line
    assert grid.near(QRectF(440, 40, 30, 30)) == {"short"}
    assert grid.near(QRectF(-5000, -5000, 20000, 20000)) == {"diagonal", "short"}  # larger than the diagram
    grid.put_segment("short", 850, 150, 860, 160)  # moved: filed anew, no longer where it was
    assert grid.near(QRectF(440, 40, 30, 30)) == set()
    assert grid.near(QRectF(820, 120, 50, 50)) == {"short"}
    grid.drop("diagonal")
    assert grid.near(QRectF(510, 510, 10, 10)) == set() and len(grid) == 1


def _painted(layer: LineLayer, exposed: QRectF) -> int:
    """Pixels the layer's paint changes when it repaints ``exposed`` only (a render: no view, no picture)."""
    image = QImage(1200, 1200, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setClipRect(exposed)
    option = QStyleOptionGraphicsItem()
    option.exposedRect = exposed
    layer.paint(painter, option)
    painter.end()
    white = QColor("white").rgb()
    return sum(1 for y in range(0, 1200, 3) for x in range(0, 1200, 3) if image.pixel(x, y) != white)


def test_a_long_line_paints_nothing_where_only_its_box_is_exposed(qapp) -> None:
    style = CanvasStyle()
    item = RelationshipItem("r1", style)
    rel = Relationship(id="r1", one="a", many="b", cardinality="one-to-many")
    item.set_relationship(rel, "auto", False)
    item.set_geometry(QRectF(0, 0, 200, 100), QRectF(1000, 1000, 200, 100), 0.0)
    layer = LineLayer(style)
    layer.refresh(item)
    corner = QRectF(850, 100, 200, 200)  # inside the line's bounding box, far from the line itself
    assert item.boundingRect().contains(corner)
    assert _painted(layer, corner) == 0
    assert layer.last_drawn == []
    assert _painted(layer, QRectF(500, 500, 100, 100)) > 0  # on the line: drawn
    assert layer.last_drawn == ["r1"]
    assert _painted(layer, item.boundingRect()) > 0
    item.setVisible(False)  # a line to a card stored inside another (Documents view)
    layer.refresh(item)
    assert _painted(layer, item.boundingRect()) == 0


def test_the_grid_is_cached_except_in_the_overview(make_window) -> None:
    window = make_window()
    view = window.view
    view.reset_zoom()
    assert view.cacheMode() == QGraphicsView.CacheModeFlag.CacheBackground
    view.set_zoom(0.1)  # the overview draws the moving diagram in the background layer
    assert window.scene.overview and view.cacheMode() == QGraphicsView.CacheModeFlag.CacheNone
    view.reset_zoom()
    assert view.cacheMode() == QGraphicsView.CacheModeFlag.CacheBackground
    # View > Show Grid shows at once: the cached background is dropped, not blitted again
    with_grid = view.viewport().grab().toImage()
    window.grid_action.trigger()
    assert not view.show_grid
    without = view.viewport().grab().toImage()
    assert without != with_grid
    window.grid_action.trigger()
    assert view.viewport().grab().toImage() == with_grid


def test_a_card_moved_in_the_overview_is_drawn_at_its_new_place(make_window) -> None:
    window = make_window()
    window.document.reset(generate_project(40, 1.5, 0.5, seed=1))
    scene, view = window.scene, window.view
    view.set_zoom(0.1)
    assert scene.overview
    view.viewport().grab()  # paints the overview once: its draw lists now hold every card
    key = next(iter(scene.entity_items))
    old = scene.model_position(key)
    window.document.push(MoveCommand(window.document, {key: Position(x=old.x() + 400, y=old.y() + 200)}))
    _lines, boxes, _heads = scene._overview_geometry()
    moved = scene.entity_items[key].scene_rect()
    assert moved.topLeft() == QPointF(old.x() + 400, old.y() + 200)
    assert moved in boxes  # drawn where it is now ...
    assert not any(box.topLeft() == old for box in boxes)  # ... and no longer where it was


def _shows_colour(image: QImage, at: QPoint, colour: QColor) -> bool:
    """A pixel within 2 px of ``at`` has about ``colour`` (antialiased lines blend at their edges)."""
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            pixel = QColor(image.pixel(at.x() + dx, at.y() + dy))
            diff = abs(pixel.red() - colour.red()) + abs(pixel.green() - colour.green())
            if diff + abs(pixel.blue() - colour.blue()) < 60:
                return True
    return False


def test_a_line_selects_by_click_and_is_drawn_selected(make_window, qtbot) -> None:
    window = make_window()
    assert window.open_path(sample("ecommerce"), ask=False)
    scene, view = window.scene, window.view
    view.reset_zoom()
    item = max(scene.relationship_items.values(), key=lambda line: line.chord.length())
    chord = item.chord
    spot = chord.pointAt(0.3)  # off the badge (middle) and the crow's feet (ends)
    view.centerOn(spot)
    qtbot.wait(20)
    at = view.mapFromScene(spot)
    selected = scene.style.colors.line_selected
    assert not _shows_colour(view.viewport().grab().toImage(), at, selected)
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
    assert scene.selected_relationship_ids() == [item.rel_id]
    qtbot.waitUntil(lambda: _shows_colour(view.viewport().grab().toImage(), at, selected), timeout=2000)
    # a click on empty canvas clears the selection, and the line is drawn plain again
    empty = view.mapFromScene(spot + QPointF(0, 200))
    assert not any(isinstance(i, RelationshipItem) for i in scene.items(view.mapToScene(empty)))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, empty)
    assert scene.selected_relationship_ids() == []
    qtbot.waitUntil(lambda: not _shows_colour(view.viewport().grab().toImage(), at, selected), timeout=2000)
