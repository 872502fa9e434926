"""The few dialogs the window needs, each behind one small function (tests patch ``QMessageBox``).

Every text is plain (a name such as ``<img src=...>`` must not be rendered as
HTML) and passes through :func:`modeller.model.text.shown`, so a file or
project name with control or bidi characters is shown escaped and cut.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from modeller.model.text import neutralize, shown

#: the most lines of a file error a dialog lists (the CLI prints them all)
MAX_DETAIL_LINES = 12


class Unsaved(Enum):
    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


def ask_unsaved(parent: QWidget, name: str) -> Unsaved:
    """Save / Discard / Cancel before the current project is closed or replaced."""
    box = _box(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Unsaved changes")
    box.setText(f"Save the changes to “{shown(name)}”?")
    box.setInformativeText("Your changes will be lost if you don't save them.")
    box.setStandardButtons(
        QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel
    )
    box.setDefaultButton(QMessageBox.StandardButton.Save)
    answer = box.exec()
    if answer == QMessageBox.StandardButton.Save:
        return Unsaved.SAVE
    if answer == QMessageBox.StandardButton.Discard:
        return Unsaved.DISCARD
    return Unsaved.CANCEL


def show_file_error(parent: QWidget, title: str, path: Path | str | None, details: str) -> None:
    """One dialog naming the file, the place and the problem (``details`` is ``str(ProjectFileError)``)."""
    box = _box(parent)
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(title)
    lines = [shown(line, 1000) for line in details.splitlines()]
    if len(lines) > MAX_DETAIL_LINES:
        lines[MAX_DETAIL_LINES:] = [f"... and {len(lines) - MAX_DETAIL_LINES} more lines"]
    box.setText(f"{title}: {shown(Path(path).name) if path else 'project'}")
    box.setInformativeText("\n".join(lines) + "\n\nThe open project was not changed.")
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.exec()


def ask_restore(parent: QWidget, saved_at: str, original: str | None) -> bool:
    """Offer the recovery file left by a session that did not close cleanly."""
    box = _box(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Restore unsaved work?")
    where = f" of “{shown(original)}”" if original else ""
    box.setText(f"Modeller did not close cleanly. Restore the unsaved changes{where} from {saved_at}?")
    box.setInformativeText("Restore opens them as a modified project; Discard deletes the recovery copy.")
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Discard)
    box.button(QMessageBox.StandardButton.Yes).setText("Restore")
    box.setDefaultButton(QMessageBox.StandardButton.Yes)
    return box.exec() == QMessageBox.StandardButton.Yes


def show_crash(parent: QWidget | None, summary: str, report: Path | None, saved: str) -> None:
    """Something went wrong inside Modeller: say that the work is safe (``saved``) and where the report is."""
    box = _box(parent)
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle("Modeller hit a bug")
    box.setText(f"Modeller hit an internal error: {shown(summary)}")
    where = (
        f"The details are in {neutralize(report)}; please attach that file to a bug report."
        if report is not None
        else "No crash report could be written."
    )
    box.setInformativeText(f"{saved}\n\n{where}\n\nSave your project, and restart Modeller if something looks wrong.")
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.exec()


def _box(parent: QWidget | None) -> QMessageBox:
    box = QMessageBox(parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    return box
