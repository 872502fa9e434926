"""Entities whose fields overlap enough to be variants of one entity (polymorphic pattern).

Comparing every pair of entities is quadratic (5,000 entities: 12.5 million
pairs), so candidates come from prefix filtering, the trick of set-similarity
joins: with the fields of every entity in one global order, two sets sharing
at least ``need`` fields share the *same two* of them among the first
``len - need + 2`` of each (the two smallest shared ones). Each entity is
filed under the pairs of its prefix; only entities filed under a common pair
are compared. The index is kept between analyses and updated per changed
entity, so an edit costs the work of that entity, not of the model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

#: a compared field: (name, type)
Token = tuple[str, str]


@dataclass(frozen=True, slots=True)
class OverlapGroup:
    """Entities (in model order) that pairwise share ``common``."""

    members: tuple[str, ...]
    common: frozenset[Token]
    #: the smallest share of a member's fields that are common (0..1)
    share: float


class OverlapIndex:
    """Pairs of entities sharing at least ``min_share`` of each one's fields and ``min_common`` fields."""

    def __init__(self, min_share: float, min_common: int) -> None:
        self.min_share = min_share
        #: the two-field keys need two shared fields at least
        self.min_common = max(2, min_common)
        self.sets: dict[str, frozenset[Token]] = {}
        self._keys: dict[str, list[tuple[Token, Token]]] = {}
        self._posting: dict[tuple[Token, Token], set[str]] = {}
        self.partners: dict[str, dict[str, frozenset[Token]]] = {}

    def need(self, fields: frozenset[Token]) -> int:
        return max(self.min_common, math.ceil(self.min_share * len(fields)))

    def update(self, key: str, fields: frozenset[Token] | None) -> None:
        """Set (or with None remove) the fields of ``key``; pairs with every other entity follow."""
        old = self.sets.get(key)
        if old is not None:
            if fields is not None and (old is fields or old == fields):
                self.sets[key] = fields
                return
            self._remove(key)
        if fields is None:
            return
        self.sets[key] = fields
        need = self.need(fields)
        if need > len(fields):
            self._keys[key] = []
            return
        prefix = sorted(fields)[: len(fields) - need + 2]
        pairs = list(combinations(prefix, 2))
        self._keys[key] = pairs
        seen: set[str] = set()
        mine: dict[str, frozenset[Token]] = {}
        posting = self._posting
        for pair in pairs:
            posted = posting.get(pair)
            if posted is None:  # most pairs are filed under one entity only: nothing to compare
                posting[pair] = {key}
                continue
            for other in posted:
                if other in seen:
                    continue
                seen.add(other)
                theirs = self.sets[other]
                common = fields & theirs
                if len(common) >= need and len(common) >= self.need(theirs):
                    mine[other] = common
                    self.partners.setdefault(other, {})[key] = common
            posted.add(key)
        if mine:  # only entities with partners are kept (groups() walks them)
            self.partners[key] = mine

    def _remove(self, key: str) -> None:
        for pair in self._keys.pop(key, ()):
            posted = self._posting[pair]
            posted.discard(key)
            if not posted:
                del self._posting[pair]
        for other in self.partners.pop(key, {}):
            theirs = self.partners[other]
            del theirs[key]
            if not theirs:
                del self.partners[other]
        del self.sets[key]

    def groups(self, position: Mapping[str, int]) -> list[OverlapGroup]:
        """Qualifying pairs with the same shared fields form one group; groups inside larger ones are dropped."""
        by_common: dict[frozenset[Token], set[str]] = {}
        for a, theirs in self.partners.items():
            for b, common in theirs.items():
                if position[a] < position[b]:
                    by_common.setdefault(common, set()).update((a, b))
        candidates = sorted(
            by_common.items(), key=lambda kv: (-len(kv[1]), sorted(map(position.__getitem__, kv[1])), sorted(kv[0]))
        )
        out: list[OverlapGroup] = []
        kept_with: dict[str, list[set[str]]] = {}  # entity -> member sets of kept groups holding it
        for common, members in candidates:
            first = min(members, key=position.__getitem__)
            if any(members <= kept for kept in kept_with.get(first, ())):
                continue
            for m in members:
                kept_with.setdefault(m, []).append(members)
            ordered = tuple(sorted(members, key=position.__getitem__))
            share = min(len(common) / len(self.sets[m]) for m in ordered)
            out.append(OverlapGroup(ordered, common, share))
        out.sort(key=lambda g: [position[m] for m in g.members])
        return out


def overlap_groups(sets: Mapping[str, frozenset[Token]], min_share: float, min_common: int) -> list[OverlapGroup]:
    """The groups of a whole model at once (``sets`` in model order)."""
    index = OverlapIndex(min_share, min_common)
    for key, fields in sets.items():
        index.update(key, fields)
    return index.groups({key: i for i, key in enumerate(sets)})
