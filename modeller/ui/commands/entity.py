"""Add, remove and edit entities (a card and its position come and go together)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from modeller.model import Entity, Field, Position
from modeller.model.unique_names import name_refused
from modeller.ui.commands.base import DocumentCommand, MergeableEdit
from modeller.ui.edits import EditRefused, updated, validated

if TYPE_CHECKING:
    from modeller.ui.document import ProjectDocument


class AddEntityCommand(DocumentCommand):
    def __init__(
        self,
        document: ProjectDocument,
        entity: Entity,
        position: Position | None,
        index: int | None = None,
        parent: DocumentCommand | None = None,
    ) -> None:
        super().__init__(document, f"Add entity {entity.name}", parent)
        self.entity = entity
        self.position = position
        self.index = index

    def redo(self) -> None:
        index = len(self.document.project.entities) if self.index is None else self.index
        self.document.insert_entity(index, self.entity, self.position)

    def undo(self) -> None:
        self.document.remove_entity(self.entity.id)


class RemoveEntityCommand(DocumentCommand):
    """Removes one entity; its relationships and queries are removed by sibling commands first."""

    def __init__(self, document: ProjectDocument, entity_id: str, parent: DocumentCommand | None = None) -> None:
        entity = document.entity(entity_id)
        super().__init__(document, f"Remove entity {entity.name if entity else entity_id}", parent)
        self.entity_id = entity_id
        self.saved: tuple[int, Entity, Position | None] | None = None

    def redo(self) -> None:
        self.saved = self.document.remove_entity(self.entity_id)

    def undo(self) -> None:
        assert self.saved is not None
        index, entity, position = self.saved
        self.document.insert_entity(index, entity, position)


class EditEntityCommand(MergeableEdit):
    def __init__(
        self,
        document: ProjectDocument,
        new: Entity,
        text: str = "",
        merge_key: tuple[str, ...] | None = None,
        parent: DocumentCommand | None = None,
    ) -> None:
        old = document.entity(new.id)
        assert old is not None, new.id
        super().__init__(document, text or f"Edit entity {old.name}", merge_key, parent)
        self.old = old
        self.new = new

    def redo(self) -> None:
        self.document.replace_entity(self.new)

    def undo(self) -> None:
        self.document.replace_entity(self.old)

    def take_newer(self, other: MergeableEdit) -> None:
        assert isinstance(other, EditEntityCommand)
        self.new = other.new


def rename_entity_command(document: ProjectDocument, entity_id: str, name: str) -> EditEntityCommand | None:
    """The in-place rename of a card; None when the name did not change, :class:`EditRefused` when refused."""
    entity = document.entity(entity_id)
    if entity is None:
        raise EditRefused("this entity no longer exists")
    name = name.strip()
    if name == entity.name:
        return None
    new = updated(entity, ["name"], name)
    clash = name_refused(document.project, new)
    if clash is not None:
        raise EditRefused(clash)
    return EditEntityCommand(document, new, f"Rename {entity.name} to {name}")


def add_field_command(document: ProjectDocument, entity_id: str, name: str, type_: str) -> EditEntityCommand:
    """A new top-level field at the end of the entity (the card's inline "Add field"); one undo entry."""
    entity = document.entity(entity_id)
    if entity is None:
        raise EditRefused("this entity no longer exists")
    name = name.strip()
    if any(field.name == name for field in entity.fields):
        raise EditRefused(f"{entity.name} already has a field {name!r}; choose another name")
    field = validated(Field, {"name": name, "type": type_})
    new = entity.model_copy(update={"fields": (*entity.fields, field)})
    return EditEntityCommand(document, new, f"Add field {name} to {entity.name}")
