"""The id of the selected entity or relationship: rename it by hand, or take the offered readable id.

Generated ids (``entity_2``) stay after a rename and make Git diffs of the
project cryptic. While an id still looks generated, this row offers the id
derived from the name (``modeller.ui.ids.offered_id``); either way the rename
is one :class:`RenameIdCommand` that carries every reference along.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from modeller.ui.commands.rename_id import RenameIdCommand
from modeller.ui.document import ProjectDocument
from modeller.ui.edits import EditRefused
from modeller.ui.ids import IdKind, offered_id
from modeller.ui.panels.form import error_label


class IdRow(QWidget):
    """Id box (Enter renames) plus the "Use id …" offer for placeholder ids."""

    #: kind, old id, new id: the object now lives under the new id
    renamed = Signal(str, str, str)

    def __init__(self, document: ProjectDocument, kind: IdKind, current: Callable[[], str | None]) -> None:
        super().__init__()
        self.document = document
        self.kind: IdKind = kind
        self.current = current
        self.line = QLineEdit()
        self.line.setObjectName(f"{kind}_id")
        self.line.setToolTip(
            "Machine key used in references and in the file. Enter renames it everywhere it is used\n"
            "(relationships, queries, layout, overrides) as one undo step."
        )
        self.line.returnPressed.connect(lambda: self.rename(self.line.text().strip()))
        self.line.editingFinished.connect(self._restore_if_unchanged)
        self.offer = QPushButton()
        self.offer.setObjectName(f"{kind}_id_offer")
        self.offer.clicked.connect(self._take_offer)
        self.error = error_label()
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.line, 1)
        row.addWidget(self.offer)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        layout.addLayout(row)
        layout.addWidget(self.error)
        self._offered: str | None = None

    def reload(self) -> None:
        ident = self.current()
        if ident is None:
            return
        if not self.line.hasFocus():
            self.line.setText(ident)
        self._offered = offered_id(self.document.project, self.kind, ident)
        self.offer.setVisible(self._offered is not None)
        if self._offered is not None:
            self.offer.setText(f"Use id '{self._offered}'")
            self.offer.setToolTip(
                f"'{ident}' was generated when the {self.kind} was created; rename it to '{self._offered}'\n"
                "so the project file reads well in diffs. References follow; one undo step."
            )

    def _take_offer(self) -> None:
        if self._offered is not None:
            self.rename(self._offered)

    def _restore_if_unchanged(self) -> None:
        ident = self.current()
        if ident is not None and not self.error.isVisible():
            self.line.setText(ident)

    def rename(self, new: str) -> str | None:
        """Rename the current object's id to ``new``; returns the refusal reason, shown under the box."""
        old = self.current()
        if old is None or new == old:
            self.error.setVisible(False)
            return None
        try:
            command = RenameIdCommand(self.document, self.kind, old, new)
        except EditRefused as err:
            self.error.setText(f"Not applied: {err}")
            self.error.setVisible(True)
            return str(err)
        self.error.setVisible(False)
        self.document.push(command)
        self.renamed.emit(self.kind, old, new)
        return None
