"""Canvas colours derived from the application palette, so light and dark themes both read well."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication


def is_dark(palette: QPalette | None = None) -> bool:
    pal = palette or QApplication.palette()
    return pal.color(QPalette.ColorRole.Window).lightness() < 128


@dataclass(frozen=True)
class CanvasColors:
    background: QColor
    grid: QColor
    card: QColor
    card_border: QColor
    card_text: QColor
    card_muted: QColor
    header: QColor
    header_timeseries: QColor
    header_lookup: QColor
    header_text: QColor
    selection: QColor
    hover: QColor
    line: QColor
    line_selected: QColor
    badge: QColor
    badge_auto: QColor
    badge_text: QColor
    label_text: QColor
    handle: QColor

    @classmethod
    def from_palette(cls, palette: QPalette | None = None) -> CanvasColors:
        pal = palette or QApplication.palette()
        highlight = pal.color(QPalette.ColorRole.Highlight)
        if is_dark(pal):
            return cls(
                background=QColor("#1f2227"),
                grid=QColor("#2a2e35"),
                card=QColor("#2b2f36"),
                card_border=QColor("#5b6370"),
                card_text=QColor("#e6e8eb"),
                card_muted=QColor("#9aa3ae"),
                header=QColor("#2f5d8a"),
                header_timeseries=QColor("#1f6f66"),
                header_lookup=QColor("#7a5a1c"),
                header_text=QColor("#ffffff"),
                selection=highlight.lighter(130),
                hover=QColor("#8fb3d9"),
                line=QColor("#a7b0bc"),
                line_selected=highlight.lighter(130),
                badge=QColor("#3b4452"),
                badge_auto=QColor("#3a4a3a"),
                badge_text=QColor("#e6e8eb"),
                label_text=QColor("#c3cad3"),
                handle=QColor("#6fb1ff"),
            )
        return cls(
            background=QColor("#fbfbfc"),
            grid=QColor("#eceef2"),
            card=QColor("#ffffff"),
            card_border=QColor("#aab2bd"),
            card_text=QColor("#1d2330"),
            card_muted=QColor("#6b7585"),
            header=QColor("#3569a8"),
            header_timeseries=QColor("#237a70"),
            header_lookup=QColor("#9a6b12"),
            header_text=QColor("#ffffff"),
            selection=highlight,
            hover=QColor("#6c9bd2"),
            line=QColor("#5d6776"),
            line_selected=highlight,
            badge=QColor("#e8edf5"),
            badge_auto=QColor("#e5f2e5"),
            badge_text=QColor("#1d2330"),
            label_text=QColor("#475062"),
            handle=QColor("#2f7de1"),
        )
