"""Icons drawn as SVG files in ``modeller/ui/resources/icons`` (package data), recoloured for dark
palettes, rendered sharp at any DPI."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from modeller.ui import resources
from modeller.ui.theme.colors import is_dark

INK_LIGHT, INK_DARK = "#3b4a5e", "#d5dbe3"
ACCENT_LIGHT, ACCENT_DARK = "#2f7de1", "#79b4ff"

#: every icon name the UI asked for (a test checks each one ships as package data)
REQUESTED: set[str] = set()


@cache
def _icon(name: str, dark: bool) -> QIcon:
    text = resources.read_text("icons", f"{name}.svg")
    if text is None:
        return QIcon()
    if dark:
        text = text.replace(INK_LIGHT, INK_DARK).replace(ACCENT_LIGHT, ACCENT_DARK)
    renderer = QSvgRenderer(QByteArray(text.encode("utf-8")))
    icon = QIcon()
    for size in (16, 20, 24, 32, 48, 64):
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        renderer.render(painter, QRectF(0, 0, size, size))
        painter.end()
        icon.addPixmap(pixmap)
    return icon


def icon(name: str) -> QIcon:
    """The named icon for the current palette (an empty icon if the file is missing)."""
    REQUESTED.add(name)
    return _icon(name, is_dark())


def icon_names() -> list[str]:
    return resources.names("icons", ".svg")
