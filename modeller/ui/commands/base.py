"""Shared pieces of the commands: typed access to the document and merging of typing edits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

if TYPE_CHECKING:
    from modeller.ui.document import ProjectDocument

#: QUndoCommand.id() of edits that merge while the user keeps typing in one editor
MERGE_EDIT_ID = 4711


class DocumentCommand(QUndoCommand):
    """A command bound to one document.

    Composite commands (a delete with its parts) keep their parts in
    :attr:`kids` and run them in order, undoing in reverse. The parts are
    plain Python objects, never Qt children: PySide would otherwise let a
    child's wrapper be collected (a dangling pointer in the parent) or delete
    it twice.
    """

    def __init__(self, document: ProjectDocument, text: str, parent: DocumentCommand | None = None) -> None:
        super().__init__(text)
        self.document = document
        self.kids: list[DocumentCommand] = []
        if parent is not None:
            parent.kids.append(self)

    def redo(self) -> None:
        for kid in self.kids:
            kid.redo()

    def undo(self) -> None:
        for kid in reversed(self.kids):
            kid.undo()


class MergeableEdit(DocumentCommand):
    """Replace one object by a new version; consecutive edits of one key merge.

    ``merge_key`` names the editor (``("entity", "person", "name")``): typing
    "Person" letter by letter is one undo entry, while a different editor or
    object starts a new one.
    """

    def __init__(
        self,
        document: ProjectDocument,
        text: str,
        merge_key: tuple[str, ...] | None,
        parent: DocumentCommand | None = None,
    ) -> None:
        super().__init__(document, text, parent)
        self.merge_key = merge_key

    def id(self) -> int:
        return MERGE_EDIT_ID if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if type(other) is not type(self) or not isinstance(other, MergeableEdit):
            return False
        if other.merge_key is None or other.merge_key != self.merge_key:
            return False
        self.take_newer(other)
        return True

    def take_newer(self, other: MergeableEdit) -> None:
        """Keep this command's "before" and adopt ``other`` 's "after"."""
        raise NotImplementedError
