"""Icons drawn as SVG files in ``modeller/ui/resources/icons`` (package data), recoloured for dark
palettes, rendered sharp at any DPI.

Each icon is a :class:`PaletteIconEngine`: it picks the light or dark ink when
it is painted, not when it is created, so switching View ▸ Theme recolours
every toolbar button and palette entry without rebuilding them.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QByteArray, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QIcon, QIconEngine, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication, QStyleOption

from modeller.ui import resources
from modeller.ui.theme.colors import is_dark

INK_LIGHT, INK_DARK = "#3b4a5e", "#d5dbe3"
ACCENT_LIGHT, ACCENT_DARK = "#2f7de1", "#79b4ff"

#: every icon name the UI asked for (a test checks each one ships as package data)
REQUESTED: set[str] = set()


@cache
def _svg(name: str, dark: bool) -> bytes | None:
    text = resources.read_text("icons", f"{name}.svg")
    if text is None:
        return None
    if dark:
        text = text.replace(INK_LIGHT, INK_DARK).replace(ACCENT_LIGHT, ACCENT_DARK)
    return text.encode("utf-8")


@cache
def _pixmap(name: str, dark: bool, width: int, height: int) -> QPixmap:
    pixmap = QPixmap(max(width, 1), max(height, 1))
    pixmap.fill(Qt.GlobalColor.transparent)
    data = _svg(name, dark)
    if data is not None:
        painter = QPainter(pixmap)
        QSvgRenderer(QByteArray(data)).render(painter, QRectF(0, 0, width, height))
        painter.end()
    return pixmap


class PaletteIconEngine(QIconEngine):
    """Renders one SVG icon in the ink of the palette current at paint time."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def clone(self) -> QIconEngine:
        return PaletteIconEngine(self.name)

    def key(self) -> str:
        return "modeller-palette-svg"

    def isNull(self) -> bool:
        return _svg(self.name, False) is None

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        side = min(size.width(), size.height())
        return QSize(side, side)

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        side = min(size.width(), size.height())
        pixmap = _pixmap(self.name, is_dark(), side, side)
        if mode == QIcon.Mode.Disabled:
            app = QApplication.instance()
            if isinstance(app, QApplication):
                return app.style().generatedIconPixmap(mode, pixmap, QStyleOption())
        return pixmap

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float) -> QPixmap:
        real = QSize(round(size.width() * scale), round(size.height() * scale))
        pixmap = QPixmap(self.pixmap(real, mode, state))
        pixmap.setDevicePixelRatio(scale)
        return pixmap

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        ratio = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        pixmap = self.pixmap(QSize(round(rect.width() * ratio), round(rect.height() * ratio)), mode, state)
        painter.drawPixmap(rect, pixmap)

    def availableSizes(self, mode: QIcon.Mode, state: QIcon.State) -> list[QSize]:
        return [QSize(s, s) for s in (16, 20, 24, 32, 48, 64)]


def icon(name: str) -> QIcon:
    """The named icon, drawn for whatever palette is current (an empty icon if the file is missing)."""
    REQUESTED.add(name)
    if _svg(name, False) is None:
        return QIcon()
    return QIcon(PaletteIconEngine(name))
