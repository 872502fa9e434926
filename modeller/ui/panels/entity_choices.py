"""The project's entities as the choices of the entity combo boxes (relationship ends, a query's entity).

One list model per panel follows the document: an opened file resets it once, a rename
changes one row, an added or removed entity rebuilds the list (a Python list, no widgets).
Before, each combo was refilled item by item on every such signal (issue 16).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from modeller.model import Entity
from modeller.ui.document import ProjectDocument
from modeller.ui.panels.form import ChoicesModel

Label = Callable[[Entity], str]


class EntityChoices(ChoicesModel):
    """``(label(entity), entity.id)`` for every entity of the document's project, in the project's order."""

    def __init__(self, document: ProjectDocument, label: Label, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.label = label
        # connected before the panels' own slots, so a panel reloading after the same signal finds the new rows
        document.project_reset.connect(self.refresh)
        document.entity_added.connect(lambda _id: self.refresh())
        document.entity_removed.connect(lambda _id: self.refresh())
        document.entity_changed.connect(self._changed)
        self.refresh()

    def refresh(self) -> None:
        self.set_choices([(self.label(e), e.id) for e in self.document.project.entities])

    def _changed(self, entity_id: str) -> None:
        entity = self.document.entity(entity_id)
        if entity is None or self.row_of(entity_id) < 0:
            self.refresh()  # an id the list does not know (an id rename): the whole list
        else:
            self.set_text(entity_id, self.label(entity))
