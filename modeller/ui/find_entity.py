"""Edit ▸ Find Entity… (Ctrl+F): a field over the canvas that completes entity names as you type.

At 10,000 entities the canvas alone cannot find a card by name (tryout a15 item 5): the field lists the names
holding what was typed (any case, anywhere in the name), and Enter or a click on one asks the window to select
and centre that card. Selecting only: nothing is edited, so there is no undo step.

Enter on typed text picks the name it is (any case), else the first name starting with it, else the first holding
it; the list shows them in that order, so its top row is what Enter picks.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractScrollArea, QCompleter, QFrame, QHBoxLayout, QLabel, QLineEdit

from modeller.ui.document import ProjectDocument

#: the field's room in the canvas's top-right corner (pixels from the edges, width)
MARGIN, WIDTH = 10, 320
PLACEHOLDER = "Entity name (Enter shows it, Esc closes)"


class FindBar(QFrame):
    """The find field, hidden until :meth:`open` (the window's Find action) and again after Enter or Esc."""

    #: the id of the entity the user chose
    chosen = Signal(str)
    #: the text matched no entity's name (the window says so in the status bar)
    not_found = Signal(str)

    def __init__(self, view: QAbstractScrollArea, document: ProjectDocument) -> None:
        super().__init__(view)
        self.setObjectName("FindBar")
        self.view = view
        self.document = document
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.field = QLineEdit(self)
        self.field.setObjectName("FindField")
        self.field.setPlaceholderText(PLACEHOLDER)
        self.field.setClearButtonEnabled(True)
        self.field.setToolTip("Type part of an entity's name; pick one to select and centre its card")
        self.names = QStringListModel(self)
        #: the model's names folded for comparison -> entity id (a name is unique ignoring case)
        self._ids: dict[str, str] = {}
        #: each folded name's name as written, in model order
        self._written: dict[str, str] = {}
        #: the names are out of date (an edit since they were listed): listed again when next needed
        self._stale = True
        self.completer = QCompleter(self.names, self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.setMaxVisibleItems(12)
        self.field.setCompleter(self.completer)
        self.completer.activated.connect(self._choose)
        self.field.textEdited.connect(self._list_matches)
        self.field.returnPressed.connect(lambda: self._choose(self.field.text()))
        self.field.installEventFilter(self)
        label = QLabel("Find:", self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(label)
        layout.addWidget(self.field, 1)
        self.resize(WIDTH, self.sizeHint().height())
        view.installEventFilter(self)  # stays in the corner as the canvas is resized
        for signal in (document.changed, document.project_reset):  # any edit may add, remove or rename one
            signal.connect(self._names_changed)
        self.hide()

    def open(self) -> None:
        """Show the field in the canvas's top-right corner with its text selected, ready to type over."""
        self._refresh_names()
        self._place()
        self.show()
        self.raise_()
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()

    def close_bar(self) -> None:
        """Hide the field and hand the keys back to the canvas."""
        self.completer.popup().hide()
        self.hide()
        self.view.setFocus(Qt.FocusReason.OtherFocusReason)
        # a choice in the popup: the completer hands the focus back to the field after its signal, so once more
        QTimer.singleShot(0, self._focus_canvas)

    def _focus_canvas(self) -> None:
        if not self.isVisible():
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    def entity_for(self, text: str) -> str | None:
        """The id of the entity ``text`` names (any case), else of the first name starting with it, else of the
        first name holding it; None when none does."""
        self._refresh_names()
        best = next(iter(self._matches(text)), None)
        return None if best is None else self._ids[best]

    def _matches(self, text: str) -> list[str]:
        """The folded names holding ``text`` (any case): the name it is first, then those starting with it, then
        the others, each in model order."""
        wanted = text.strip().casefold()
        if not wanted:
            return []
        holding = [folded for folded in self._ids if wanted in folded]
        return sorted(holding, key=lambda folded: 0 if folded == wanted else 1 if folded.startswith(wanted) else 2)

    # --------------------------------------------------------------- internals
    def _choose(self, text: str) -> None:
        if not self.isVisible():
            return  # the popup's Enter already chose (it also reaches the field as returnPressed)
        key = self.entity_for(text)
        if key is None:
            if text.strip():
                self.not_found.emit(text.strip())
            return
        self.close_bar()
        self.chosen.emit(key)

    def _list_matches(self, text: str) -> None:
        """The completions of ``text`` in the order Enter prefers them (the completer keeps the list's order)."""
        self._refresh_names()
        listed = self._listed(text)
        if listed != self.names.stringList():
            self.names.setStringList(listed)

    def _listed(self, text: str) -> list[str]:
        """The names the completer lists for ``text``: its matches in preferred order (every name for no text)."""
        if not text.strip():
            return list(self._written.values())
        return [self._written[folded] for folded in self._matches(text)]

    def _names_changed(self, *_args: object) -> None:
        self._stale = True
        if self.isVisible():
            self._refresh_names()

    def _refresh_names(self) -> None:
        """List the names in model order (once per edit at most, and only while someone looks for one)."""
        if not self._stale:
            return
        self._stale = False
        entities = self.document.project.entities
        self._ids, self._written = {}, {}
        for entity in entities:
            folded = entity.name.casefold()
            if folded not in self._ids:
                self._ids[folded], self._written[folded] = entity.id, entity.name
        self.names.setStringList(self._listed(self.field.text()))

    def _place(self) -> None:
        area = self.view.viewport().geometry()
        width = max(160, min(WIDTH, area.width() - 2 * MARGIN))
        self.resize(width, self.sizeHint().height())
        self.move(area.right() + 1 - MARGIN - width, area.top() + MARGIN)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Keys the field leaves (Enter after its returnPressed) stop here: the canvas, this bar's parent, would
        take Enter as "add a field to the selected card", the card just found."""
        event.accept()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.view and event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        elif watched is self.field and _is_escape(event):
            # Esc closes the field, before any window shortcut on the same key (Cancel of an auto-layout)
            event.accept()
            if event.type() == QEvent.Type.KeyPress:
                self.close_bar()
            return True
        return super().eventFilter(watched, event)


def _is_escape(event: QEvent) -> bool:
    """Esc pressed (or offered to the shortcuts first)."""
    keyed = event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)
    return keyed and isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Escape
