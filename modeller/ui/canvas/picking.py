"""What a left click picks: the topmost card or line under the pressed pixel, found through the scene's grids.

Why (issue 16): Qt's own press asked the scene's index for every item whose bounding box meets the pressed pixel and
tested each one's shape: on a 10,000-card diagram thousands of long lines' boxes hold any point (about 2,600 shape
tests at fit zoom), most of a click's 20 ms. The grids of the cards' boxes and of the lines' segments hand back the
few that can be there (no line is asked about at all when a card is there: cards lie over lines); they are tested
as Qt tests them (the pixel's square against each shape), in Qt's stacking order (among equals, the one added to the
scene last on top). ``SelectMoveInteraction`` then selects and drags what was picked as Qt's items would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QGraphicsSceneMouseEvent, QGraphicsView

from modeller.ui.canvas.items.entity_item import EntityItem
from modeller.ui.canvas.items.line_layer import TEXT_REACH
from modeller.ui.canvas.items.relationship_item import HIT_HALF_WIDTH, RelationshipItem

if TYPE_CHECKING:
    from modeller.ui.canvas.scene import CanvasScene


def press_area(event: QGraphicsSceneMouseEvent) -> QRectF:
    """The scene area of the pressed pixel: what Qt's press tests the items' shapes against (one viewport pixel,
    so at fit zoom a square of about 20 scene units)."""
    widget = event.widget()
    view = widget.parentWidget() if widget is not None else None
    if not isinstance(view, QGraphicsView) or widget is None:
        return QRectF(event.scenePos(), QSizeF(1, 1))
    pixel = QRectF(QPointF(widget.mapFromGlobal(event.screenPos())), QSizeF(1, 1))
    inverse, _invertible = view.viewportTransform().inverted()
    return inverse.mapRect(pixel)


def pick(scene: CanvasScene, area: QRectF) -> EntityItem | RelationshipItem | None:
    """The topmost shown card or line whose shape meets ``area``: the first of Qt's ``items(area,
    IntersectsItemShape, DescendingOrder)`` among cards and lines (a card is over every line)."""
    square = QPainterPath()
    square.addRect(area)
    grid, rank = scene._cards_near()
    cards = [
        card
        for key in grid.near(area)
        if (card := scene.entity_items.get(key)) is not None
        and card.isVisible()
        and card.sceneBoundingRect().intersects(area)
        and card.collidesWithPath(card.mapFromScene(square), Qt.ItemSelectionMode.IntersectsItemShape)
    ]
    if cards:
        return max(cards, key=lambda card: (card.zValue(), rank.get(card.entity_id, 0)))
    lines = [
        line
        for key in _lines_near(scene, area)
        if (line := scene.relationship_items.get(key)) is not None and line.isVisible() and line.meets(area)
    ]
    if len(lines) < 2:
        return lines[0] if lines else None
    wanted = {line.rel_id for line in lines}  # the line added to the scene last is on top: the map holds that order
    added = {key: i for i, key in enumerate(scene.relationship_items) if key in wanted}
    return max(lines, key=lambda line: (line.zValue(), added[line.rel_id]))


def _lines_near(scene: CanvasScene, area: QRectF) -> set[str]:
    """The lines whose segment (or a self-loop's box) passes near ``area``, or whose badge may be there: those with
    a text filed near it, and those with none filed (a badge sits up to TEXT_REACH off its line; asking the segment
    grid that far around handed back hundreds of lines at 10,000 cards)."""
    grid, texts = scene.lines.grid, scene._texts
    found = grid.near(area.adjusted(-HIT_HALF_WIDTH, -HIT_HALF_WIDTH, HIT_HALF_WIDTH, HIT_HALF_WIDTH))
    found |= texts.near([area])
    reach = area.adjusted(-TEXT_REACH, -TEXT_REACH, TEXT_REACH, TEXT_REACH)
    found.update(key for key in grid.near(reach) if key not in texts)
    return found
