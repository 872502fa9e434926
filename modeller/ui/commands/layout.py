"""Card positions: one command per gesture (a drag of five cards is one "Move")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modeller.model import Position
from modeller.ui.commands.base import DocumentCommand

if TYPE_CHECKING:
    from modeller.ui.document import ProjectDocument


class MoveCommand(DocumentCommand):
    """Set the positions of several cards at once (drag release, auto-layout)."""

    def __init__(
        self,
        document: ProjectDocument,
        new: dict[str, Position],
        text: str = "Move",
        parent: DocumentCommand | None = None,
    ) -> None:
        super().__init__(document, text, parent)
        self.new: dict[str, Position | None] = dict(new)
        self.old: dict[str, Position | None] = {key: document.position(key) for key in new}

    def redo(self) -> None:
        self.document.set_positions(self.new)

    def undo(self) -> None:
        self.document.set_positions(self.old)
