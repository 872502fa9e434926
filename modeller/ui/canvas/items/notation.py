"""Crow's-foot cardinality glyphs, shared by relationship lines and the legend.

Ends: ``one`` is a double bar (exactly one); the N side is a crow's foot with a
tag saying how many: ``few`` (a bounded handful), ``N`` (many) or ``∞``
(squillions). A one-to-one draws the double bar at both ends; a many-to-many
draws a crow's foot at both ends.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QPainter, QPen

#: cardinality -> (glyph at the "one" end, glyph at the "many" end)
END_KINDS: dict[str, tuple[str, str]] = {
    "one-to-one": ("one", "one"),
    "one-to-few": ("one", "few"),
    "one-to-many": ("one", "many"),
    "one-to-squillions": ("one", "squillions"),
    "many-to-many": ("many", "many"),
}

TAGS = {"few": "few", "many": "N", "squillions": "∞"}

#: legend rows: glyph kind and its explanation
LEGEND = (
    ("one", "exactly one"),
    ("few", "a few (bounded, small N)"),
    ("many", "many (N)"),
    ("squillions", "squillions (unbounded)"),
)

GLYPH_LENGTH = 18.0


def draw_end(painter: QPainter, tip: QPointF, angle: float, kind: str, tag_font: QFont | None = None) -> None:
    """Draw the glyph at ``tip`` (on the card border); ``angle`` points from the card out along the line."""
    dx, dy = math.cos(angle), math.sin(angle)
    nx, ny = -dy, dx

    def at(along: float, across: float = 0.0) -> QPointF:
        return QPointF(tip.x() + dx * along + nx * across, tip.y() + dy * along + ny * across)

    if kind == "one":
        for along in (7.0, 12.0):
            painter.drawLine(at(along, -6), at(along, 6))
        return
    fork = at(GLYPH_LENGTH - 4)
    for across in (-7.0, 0.0, 7.0):
        painter.drawLine(fork, at(0, across))
    tag = TAGS.get(kind)
    if tag and tag_font is not None:
        painter.save()
        painter.setFont(tag_font)
        centre = tag_centre(tip, angle)
        rect = QRectF(centre.x() - 14, centre.y() - 8, 28, 16)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, tag)
        painter.restore()


def tag_centre(tip: QPointF, angle: float) -> QPointF:
    """Where the few/N/∞ tag of the end at ``tip`` sits: beside the crow's foot, above the line (on a vertical
    line the side the line's direction gives; the badge keeps to the other side)."""
    dx, dy = math.cos(angle), math.sin(angle)
    nx, ny = -dy, dx
    side = 1.0 if ny <= 0 else -1.0  # keep the tag above the line
    along, across = GLYPH_LENGTH - 2, side * 13
    return QPointF(tip.x() + dx * along + nx * across, tip.y() + dy * along + ny * across)


def glyph_pen(pen: QPen) -> QPen:
    out = QPen(pen)
    out.setStyle(Qt.PenStyle.SolidLine)
    return out
