"""Severity colours, icons and wording shared by the panel, the status bar and the canvas markers.

Icons are painted at run time (no image files to ship), each with a distinct
shape as well as colour so they stay readable for colour-blind users and in
both themes.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF

from modeller.rules.framework.findings import SEVERITIES, Severity
from modeller.rules.framework.sections import severity_summary

#: most severe first: the order of the panel's groups and the status bar
ORDER: tuple[Severity, ...] = tuple(reversed(SEVERITIES))

COLORS: dict[str, str] = {
    "error": "#d32f2f",
    "warning": "#ef8f00",
    "suggestion": "#1e78c8",
    "info": "#6b7680",
}

PLURAL: dict[str, str] = {
    "error": "Errors",
    "warning": "Warnings",
    "suggestion": "Suggestions",
    "info": "Notes",
}


def color(severity: str) -> QColor:
    return QColor(COLORS.get(severity, COLORS["info"]))


def paint_marker(painter: QPainter, rect: QRectF, severity: str) -> None:
    """Draw the severity glyph into ``rect`` (also used by canvas items)."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    fill = color(severity)
    painter.setPen(QPen(fill.darker(130), max(1.0, rect.width() / 16)))
    painter.setBrush(fill)
    if severity == "warning":
        poly = QPolygonF(
            [
                QPointF(rect.center().x(), rect.top() + rect.height() * 0.04),
                QPointF(rect.right() - rect.width() * 0.02, rect.bottom() - rect.height() * 0.06),
                QPointF(rect.left() + rect.width() * 0.02, rect.bottom() - rect.height() * 0.06),
            ]
        )
        painter.drawPolygon(poly)
        glyph, glyph_rect = "!", rect.adjusted(0, rect.height() * 0.22, 0, 0)
    elif severity == "error":
        path = QPainterPath()
        path.addEllipse(rect.adjusted(1, 1, -1, -1))
        painter.drawPath(path)
        glyph, glyph_rect = "×", rect
    elif severity == "suggestion":
        painter.drawRoundedRect(rect.adjusted(1, 1, -1, -1), rect.width() * 0.2, rect.height() * 0.2)
        glyph, glyph_rect = "?", rect
    else:
        painter.drawEllipse(rect.adjusted(1, 1, -1, -1))
        glyph, glyph_rect = "i", rect
    font = QFont()
    font.setBold(True)
    font.setPixelSize(max(6, int(rect.height() * 0.62)))
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(glyph_rect, int(Qt.AlignmentFlag.AlignCenter), glyph)
    painter.restore()


@cache
def icon(severity: str, size: int = 16) -> QIcon:
    """A painted icon for ``severity`` (cached: the panel asks for it per row)."""
    result = QIcon()
    for scale in (1, 2):
        pixmap = QPixmap(size * scale, size * scale)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        paint_marker(painter, QRectF(0, 0, size * scale, size * scale), severity)
        painter.end()
        pixmap.setDevicePixelRatio(scale)
        result.addPixmap(pixmap)
    return result


def summary(counts: dict[str, int]) -> str:
    """``"1 error · 3 warnings · 5 suggestions"`` (zero counts left out, "no findings" when empty)."""
    return severity_summary(counts)
