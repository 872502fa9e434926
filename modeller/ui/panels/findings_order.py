"""The order of the findings list: each section's findings sorted, worked out once per analysis.

A first analysis of a 10,000-entity project has about 38,000 findings; sorting them (a key per finding)
held the UI thread about 100 ms of the hand-over. The analysis worker asks for :func:`sorted_sections`
before it hands a result over (``analysis_facts.prepare``), so the findings model finds the order ready
(DESIGN.md "Performance targets": the UI never stalls more than 100 ms, issue 16).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from operator import itemgetter

from modeller.rules.framework.findings import Finding
from modeller.ui.panels.sections import SECTIONS, impact_key, section_of

SortKey = tuple[bool, int, str, str, str, str]
#: sorts before every overridden finding's key and after every open one's
OVERRIDDEN = (True,)

#: one section's findings in order, and their sort keys
Sorted = tuple[list[Finding], list[SortKey]]


def sort_key(finding: Finding) -> SortKey:
    """Open findings first, most severe first, then by rule and subject: the order rows keep across analyses."""
    return (*impact_key(finding), finding.rule, finding.subject.id, finding.subject.kind, finding.message)


def sorted_sections(findings: Sequence[Finding]) -> list[Sorted]:
    """Per section of :data:`SECTIONS`, its findings sorted by :func:`sort_key`, with the keys.

    Kept for the last few findings lists (by identity: an analysis' list is never changed); each call hands
    back fresh lists, which the caller may change.
    """
    with _lock:
        known = next((made for listed, made in _recent if listed is findings), None)
    if known is None:
        known = _sort(findings)
        with _lock:
            _recent.insert(0, (findings, known))
            del _recent[_KEEP:]
    return [(list(rows), list(keys)) for rows, keys in known]


def _sort(findings: Sequence[Finding]) -> list[Sorted]:
    buckets: dict[str, list[Finding]] = {s: [] for s in SECTIONS}
    for finding in findings:
        buckets[section_of(finding)].append(finding)
    ordered = []
    for section in SECTIONS:
        keyed = sorted(((sort_key(f), f) for f in buckets[section]), key=itemgetter(0))
        ordered.append(([f for _key, f in keyed], [key for key, _f in keyed]))
    return ordered


#: the order of the last few findings lists (the worker adds, the UI thread reads)
_recent: list[tuple[Sequence[Finding], list[Sorted]]] = []
_KEEP = 3
_lock = threading.Lock()
