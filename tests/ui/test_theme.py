"""View ▸ Theme: System / Light / Dark, applied live and remembered in (isolated) settings."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QSize
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QApplication

from modeller.ui.main_window import MainWindow
from modeller.ui.theme.icons import INK_DARK, INK_LIGHT, icon
from modeller.ui.theme.theme import SETTING, apply_theme, stored_theme

from .conftest import SAMPLES


@pytest.fixture(autouse=True)
def back_to_system(qapp: QApplication) -> Iterator[None]:
    """Other tests in this process expect the platform's style and palette, and no style sheet (it changes the
    size of every widget: a test of the legend's corner once failed only after these)."""
    style, sheet = qapp.style().name(), qapp.styleSheet()
    yield
    apply_theme(qapp, "system")
    qapp.setStyleSheet(sheet)
    if qapp.style().name() != style:
        qapp.setStyle(style)


def window_lightness(app: QApplication) -> int:
    return app.palette().color(QPalette.ColorRole.Window).lightness()


def ink_colours(name: str) -> set[str]:
    image = icon(name).pixmap(QSize(48, 48)).toImage()
    return {
        image.pixelColor(x, y).name() for x in range(48) for y in range(48) if image.pixelColor(x, y).alpha() == 255
    }


def background_of(window: MainWindow) -> QColor:
    """The most common colour of the canvas viewport (the background, not grid or cards)."""
    image = window.view.viewport().grab().toImage()
    counts: dict[int, int] = {}
    for y in range(0, image.height(), 5):
        for x in range(0, image.width(), 5):
            counts[image.pixel(x, y)] = counts.get(image.pixel(x, y), 0) + 1
    return QColor.fromRgb(max(counts, key=counts.__getitem__))


def test_dark_then_system_applies_live_and_is_remembered(make_window, qapp: QApplication) -> None:
    window = make_window()
    assert window.open_path(SAMPLES / "task-tracker.modeller.json", ask=False)
    system_lightness = window_lightness(qapp)
    assert window.theme_actions["system"].isChecked()
    assert [a.text().replace("&", "") for a in window.theme_menu.actions()] == ["System", "Light", "Dark"]

    window.theme_actions["dark"].trigger()
    assert window_lightness(qapp) < 128
    assert window.scene.style.colors.background == QColor("#1f2227")
    assert background_of(window).lightness() < 60  # the canvas repainted dark, not just the docks
    assert INK_DARK in ink_colours("save") and INK_LIGHT not in ink_colours("save")
    assert window.settings.value(SETTING) == "dark"
    assert [n for n, a in window.theme_actions.items() if a.isChecked()] == ["dark"]

    second = make_window()  # same settings file: the next start
    assert second.theme_actions["dark"].isChecked() and stored_theme(second.settings) == "dark"

    window.theme_actions["system"].trigger()
    assert window_lightness(qapp) == system_lightness
    assert window.settings.value(SETTING) == "system"
    if system_lightness >= 128:
        assert INK_LIGHT in ink_colours("save")
        assert background_of(window).lightness() > 200


def test_light_forces_a_light_palette(window: MainWindow, qapp: QApplication) -> None:
    window.theme_actions["dark"].trigger()
    window.theme_actions["light"].trigger()
    assert window_lightness(qapp) >= 128
    assert window.scene.style.colors.background == QColor("#fbfbfc")
    assert window.settings.value(SETTING) == "light"


def test_unknown_stored_theme_reads_as_system(tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue(SETTING, "neon")
    assert stored_theme(settings) == "system"
    with pytest.raises(ValueError, match="unknown theme 'neon'"):
        apply_theme(QApplication.instance(), "neon")  # type: ignore[arg-type]


def test_next_start_uses_the_stored_theme(tmp_path: Path) -> None:
    """A fresh process with the stored choice 'dark' paints a dark window (settings live in tmp_path)."""
    config = tmp_path / "config"
    (config / "Modeller").mkdir(parents=True)
    (config / "Modeller" / "Modeller.conf").write_text("[view]\ntheme=dark\n", encoding="utf-8")
    out = tmp_path / "shot.png"
    env = dict(os.environ, XDG_CONFIG_HOME=str(config), HOME=str(tmp_path), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-m", "modeller.entry", str(SAMPLES / "blog.modeller.json"), "--screenshot", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    image = QImage(str(out))
    corner = QColor(image.pixel(5, image.height() - 5))  # status bar
    assert corner.lightness() < 100
