"""Dictionary lookups over one analysis' Design, built once per design instead of a list scan per question.

``Design.collection(name)`` scans the collection list; the canvas markers, the
recommendations filter and the preview ask it once per entity or finding, which
made showing an analysis quadratic on 5,000-collection projects.
"""

from __future__ import annotations

import threading

from modeller.rules.physical.design import CollectionDesign, Design


class DesignIndex:
    """Collections by name and the collection holding each entity (its own, or the one it is embedded in)."""

    def __init__(self, design: Design) -> None:
        self.design = design
        self.collections: dict[str, CollectionDesign] = {c.name: c for c in design.collections}
        self.holder: dict[str, str] = {}
        # an entity's own collection (it is the root) wins over one that merely lists it
        for coll in reversed(design.collections):
            for entity_id in coll.entities:
                self.holder[entity_id] = coll.name
        for coll in reversed(design.collections):
            if coll.entities:
                self.holder[coll.entities[0]] = coll.name
        for entity_id, placement in design.embedded.items():
            self.holder[entity_id] = placement.collection

    def collection(self, name: str) -> CollectionDesign | None:
        return self.collections.get(name)

    def collection_for_entity(self, entity_id: str) -> str | None:
        return self.holder.get(entity_id)


#: the indexes of the last few designs asked about (the latest analysis, a preview's partial design)
_recent: list[DesignIndex] = []
_KEEP = 4
#: the analysis worker builds the index of its result before the hand-over (panels/analysis_facts.prepare)
_lock = threading.Lock()


def design_index(design: Design) -> DesignIndex:
    """The index of ``design``, built on the first question about it and reused while it is current."""
    with _lock:
        for index in _recent:
            if index.design is design:
                return index
    index = DesignIndex(design)
    with _lock:
        _recent.insert(0, index)
        del _recent[_KEEP:]
    return index
