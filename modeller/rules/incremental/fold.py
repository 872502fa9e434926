"""``one_per_decision`` kept between analyses: after a small edit only the decisions it touched are folded again.

``framework.grouping.one_per_decision`` walks every finding to group them by
decision (about 40 ms at 10,000 entities, 44,000 findings: a fifth of an
edit's analysis). An edit keeps most findings as the same objects in the same
order, so :class:`Folding` keeps each decision's members and the finding each
group became, and regroups only the decisions of the findings that came or
went. The result is always what ``one_per_decision`` returns
(``tests/rules/test_incremental.py``); when the order of kept findings may
have changed, or many changed, the caller asks for the whole pass.
Speed-only: edit -> findings <= 200 ms at 10,000 entities (DESIGN.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from modeller.rules.framework.findings import Finding
from modeller.rules.framework.grouping import _fold, one_per_decision

#: a decision: (kind, id) of ``Finding.decision``
Decision = tuple[str, str]
#: above this many findings come or gone the whole pass is as quick
MANY = 2000
#: the findings that came and went since the last analysis, as listed in the analysis' findings (the engine
#: knows them: looking for them in two lists of 45,000 findings was two thirds of a fold at 10,000 entities)
Changes = tuple[list[Finding], list[Finding]]


@dataclass(slots=True)
class Folding:
    """The last folding: its input, each decision's members (in input order) and what each member became."""

    reported: list[Finding] = field(default_factory=list)
    #: id(finding) -> its position in ``reported`` (None: not worked out, the last fold was told the changes)
    pos: dict[int, int] | None = field(default_factory=dict)
    members: dict[Decision, list[Finding]] = field(default_factory=dict)
    #: id(member of a group of two or more) -> the folded finding (the primary) or None (folded into it)
    shown: dict[int, Finding | None] = field(default_factory=dict)
    #: what the last fold returned (the fold of ``reported``)
    folded: list[Finding] = field(default_factory=list)

    def fold(
        self, reported: list[Finding], rank: Mapping[str, int], kept_order: bool, changes: Changes | None = None
    ) -> list[Finding]:
        """``one_per_decision(reported, rank)``; ``kept_order``: the findings ``reported`` shares with the last
        input are in the same relative order (else, or after a large change, everything is grouped again);
        ``changes``: the findings that came into ``reported`` and went since the last input, when known."""
        if changes is not None and kept_order and self.reported and not changes[0] and not changes[1]:
            # the same findings in the same order: the last fold (edit -> findings at 10,000 entities: no walk
            # over 45,000 findings for an edit that changed none)
            self.reported, self.pos = reported, None
            return list(self.folded)
        self.folded = self._fold(reported, rank, kept_order, changes)
        return list(self.folded)

    def _fold(
        self, reported: list[Finding], rank: Mapping[str, int], kept_order: bool, changes: Changes | None
    ) -> list[Finding]:
        if changes is not None and kept_order and self.reported and len(changes[0]) + len(changes[1]) <= MANY:
            folded = self._changed(reported, rank, *changes)
            if folded is not None:
                return folded
        pos = {id(f): i for i, f in enumerate(reported)}
        if len(pos) != len(reported):  # one object listed twice: the whole pass, which goes by position
            self.reported, self.pos, self.members, self.shown = [], {}, {}, {}
            return one_per_decision(reported, rank)
        if not self.reported or not kept_order:
            return self._all(reported, pos, rank)
        old = self.reported
        old_pos = self.pos if self.pos is not None else {id(f): i for i, f in enumerate(old)}
        gone = old_pos.keys() - pos.keys()
        came = pos.keys() - old_pos.keys()
        if len(gone) + len(came) > MANY:
            return self._all(reported, pos, rank)
        members, shown = self.members, self.shown
        touched: dict[Decision, list[Finding]] = {}  # decision -> its members before the edit
        for ident in gone:
            f = old[old_pos[ident]]
            key = _decision(f)
            if key is not None:
                group = members[key]
                touched.setdefault(key, list(group))
                group[:] = [m for m in group if m is not f]  # by identity: another finding may equal it
        for ident in came:
            f = reported[pos[ident]]
            key = _decision(f)
            if key is not None:
                group = members.setdefault(key, [])
                touched.setdefault(key, list(group))
                group.append(f)
        for was in touched.values():
            for m in was:
                shown.pop(id(m), None)
        for key in touched:
            group = members[key]
            if not group:
                del members[key]
                continue
            group.sort(key=lambda f: pos[id(f)])
            _show(group, rank, shown)
        self.reported, self.pos = reported, pos
        return _shown(reported, shown)

    def _changed(
        self, reported: list[Finding], rank: Mapping[str, int], came: list[Finding], gone: list[Finding]
    ) -> list[Finding] | None:
        """The fold after the findings ``came`` and ``gone``, the others kept in order; None when a finding that
        came is an object already listed (the whole pass goes by position)."""
        members, shown = self.members, self.shown
        touched: dict[Decision, list[Finding]] = {}  # decision -> its members before the edit
        for f in gone:
            key = _decision(f)
            if key is not None:
                group = members[key]
                touched.setdefault(key, list(group))
                group[:] = [m for m in group if m is not f]
        grown: set[Decision] = set()
        seen: set[int] = set()
        for f in came:
            key = _decision(f)
            if key is None:
                continue
            group = members.setdefault(key, [])
            if id(f) in seen or any(m is f for m in group):
                self.reported, self.pos, self.members, self.shown = [], {}, {}, {}  # the whole pass next
                return None
            seen.add(id(f))
            touched.setdefault(key, list(group))
            if group:
                grown.add(key)
            group.append(f)
        for was in touched.values():
            for m in was:
                shown.pop(id(m), None)
        if grown:  # a group that gained a member besides others: its members in the order of ``reported``
            ids = list(map(id, reported))  # (looked up in C: a walk over 45,000 findings was a fold's third)
            pos = {ident: ids.index(ident) for ident in {id(m) for key in grown for m in members[key]}}
            for key in grown:
                members[key].sort(key=lambda f: pos[id(f)])
        for key in touched:
            group = members[key]
            if not group:
                del members[key]
                continue
            _show(group, rank, shown)
        self.reported, self.pos = reported, None
        return _shown(reported, shown)

    def _all(self, reported: list[Finding], pos: dict[int, int], rank: Mapping[str, int]) -> list[Finding]:
        """Group every finding (the first analysis, or one that changed much or moved findings)."""
        members: dict[Decision, list[Finding]] = {}
        for f in reported:
            key = _decision(f)
            if key is not None:
                members.setdefault(key, []).append(f)
        # the folded finding of a group whose members are the very same objects stays the same object
        before = {tuple(map(id, group)): group for group in self.members.values() if len(group) > 1}
        old_shown = self.shown
        shown: dict[int, Finding | None] = {}
        for group in members.values():
            if len(group) < 2:
                continue
            same = before.get(tuple(map(id, group)))
            if same is not None and all(a is b for a, b in zip(same, group, strict=True)):
                for m in group:
                    shown[id(m)] = old_shown[id(m)]
            else:
                _show(group, rank, shown)
        self.reported, self.pos, self.members, self.shown = reported, pos, members, shown
        return _shown(reported, shown)


def _decision(f: Finding) -> Decision | None:
    d = f.decision
    return None if d is None else (d.kind, d.id)


def _show(group: list[Finding], rank: Mapping[str, int], shown: dict[int, Finding | None]) -> None:
    """Fold one decision's members (in input order): the primary shows the folded finding, the others none."""
    if len(group) < 2:
        return
    primary_at, merged = _fold(group, rank)
    for j, m in enumerate(group):
        shown[id(m)] = merged if j == primary_at else None


def _shown(reported: Sequence[Finding], shown: dict[int, Finding | None]) -> list[Finding]:
    """``reported`` with each group's primary replaced by the folded finding and its other members left out."""
    if not shown:
        return list(reported)
    # (in C: a finding is never false, a member folded into another shows None; edit -> findings <= 200 ms)
    return list(filter(None, map(shown.get, map(id, reported), reported)))
