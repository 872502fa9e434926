"""The Documents view: each card shows its collection as stored, from the engine's resolved design.

The root entity of a collection keeps its card (near its position: a wider
collection card pushes the cards it would cover aside, see ``canvas/spread.py``) and lists
the stored document: embedded entities nested inside it, references and
arrays of ids pointing at their collection, denormalized copies and computed
values marked, the estimated document size under the name. Entities stored
inside another entity's documents have no card of their own here; the lines
of what is embedded go with them, the references stay. The words and marks
are the diagram export's (:func:`modeller.export.diagram.node_note`).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF

from modeller.export.common import human_bytes, human_count
from modeller.export.diagram import node_note, type_label
from modeller.rules.physical.design import CollectionDesign, Design, ShapeNode
from modeller.ui.canvas.items.entity_item import Row
from modeller.ui.canvas.spread import Box

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
        self.design = design
        self.names = names
        self.by_root = {coll.root: coll for coll in design.collections if coll.entities}
        self.collections = {entity_id: coll.name for entity_id, coll in self.by_root.items()}
        #: each card's content, made when first asked (the view turned on again shows the same design)
        self._contents: dict[str, tuple[str, str, list[Row], str]] = {}

    def shows(self, entity_id: str) -> bool:
        """Does the entity keep a card (it is the root of a collection)?"""
        return entity_id in self.by_root

    def changed_since(self, old: StoredShapes | None) -> set[str] | None:
        """The cards that may show otherwise than with ``old`` (None: all of them, nothing to compare with).

        An incremental analysis keeps the collections it did not touch (the same objects): a card changes when its
        collection was replaced, came or went, or names an entity (or collection) that was renamed.
        """
        if old is None:
            return None
        new_list, old_list = self.design.collections, old.design.collections
        changed: set[str] = set()
        if new_list is old_list:
            pass  # the same design (an edit before its analysis): only names can differ
        elif len(new_list) == len(old_list):  # plain lists compared item by item in C: 10,000 cards
            replaced = list(map(operator.is_not, old_list, new_list))
            changed.update(c.root for c in itertools.compress(old_list, replaced) if c.entities)
            changed.update(c.root for c in itertools.compress(new_list, replaced) if c.entities)
        else:
            changed.update(
                root
                for root in self.by_root.keys() | old.by_root.keys()
                if self.by_root.get(root) is not old.by_root.get(root)
            )
        if self.names == old.names and self.collections == old.collections:
            return changed
        renamed = {key for key in self.names.keys() | old.names.keys() if self.names.get(key) != old.names.get(key)}
        renamed.update(
            key
            for key in self.collections.keys() | old.collections.keys()
            if self.collections.get(key) != old.collections.get(key)
        )
        # rare (a rename): every collection is read for the names it shows
        changed.update(root for root, coll in self.by_root.items() if not renamed.isdisjoint(_named(coll)))
        return changed

    def content(self, entity_id: str) -> tuple[str, str, list[Row], str] | None:
        """Title, size line, rows and tooltip of the entity's collection card; None when it has no card."""
        known = self._contents.get(entity_id)
        if known is not None:
            return known
        coll = self.by_root.get(entity_id)
        if coll is None:
            return None
        rows = document_rows(coll.shape, self.names, self.collections)
        stored = ", ".join(self.names.get(e, e) for e in coll.entities)
        tip = f"Collection {coll.name}: documents of {stored}\n{size_text(coll)}"
        if coll.why:
            tip += f"\n{coll.why}"
        content = self._contents[entity_id] = (coll.name, size_text(coll), rows, tip)
        return content


def _named(coll: CollectionDesign) -> set[str]:
    """The entities whose names (or collections' names) the card of ``coll`` shows."""
    found = set(coll.entities)
    stack = list(coll.shape)
    while stack:
        node = stack.pop()
        if node.entity:
            found.add(node.entity)
        if node.source is not None:
            found.add(node.source.entity)
        stack.extend(node.children)
        if node.items is not None:
            stack.append(node.items)
    return found


def show_as_stored(
    scene: CanvasScene, shapes: StoredShapes | None, entity_ids: list[str] | None = None, place: bool = True
) -> None:
    """Put the given cards (all by default) in the Documents view, or back to the entity view (``shapes`` None).

    Every shown card then takes its place (unless ``place`` is False: a build places all its cards once, at its
    end): its model position, or (Documents view) the nearest spot where its collection card, wider than the
    entity card, covers no other (the model positions do not change)."""
    keys = list(scene.entity_items) if entity_ids is None else entity_ids
    for entity_id in keys:
        item = scene.entity_items.get(entity_id)
        entity = scene.document.entity(entity_id)
        if item is None or entity is None:
            continue
        content = shapes.content(entity_id) if shapes is not None else None
        if shapes is None:
            if not item.show_entity_look():
                item.set_entity(entity)
            item.setVisible(True)
        elif content is None:
            item.setVisible(False)
        else:
            title, sub, rows, tip = content
            item.set_content(title, sub, rows, tip, DOCUMENT_CARD_WIDTH)
            item.setVisible(True)
    if place:
        place_cards(scene, shapes is not None, entity_ids)


def place_cards(scene: CanvasScene, as_stored: bool, entity_ids: list[str] | None = None) -> set[str]:
    """Cards at their model positions; in the Documents view spread so that no collection card covers another.

    ``entity_ids`` (None: all) are the cards that may have changed size, place or visibility: only they and the
    cards they now cover move (``scene.card_spread`` keeps the spread between calls). Returns the cards moved.
    """
    keys: Iterable[str] = scene.entity_items if entity_ids is None else entity_ids
    if as_stored:
        boxes: dict[str, Box | None] = {}
        for key in keys:
            item = scene.entity_items.get(key)
            boxes[key] = card_box(scene, key, item.rect()) if item is not None and item.isVisible() else None
        placed = scene.card_spread.update(boxes, every=entity_ids is None)
        if entity_ids is not None:
            keys = [*entity_ids, *placed.difference(entity_ids)]
    moved: set[str] = set()
    for key in keys:
        item = scene.entity_items.get(key)
        if item is None:
            continue
        at = card_place(scene, key, item.rect(), as_stored)
        if item.pos() != at:
            item.setPos(at)
            moved.add(key)
    return moved


def card_box(scene: CanvasScene, entity_id: str, rect: QRectF) -> Box:
    """The scene box a card of ``rect`` (its own coordinates) covers at its model position: what the spread reads."""
    at = scene.model_position(entity_id)
    return (at.x() + rect.x(), at.y() + rect.y(), rect.width(), rect.height())


def card_place(scene: CanvasScene, entity_id: str, rect: QRectF, as_stored: bool) -> QPointF:
    """Where a card of ``rect`` goes: its model position, or (Documents view) its box's spot in the spread."""
    spot = scene.card_spread.spots.get(entity_id) if as_stored else None
    return scene.model_position(entity_id) if spot is None else QPointF(spot[0] - rect.x(), spot[1] - rect.y())
