"""Dictionary lookups over one analysis' Design, built once per design instead of a list scan per question.

``Design.collection(name)`` scans the collection list; the canvas markers, the
recommendations filter and the preview ask it once per entity or finding, which
made showing an analysis quadratic on 5,000-collection projects.
"""

from __future__ import annotations

import itertools
import operator
import threading
from functools import cached_property

from modeller.rules.physical.design import CollectionDesign, Design


class DesignIndex:
    """Collections by name and the collection holding each entity (its own, or the one it is embedded in).

    Built from the index of the previous design when an edit kept every collection's name and entities and
    every embedded entity's collection (the analysis patched in place): then only the replaced collections
    are looked up again and the holders are the previous ones (edit -> findings <= 200 ms at 10,000
    entities: a fresh index is about 10 ms of the worker's hand-over, issue 16).
    """

    def __init__(self, design: Design, previous: DesignIndex | None = None) -> None:
        self.design = design
        if previous is not None and _same_places(previous, design):
            before = previous.design
            self.collections = previous.collections.copy()
            for coll in itertools.compress(
                design.collections, map(operator.is_not, before.collections, design.collections)
            ):
                self.collections[coll.name] = coll
            self.holder = previous.holder  # read-only once built: shared
            if "listing" in vars(previous):  # the same names and entities list the same collections
                self.listing = previous.listing
            return
        self.collections = {c.name: c for c in design.collections}
        self.holder = {}
        # an entity's own collection (it is the root) wins over one that merely lists it
        for coll in reversed(design.collections):
            for entity_id in coll.entities:
                self.holder[entity_id] = coll.name
        for coll in reversed(design.collections):
            if coll.entities:
                self.holder[coll.entities[0]] = coll.name
        for entity_id, placement in design.embedded.items():
            self.holder[entity_id] = placement.collection

    collections: dict[str, CollectionDesign]
    holder: dict[str, str]

    def collection(self, name: str) -> CollectionDesign | None:
        return self.collections.get(name)

    def collection_for_entity(self, entity_id: str) -> str | None:
        return self.holder.get(entity_id)

    @cached_property
    def listing(self) -> dict[str, list[str]]:
        """Entity id -> every collection listing it (its own, the one it is embedded in, their companions), in
        design order; made when a canvas selection first asks for its findings."""
        found: dict[str, list[str]] = {}
        for coll in self.design.collections:
            for entity in dict.fromkeys(coll.entities):
                found.setdefault(entity, []).append(coll.name)
        return found


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
    with _lock:
        previous = _recent[0] if _recent else None
    index = DesignIndex(design, previous)
    with _lock:
        _recent.insert(0, index)
        del _recent[_KEEP:]
    return index


def _same_places(previous: DesignIndex, after: Design) -> bool:
    """Do the previous index's design and ``after`` hold the same collection names in the same order, each with
    the same entities, and embed every embedded entity in the same collection? (Then every holder is the same.)"""
    before = previous.design
    old, new = before.collections, after.collections
    if len(old) != len(new) or before.embedded.keys() != after.embedded.keys():
        return False
    if len(previous.collections) != len(old):
        return False  # two collections of one name: the last one is looked up, the fresh build says which
    for a, b in zip(old, new, strict=True):
        if a is not b and (a.name != b.name or a.entities != b.entities):
            return False
    embedded = after.embedded
    return all(
        (placed := embedded[entity_id]) is was or placed.collection == was.collection
        for entity_id, was in before.embedded.items()
    )
