"""How a card or a line shows that the selected query touches it: a wide amber halo under the usual drawing.

Separate from selection (blue) and hover, so a user can select an entity while a
query's collections and relationships stay marked. The scene sets the flag
(``CanvasScene.highlight_query``); the items only paint it.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen

#: amber: readable on the light and the dark canvas, and unlike the selection blue and the severity markers
QUERY_COLOR = QColor(230, 145, 0, 170)
#: width of the halo; a card's bounding rect leaves this much room around it
HALO = 4.0


def paint_card_halo(painter: QPainter, rect: QRectF, radius: float) -> None:
    """A rounded band just outside a card."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(QUERY_COLOR, HALO))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(rect.adjusted(-HALO / 2, -HALO / 2, HALO / 2, HALO / 2), radius + 2, radius + 2)
    painter.restore()


def paint_line_halo(painter: QPainter, path: QPainterPath) -> None:
    """A wide band under a relationship's line."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(QUERY_COLOR, 2 * HALO, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPath(path)
    painter.restore()
