"""Project-level settings (name, database, server version, sharding)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modeller.model import Project
from modeller.ui.commands.base import DocumentCommand, MergeableEdit

if TYPE_CHECKING:
    from modeller.ui.document import ProjectDocument


class EditProjectCommand(MergeableEdit):
    def __init__(
        self,
        document: ProjectDocument,
        new: Project,
        text: str = "Edit project settings",
        merge_key: tuple[str, ...] | None = None,
        parent: DocumentCommand | None = None,
    ) -> None:
        super().__init__(document, text, merge_key, parent)
        self.old = document.project
        self.new = new

    def redo(self) -> None:
        self.document.replace_project_settings(self.new)

    def undo(self) -> None:
        self.document.replace_project_settings(self.old)

    def take_newer(self, other: MergeableEdit) -> None:
        assert isinstance(other, EditProjectCommand)
        self.new = other.new
