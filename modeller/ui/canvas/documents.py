"""The Documents view: each card shows its collection as stored, from the engine's resolved design.

The root entity of a collection keeps its card (and its position) and lists
the stored document: embedded entities nested inside it, references and
arrays of ids pointing at their collection, denormalized copies and computed
values marked, the estimated document size under the name. Entities stored
inside another entity's documents have no card of their own here; the lines
of what is embedded go with them, the references stay. The words and marks
are the diagram export's (:func:`modeller.export.diagram.node_note`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from modeller.export.common import human_bytes, human_count
from modeller.export.diagram import node_note, type_label
from modeller.rules.physical.design import CollectionDesign, Design, ShapeNode
from modeller.ui.canvas.items.entity_item import Row

if TYPE_CHECKING:
    from modeller.ui.canvas.scene import CanvasScene

#: a stored document lists more than its entity's fields: its card may grow wider than an entity card
DOCUMENT_CARD_WIDTH = 460.0


def document_rows(
    nodes: list[ShapeNode], names: dict[str, str], collections: dict[str, str], level: int = 0
) -> list[Row]:
    """One row per stored field, sub-documents (embedded entities) indented under their field."""
    rows: list[Row] = []
    for node in nodes:
        note = node_note(node, names, collections)
        kind = note.kind or ("embedded" if node.role == "embedded" else "")
        type_text = type_label(node) + (f"  {note.text}" if note.text else "")
        name = node.name + (" [ ]" if node.bson_type == "array" else "")
        rows.append(Row(level, name, type_text, node.required and node.role != "id", False, kind))
        children = node.children if node.bson_type == "object" else (node.items.children if node.items else [])
        rows.extend(document_rows(children, names, collections, level + 1))
    return rows


def size_text(coll: CollectionDesign) -> str:
    """``~1.2M docs · avg 6.6 KB · max 32 KB``: the estimate the engine sized the collection with."""
    return f"~{human_count(coll.count)} docs · avg {human_bytes(coll.avg_bytes)} · max {human_bytes(coll.max_bytes)}"


class StoredShapes:
    """What each root entity's card shows in the Documents view, for one design."""

    def __init__(self, design: Design, names: dict[str, str]) -> None:
        self.names = names
        self.by_root = {coll.root: coll for coll in design.collections if coll.entities}
        self.collections = {entity_id: coll.name for entity_id, coll in self.by_root.items()}

    def shows(self, entity_id: str) -> bool:
        """Does the entity keep a card (it is the root of a collection)?"""
        return entity_id in self.by_root

    def content(self, entity_id: str) -> tuple[str, str, list[Row], str] | None:
        """Title, size line, rows and tooltip of the entity's collection card; None when it has no card."""
        coll = self.by_root.get(entity_id)
        if coll is None:
            return None
        rows = document_rows(coll.shape, self.names, self.collections)
        stored = ", ".join(self.names.get(e, e) for e in coll.entities)
        tip = f"Collection {coll.name}: documents of {stored}\n{size_text(coll)}"
        if coll.why:
            tip += f"\n{coll.why}"
        return coll.name, size_text(coll), rows, tip


def show_as_stored(scene: CanvasScene, shapes: StoredShapes | None, entity_ids: list[str] | None = None) -> None:
    """Put the given cards (all by default) in the Documents view, or back to the entity view (``shapes`` None)."""
    keys = list(scene.entity_items) if entity_ids is None else entity_ids
    for entity_id in keys:
        item = scene.entity_items.get(entity_id)
        entity = scene.document.entity(entity_id)
        if item is None or entity is None:
            continue
        content = shapes.content(entity_id) if shapes is not None else None
        if shapes is None:
            item.set_entity(entity)
            item.setVisible(True)
        elif content is None:
            item.setVisible(False)
        else:
            title, sub, rows, tip = content
            item.set_content(title, sub, rows, tip, DOCUMENT_CARD_WIDTH)
            item.setVisible(True)
