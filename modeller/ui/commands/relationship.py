"""Add, remove and edit relationships."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modeller.model import Relationship
from modeller.ui.commands.base import DocumentCommand, MergeableEdit
from modeller.ui.edits import EditRefused, updated

if TYPE_CHECKING:
    from modeller.ui.document import ProjectDocument


def describe(document: ProjectDocument, rel: Relationship) -> str:
    """ "Person → Task": how menus and the undo history name a relationship."""
    one, many = document.entity(rel.one), document.entity(rel.many)
    return f"{one.name if one else rel.one} → {many.name if many else rel.many}"


class AddRelationshipCommand(DocumentCommand):
    def __init__(
        self,
        document: ProjectDocument,
        rel: Relationship,
        index: int | None = None,
        parent: DocumentCommand | None = None,
    ) -> None:
        super().__init__(document, f"Add relationship {describe(document, rel)}", parent)
        self.rel = rel
        self.index = index

    def redo(self) -> None:
        index = len(self.document.project.relationships) if self.index is None else self.index
        self.document.insert_relationship(index, self.rel)

    def undo(self) -> None:
        self.document.remove_relationship(self.rel.id)


class RemoveRelationshipCommand(DocumentCommand):
    def __init__(self, document: ProjectDocument, rel_id: str, parent: DocumentCommand | None = None) -> None:
        rel = document.relationship(rel_id)
        label = describe(document, rel) if rel else rel_id
        super().__init__(document, f"Remove relationship {label}", parent)
        self.rel_id = rel_id
        self.saved: tuple[int, Relationship] | None = None

    def redo(self) -> None:
        self.saved = self.document.remove_relationship(self.rel_id)

    def undo(self) -> None:
        assert self.saved is not None
        self.document.insert_relationship(*self.saved)


class EditRelationshipCommand(MergeableEdit):
    def __init__(
        self,
        document: ProjectDocument,
        new: Relationship,
        text: str = "",
        merge_key: tuple[str, ...] | None = None,
        parent: DocumentCommand | None = None,
    ) -> None:
        old = document.relationship(new.id)
        assert old is not None, new.id
        super().__init__(document, text or f"Edit relationship {describe(document, old)}", merge_key, parent)
        self.old = old
        self.new = new

    def redo(self) -> None:
        self.document.replace_relationship(self.new)

    def undo(self) -> None:
        self.document.replace_relationship(self.old)

    def take_newer(self, other: MergeableEdit) -> None:
        assert isinstance(other, EditRelationshipCommand)
        self.new = other.new


def connect_command(document: ProjectDocument, one: str, many: str) -> AddRelationshipCommand:
    """A new one-to-many relationship from ``one`` to ``many`` (the connect gesture and the card menu)."""
    rel = Relationship(id=document.unique_id(f"{one}_{many}"), one=one, many=many, cardinality="one-to-many")
    return AddRelationshipCommand(document, rel)


def set_relationship_command(document: ProjectDocument, rel_id: str, key: str, value: str) -> EditRelationshipCommand:
    """Set one key (``cardinality``, ``strategy``) of a relationship; :class:`EditRefused` when the model refuses."""
    rel = document.relationship(rel_id)
    if rel is None:
        raise EditRefused("this relationship no longer exists")
    new = updated(rel, [key], value)
    return EditRelationshipCommand(document, new, f"Set {key} of {describe(document, rel)} to {value}")
