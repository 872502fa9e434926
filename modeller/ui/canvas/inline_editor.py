"""Editing on the card itself: a small name box (and type box) laid over the canvas.

Rename (double-click, F2) and "Add field" (Enter on a selected card) open an
:class:`InlineEditor` over the card. Enter commits through one command,
Escape cancels, leaving the editor for another widget commits (or cancels
when the text is refused). The editor holds no model state: it hands the
typed text to a ``commit`` callback that pushes the command, or returns the
reason the model refused it, which the editor shows and stays open.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QComboBox, QFrame, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

#: commit(name, type or None) -> None when applied, else the reason shown to the user
Commit = Callable[[str, str | None], str | None]


class InlineEditor(QFrame):
    """Name (and optionally type) boxes over a card; closes itself after a commit or a cancel."""

    closed = Signal()

    def __init__(
        self,
        parent: QWidget,
        commit: Commit,
        text: str = "",
        types: Sequence[str] = (),
        type_value: str = "string",
        placeholder: str = "",
    ) -> None:
        super().__init__(parent)
        self.setObjectName("InlineEditor")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self._commit = commit
        self._done = False
        self.name = QLineEdit(text)
        self.name.setPlaceholderText(placeholder)
        self.name.selectAll()
        self.type: QComboBox | None = None
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        row.addWidget(self.name, 3)
        if types:
            self.type = QComboBox()
            self.type.addItems(list(types))
            self.type.setCurrentText(type_value)
            self.type.setToolTip("Type of the new field (type a letter to jump)")
            row.addWidget(self.type, 2)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #C00000;")
        self.error.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(3, 3, 3, 3)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.error)
        self.setToolTip("Enter applies · Esc cancels")
        for widget in (self.name, self.type):
            if widget is not None:
                widget.installEventFilter(self)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)

    def open_at(self, rect: QRect) -> None:
        """Show over ``rect`` (viewport coordinates) with the name box focused."""
        hint = self.sizeHint()
        self.setGeometry(QRect(rect.x(), rect.y(), max(rect.width(), 160), max(rect.height(), hint.height())))
        self.show()
        self.raise_()
        self.name.setFocus(Qt.FocusReason.OtherFocusReason)
        self.name.selectAll()

    def error_text(self) -> str:
        return self.error.text() if self.error.isVisible() or self.error.text() else ""

    # ------------------------------------------------------------ commit / cancel
    def commit(self) -> bool:
        """Apply the typed text; False (editor stays open, reason shown) when the model refuses it."""
        if self._done:
            return True
        problem = self._commit(self.name.text(), self.type.currentText() if self.type is not None else None)
        if problem:
            self.error.setText(problem)
            self.error.show()
            self.adjustSize()
            self.name.setFocus()
            return False
        self._finish()
        return True

    def cancel(self) -> None:
        self._finish()

    def _finish(self) -> None:
        if self._done:
            return
        self._done = True
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.disconnect(self._focus_changed)
        self.hide()
        self.closed.emit()
        self.deleteLater()

    # ------------------------------------------------------------ events
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            popup = self.type is not None and self.type.view().isVisible()
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not popup:
                self.commit()
                return True
            if event.key() == Qt.Key.Key_Escape and not popup:
                self.cancel()
                return True
        return super().eventFilter(watched, event)

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        """Clicking elsewhere applies what was typed (a refused text is dropped, as Escape would)."""
        if self._done or new is None or new is self or self.isAncestorOf(new):
            return
        if self.type is not None and (self.type.view().isVisible() or self.type.view().isAncestorOf(new)):
            return
        if not self.commit():
            self.cancel()
