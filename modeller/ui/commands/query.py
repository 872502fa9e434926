"""Add, remove and edit declared queries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modeller.model import Query
from modeller.ui.commands.base import DocumentCommand, MergeableEdit

if TYPE_CHECKING:
    from modeller.ui.document import ProjectDocument


class AddQueryCommand(DocumentCommand):
    def __init__(
        self, document: ProjectDocument, query: Query, index: int | None = None, parent: DocumentCommand | None = None
    ) -> None:
        super().__init__(document, f"Add query {query.name or query.id}", parent)
        self.query = query
        self.index = index

    def redo(self) -> None:
        index = len(self.document.project.queries) if self.index is None else self.index
        self.document.insert_query(index, self.query)

    def undo(self) -> None:
        self.document.remove_query(self.query.id)


class RemoveQueryCommand(DocumentCommand):
    def __init__(self, document: ProjectDocument, query_id: str, parent: DocumentCommand | None = None) -> None:
        super().__init__(document, f"Remove query {query_id}", parent)
        self.query_id = query_id
        self.saved: tuple[int, Query] | None = None

    def redo(self) -> None:
        self.saved = self.document.remove_query(self.query_id)

    def undo(self) -> None:
        assert self.saved is not None
        self.document.insert_query(*self.saved)


class EditQueryCommand(MergeableEdit):
    def __init__(
        self,
        document: ProjectDocument,
        new: Query,
        text: str = "",
        merge_key: tuple[str, ...] | None = None,
        parent: DocumentCommand | None = None,
    ) -> None:
        old = document.query(new.id)
        assert old is not None, new.id
        super().__init__(document, text or f"Edit query {old.name or old.id}", merge_key, parent)
        self.old = old
        self.new = new

    def redo(self) -> None:
        self.document.replace_query(self.new)

    def undo(self) -> None:
        self.document.replace_query(self.old)

    def take_newer(self, other: MergeableEdit) -> None:
        assert isinstance(other, EditQueryCommand)
        self.new = other.new
