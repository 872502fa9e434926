"""Icons and the stylesheet ship as package data: a non-editable install must not lose them."""

from __future__ import annotations

import fnmatch
import tomllib
from importlib.resources import files
from pathlib import Path

from modeller.ui.main_window import MainWindow
from modeller.ui.templates import TEMPLATES
from modeller.ui.theme import icons
from modeller.ui.theme.theme import apply_theme

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "modeller.ui.resources"


def packaged_globs() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["setuptools"]["package-data"][PACKAGE])


def test_every_icon_the_window_asks_for_is_package_data(window: MainWindow) -> None:
    asked = set(icons.REQUESTED) | {template.icon for template in TEMPLATES}
    # the toolbar, the menus and the palette all ask for icons while the window is built
    assert {"new", "open", "save", "undo", "redo", "entity", "event-stream", "lookup", "app"} <= asked
    folder = files(PACKAGE) / "icons"
    missing = sorted(name for name in asked if not (folder / f"{name}.svg").is_file())
    assert missing == []
    for name in asked:
        assert not icons.icon(name).isNull(), name
        assert "<svg" in (folder / f"{name}.svg").read_text(encoding="utf-8")


def test_packaged_files_are_covered_by_the_package_data_globs() -> None:
    globs = packaged_globs()
    root = files(PACKAGE)
    shipped = [f"{folder}/{child.name}" for folder in ("icons", "styles") for child in (root / folder).iterdir()]
    assert any(name.endswith(".qss") for name in shipped)
    uncovered = [name for name in shipped if not any(fnmatch.fnmatch(name, g) for g in globs)]
    assert uncovered == []


def test_stylesheet_is_read_from_the_package(qapp) -> None:
    before = qapp.styleSheet()
    try:
        apply_theme(qapp, "system")
        assert "QDockWidget::title" in qapp.styleSheet()
        assert qapp.styleSheet() == (files(PACKAGE) / "styles" / "app.qss").read_text(encoding="utf-8")
    finally:
        qapp.setStyleSheet(before)


def test_no_icons_left_outside_the_package() -> None:
    assert not (ROOT / "resources" / "icons").exists()
    assert (ROOT / "resources" / "schema" / "project.schema.json").is_file()  # written by persistence
