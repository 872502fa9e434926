"""The notation legend in the canvas corner: what the line ends and badges mean."""

from __future__ import annotations

import math

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QWidget

from modeller.ui.canvas.items.notation import LEGEND, draw_end
from modeller.ui.canvas.items.style import CanvasStyle


def legend_corners(viewport: QRect, size: QSize, margin: int) -> list[QRect]:
    """Where the legend may sit, in order of preference: bottom-left, bottom-right, top-left, top-right."""
    left, right = viewport.left() + margin, viewport.right() + 1 - margin - size.width()
    top, bottom = viewport.top() + margin, viewport.bottom() + 1 - margin - size.height()
    return [QRect(QPoint(x, y), size) for x, y in ((left, bottom), (right, bottom), (left, top), (right, top))]


class LegendWidget(QWidget):
    """Small translucent panel drawn with the same glyph code as the lines."""

    ROW = 22

    def __init__(self, style: CanvasStyle, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._style = style
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setToolTip("Cardinality notation (View ▸ Legend hides it)")
        self._cache: QPixmap | None = None
        self.resize(self.sizeHint())

    def refresh(self) -> None:
        """Repaint from scratch after a palette change (the widget keeps one pixmap of itself)."""
        self._cache = None
        self.update()

    def sizeHint(self) -> QSize:
        width = max(self._style.label_metrics.horizontalAdvance(text) for _, text in LEGEND)
        width = max(width, self._style.label_metrics.horizontalAdvance("auto → x: engine's choice"))
        return QSize(int(width) + 80, self.ROW * (len(LEGEND) + 2) + 12)

    def paintEvent(self, event: QPaintEvent) -> None:
        # the legend sits over the canvas and repaints with every canvas frame: blit a cached picture
        ratio = self.devicePixelRatioF()
        if self._cache is None or self._cache.size() != self.size() * ratio:
            self._cache = QPixmap(self.size() * ratio)
            self._cache.setDevicePixelRatio(ratio)
            self._cache.fill(Qt.GlobalColor.transparent)
            self._draw(QPainter(self._cache))
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._cache)
        painter.end()

    def _draw(self, painter: QPainter) -> None:
        colors = self._style.colors
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        bg = QColor(colors.card)
        bg.setAlpha(230)
        painter.setPen(QPen(colors.card_border, 1))
        painter.setBrush(bg)
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)
        painter.setFont(self._style.label_font)
        y = 8.0
        for kind, text in LEGEND:
            mid = y + self.ROW / 2
            painter.setPen(QPen(colors.line, 1.4))
            painter.drawLine(QPointF(12, mid), QPointF(52, mid))
            draw_end(painter, QPointF(52, mid), math.pi, kind, self._style.tag_font)
            painter.setPen(colors.card_text)
            painter.drawText(QRectF(64, y, self.width() - 70, self.ROW), Qt.AlignmentFlag.AlignVCenter, text)
            y += self.ROW
        for label, text, user in (("embed", "your strategy", True), ("auto → x", "engine's choice", False)):
            metrics = self._style.badge_metrics
            w = metrics.horizontalAdvance(label) + 10
            rect = QRectF(12, y + 3, w, self.ROW - 6)
            painter.setPen(QPen(colors.line, 1))
            painter.setBrush(colors.badge if user else colors.badge_auto)
            painter.drawRoundedRect(rect, rect.height() / 2, rect.height() / 2)
            painter.setFont(self._style.badge_font)
            painter.setPen(colors.badge_text)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, label)
            painter.setFont(self._style.label_font)
            painter.setPen(colors.card_text)
            painter.drawText(QRectF(rect.right() + 8, y, self.width(), self.ROW), Qt.AlignmentFlag.AlignVCenter, text)
            y += self.ROW
        painter.end()
