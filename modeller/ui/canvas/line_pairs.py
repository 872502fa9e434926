"""The relationships of a diagram by the two cards they join, whether their lines are made yet or not.

Why (issue 16): lines between the same two cards run side by side, each in its lane, and a line's lane depends on
how many lines share its cards. A 10,000-entity diagram is built in steps for many seconds after the open, and an
edit in that time makes its own line at once: its lane must count the lines beside it that the build has not made
yet, so the scene counts lanes from the model (this index) rather than from the items it holds.
"""

from __future__ import annotations

from collections.abc import Iterable

from modeller.model import Relationship


def _pair(one: str, many: str) -> tuple[str, str]:
    """The two cards in one order, whichever end is which."""
    return (one, many) if one <= many else (many, one)


class LinePairs:
    def __init__(self, relationships: Iterable[Relationship] = ()) -> None:
        self._ends: dict[str, tuple[str, str]] = {}
        self._between: dict[tuple[str, str], set[str]] = {}
        for rel in relationships:
            self._ends[rel.id] = (rel.one, rel.many)
            self._between.setdefault(_pair(rel.one, rel.many), set()).add(rel.id)

    def put(self, rel: Relationship) -> tuple[str, str] | None:
        """File ``rel`` between its cards; returns the cards it was filed between before (None: it is new)."""
        old = self.drop(rel.id)
        self._ends[rel.id] = (rel.one, rel.many)
        self._between.setdefault(_pair(rel.one, rel.many), set()).add(rel.id)
        return old

    def drop(self, rel_id: str) -> tuple[str, str] | None:
        """Forget ``rel_id``; returns the cards it joined (None: it was not filed)."""
        ends = self._ends.pop(rel_id, None)
        if ends is not None:
            key = _pair(*ends)
            group = self._between[key]
            group.discard(rel_id)
            if not group:
                del self._between[key]
        return ends

    def between(self, one: str, many: str) -> set[str]:
        """Every relationship joining ``one`` and ``many``, in either direction (a self-loop: one == many)."""
        return self._between.get(_pair(one, many), set())
