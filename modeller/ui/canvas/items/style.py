"""Fonts, metrics and colours shared by all items of one scene (computed once, not per paint)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QApplication

from modeller.ui.theme.colors import CanvasColors


class TextWidths:
    """``horizontalAdvance`` of one font, remembered per text: field names, types and badges repeat
    across thousands of cards, and measuring costs far more than a dictionary lookup."""

    LIMIT = 50_000

    def __init__(self, metrics: QFontMetricsF) -> None:
        self.metrics = metrics
        self._known: dict[str, float] = {}

    def __call__(self, text: str) -> float:
        width = self._known.get(text)
        if width is None:
            if len(self._known) >= self.LIMIT:
                self._known.clear()
            width = self._known[text] = self.metrics.horizontalAdvance(text)
        return width


class CanvasStyle:
    """Everything an item needs to measure and paint itself."""

    padding = 10.0
    min_width = 170.0
    max_width = 300.0
    max_rows = 16
    indent = 14.0
    radius = 6.0
    grid = 20.0

    def __init__(self, colors: CanvasColors | None = None) -> None:
        self.colors = colors or CanvasColors.from_palette()
        base = QApplication.font()
        size = max(base.pointSizeF(), 9.0)
        self.title_font = QFont(base)
        self.title_font.setPointSizeF(size + 1.5)
        self.title_font.setBold(True)
        self.sub_font = QFont(base)
        self.sub_font.setPointSizeF(size - 0.5)
        self.field_font = QFont(base)
        self.field_font.setPointSizeF(size)
        self.type_font = QFont(base)
        self.type_font.setPointSizeF(size - 0.5)
        self.type_font.setItalic(True)
        self.label_font = QFont(base)
        self.label_font.setPointSizeF(size - 0.5)
        self.badge_font = QFont(base)
        self.badge_font.setPointSizeF(size - 1)
        self.badge_font.setBold(True)
        self.tag_font = QFont(base)
        self.tag_font.setPointSizeF(size - 1)
        self.tag_font.setBold(True)
        self.title_metrics = QFontMetricsF(self.title_font)
        self.sub_metrics = QFontMetricsF(self.sub_font)
        self.field_metrics = QFontMetricsF(self.field_font)
        self.type_metrics = QFontMetricsF(self.type_font)
        self.label_metrics = QFontMetricsF(self.label_font)
        self.badge_metrics = QFontMetricsF(self.badge_font)
        self.title_width = TextWidths(self.title_metrics)
        self.sub_width = TextWidths(self.sub_metrics)
        self.field_width = TextWidths(self.field_metrics)
        self.type_width = TextWidths(self.type_metrics)
        self.label_width = TextWidths(self.label_metrics)
        self.badge_width = TextWidths(self.badge_metrics)
        #: how wide a card's row must be, per row (``entity_item.row_width``)
        self.row_widths: dict[object, float] = {}
        self.row_height = self.field_metrics.height() + 4
        self.header_height = self.title_metrics.height() + self.sub_metrics.height() + 10
