"""Light and dark themes: follow the system palette by default, or force one (View ▸ Theme)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from modeller.ui import resources

THEMES = ("system", "light", "dark")


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
        (role.Highlight, "#3d7fd6"),
        (role.HighlightedText, "#ffffff"),
        (role.PlaceholderText, "#8a929c"),
        (role.Link, "#79b4ff"),
    ):
        pal.setColor(r, QColor(c))
    return pal


def apply_theme(app: QApplication, theme: str = "system") -> None:
    """Set palette and stylesheet; ``system`` keeps the platform palette (light or dark)."""
    if theme == "dark":
        app.setStyle("Fusion")
        app.setPalette(dark_palette())
    elif theme == "light":
        app.setStyle("Fusion")
        app.setPalette(app.style().standardPalette())
    app.setStyleSheet(resources.read_text("styles", "app.qss") or "")
