"""Entities whose fields overlap enough to be variants of one entity (polymorphic pattern).

Comparing every pair of entities is quadratic (5,000 entities: 12.5 million
pairs), so candidates come from prefix filtering, the trick of set-similarity
joins: with the fields of every entity in one global order, two sets sharing
at least ``need`` fields share the *same two* of them among the first
``len - need + 2`` of each (the two smallest shared ones). Each field set is
filed under the pairs of its prefix; only sets filed under a common pair are
compared.

Two things keep the work linear on models where many entities look alike:
entities with exactly the same fields are one set (200 identical entities are
one entry, not 19,900 pairs), and a pair of fields held by more than
``max_shared`` distinct sets is *crowded*: it is what every entity has
(``title``, ``status``), so sets are not compared through it, and the crowd is
reported instead. Whether two sets are partners depends only on the sets held
now, so the index updated entity by entity equals one built from scratch.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations

#: a compared field: (name, type)
Token = tuple[str, str]
FieldSet = frozenset[Token]
Pair = tuple[Token, Token]


@dataclass(frozen=True, slots=True)
class OverlapGroup:
    """Entities (in model order) that pairwise share ``common``."""

    members: tuple[str, ...]
    common: FieldSet
    #: the smallest share of a member's fields that are common (0..1)
    share: float


@dataclass(frozen=True, slots=True)
class Crowd:
    """Entities (in model order) holding the same crowded pairs of fields: too many to compare as variants."""

    members: tuple[str, ...]
    fields: FieldSet


class OverlapIndex:
    """Pairs of entities sharing at least ``min_share`` of each one's fields and ``min_common`` fields."""

    def __init__(self, min_share: float, min_common: int, max_shared: int | None = None) -> None:
        self.min_share = min_share
        #: the two-field keys need two shared fields at least
        self.min_common = max(2, min_common)
        self.max_shared = max_shared
        #: entity -> its compared fields
        self.sets: dict[str, FieldSet] = {}
        #: field set -> the entities holding exactly these fields
        self._members: dict[FieldSet, set[str]] = {}
        self._keys: dict[FieldSet, list[Pair]] = {}
        self._posting: dict[Pair, set[FieldSet]] = {}
        #: field set -> partner field set -> the fields they share
        self._partners: dict[FieldSet, dict[FieldSet, FieldSet]] = {}

    def need(self, fields: FieldSet) -> int:
        return max(self.min_common, math.ceil(self.min_share * len(fields)))

    def update(self, key: str, fields: FieldSet | None) -> None:
        """Set (or with None remove) the fields of ``key``; its partners follow."""
        old = self.sets.pop(key, None)
        if old is not None:
            holders = self._members[old]
            holders.discard(key)
            if not holders:
                self._remove_set(old)
        if fields is None:
            return
        self.sets[key] = fields
        same = self._members.get(fields)
        if same is None:
            self._members[fields] = {key}
            self._add_set(fields)
        else:
            same.add(key)

    def partners_of(self, key: str) -> set[str]:
        """The entities ``key`` shares enough fields with (other entities with the same fields included)."""
        fields = self.sets[key]
        out = set().union(*(self._members[s] for s in self._partners.get(fields, {})))
        if len(fields) >= self.need(fields):
            out |= self._members[fields]
        out.discard(key)
        return out

    # ----- field sets -----
    def _add_set(self, fields: FieldSet) -> None:
        need = self.need(fields)
        keys = list(combinations(sorted(fields)[: len(fields) - need + 2], 2)) if need <= len(fields) else []
        self._keys[fields] = keys
        for pair in keys:
            posted = self._posting.setdefault(pair, set())
            posted.add(fields)
            if self.max_shared is not None and len(posted) == self.max_shared + 1:
                self._recheck_links(posted - {fields})  # just crowded: its holders may lose their only link
        candidates: set[FieldSet] = set()
        cap = self.max_shared
        for pair in keys:
            posted = self._posting[pair]
            if cap is None or len(posted) <= cap:  # not crowded
                candidates |= posted
        candidates.discard(fields)
        # each candidate meets ``fields`` under an uncrowded pair (it was found there) and a new set has no links
        # yet, so only the shared fields decide; at 10,000 entities most uncrowded pairs hold ~50 sets, so this
        # runs ~5 times per set
        partners = self._partners
        for other in candidates:
            common = fields & other
            if len(common) >= need and len(common) >= self.need(other):
                partners.setdefault(fields, {})[other] = common
                partners.setdefault(other, {})[fields] = common

    def _remove_set(self, fields: FieldSet) -> None:
        for other in list(self._partners.get(fields, {})):
            self._unlink(fields, other)
        for pair in self._keys.pop(fields):
            posted = self._posting[pair]
            posted.discard(fields)
            if not posted:
                del self._posting[pair]
            elif self.max_shared is not None and len(posted) == self.max_shared:
                self._relink_among(posted)  # no longer crowded: its holders are compared through it again
        del self._members[fields]

    def _crowded(self, pair: Pair) -> bool:
        return self.max_shared is not None and len(self._posting[pair]) > self.max_shared

    def _relink_among(self, sets: set[FieldSet]) -> None:
        for a, b in combinations(sets, 2):
            self._relink(a, b)

    def _recheck_links(self, sets: set[FieldSet]) -> None:
        """Check again the links among ``sets`` after one of their pairs became crowded: crowding only breaks
        links, so the pairs already linked are the ones to look at, not every pair of the ``max_shared`` sets
        (a cold analysis of 10,000 entities crowds a pair dozens of times: 1,275 pairs each)."""
        for a in sets:
            theirs = self._partners.get(a)
            if theirs:
                for b in [b for b in theirs if b in sets and id(a) < id(b)]:
                    self._relink(a, b)

    def _relink(self, a: FieldSet, b: FieldSet) -> None:
        """``a`` and ``b`` are partners when they meet under an uncrowded pair and share enough fields."""
        common = a & b
        mine = set(self._keys[b])
        if (
            len(common) >= self.need(a)
            and len(common) >= self.need(b)
            and any(pair in mine and not self._crowded(pair) for pair in self._keys[a])
        ):
            self._partners.setdefault(a, {})[b] = common
            self._partners.setdefault(b, {})[a] = common
        else:
            self._unlink(a, b)

    def _unlink(self, a: FieldSet, b: FieldSet) -> None:
        for x, y in ((a, b), (b, a)):
            theirs = self._partners.get(x)
            if theirs is not None and theirs.pop(y, None) is not None and not theirs:
                del self._partners[x]

    # ----- results -----
    def groups(self, position: Mapping[str, int]) -> list[OverlapGroup]:
        """Qualifying pairs with the same shared fields form one group; groups inside larger ones are dropped."""
        by_common: dict[FieldSet, set[str]] = {}
        for fields, holders in self._members.items():
            if len(holders) > 1 and len(fields) >= self.need(fields):  # entities with exactly the same fields
                by_common.setdefault(fields, set()).update(holders)
        for a, theirs in self._partners.items():
            for b, common in theirs.items():
                by_common.setdefault(common, set()).update(self._members[a], self._members[b])
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

    def crowds(self, position: Mapping[str, int]) -> list[Crowd]:
        """The entities of each crowded pair of fields; pairs held by the same sets are one crowd."""
        fields_of: dict[frozenset[FieldSet], set[Token]] = {}
        for pair, posted in self._posting.items():
            if self._crowded(pair):
                fields_of.setdefault(frozenset(posted), set()).update(pair)
        out = []
        for sets, fields in fields_of.items():
            members = sorted(set().union(*(self._members[s] for s in sets)), key=position.__getitem__)
            out.append(Crowd(tuple(members), frozenset(fields)))
        out.sort(key=lambda c: position[c.members[0]])
        return out


def overlap_groups(
    sets: Mapping[str, FieldSet], min_share: float, min_common: int, max_shared: int | None = None
) -> list[OverlapGroup]:
    """The groups of a whole model at once (``sets`` in model order)."""
    index = OverlapIndex(min_share, min_common, max_shared)
    for key, fields in sets.items():
        index.update(key, fields)
    return index.groups({key: i for i, key in enumerate(sets)})
