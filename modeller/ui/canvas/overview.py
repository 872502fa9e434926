"""The far zoomed-out drawing of the whole diagram: a picture of what did not change, and the moved cards over it.

Why (issue 16): at fit zoom on a 10,000-card diagram every card and line is on screen, and drawing the
15,000 lines cost about 50 ms however small the repainted area was (clipping does not make ``drawLines``
cheaper), so a moved card took 60-80 ms to show. As the line layer does at 100 % (``items/line_layer.py``),
the overview keeps a picture per view of every card and line that did not move lately, shifted when the
view scrolls (``items/view_picture.py``), and draws over it only the cards that moved (at most
:data:`LIVE_MAX`; the first move of a card draws the picture once without it) and their lines.

A moved card's line is drawn over the picture, so over the cards it crosses: every card in the grid cells the
moved lines and cards pass through (a grid of the cards' boxes, not a loop over all) is drawn again over it,
clipped to those cells, so there the drawing is what a whole one would be (lines under cards, borders over boxes).
The clip is a region made of the cells' runs in one step (a clip path of the cells cost a sixth of a move at fit
zoom on 10,000 cards) and the cards need no sorting: each box, border and band has the colour of every other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from PySide6.QtCore import QLineF, QRect, QRectF, Qt
from PySide6.QtGui import QPainter, QPen, QRegion
from PySide6.QtWidgets import QWidget

from modeller.ui.canvas.items.segment_grid import SegmentGrid, segment_cells
from modeller.ui.canvas.items.style import CanvasStyle
from modeller.ui.canvas.items.view_picture import ViewPictures

#: at most this many moved cards are drawn over the picture (then the picture is drawn anew with them)
LIVE_MAX = 16
#: side of a cell of the cards' grid (scene units): the cards redrawn over a moved line are those in the cells it
#: crosses, so smaller cells redraw fewer (a line across a 10,000-card diagram at fit zoom met ~1,800 cards at 512);
#: speed-only, DESIGN.md "redraw after a move <= 16 ms" (bench_canvas move_redraw_fit)
CARD_CELL = 256.0


class _Over(NamedTuple):
    """What the overview draws over its picture (see Overview._over)."""

    lines: list[QLineF]
    #: the grid cells the moved cards and their lines lie in (scene units)
    area: QRegion
    #: every card filed in those cells (each card's box, border and band has the colour of every other's: their
    #: order does not matter)
    boxes: list[QRectF]


class Overview:
    """The overview's picture, its moved ("live") cards and a grid of the cards' boxes."""

    def __init__(self, style: CanvasStyle) -> None:
        self.style = style
        self.pictures = ViewPictures()
        #: cards that moved lately: drawn with their lines over the picture, not into it
        self.live: set[str] = set()
        self.cards = SegmentGrid(CARD_CELL)
        #: each card's header band (drawn over its box)
        self.heads: dict[str, QRectF] = {}
        #: the cards' model order (a card listed later is drawn over an earlier one)
        self.order: dict[str, int] = {}
        #: what is drawn over the picture (the moved cards' lines, then the cards near them), made when first painted
        self._overlay: _Over | None = None

    def clear(self) -> None:
        """What the overview shows changed: the pictures and the moved cards' drawing are made anew."""
        self.pictures.clear()
        self._overlay = None

    def reset(self, boxes: Mapping[str, QRectF]) -> None:
        """The draw lists were made anew: file every card, draw the pictures anew with everything in them."""
        self.live = set()
        self.clear()
        self.cards = SegmentGrid(CARD_CELL)
        self.order = {}
        self.heads = {}
        for key, box in boxes.items():
            self._file(key, box)
            self.order[key] = len(self.order)

    def added(self, key: str, box: QRectF) -> None:
        """A build step added a card (the pictures are drawn anew: the build repaints after each slice anyway)."""
        self._file(key, box)
        self.order.setdefault(key, len(self.order))
        self.clear()

    def moved(self, key: str, box: QRectF) -> None:
        """A card moved: from now on it is drawn over the picture (which is drawn once without it)."""
        self._file(key, box)
        self._overlay = None
        if key in self.live:
            return
        if len(self.live) >= LIVE_MAX:
            self.live = set()  # those settle into the next picture
        self.live.add(key)
        self.pictures.clear()

    def paint(
        self,
        painter: QPainter,
        widget: QWidget | None,
        lines: Mapping[str, QLineF],
        boxes: Mapping[str, QRectF],
        near_lines: SegmentGrid,
        attached: Mapping[str, Iterable[str]],
    ) -> None:
        """The picture of the settled diagram (``widget``'s), then the live cards' lines and the live cards.

        ``lines`` and ``boxes`` are the draw lists by id, ``near_lines`` files the lines by their segments (the
        line layer's grid), ``attached`` names each card's lines. Without a widget (a render of the view into an
        image) everything is drawn as it is now.
        """
        world = painter.worldTransform()
        if widget is None:
            every = list(boxes.values())
            self._draw(painter, list(lines.values()), every, self._heads(every))
            return
        live = self.live
        live_lines = {key for card in live for key in attached.get(card, ())}

        def settled(out: QPainter, area: QRectF) -> None:
            shown = [lines[key] for key in near_lines.near(area) - live_lines if key in lines]
            # the cards the grid files there, not a loop over all: a picture is drawn in bands (view_picture.py)
            order, heads = self.order, self.heads
            keys = sorted((key for key in self.cards.near(area) - live if key in boxes), key=lambda k: order.get(k, 0))
            self._draw(out, shown, [boxes[key] for key in keys], [heads[key] for key in keys])

        self.pictures.blit(painter, widget, world, settled, id(self.style.colors))
        if live:
            self._draw_over(painter, self._over(lines, boxes, live_lines))

    def _over(self, lines: Mapping[str, QLineF], boxes: Mapping[str, QRectF], live_lines: set[str]) -> _Over:
        """What is drawn over the picture: the moved cards' lines, the grid cells they and the moved cards lie in,
        and every card filed in those cells. Drawn there in the order of a whole drawing (``_draw``), they show
        what it would (the lines under the cards, a border over another card's box, the header bands on top)."""
        if self._overlay is None:
            moved = [lines[key] for key in live_lines if key in lines]
            grid = self.cards
            cells = {
                at for line in moved for at in segment_cells(line.x1(), line.y1(), line.x2(), line.y2(), grid.cell)
            }
            for key in self.live:
                cells.update(grid.cells_of(key))
            near = [key for key in grid.in_cells(cells) if key in boxes]
            self._overlay = _Over(moved, _cells_region(cells, grid.cell), [boxes[key] for key in near])
        return self._overlay

    def _draw_over(self, painter: QPainter, over: _Over) -> None:
        """``over`` (see _over), clipped to its cells."""
        painter.save()
        painter.setClipRegion(over.area, Qt.ClipOperation.IntersectClip)
        self._draw(painter, over.lines, over.boxes, self._heads(over.boxes))
        painter.restore()

    def _file(self, key: str, box: QRectF) -> None:
        self.cards.put_box(key, box)
        self.heads[key] = QRectF(box.x(), box.y(), box.width(), self.style.header_height)

    def _heads(self, boxes: list[QRectF]) -> list[QRectF]:
        head = self.style.header_height
        return [QRectF(r.x(), r.y(), r.width(), head) for r in boxes]

    def _draw(self, painter: QPainter, lines: list[QLineF], boxes: list[QRectF], heads: list[QRectF]) -> None:
        """Lines, then boxes, then their header bands: a handful of draw calls, no antialiasing."""
        colors = self.style.colors
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(QPen(colors.line, 0))
        painter.drawLines(lines)
        painter.setPen(QPen(colors.card_border, 0))
        painter.setBrush(colors.card)
        painter.drawRects(boxes)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colors.header)
        painter.drawRects(heads)
        painter.restore()


def _cells_region(cells: set[tuple[int, int]], side: float) -> QRegion:
    """The grid cells ``cells`` (of ``side`` scene units) as one region: per row of cells its runs of neighbouring
    cells, united in pairs (a region added to cell by cell, or a clip path of cells, cost milliseconds a move)."""
    rows: dict[int, list[int]] = {}
    for col, row in cells:
        rows.setdefault(row, []).append(col)
    rects: list[QRect] = []
    step = round(side)
    for row in sorted(rows):
        cols = sorted(rows[row])
        first = last = cols[0]
        for col in [*cols[1:], None]:
            if col is not None and col == last + 1:
                last = col
                continue
            rects.append(QRect(first * step, row * step, (last - first + 1) * step, step))
            if col is not None:
                first = last = col
    regions = [QRegion(rect) for rect in rects]
    while len(regions) > 1:  # united in pairs: one by one, each union copies the region so far
        regions = [a.united(b) for a, b in zip(regions[::2], regions[1::2], strict=False)] + (
            [regions[-1]] if len(regions) % 2 else []
        )
    return regions[0] if regions else QRegion()
