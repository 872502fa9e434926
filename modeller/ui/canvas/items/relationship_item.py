"""The line of one relationship: crow's-foot ends, a strategy badge and the workload label.

The scene tells the item where its two cards are and which lane it uses
(relationships between the same two cards are drawn side by side); the item
only computes the drawing from that. It is selected, hovered, clicked and asked
for its tooltip as an item, but the scene's :class:`LineLayer` paints it, with
every other line, in bulk (see ``line_layer.py`` for why).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem, QStyleOptionGraphicsItem, QWidget

from modeller.model import Relationship
from modeller.ui.canvas.items.notation import END_KINDS, GLYPH_LENGTH, TAGS, draw_end, tag_centre
from modeller.ui.canvas.items.segment_grid import segment_meets_rect
from modeller.ui.canvas.items.style import CanvasStyle
from modeller.ui.panels.severity import paint_marker

if TYPE_CHECKING:
    from modeller.ui.canvas.items.line_layer import Drawn

LANE_GAP = 26.0
#: level of detail (zoom) below which a line is drawn without its crow's feet
PLAIN_LINE_LOD = 0.35
#: how far from the line its end glyphs, tags, halo and marker may reach (scene units)
GLYPH_REACH = 30.0
#: how far from a line a click or the pointer still hits it (scene units)
HIT_HALF_WIDTH = 5.0
#: below this the badge, marker and workload label are hidden (unreadable, and costly by the thousand)
TEXT_LOD = 0.5
#: a moved line's bounding rect keeps this much room on every side (scene units): the next steps of a drag then
#: fit in it and leave the scene's index alone, where setting a long line's rect costs about 0.3 ms (speed-only,
#: bench_canvas move_redraw)
MOVE_ROOM = 48.0


def clip_to_rect(rect: QRectF, inside: QPointF, outside: QPointF) -> QPointF:
    """Where the segment from ``inside`` (in ``rect``) towards ``outside`` leaves ``rect``."""
    dx, dy = outside.x() - inside.x(), outside.y() - inside.y()
    best = 1.0
    if dx:
        for edge in (rect.left(), rect.right()):
            t = (edge - inside.x()) / dx
            if 0 < t < best and rect.top() - 0.5 <= inside.y() + t * dy <= rect.bottom() + 0.5:
                best = t
    if dy:
        for edge in (rect.top(), rect.bottom()):
            t = (edge - inside.y()) / dy
            if 0 < t < best and rect.left() - 0.5 <= inside.x() + t * dx <= rect.right() + 0.5:
                best = t
    return QPointF(inside.x() + best * dx, inside.y() + best * dy)


#: between the parts of a workload label (name, reads, writes, bound)
PART_SEPARATOR = " · "
#: a label part that does not fit between the cards is shown as this (the tooltip has it whole)
ELLIPSIS = "…"
#: text beside a line keeps this far from each card's border (the connect handle sticks out 11 px)
CARD_MARGIN = 12.0
#: less room than this between the cards: no workload label at all (the tooltip still has it)
LABEL_MIN_ROOM = 32.0


def workload_text(rel: Relationship) -> str:
    parts = []
    if rel.name:
        parts.append(rel.name)
    if rel.reads_per_sec is not None:
        parts.append(f"{rel.reads_per_sec:g} r/s")
    if rel.writes_per_sec is not None:
        parts.append(f"{rel.writes_per_sec:g} w/s")
    if rel.max is not None:
        parts.append(f"≤ {rel.max:,}")
    return PART_SEPARATOR.join(parts)


def badge_forms(badge: str) -> list[str]:
    """The ways to show a badge, longest first: an engine's "auto → x" may break after its arrow or, as the
    last resort, say only "auto" (the strategy is in the tooltip); a user's own choice is shown whole."""
    if "→" not in badge:
        return [badge]
    auto, strategy = (part.strip() for part in badge.split("→", 1))
    return [badge, f"{auto} →\n{strategy}", auto]


def wrap_parts(text: str, room: float, width: Callable[[str], float]) -> str:
    """``text``'s " · "-separated parts as lines at most ``room`` wide, never a part cut in two: a part
    wider than ``room`` is shown as "…". Empty when ``room`` is too small for any text."""
    if room < LABEL_MIN_ROOM:
        return ""
    lines: list[str] = []
    current = ""
    for part in text.split(PART_SEPARATOR):
        if width(part) > room:
            part = ELLIPSIS
            if current.endswith(ELLIPSIS) or (not current and lines and lines[-1].endswith(ELLIPSIS)):
                continue
        joined = f"{current}{PART_SEPARATOR}{part}" if current else part
        if width(joined) <= room:
            current = joined
        else:
            lines.append(current)
            current = part
    if current:
        lines.append(current)
    fitted = "\n".join(lines)
    return text if fitted == text else fitted  # whole: the label itself, not a copy per line (issue 16 "Memory")


class RelationshipItem(QGraphicsRectItem):
    """One line's item: selection, hit tests and tooltips (the layer draws it).

    Its bounding rect is a ``QGraphicsRectItem``'s rect (no pen), so Qt reads it without calling Python: a
    pointer move made Qt ask every line whose box holds the pointer (thousands at 10,000 cards, issue 16),
    twice each, and then stroke its shape; :meth:`contains` answers from the segment instead.
    """

    Type = QGraphicsItem.UserType + 2
    # slots, not an instance dict: about 650 bytes less per line (15,000 lines at 10,000 entities)
    __slots__ = (
        "_along",
        "_badge",
        "_badge_box",
        "_badge_lifted",
        "_badge_shown",
        "_badge_user",
        "_ends",
        "_held",
        "_hit",
        "_is_loop",
        "_kinds",
        "_label",
        "_label_box",
        "_label_fit",
        "_mid",
        "_path",
        "_steep",
        "_style",
        "chord",
        "marker",
        "query_highlight",
        "rel_id",
    )

    def __init__(self, rel_id: str, style: CanvasStyle) -> None:
        super().__init__()
        self.rel_id = rel_id
        self._style = style
        self._kinds = ("one", "many")
        self._label = ""
        self._badge = ""
        self._badge_user = False
        self._path = QPainterPath()
        self._ends: list[tuple[QPointF, float, str]] = []
        self._mid = QPointF()
        #: where along a straight line its badge and label sit (0.5: the middle; see slide_texts)
        self._along = 0.5
        self._steep = False
        self._is_loop = False
        self._hit: QPainterPath | None = None
        #: inside :meth:`changing`: the bounds to set and whether the layer must be told, once, at its end
        self._held: list[object] | None = None
        self._badge_box = QRectF()
        self._badge_shown = ""
        #: the straight segment the overview draws (set with the geometry)
        self.chord: QLineF | None = None
        self._label_box = QRectF()
        self._label_fit = ""
        #: worst open warning/error of the engine about this relationship
        self.marker: str | None = None
        #: the query selected in the Queries dock or tab goes through this relationship (scope or join)
        self.query_highlight = False
        self.setPen(QPen(Qt.PenStyle.NoPen))  # the bounding rect is the rect
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        # the scene's LineLayer paints every line; Qt never asks this item to (nor repaints its bounding box)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        self.setZValue(0)

    def type(self) -> int:
        return self.Type

    def set_relationship(self, rel: Relationship, badge: str, chosen_by_user: bool) -> None:
        self._kinds = END_KINDS.get(rel.cardinality, ("one", "many"))
        self._label = workload_text(rel)
        self._badge = badge
        self._badge_user = chosen_by_user
        if self._ends:
            self._ends = [(tip, angle, kind) for (tip, angle, _old), kind in zip(self._ends, self._kinds, strict=True)]
            # a new badge text rarely changes the bounds: only a real change may touch the scene's index
            # (prepareGeometryChange costs milliseconds per call on a 5,000-card scene)
            self._relayout()
        self._repaint()

    @contextmanager
    def changing(self, moving: bool = False) -> Iterator[None]:
        """Several changes in a row (a move places the line, then slides its texts along it): the scene's index
        and the layer hear of them once, at the end. Each told them on its own: a moved card's line set its
        bounding rect and was filed anew up to six times a move (speed-only, bench_canvas move_redraw).

        ``moving``: a card moved; the bounding rect may be up to :data:`MOVE_ROOM` larger than the drawing, so
        the next steps of a drag leave it alone (it is exact again after any other change)."""
        if self._held is not None:
            yield
            return
        held: list[object] = [None, False]
        self._held = held
        try:
            yield
        finally:
            self._held = None
            bounds = held[0]
            if isinstance(bounds, QRectF):
                self._set_bounds(bounds, MOVE_ROOM if moving else 0.0)
            if held[1]:
                self._repaint()

    def _set_bounds(self, bounds: QRectF, room: float) -> None:
        """Make ``bounds`` the bounding rect; with ``room``, keep the one there if it holds them with at most twice
        ``room`` to spare on each side, else take them with ``room`` around."""
        now = self.rect()
        if not room:
            if bounds != now:
                self.setRect(bounds)
            return
        if (
            now.contains(bounds)
            and bounds.left() - now.left() <= 2 * room
            and bounds.top() - now.top() <= 2 * room
            and now.right() - bounds.right() <= 2 * room
            and now.bottom() - bounds.bottom() <= 2 * room
        ):
            return
        self.setRect(bounds.adjusted(-room, -room, room, room))

    def set_geometry(self, one: QRectF, many: QRectF, lane: float, loop: int = -1) -> None:
        """Recompute the drawing for cards at ``one``/``many`` (scene rects); ``loop`` >= 0 for a self-loop."""
        path = QPainterPath()
        self._is_loop = loop >= 0
        if loop >= 0:
            k = loop * 16.0
            start = QPointF(one.right() - 36 - k, one.top())
            end = QPointF(one.right(), one.top() + 30 + k)
            c1 = QPointF(start.x(), one.top() - 56 - k)
            c2 = QPointF(one.right() + 56 + k, end.y())
            path.moveTo(start)
            path.cubicTo(c1, c2, end)
            self._ends = [
                (start, math.atan2(c1.y() - start.y(), c1.x() - start.x()), self._kinds[0]),
                (end, math.atan2(c2.y() - end.y(), c2.x() - end.x()), self._kinds[1]),
            ]
            self._mid = path.pointAtPercent(0.5)
            self._steep = False
            self.chord = QLineF(start, c1)
        else:
            c1, c2 = one.center(), many.center()
            line = QLineF(c1, c2)
            length = line.length() or 1.0
            nx, ny = -(c2.y() - c1.y()) / length, (c2.x() - c1.x()) / length
            off = QPointF(nx * lane * LANE_GAP, ny * lane * LANE_GAP)
            a, b = c1 + off, c2 + off
            if not one.contains(a):
                a = c1
            if not many.contains(b):
                b = c2
            p1 = clip_to_rect(one, a, b)
            p2 = clip_to_rect(many, b, a)
            path.moveTo(p1)
            path.lineTo(p2)
            angle = math.atan2(p2.y() - p1.y(), p2.x() - p1.x())
            self._ends = [(p1, angle, self._kinds[0]), (p2, angle + math.pi, self._kinds[1])]
            self.chord = QLineF(p1, p2)
            self._along = 0.5
            self._mid = (p1 + p2) / 2
            self._steep = abs(p2.x() - p1.x()) < abs(p2.y() - p1.y())
        self._path = path
        self._relayout()
        self._repaint()

    # ------------------------------------------------------------ geometry
    def text_boxes(self) -> list[QRectF]:
        """The badge and workload label as drawn (scene coordinates); another line's must not cover them."""
        return [box for box, shown in ((self._badge_box, self._badge), (self._label_box, self._label_fit)) if shown]

    def slide_texts(self, along: float) -> bool:
        """Move badge and label to ``along`` (0..1) of a straight line, if the badge keeps clear of the end
        glyphs there; False (and nothing moved) otherwise."""
        if self._is_loop or self.chord is None:
            return False
        if along != 0.5:
            w, _h = self._badge_size(self._badge_shown) if self._badge else (0.0, 0.0)
            if self.chord.length() * min(along, 1 - along) - w / 2 < GLYPH_LENGTH + 8:
                return False
        if along != self._along:
            self._along = along
            self._mid = self.chord.pointAt(along)
            self._relayout(refit_label=False)  # the room between the cards is the same anywhere along the line
            self._repaint()
        return True

    def _badge_rect(self) -> QRectF:
        return self._badge_box

    def _label_rect(self) -> QRectF:
        return self._label_box

    def _relayout(self, refit_label: bool = True) -> None:
        """Cache badge, label and hit areas (paint runs far more often than geometry changes).

        The bounds always leave room for a severity marker left of the badge, so advice
        arriving or leaving never changes the geometry; ``prepareGeometryChange`` runs only
        when the bounds really move (a text-only change stays out of the scene's index).
        ``refit_label`` False: only the place along the line changed, the label keeps its lines.
        """
        self._badge_box = self._compute_badge_rect()
        if refit_label:
            self._label_fit = self._compute_fitted_label()
        self._label_box = self._compute_label_rect()
        self._hit = None  # the hit area is stroked when first asked for (clicks are rarer than layouts)
        bounds = self._path.boundingRect().adjusted(-30, -30, 30, 30).united(self._badge_box).united(self._label_box)
        if self._badge:
            bounds = bounds.united(self._marker_rect().adjusted(-1, -1, 1, 1))
        if self._held is not None:
            self._held[0] = bounds  # set when the changes end (see changing)
        else:
            self._set_bounds(bounds, 0.0)  # the bounding rect (see the class's docstring)

    def _compute_badge_rect(self) -> QRectF:
        """On the line's middle (above a self-loop). A line too short for the whole badge (cards close
        together) keeps the cardinality glyphs at both ends visible: the badge moves off the line (below a
        flat line, for the few/N/∞ tags sit above it near the ends; left of a steep one), and if the gap
        between the cards is narrower still, an engine's badge breaks after its arrow ("auto →" over the
        strategy). The "auto" is never dropped: without it the engine's choice would read as the user's."""
        self._badge_shown = self._badge
        if not self._badge:
            return QRectF(self._mid, self._mid)
        if self._is_loop:  # above the loop: on its middle the badge would cover the card's header
            w, h = self._badge_size(self._badge)
            top = self._path.boundingRect().top()
            return QRectF(self._mid.x() - w / 2, top - h - 2, w, h)
        length = self.chord.length() if self.chord is not None else 1e9
        room = length - 2 * (GLYPH_LENGTH + 8)
        for text in badge_forms(self._badge):
            w, h = self._badge_size(text)
            self._badge_shown = text
            if w <= room:
                return QRectF(self._mid.x() - w / 2, self._mid.y() - h / 2, w, h)
            if (h if self._steep else w) <= self._gap() - 2 * CARD_MARGIN:
                return self._off_line(w, h)
        return self._off_line(w, h)  # the shortest form, even if the cards are closer than that

    def _tags_left(self) -> bool:
        """Whether the few/N/∞ tags of a steep line sit left of it (its badge then goes right, not over them)."""
        return any(
            tag_centre(tip, angle).x() < tip.x() - 1 for tip, angle, kind in self._ends if TAGS.get(kind) is not None
        )

    def _gap(self) -> float:
        """The free space between the two cards across which text beside the line must fit: horizontal
        for a flat line (the text hangs below it), vertical for a steep one (the text sits beside it)."""
        if self.chord is None:
            return 1e9
        return abs(self.chord.dy()) if self._steep else abs(self.chord.dx())

    def _badge_size(self, text: str) -> tuple[float, float]:
        lines = text.split("\n")
        w = max(self._style.badge_width(line) for line in lines) + 12
        return w, self._style.badge_metrics.height() * len(lines) + 4

    def _off_line(self, w: float, h: float) -> QRectF:
        if self._steep and self._tags_left():
            return QRectF(self._mid.x() + 8, self._mid.y() - h / 2, w, h)
        if self._steep:
            return QRectF(self._mid.x() - w - 8, self._mid.y() - h / 2, w, h)
        return QRectF(self._mid.x() - w / 2, self._mid.y() + 6, w, h)

    def _compute_label_rect(self) -> QRectF:
        """Below the badge on flat lines, beside it on steep ones, so the text never sits on the line;
        as wide and as tall as the lines of the fitted label."""
        label = self._label_fit
        if not label:
            return QRectF(self._mid, self._mid)
        lines = label.split("\n")
        w = max(self._style.label_width(line) for line in lines) + 8
        h = self._style.label_metrics.height() * len(lines) + 2
        badge = self._badge_box
        if self._steep:
            return QRectF(max(badge.right(), self._mid.x() + 6) + 4, self._mid.y() - h / 2, w, h)
        return QRectF(self._mid.x() - w / 2, badge.bottom() + 2, w, h)

    def _compute_fitted_label(self) -> str:
        """The label as lines that fit between the two cards of a flat line (it hangs below the line,
        between them): whole parts ("comments", "40 r/s" ...) per line, never a part cut in two; parts
        that fit nowhere end the label with "…" (the tooltip has it whole)."""
        if not self._label or self._steep or self._is_loop or len(self._ends) != 2:
            return self._label
        room = self._gap() - 2 * CARD_MARGIN
        return wrap_parts(self._label, room, self._style.label_width)

    def set_advice(self, marker: str | None) -> None:
        """A severity marker left of the strategy badge (None hides it)."""
        if marker != self.marker:
            self.marker = marker  # the bounds already hold the marker's place (see _relayout)
            self._repaint()

    def _marker_rect(self) -> QRectF:
        badge = self._badge_rect()
        return QRectF(badge.left() - 17, badge.center().y() - 7.5, 15, 15)

    def set_query_highlight(self, on: bool) -> None:
        """Mark the line as used by the selected query (``CanvasScene.highlight_query``); repaint only on change."""
        if on != self.query_highlight:
            self.query_highlight = on
            self._repaint()

    def contains(self, point: QPointF) -> bool:
        """Whether ``point`` lies on the line (within half the hit stroke) or its badge: what ``shape()`` holds,
        without stroking it (Qt asks every line whose box holds the pointer, thousands at 10,000 cards)."""
        chord = self.chord
        if self._is_loop or chord is None:
            return self.shape().contains(point)
        if self._badge and self._badge_box.contains(point):
            return True
        x1, y1, dx, dy = chord.x1(), chord.y1(), chord.dx(), chord.dy()
        px, py = point.x() - x1, point.y() - y1
        length = dx * dx + dy * dy
        t = min(max((px * dx + py * dy) / length, 0.0), 1.0) if length else 0.0
        ex, ey = px - t * dx, py - t * dy
        return ex * ex + ey * ey <= HIT_HALF_WIDTH * HIT_HALF_WIDTH

    def meets(self, area: QRectF) -> bool:
        """Whether the line (within half the hit stroke) or its badge meets ``area``: what a rubber band asks of
        ``shape()``, without stroking it."""
        chord = self.chord
        if self._is_loop or chord is None:
            return self.shape().intersects(area)
        if self._badge and self._badge_box.intersects(area):
            return True
        x1, y1, x2, y2 = chord.x1(), chord.y1(), chord.x2(), chord.y2()
        if segment_meets_rect(x1, y1, x2, y2, area):
            return True
        grown = area.adjusted(-HIT_HALF_WIDTH, -HIT_HALF_WIDTH, HIT_HALF_WIDTH, HIT_HALF_WIDTH)
        # passing just beside the area: the stroke decides (rare, so stroking it then is cheap)
        return segment_meets_rect(x1, y1, x2, y2, grown) and self.shape().intersects(area)

    def shape(self) -> QPainterPath:
        if self._hit is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(2 * HIT_HALF_WIDTH)
            self._hit = stroker.createStroke(self._path)
            self._hit.addRect(self._badge_box)
        return self._hit

    def toolTip(self) -> str:  # Qt's name: CanvasScene.helpEvent asks for it
        """Which cards, cardinality, strategy and the engine's reason (made now, from the model), and the
        whole workload label (on a short line the canvas shows only the parts that fit)."""
        scene = self.scene()
        tip = getattr(scene, "relationship_tip", None)
        text = tip(self.rel_id) if tip is not None else ""
        return f"{text}\nworkload: {self._label}" if text and self._label else text

    def end_points(self) -> list[QPointF]:
        """Where the line meets the two cards (tests check they lie on the card borders)."""
        return [end[0] for end in self._ends]

    def badge_text(self) -> str:
        return self._badge

    def label_text(self) -> str:
        return self._label

    def shown_badge(self) -> str:
        """The badge text as drawn ("auto →" and the strategy on two lines when the cards are close)."""
        return self._badge_shown

    def shown_label(self) -> str:
        """The workload label as drawn: its lines, or "" when there is no room between the cards."""
        return self._label_fit

    # ------------------------------------------------------------ painting (by the scene's LineLayer)
    def _repaint(self) -> None:
        """Tell the layer that draws this line that it changed (it repaints where the line was and is)."""
        if self._held is not None:
            self._held[1] = True  # told when the changes end (see changing)
            return
        scene = self.scene()
        lines = getattr(scene, "lines", None) if scene is not None else None
        if lines is not None:
            lines.refresh(self)

    def path(self) -> QPainterPath:
        return self._path

    def drawn(self) -> Drawn:
        """What the layer files and invalidates: the segment (None for a self-loop), the drawing's box, and the
        badge (with its marker's place) and label boxes."""
        texts = tuple(
            rect.adjusted(-2, -2, 2, 2)
            for rect in (
                self._badge_box.united(self._marker_rect()) if self._badge else QRectF(),
                self._label_box if self._label_fit else QRectF(),
            )
            if not rect.isEmpty()
        )
        box = self._path.boundingRect().adjusted(-GLYPH_REACH, -GLYPH_REACH, GLYPH_REACH, GLYPH_REACH)
        line = self.chord
        if self._is_loop or line is None:
            return None, box, texts
        return (line.x1(), line.y1(), line.x2(), line.y2()), box, texts

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        """Nothing: the item has no contents (the layer draws the line)."""

    def paint_decorations(self, painter: QPainter, pen: QPen, glyphs: QPen, exposed: QRectF, lod: float) -> None:
        """The crow's feet at the ends inside ``exposed`` (in ``glyphs``), then (zoomed in enough) badge, marker
        and label where they meet it; the layer has stroked the line with ``pen``."""
        style, colors = self._style, self._style.colors
        for tip, angle, kind in self._ends:
            if exposed.contains(tip):
                painter.setPen(glyphs)
                draw_end(painter, tip, angle, kind, style.tag_font)
        if lod < TEXT_LOD:
            return
        if self._badge and exposed.intersects(self._badge_box.united(self._marker_rect())):
            rect = self._badge_box
            painter.setPen(QPen(pen.color(), 1))
            painter.setBrush(QBrush(colors.badge if self._badge_user else colors.badge_auto))
            painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
            painter.setPen(colors.badge_text)
            painter.setFont(style.badge_font)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self._badge_shown)
            if self.marker:
                paint_marker(painter, self._marker_rect(), self.marker)
        label = self._label_fit
        if label and exposed.intersects(self._label_box):
            back = QColor(colors.background)
            back.setAlpha(215)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(back)
            painter.drawRoundedRect(self._label_box, 3, 3)
            painter.setPen(colors.label_text)
            painter.setFont(style.label_font)
            painter.drawText(self._label_box, Qt.AlignmentFlag.AlignCenter, label)
        painter.setBrush(Qt.BrushStyle.NoBrush)
