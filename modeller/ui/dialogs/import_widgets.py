"""Widgets both import dialogs use: a progress row per collection, where the result goes, a status line."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QButtonGroup, QGridLayout, QHBoxLayout, QLabel, QProgressBar, QRadioButton, QWidget

from modeller.model.text import shown
from modeller.ui.importing import MERGE, NEW_PROJECT

ERROR_STYLE = "color: #b00020;"


def sentence(text: str) -> str:
    """A message that starts with a plain word starts with a capital ("cannot reach" -> "Cannot reach").

    Paths, URIs and names keep their case: ``blog.modeller.json: …`` stays as it is.
    """
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.isalpha() and first.islower() else text


class CollectionProgress(QWidget):
    """One row per collection (or file): its name, a bar (waiting, busy, done) and what was read."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(6, 6, 6, 6)
        self.grid.setVerticalSpacing(4)
        self.grid.setColumnStretch(1, 1)
        self.rows: dict[str, tuple[QLabel, QProgressBar, QLabel]] = {}

    def reset(self, names: list[str], labels: list[str] | None = None) -> None:
        """One row per name (its key), showing ``labels`` when given (file names), else the names."""
        for row in range(self.grid.rowCount()):
            self.grid.setRowStretch(row, 0)
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().deleteLater()
        self.rows = {}
        for row, name in enumerate(names):
            text = labels[row] if labels is not None else name
            label, bar, state = QLabel(shown(text, 80)), QProgressBar(), QLabel("waiting")
            bar.setRange(0, 1)
            bar.setValue(0)
            bar.setTextVisible(False)
            bar.setMaximumHeight(14)
            state.setMinimumWidth(210)
            for column, widget in enumerate((label, bar, state)):
                self.grid.addWidget(widget, row, column)
            self.rows[name] = (label, bar, state)
        self.grid.setRowStretch(len(names), 1)  # rows stay together at the top

    def busy(self, name: str, text: str = "sampling…") -> None:
        if name in self.rows:
            _label, bar, state = self.rows[name]
            bar.setRange(0, 0)
            state.setText(text)

    def done(self, name: str, text: str) -> None:
        if name in self.rows:
            _label, bar, state = self.rows[name]
            bar.setRange(0, 1)
            bar.setValue(1)
            state.setText(text)

    def finish_busy(self, text: str = "sampled") -> None:
        """Rows still busy are done (the next step started)."""
        for name, (_label, bar, _state) in self.rows.items():
            if bar.maximum() == 0:
                self.done(name, text)

    def stop(self, text: str) -> None:
        """Cancelled or failed: rows not done say so, no bar keeps spinning."""
        for _label, bar, state in self.rows.values():
            if bar.maximum() == 0 or bar.value() == 0:
                bar.setRange(0, 1)
                bar.setValue(0)
                state.setText(text)

    def state(self, name: str) -> str:
        return self.rows[name][2].text()


def documents(count: int, verb: str) -> str:
    """``1 document read`` / ``1,000 documents sampled``."""
    return f"{count:,} document{'' if count == 1 else 's'} {verb}"


class DestinationChoice(QWidget):
    """Open the import as a new project, or add it to the open one (only when there is one)."""

    def __init__(self, has_project: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.new_radio = QRadioButton("Open as a new project")
        self.new_radio.setToolTip("The open project is closed first (you are asked to save it)")
        self.merge_radio = QRadioButton("Add to the open project (one undo step)")
        self.merge_radio.setToolTip("New entities beside the existing ones; collections already modelled are kept")
        group = QButtonGroup(self)
        group.addButton(self.new_radio)
        group.addButton(self.merge_radio)
        self.new_radio.setChecked(True)
        self.merge_radio.setEnabled(has_project)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.new_radio)
        row.addWidget(self.merge_radio)
        row.addStretch(1)

    def value(self) -> str:
        return MERGE if self.merge_radio.isChecked() and self.merge_radio.isEnabled() else NEW_PROJECT


class StatusLine(QLabel):
    """What the dialog is doing, or one red line saying what went wrong and what to do."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # room for two wrapped lines: a layout gives a word-wrapped label the height of one line otherwise
        self.setMinimumHeight(2 * self.fontMetrics().lineSpacing() + 4)

    def say(self, text: str) -> None:
        self.setStyleSheet("")
        self.setText(text)

    def error(self, text: str) -> None:
        self.setStyleSheet(ERROR_STYLE)
        self.setText(shown(sentence(text), 600))

    def is_error(self) -> bool:
        return self.styleSheet() == ERROR_STYLE
