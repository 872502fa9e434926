"""Rename an entity's, relationship's or query's id with every reference, as one undo entry.

Document primitives replace objects by id, so a new id is a new object: the
renamed copy is inserted right after the original, the references are
re-pointed (the canvas moves lines to the new card), then the original is
removed. Undo is the same operation with the ids swapped, so the original
index, position and references come back exactly.
"""

from __future__ import annotations

from modeller.model import Entity, Query, Relationship
from modeller.ui.commands.base import DocumentCommand
from modeller.ui.document import ProjectDocument
from modeller.ui.edits import EditRefused, dump, validated
from modeller.ui.ids import IdKind, refuse_id, retarget


class RenameIdCommand(DocumentCommand):
    """``kind`` object ``old`` becomes ``new``; relationship ends, query entity/joins, layout, overrides follow."""

    def __init__(self, document: ProjectDocument, kind: IdKind, old: str, new: str) -> None:
        problem = refuse_id(document.project, old, new)
        if problem is not None:
            raise EditRefused(problem)
        super().__init__(document, f"Rename id {old} → {new}")
        self.kind: IdKind = kind
        self.old = old
        self.new = new

    def redo(self) -> None:
        self._rename(self.old, self.new)

    def undo(self) -> None:
        self._rename(self.new, self.old)

    def _rename(self, old: str, new: str) -> None:
        doc = self.document
        project = doc.project
        moved = retarget(project, self.kind, old, new)
        if self.kind == "entity":
            index = next(i for i, e in enumerate(project.entities) if e.id == old)
            entity = project.entities[index]
            doc.insert_entity(index + 1, validated(Entity, {**dump(entity), "id": new}), doc.position(old))
        elif self.kind == "relationship":
            index = next(i for i, r in enumerate(project.relationships) if r.id == old)
            rel = project.relationships[index]
            doc.insert_relationship(index + 1, validated(Relationship, {**dump(rel), "id": new}))
        else:
            index = next(i for i, q in enumerate(project.queries) if q.id == old)
            query = project.queries[index]
            doc.insert_query(index + 1, validated(Query, {**dump(query), "id": new}))
        for _before, after in moved.relationships:
            doc.replace_relationship(after)
        for _before, after in moved.queries:
            doc.replace_query(after)
        if moved.overrides is not None:
            doc.replace_overrides(moved.overrides)
        if self.kind == "entity":
            doc.remove_entity(old)
        elif self.kind == "relationship":
            doc.remove_relationship(old)
        else:
            doc.remove_query(old)
