"""Edit fields…: one entity's properties and field table in a window of its own, at a readable size.

The Properties dock is narrow next to the canvas; this window holds the same
editor (:class:`EntityEditor`, every edit one command through the document)
with room for the field table, its type boxes and flags. It is not modal: the
canvas follows each edit, and undo works from the main window as usual.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from modeller.ui.document import ProjectDocument
from modeller.ui.panels.properties_panel import EntityEditor, scrolled


class EntityDialog(QDialog):
    def __init__(self, document: ProjectDocument, entity_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.entity_id = entity_id
        self.editor = EntityEditor(document)
        self.editor.show_entity(entity_id)
        self.editor.fields.tree.setMinimumHeight(320)
        self.editor.open_button.hide()  # this is the window
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(scrolled(self.editor))
        layout.addWidget(buttons)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._title()
        document.entity_changed.connect(self._changed)
        document.entity_removed.connect(self._removed)
        document.project_reset.connect(self.close)

    def sizeHint(self) -> QSize:
        return QSize(760, 820)

    def _title(self) -> None:
        entity = self.document.entity(self.entity_id)
        self.setWindowTitle(f"{entity.name if entity else self.entity_id} — fields and properties")

    def _changed(self, entity_id: str) -> None:
        if entity_id == self.entity_id:
            self._title()

    def _removed(self, entity_id: str) -> None:
        if entity_id == self.entity_id:
            self.close()
