"""Light and dark themes: follow the system palette by default, or force one (View ▸ Theme).

The choice is stored in QSettings under :data:`SETTING` and applied live:
the palette and stylesheet change at once, icons follow by themselves
(:mod:`modeller.ui.theme.icons` picks its ink at paint time) and
:func:`recolor_canvas` re-derives the canvas colours, which are computed once
per scene for painting speed.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from modeller.ui import resources
from modeller.ui.theme.colors import CanvasColors
from modeller.ui.widgets.highlighter import CodeHighlighter

THEMES = ("system", "light", "dark")
THEME_LABELS = {"system": "&System", "light": "&Light", "dark": "&Dark"}
SETTING = "view/theme"

#: the platform's own style name and palette, remembered before a forced theme replaces them
_system: tuple[str, QPalette] | None = None


def dark_palette() -> QPalette:
    pal = QPalette()
    role = QPalette.ColorRole
    for r, c in (
        (role.Window, "#2b2e33"),
        (role.WindowText, "#e6e8eb"),
        (role.Base, "#1f2227"),
        (role.AlternateBase, "#2b2e33"),
        (role.ToolTipBase, "#2b2e33"),
        (role.ToolTipText, "#e6e8eb"),
        (role.Text, "#e6e8eb"),
        (role.Button, "#33373d"),
        (role.ButtonText, "#e6e8eb"),
        (role.BrightText, "#ff6b6b"),
        (role.Highlight, "#3d7fd6"),
        (role.HighlightedText, "#ffffff"),
        (role.PlaceholderText, "#8a929c"),
        (role.Link, "#79b4ff"),
    ):
        pal.setColor(r, QColor(c))
    for r, c in ((role.WindowText, "#7d848e"), (role.Text, "#7d848e"), (role.ButtonText, "#7d848e")):
        pal.setColor(QPalette.ColorGroup.Disabled, r, QColor(c))
    return pal


def stored_theme(settings: QSettings) -> str:
    """The theme saved in ``settings`` (anything unknown reads as ``system``)."""
    value = settings.value(SETTING, "system")
    return value if isinstance(value, str) and value in THEMES else "system"


def store_theme(settings: QSettings, theme: str) -> None:
    settings.setValue(SETTING, theme)
    settings.sync()


def apply_theme(app: QApplication, theme: str = "system") -> None:
    """Set style, palette and stylesheet; ``system`` restores the platform's own (light or dark)."""
    global _system
    if theme not in THEMES:
        raise ValueError(f"unknown theme {theme!r}; expected one of {', '.join(THEMES)}")
    if _system is None:
        _system = (app.style().name(), QPalette(app.palette()))
    if theme == "dark":
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    elif theme == "light":
        app.setStyle("Fusion")
        app.setPalette(app.style().standardPalette())
    else:
        style_name, palette = _system
        if app.style().name().lower() != style_name.lower():
            app.setStyle(style_name)
        app.setPalette(palette)
    app.setStyleSheet(resources.read_text("styles", "app.qss") or "")


def recolor_canvas(scene: Any, view: Any | None = None) -> None:
    """Re-derive the canvas colours from the current palette and repaint cards, lines and legend."""
    scene.style.colors = CanvasColors.from_palette()
    scene.setBackgroundBrush(scene.style.colors.background)
    for item in scene.items():
        item.update()  # drops the item's cached picture (DeviceCoordinateCache)
    scene.update()
    if view is not None:
        legend = getattr(view, "legend", None)
        if legend is not None:
            legend.refresh()
        view.resetCachedContent()
        view.viewport().update()


def refresh_highlighters(root: Any) -> None:
    """Code views under ``root`` (Preview ▸ Script, Validator) take the new palette's colours."""
    for code in root.findChildren(CodeHighlighter):
        code.refresh_palette()
