"""Gestures made of several primitive edits: delete a selection, paste a fragment.

A parent command runs its parts in order and undoes them in
reverse, so each removal restores the object at the index it recorded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from modeller.model import Entity, Position, Query, Relationship
from modeller.ui.commands.base import DocumentCommand
from modeller.ui.commands.entity import AddEntityCommand, RemoveEntityCommand
from modeller.ui.commands.query import EditQueryCommand, RemoveQueryCommand
from modeller.ui.commands.relationship import AddRelationshipCommand, RemoveRelationshipCommand

if TYPE_CHECKING:
    from modeller.ui.document import ProjectDocument

#: clipboard MIME type of copied cards (plain JSON of entities, relationships, positions)
FRAGMENT_MIME = "application/x-modeller-fragment"


class DeleteCommand(DocumentCommand):
    """Parent of the removals of one Delete gesture."""


class PasteCommand(DocumentCommand):
    """Parent of the additions of one paste or duplicate."""


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def delete_command(
    document: ProjectDocument,
    entity_ids: Iterable[str] = (),
    rel_ids: Iterable[str] = (),
    query_ids: Iterable[str] = (),
) -> DeleteCommand | None:
    """One undoable delete of entities (with their relationships and queries), relationships and queries."""
    project = document.project
    chosen_entities, chosen_rels, chosen_queries = set(entity_ids), set(rel_ids), set(query_ids)
    entities = [e.id for e in project.entities if e.id in chosen_entities]
    gone = set(entities)
    rels = [r.id for r in project.relationships if r.id in chosen_rels or r.one in gone or r.many in gone]
    gone_rels = set(rels)
    queries = [q.id for q in project.queries if q.id in chosen_queries or q.entity in gone]
    gone_queries = set(queries)
    if not (entities or rels or queries):
        return None
    if len(entities) == 1 and not chosen_rels and not chosen_queries:
        entity = document.entity(entities[0])
        text = f"Delete {entity.name if entity else entities[0]}"
    else:
        parts = [_count(len(entities), "entity", "entities")] if entities else []
        parts += [_count(len(rels), "relationship", "relationships")] if rels else []
        parts += [_count(len(queries), "query", "queries")] if queries else []
        text = "Delete " + ", ".join(parts)
    parent = DeleteCommand(document, text)
    # surviving queries stop joining (or being scoped by) relationships that go away
    for query in project.queries:
        if query.id not in gone_queries and (gone_rels & set(query.joins) or query.scope in gone_rels):
            kept = [j for j in query.joins if j not in gone_rels]
            scope = None if query.scope in gone_rels else query.scope
            EditQueryCommand(document, query.model_copy(update={"joins": kept, "scope": scope}), parent=parent)
    for query_id in queries:
        RemoveQueryCommand(document, query_id, parent)
    for rel_id in rels:
        RemoveRelationshipCommand(document, rel_id, parent)
    for entity_id in entities:
        RemoveEntityCommand(document, entity_id, parent)
    return parent


def fragment(document: ProjectDocument, entity_ids: Iterable[str]) -> dict[str, Any]:
    """Plain data of the chosen cards and the relationships among them (what Copy puts on the clipboard)."""
    chosen = set(entity_ids)
    project = document.project
    entities = [e for e in project.entities if e.id in chosen]
    rels = [r for r in project.relationships if r.one in chosen and r.many in chosen]
    layout = {e.id: project.layout[e.id].model_dump() for e in entities if e.id in project.layout}
    return {
        "entities": [e.model_dump(mode="json", exclude_defaults=True) for e in entities],
        "relationships": [r.model_dump(mode="json", exclude_defaults=True) for r in rels],
        "layout": layout,
    }


def fragment_text(document: ProjectDocument, entity_ids: Iterable[str]) -> str:
    return json.dumps(fragment(document, entity_ids), ensure_ascii=False)


def paste_command(
    document: ProjectDocument, data: dict[str, Any], offset: tuple[float, float] = (40.0, 40.0)
) -> PasteCommand | None:
    """Add copies of a fragment with fresh ids and names, shifted by ``offset``.

    Raises ``ValueError`` (from pydantic) when the fragment is not valid model data.
    """
    entities = [Entity.model_validate(item) for item in data.get("entities", [])]
    if not entities:
        return None
    rels = [Relationship.model_validate(item) for item in data.get("relationships", [])]
    layout = {key: Position.model_validate(value) for key, value in dict(data.get("layout", {})).items()}
    parent = PasteCommand(
        document, "Paste " + (entities[0].name if len(entities) == 1 else f"{len(entities)} entities")
    )
    taken: set[str] = set()
    names: list[str] = []
    new_ids: dict[str, str] = {}
    for i, entity in enumerate(entities):
        new_id = document.unique_id(entity.name, taken)
        taken.add(new_id)
        new_ids[entity.id] = new_id
        name = document.unique_entity_name(entity.name, names)
        names.append(name)
        old = layout.get(entity.id)
        position = Position(x=(old.x if old else 40.0 * i) + offset[0], y=(old.y if old else 40.0 * i) + offset[1])
        AddEntityCommand(document, entity.model_copy(update={"id": new_id, "name": name}), position, parent=parent)
    for rel in rels:
        if rel.one not in new_ids or rel.many not in new_ids:
            continue
        rel_id = document.unique_id(rel.id, taken)
        taken.add(rel_id)
        copy = rel.model_copy(update={"id": rel_id, "one": new_ids[rel.one], "many": new_ids[rel.many]})
        AddRelationshipCommand(document, copy, parent=parent)
    return parent


def new_query(document: ProjectDocument, entity_id: str) -> Query:
    """A fresh query on ``entity_id`` for the Queries panel's Add button."""
    entity = document.entity(entity_id)
    base = f"{entity.name if entity else entity_id} query"
    return Query(id=document.unique_id(base), entity=entity_id, name=document.unique_query_name(base))
