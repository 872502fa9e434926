"""The few dialogs the window needs, each behind one small function (tests patch ``QMessageBox``)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget


class Unsaved(Enum):
    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


def ask_unsaved(parent: QWidget, name: str) -> Unsaved:
    """Save / Discard / Cancel before the current project is closed or replaced."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Unsaved changes")
    box.setText(f"Save the changes to “{name}”?")
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
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(title)
    first, _, rest = details.partition("\n")
    box.setText(f"{title}: {Path(path).name if path else 'project'}")
    box.setInformativeText(first + ("\n" + rest if rest else "") + "\n\nThe open project was not changed.")
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.exec()


def ask_restore(parent: QWidget, saved_at: str, original: str | None) -> bool:
    """Offer the recovery file left by a session that did not close cleanly."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Restore unsaved work?")
    where = f" of “{original}”" if original else ""
    box.setText(f"Modeller did not close cleanly. Restore the unsaved changes{where} from {saved_at}?")
    box.setInformativeText("Restore opens them as a modified project; Discard deletes the recovery copy.")
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Discard)
    box.button(QMessageBox.StandardButton.Yes).setText("Restore")
    box.setDefaultButton(QMessageBox.StandardButton.Yes)
    return box.exec() == QMessageBox.StandardButton.Yes
