"""The Documents view: each card shows its collection as stored, from the engine's resolved design.

The root entity of a collection keeps its card (near its position: a wider
collection card pushes the cards it would cover aside, see :func:`spread`) and lists
the stored document: embedded entities nested inside it, references and
arrays of ids pointing at their collection, denormalized copies and computed
values marked, the estimated document size under the name. Entities stored
inside another entity's documents have no card of their own here; the lines
of what is embedded go with them, the references stay. The words and marks
are the diagram export's (:func:`modeller.export.diagram.node_note`).
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF

from modeller.export.common import human_bytes, human_count
from modeller.export.diagram import node_note, type_label
from modeller.rules.physical.design import CollectionDesign, Design, ShapeNode
from modeller.ui.canvas.items.entity_item import Row

if TYPE_CHECKING:
    from modeller.ui.canvas.scene import CanvasScene

#: a stored document lists more than its entity's fields: its card may grow wider than an entity card
DOCUMENT_CARD_WIDTH = 460.0
#: scene units kept free between two collection cards that had to make room for each other: a line with its badge fits
CARD_GAP = 96.0
#: side of a cell of the grid that finds the cards already placed near a card (scene units)
_CELL = 512.0

Box = tuple[float, float, float, float]  # left, top, width, height

#: per scene, the last boxes spread and where they went: an analysis that changed no card's size or place
#: (most do not) costs no second spread (about 2 s CPU at 10,000 cards, every card in the way of the next)
_last_spread: weakref.WeakKeyDictionary[object, tuple[dict[str, Box], dict[str, tuple[float, float]]]] = (
    weakref.WeakKeyDictionary()
)


def spread(boxes: dict[str, Box], gap: float = CARD_GAP) -> dict[str, tuple[float, float]]:
    """Top-left corners for cards that may have grown (a collection card is wider than its entity card) so that
    no two overlap: each card, top row first, keeps its spot if it is free, else moves ``gap`` right of or below
    the cards in its way, whichever is the shorter move. Cards that did not overlap stay where they were."""
    placed: dict[str, tuple[float, float, float, float]] = {}  # key -> left, top, right, bottom
    cells: dict[tuple[int, int], list[str]] = {}

    def in_way(left: float, top: float, width: float, height: float) -> list[tuple[float, float, float, float]]:
        right, bottom = left + width, top + height
        found: dict[str, tuple[float, float, float, float]] = {}
        for cx in range(math.floor(left / _CELL), math.floor(right / _CELL) + 1):
            for cy in range(math.floor(top / _CELL), math.floor(bottom / _CELL) + 1):
                for key in cells.get((cx, cy), ()):
                    l2, t2, r2, b2 = placed[key]
                    if l2 < right and left < r2 and t2 < bottom and top < b2:
                        found[key] = placed[key]
        return list(found.values())

    out: dict[str, tuple[float, float]] = {}
    for key, (x0, y0, width, height) in sorted(boxes.items(), key=lambda kv: (kv[1][1], kv[1][0], kv[0])):
        x, y = x0, y0
        for _ in range(len(placed) + 1):  # each step clears at least one card in the way: bounded
            blockers = in_way(x, y, width, height)
            if not blockers:
                break
            right = max(b[2] for b in blockers)
            below = max(b[3] for b in blockers)
            if right - x <= below - y:
                x = right + gap
            else:
                y = below + gap
        out[key] = (x, y)
        placed[key] = (x, y, x + width, y + height)
        l2, t2, r2, b2 = placed[key]
        for cx in range(math.floor(l2 / _CELL), math.floor(r2 / _CELL) + 1):
            for cy in range(math.floor(t2 / _CELL), math.floor(b2 / _CELL) + 1):
                cells.setdefault((cx, cy), []).append(key)
    return out


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
            item.set_entity(entity)
            item.setVisible(True)
        elif content is None:
            item.setVisible(False)
        else:
            title, sub, rows, tip = content
            item.set_content(title, sub, rows, tip, DOCUMENT_CARD_WIDTH)
            item.setVisible(True)
    if place:
        place_cards(scene, shapes is not None)


def place_cards(scene: CanvasScene, as_stored: bool) -> None:
    """Cards at their model positions; in the Documents view spread so that no collection card covers another."""
    spots: dict[str, tuple[float, float]] = {}
    if as_stored:
        boxes: dict[str, Box] = {}
        for key, item in scene.entity_items.items():
            if item.isVisible():
                at, rect = scene.model_position(key), item.rect()
                boxes[key] = (at.x() + rect.x(), at.y() + rect.y(), rect.width(), rect.height())
        last = _last_spread.get(scene)
        if last is not None and last[0] == boxes:
            spots = last[1]
        else:
            spots = spread(boxes)
            _last_spread[scene] = (boxes, spots)
    for key, item in scene.entity_items.items():
        spot = spots.get(key)
        at = (
            scene.model_position(key) if spot is None else QPointF(spot[0] - item.rect().x(), spot[1] - item.rect().y())
        )
        if item.pos() != at:
            item.setPos(at)
