"""One decision, one finding: the findings that justify the same decision become one.

Several rules stand behind one decision — a relationship's strategy (the
base rule, its refinement, the pattern it applies) or one index (a
reference, an ESR compound index, a hot query). Each rule still reports it
(its cases test it alone); the engine then keeps one finding per
``Finding.decision``: the most severe, ties going to the rule registered
first (catalog order: shape before patterns before indexes), with the other
rules listed in ``also``; the fix is the primary's (two rules never propose two
fixes for one decision). An override of any rule of the group marks the
one finding overridden, so overriding what a reader sees keeps working
whichever rule it names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from modeller.rules.framework.findings import SEVERITY_RANK, Finding, SubjectRef


def one_per_decision(findings: Sequence[Finding], rank: Mapping[str, int]) -> list[Finding]:
    """``findings`` (in order) with each decision's group folded into its primary finding, kept at its place.

    ``rank`` is each rule's registration position (an unknown rule sorts last).
    """
    groups: dict[SubjectRef, list[int]] = {}
    for i, f in enumerate(findings):
        if f.decision is not None:
            groups.setdefault(f.decision, []).append(i)
    out: list[Finding | None] = list(findings)
    last = len(rank)
    for positions in groups.values():
        if len(positions) < 2:
            continue
        members = [findings[i] for i in positions]
        order = sorted(
            range(len(members)),
            key=lambda j: (-SEVERITY_RANK[members[j].severity], rank.get(members[j].rule, last), j),
        )
        primary = members[order[0]]
        others = [members[j] for j in order[1:]]
        also = tuple(dict.fromkeys(f.rule for f in others if f.rule != primary.rule))
        overridden = [f for f in (primary, *others) if f.overridden]
        merged = replace(
            primary,
            also=tuple(dict.fromkeys((*primary.also, *also))),
            overridden=bool(overridden),
            note=next((f.note for f in overridden if f.note), None),
        )
        for i in positions:
            out[i] = None
        out[positions[order[0]]] = merged
    return [f for f in out if f is not None]
