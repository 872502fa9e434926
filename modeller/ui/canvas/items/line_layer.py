"""Every relationship line drawn by one item, in bulk: a repaint costs the lines it shows, not the scene.

Why (issue 16): on a 10,000-card diagram thousands of long lines cross any viewport. Each line was an item
that painted itself, and Qt asks every item whose *bounding box* meets the exposed area to paint: moving one
card by 20 px made Qt call about 3,000 Python paints (most of them for lines that only crossed the area in
their box), and each moved line invalidated its whole box, most of the viewport.

The design:

- A :class:`RelationshipItem` keeps what needs one item per line: selection, hover, tooltips, context menus
  and hit-testing through its shape. It has no contents: Qt never asks it to paint.
- :class:`LineLayer`, one item under the cards spanning every line, draws the lines a
  :class:`SegmentGrid` files near the area to paint whose segment really meets it: the strokes, clipped to
  the area, in one ``drawLines`` call per pen (plain, selected), then per line only the parts lying there:
  crow's feet, strategy badge with its severity marker, workload label, and under them the query's halo.
- Antialiased strokes cost by the pixel (about 40 µs for a line across the viewport; clipping to the
  repainted region does not make it cheaper), so the lines that did not change are drawn once into a
  picture of the viewport (per view, per zoom: a scroll shifts it and draws only the strips it uncovers, a
  zoom shows it scaled and draws it anew once the zoom rests, ``view_picture.py``) and the repaint blits it. The lines that changed
  lately (:data:`LIVE_MAX` at most: a dragged card's lines) are left out of that picture and drawn over it.
  A line that changes for the first time turns live and the picture is redrawn once without it: moving a
  card costs one full redraw at the start, then only its own lines per frame.
- A change to a line (moved, selected, new badge, marker or highlight) invalidates strips along its old and
  new segment (:data:`PIECE` pixels on screen each) and its text boxes, where a view shows them, instead of its
  bounding box, so the cards' cached pictures are blitted only there.

Far zoomed out the scene draws the whole diagram in the background instead (``CanvasScene.set_overview``);
the layer then has no contents either.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from modeller.ui.canvas.items.notation import glyph_pen
from modeller.ui.canvas.items.query_highlight import paint_line_halo
from modeller.ui.canvas.items.relationship_item import GLYPH_REACH as REACH
from modeller.ui.canvas.items.relationship_item import PLAIN_LINE_LOD, RelationshipItem
from modeller.ui.canvas.items.segment_grid import SegmentGrid, clip_segment
from modeller.ui.canvas.items.style import CanvasStyle
from modeller.ui.canvas.items.view_picture import ViewPictures

#: how far a line's badge and label may sit from its segment (the grid is asked this much around an area)
TEXT_REACH = 260.0
#: length of one invalidated strip along a changed line (pixels on screen)
PIECE = 128.0
#: pens of a plain and a selected line
PLAIN_WIDTH, SELECTED_WIDTH = 1.4, 2.2
#: at most this many lines are drawn over the picture of the others (then the picture is redrawn with them)
LIVE_MAX = 64

#: what the layer remembers of a line to invalidate where it was drawn: segment (None for a self-loop),
#: the loop's box, the badge/marker and label boxes
Drawn = tuple[tuple[float, float, float, float] | None, QRectF, tuple[QRectF, ...]]


class LineLayer(QGraphicsItem):
    Type = QGraphicsItem.UserType + 3

    def __init__(self, style: CanvasStyle) -> None:
        super().__init__()
        self._style = style
        self.grid = SegmentGrid()
        self._lines: dict[str, RelationshipItem] = {}
        self._drawn: dict[str, Drawn] = {}
        self._bounds = QRectF()
        #: lines that changed lately: drawn over the picture of the others, not into it
        self._live: set[str] = set()
        #: the picture of the settled lines, per viewport (shifted, not redrawn, when the view scrolls)
        self.pictures = ViewPictures()
        #: the relationships' model order (the scene's): lines and badges that overlap are drawn in it
        self.order: dict[str, int] = {}
        #: ids of the lines the last paint drew (tests count them), and whether it drew the picture anew
        self.last_drawn: list[str] = []
        self.last_redrew_picture = False
        #: inside :meth:`many_changing`: the lines changed so far, filed at its end
        self._pending: dict[str, RelationshipItem] | None = None
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)
        self.setZValue(0)  # the lines' own level: under the cards (1)

    def type(self) -> int:
        return self.Type

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        return QPainterPath()  # never hit: clicks and hover go to the lines' own items and the cards

    # ------------------------------------------------------------ bookkeeping
    def refresh(self, item: RelationshipItem) -> None:
        """``item`` changed (geometry, text, selection, marker, highlight): file it anew and repaint old and new."""
        key = item.rel_id
        if self._pending is not None:
            self._pending[key] = item
            return
        self._make_live(key)
        views = self._views()
        old = self._drawn.pop(key, None)
        if old is not None:
            self._invalidate(old, views)
        if item.chord is None or not item.isVisible():
            self._lines.pop(key, None)
            self.grid.drop(key)
            return
        drawn = item.drawn()
        self._lines[key] = item
        segment, box, _texts = drawn
        if old is None or old[0] != segment or (segment is None and old[1] != box):
            if segment is None:
                self.grid.put_box(key, box)
            else:
                self.grid.put_segment(key, *segment)
        whole = box.united(item.boundingRect())
        if not self._bounds.contains(whole):
            # grows only (a line's box lies between its cards, so this is rare after the first few): exactly,
            # for the bounds count in the scene's itemsBoundingRect, which Fit to Window centres
            self.prepareGeometryChange()
            self._bounds = self._bounds.united(whole)
        self._drawn[key] = drawn
        self._invalidate(drawn, views)

    def add_placed(self, items: list[RelationshipItem]) -> None:
        """A build step placed ``items`` (lines new to the layer): file them in bulk and repaint where views show them.

        ``refresh`` per line mapped every view, turned the line live and dropped the pictures each time (issue 16:
        the build of a 10,000-card diagram): here the views are mapped and the pictures dropped once, and the new
        lines go into the next pictures instead of over them.
        """
        grid, lines, drawn_of = self.grid, self._lines, self._drawn
        bounds = self._bounds
        changed: list[Drawn] = []
        for item in items:
            key = item.rel_id
            old = drawn_of.pop(key, None)
            if old is not None:
                changed.append(old)
            if item.chord is None or not item.isVisible():
                lines.pop(key, None)
                grid.drop(key)
                continue
            drawn = item.drawn()
            lines[key] = item
            segment, box, _texts = drawn
            if segment is None:
                grid.put_box(key, box)
            else:
                grid.put_segment(key, *segment)
            whole = box.united(item.boundingRect())
            if not bounds.contains(whole):
                bounds = bounds.united(whole)
            drawn_of[key] = drawn
            changed.append(drawn)
        if bounds != self._bounds:
            self.prepareGeometryChange()  # the bounds count in the scene's itemsBoundingRect (see refresh)
            self._bounds = bounds
        if not changed:
            return
        self.pictures.clear()
        views = self._views()
        for drawn in changed:
            self._invalidate(drawn, views)

    @contextmanager
    def many_changing(self) -> Iterator[None]:
        """Many lines change at once (the Documents view turned on or off moves every card): each is filed once,
        at the end, and when they are most of the lines the grid is made anew and the views repaint whole.

        Filed one at a time, each line left its old cells (a ``list.remove`` in cells of hundreds of lines),
        turned live and had its strips invalidated: about half of the 10,000-card view toggle (issue 16).
        """
        if not self.hold_many():
            yield
            return
        try:
            yield
        finally:
            for _ in self.file_held():
                pass

    def hold_many(self) -> bool:
        """From now on the lines that change wait for :meth:`file_held` (False: they already do)."""
        if self._pending is not None:
            return False
        self._pending = {}
        return True

    def file_held(self) -> Iterator[None]:
        """File the lines held since :meth:`hold_many`, in steps (a caller in slices yields at each)."""
        pending = self._pending or {}
        if len(pending) * 2 < len(self._lines):
            self._pending = None
            self.add_placed(list(pending.values()))
            return
        self._pending = {}  # a line changing between the steps waits for their end
        try:
            yield from self._refile(pending)
        finally:
            late, self._pending = self._pending, None
            for item in late.values():
                self.refresh(item)

    def _refile(self, changed: dict[str, RelationshipItem]) -> Iterator[None]:
        """File every line anew in a fresh grid (``changed`` with their new drawing) and repaint the layer whole;
        the grid is swapped in at the end (the paints between steps use the one there was)."""
        lines, drawn_of = self._lines, self._drawn
        bounds = self._bounds
        for index, (key, item) in enumerate(changed.items()):
            if index % 256 == 255:
                yield
            if item.chord is None or not item.isVisible():
                lines.pop(key, None)
                drawn_of.pop(key, None)
                continue
            drawn = drawn_of[key] = item.drawn()
            lines[key] = item
            whole = drawn[1].united(item.boundingRect())
            if not bounds.contains(whole):
                bounds = bounds.united(whole)
        grid = SegmentGrid(self.grid.cell)
        for index, (key, (segment, box, _texts)) in enumerate(list(drawn_of.items())):
            if segment is None:
                grid.put_box(key, box)
            else:
                grid.put_segment(key, *segment)
            if index % 256 == 255:
                yield
        self.grid = grid
        if bounds != self._bounds:
            self.prepareGeometryChange()  # the bounds count in the scene's itemsBoundingRect (see refresh)
            self._bounds = bounds
        self._live = set()
        self.pictures.clear()
        self.update()

    def forget(self, key: str) -> None:
        """A line left the scene: repaint where it was."""
        if self._pending is not None:
            self._pending.pop(key, None)
        self._make_live(key)
        self._live.discard(key)
        self._lines.pop(key, None)
        self.grid.drop(key)
        old = self._drawn.pop(key, None)
        if old is not None:
            self._invalidate(old, self._views())

    def settle(self) -> None:
        """Draw every line into the pictures from the next paint on (a build's last lines are no drag)."""
        self._live = set()
        self.pictures.clear()

    def _make_live(self, key: str) -> None:
        """The pictures show ``key`` as it was: draw them anew without it, and it over them from now on."""
        if key in self._live:
            return
        if len(self._live) >= LIVE_MAX:
            self._live = set()  # those settle into the next picture
        self._live.add(key)
        self.pictures.clear()

    def _views(self) -> list[tuple[QRectF, float]] | None:
        """What each view shows (scene area, zoom); None when the layer's changes need no repaint of its own."""
        scene = self.scene()
        if scene is None or self.flags() & QGraphicsItem.GraphicsItemFlag.ItemHasNoContents:
            return None  # far zoomed out the scene draws the overview and names what it repaints itself
        return [
            (view.mapToScene(view.viewport().rect()).boundingRect(), view.transform().m11()) for view in scene.views()
        ]

    def _invalidate(self, drawn: Drawn, views: list[tuple[QRectF, float]] | None) -> None:
        """Ask the views (``_views``) to repaint strips along the segment and the text boxes, where they show them."""
        scene = self.scene()
        if scene is None or views is None:
            return
        segment, box, texts = drawn
        rects = [rect for rect in texts if any(rect.intersects(area) for area, _zoom in views)]
        if segment is None:
            rects.append(box)
        else:
            x1, y1, x2, y2 = segment
            for area, zoom in views:
                part = clip_segment(x1, y1, x2, y2, area.adjusted(-REACH, -REACH, REACH, REACH))
                if part is None:
                    continue
                t0, t1 = part
                # PIECE pixels on screen: zoomed out, a piece covers more of the scene
                pieces = max(1, math.ceil(math.hypot(x2 - x1, y2 - y1) * (t1 - t0) * max(zoom, 0.01) / PIECE))
                step = (t1 - t0) / pieces
                for i in range(pieces):
                    a, b = t0 + i * step, t0 + (i + 1) * step
                    ax, ay = x1 + a * (x2 - x1), y1 + a * (y2 - y1)
                    bx, by = x1 + b * (x2 - x1), y1 + b * (y2 - y1)
                    rects.append(
                        QRectF(
                            min(ax, bx) - REACH, min(ay, by) - REACH, abs(bx - ax) + 2 * REACH, abs(by - ay) + 2 * REACH
                        )
                    )
        for rect in rects:
            scene.update(rect)

    # ------------------------------------------------------------ painting
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        exposed = option.exposedRect
        world = painter.worldTransform()
        lod = option.levelOfDetailFromTransform(world)
        if widget is None:  # a render of the scene (an image, a print): every line, as it is now
            self.last_drawn = self._draw(painter, exposed, lod, self.grid.near(_around(exposed)))
            return
        live = self._live

        def settled(out: QPainter, area: QRectF) -> None:
            self._draw(out, area, lod, self.grid.near(_around(area)) - live)

        self.pictures.blit(painter, widget, world, settled, id(self._style.colors))
        self.last_redrew_picture = self.pictures.last == "drawn"
        self.last_drawn = self._draw(painter, exposed, lod, self._live)

    def _draw(self, painter: QPainter, exposed: QRectF, lod: float, keys: set[str]) -> list[str]:
        """Draw those of ``keys`` whose line or text lies in ``exposed``; returns their ids."""
        near = exposed.adjusted(-REACH, -REACH, REACH, REACH)
        # the parts of the lines inside the area: a 20,000-pixel line stroked whole cost as much as the rest
        plain: list[QLineF] = []
        chosen: list[QLineF] = []
        loops: list[RelationshipItem] = []
        shown: list[RelationshipItem] = []
        lines, drawn = self._lines, self._drawn
        for key in sorted(keys, key=lambda k: self.order.get(k, 0)):
            item = lines.get(key)
            if item is None:
                continue
            segment, box, texts = drawn[key]
            piece: QLineF | None = None
            if segment is None:
                stroke = near.intersects(box)
            else:
                x1, y1, x2, y2 = segment
                part = clip_segment(x1, y1, x2, y2, near)
                if part is not None:
                    t0, t1 = part
                    piece = QLineF(x1 + t0 * (x2 - x1), y1 + t0 * (y2 - y1), x1 + t1 * (x2 - x1), y1 + t1 * (y2 - y1))
                stroke = piece is not None
            if not stroke and not any(rect.intersects(exposed) for rect in texts):
                continue
            shown.append(item)
            if piece is not None:
                (chosen if item.isSelected() else plain).append(piece)
            elif stroke:
                loops.append(item)
        if not shown:
            return []
        colors = self._style.colors
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for item in shown:
            if item.query_highlight:
                paint_line_halo(painter, item.path())
        plain_pen, chosen_pen = QPen(colors.line, PLAIN_WIDTH), QPen(colors.line_selected, SELECTED_WIDTH)
        painter.setPen(plain_pen)
        painter.drawLines(plain)
        painter.setPen(chosen_pen)
        painter.drawLines(chosen)
        for item in loops:
            painter.setPen(chosen_pen if item.isSelected() else plain_pen)
            painter.drawPath(item.path())
        if lod >= PLAIN_LINE_LOD:
            pens = {False: (plain_pen, glyph_pen(plain_pen)), True: (chosen_pen, glyph_pen(chosen_pen))}
            for item in shown:
                item.paint_decorations(painter, *pens[item.isSelected()], near, lod)
        return [item.rel_id for item in shown]


def _around(area: QRectF) -> QRectF:
    """Where the grid must look for lines that may draw in ``area`` (their badges and labels sit off the line)."""
    return area.adjusted(-TEXT_REACH, -TEXT_REACH, TEXT_REACH, TEXT_REACH)
