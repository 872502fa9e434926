"""Qt fixtures: windows with isolated settings and recovery folders; dialogs never block.

``QMessageBox.exec`` is replaced for every test: a test that expects a dialog
sets the answer with the ``dialogs`` fixture; an unexpected dialog fails the
test instead of hanging it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

from modeller.persistence import load_project
from modeller.ui.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"


class DialogLog:
    """Answers for QMessageBox.exec, and the texts of the boxes that were shown."""

    def __init__(self) -> None:
        self.answers: list[QMessageBox.StandardButton] = []
        self.shown: list[str] = []

    def exec(self, box: QMessageBox) -> int:
        self.shown.append(f"{box.windowTitle()}\n{box.text()}\n{box.informativeText()}")
        if not self.answers:
            raise AssertionError(f"unexpected dialog: {self.shown[-1]}")
        return int(self.answers.pop(0).value)


@pytest.fixture(autouse=True)
def dialogs(monkeypatch: pytest.MonkeyPatch) -> DialogLog:
    log = DialogLog()
    monkeypatch.setattr(QMessageBox, "exec", lambda box: log.exec(box))

    def no_file_dialog(*_args: object, **_kwargs: object) -> tuple[str, str]:
        raise AssertionError("unexpected file dialog")

    monkeypatch.setattr(QFileDialog, "getOpenFileName", no_file_dialog)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", no_file_dialog)
    return log


@pytest.fixture
def make_window(qtbot, tmp_path: Path) -> Iterator[Callable[..., MainWindow]]:
    """Windows sharing one isolated settings file and recovery folder (a "machine")."""
    windows: list[MainWindow] = []

    def make(**kwargs: object) -> MainWindow:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        kwargs.setdefault("use_engine", False)
        window = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery", **kwargs)  # type: ignore[arg-type]
        qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
        window.resize(1300, 850)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.document.undo_stack.setClean()  # closing must not prompt


@pytest.fixture
def window(make_window: Callable[..., MainWindow]) -> MainWindow:
    return make_window()


def sample(name: str) -> Path:
    return SAMPLES / f"{name}.modeller.json"


def load_sample(name: str):
    return load_project(sample(name))
