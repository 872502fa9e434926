"""What one analysis changed against the one before it, worked out in the analysis worker.

An edit at 10,000 entities changes a handful of its ~40,000 findings, a few canvas
markers and one or two collections. The findings list, the canvas markers and the
preview each compared the whole new analysis with the last one on the UI thread
(set operations over every finding, every mark, every collection) to find those few.
The worker now works the difference out once, next to the analysis
(:func:`note_changes`), and the UI thread asks :func:`changes_since` for it: edit ->
findings on screen <= 200 ms at 10,000 entities (DESIGN.md "Performance targets",
issue 16). A result the UI has not got changes for (the first one, or one after a
stale result was dropped) is compared in full, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from modeller.model import Project
from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.findings import Finding
from modeller.ui.panels.analysis_facts import facts
from modeller.ui.panels.design_index import design_index
from modeller.ui.panels.finding_item import lookup


@dataclass(frozen=True)
class Marks:
    """What the canvas shows of one analysis: severity markers and "in X" notes."""

    #: entity id -> worst open warning/error about it
    entities: dict[str, str]
    #: embedded entity id -> the name of the entity whose documents hold it (or the collection's name)
    hosts: dict[str, str]
    #: relationship id -> worst open warning/error
    relationships: dict[str, str]


@dataclass(frozen=True)
class Changes:
    """The difference between analysis ``since`` (of ``since_project``) and the next one."""

    since: Analysis
    since_project: Project
    #: findings of the new analysis that ``since`` does not hold (by identity: the incremental engine hands
    #: back the very objects of unchanged findings)
    fresh: list[Finding]
    #: findings of ``since`` the new analysis does not hold
    gone: list[Finding]
    #: names of collections added, removed or replaced
    collections: frozenset[str]
    #: entities whose marker or "in X" note differs
    entities_marked: frozenset[str]
    #: relationships whose marker differs
    relationships_marked: frozenset[str]
    #: an entity was renamed or a relationship got other ends (rows name them: every label may read differently)
    relabelled: bool
    #: the queries changed (rows name queries)
    queries: bool


def marks(analysis: Analysis, project: Project) -> Marks:
    """The canvas marks of ``analysis`` of ``project`` (kept for the last few, like the facts)."""
    with _lock:
        for known_analysis, known_project, known in _recent_marks:
            if known_analysis is analysis and known_project is project:
                return known
    known_facts = facts(analysis, project)
    ids = lookup(project)
    index = design_index(analysis.design)
    hosts: dict[str, str] = {}
    for entity_id, placement in analysis.design.embedded.items():
        coll = index.collection(placement.collection)
        hosts[entity_id] = ids.name(coll.root) if coll is not None and coll.entities else placement.collection
    made = Marks(known_facts.entity_marks, hosts, known_facts.rel_marks)
    with _lock:
        _recent_marks.insert(0, (analysis, project, made))
        del _recent_marks[_KEEP:]
    return made


def compare(since: Analysis, since_project: Project, analysis: Analysis, project: Project) -> Changes | None:
    """Work out what ``analysis`` changed against ``since`` (passes over every finding, mark and collection);
    None when most findings changed (another project was opened): the UI merges everything anyway."""
    before, after = _by_id(since.findings), _by_id(analysis.findings)
    fresh = list(map(after.__getitem__, after.keys() - before.keys()))
    gone = list(map(before.__getitem__, before.keys() - after.keys()))
    if 4 * (len(fresh) + len(gone)) > len(before) + len(after):
        return None
    old_colls = {c.name: c for c in since.design.collections}
    new_colls = {c.name: c for c in analysis.design.collections}
    collections = {name for name, coll in new_colls.items() if old_colls.get(name) is not coll}
    collections.update(old_colls.keys() - new_colls.keys())
    old, new = marks(since, since_project), marks(analysis, project)
    return Changes(
        since=since,
        since_project=since_project,
        fresh=fresh,
        gone=gone,
        collections=frozenset(collections),
        entities_marked=frozenset(differing(old.entities, new.entities) | differing(old.hosts, new.hosts)),
        relationships_marked=frozenset(differing(old.relationships, new.relationships)),
        relabelled=relabelled(since_project, project),
        queries=since_project.queries is not project.queries,
    )


def note_changes(since: tuple[Analysis, Project] | None, analysis: Any, project: Project) -> Changes | None:
    """In the worker, after ``analysis`` of ``project``: keep its changes against ``since`` (the worker's previous
    result, which the UI shows unless it dropped it as stale) for :func:`changes_since`, and return them."""
    if since is None or not isinstance(analysis, Analysis) or since[0] is analysis:
        return None
    made = compare(since[0], since[1], analysis, project)
    if made is not None:
        with _lock:
            _recent_changes.insert(0, (analysis, project, made))
            del _recent_changes[_KEEP:]
    return made


def _by_id(findings: list[Finding]) -> dict[int, Finding]:
    """``findings`` by identity, kept for the last few lists (each result is compared as the new one, then as
    the previous one; built in C, not a Python loop over 40,000 findings)."""
    with _lock:
        for listed, made in _recent_ids:
            if listed is findings:
                return made
    made = dict(zip(map(id, findings), findings, strict=True))
    with _lock:
        _recent_ids.insert(0, (findings, made))
        del _recent_ids[_KEEP:]
    return made


def changes_since(
    since: Analysis | None, since_project: Project | None, analysis: Any, project: Project
) -> Changes | None:
    """The changes from ``since`` to ``analysis`` when the worker worked them out; None: compare in full."""
    if since is None or since_project is None:
        return None
    with _lock:
        for known_analysis, known_project, made in _recent_changes:
            if known_analysis is analysis and known_project is project:
                return made if made.since is since and made.since_project is since_project else None
    return None


def relabelled(old: Project, new: Project) -> bool:
    """Could a finding's subject read differently (a renamed entity, a relationship with other ends)?

    An edit swaps in a new project but keeps the objects it did not touch: those are skipped by identity,
    not compared entry by entry (two 10,000-entry comparisons per analysis otherwise).
    """
    return _reads_differently(old.entities, new.entities, lambda e: e.name) or _reads_differently(
        old.relationships, new.relationships, lambda r: (r.one, r.many)
    )


def _reads_differently(old: tuple[Any, ...], new: tuple[Any, ...], words: Callable[[Any], Any]) -> bool:
    """Does an object present before and after (by id) read differently? Added and removed ones do not count:
    their findings come and go as rows of their own."""
    if old is new:
        return False
    if len(old) == len(new):
        pairs = [(a, b) for a, b in zip(old, new, strict=True) if a is not b]
        if all(a.id == b.id for a, b in pairs):
            return any(words(a) != words(b) for a, b in pairs)
    before = {x.id: words(x) for x in old}
    return any(x.id in before and before[x.id] != words(x) for x in new)


def differing(old: dict[str, str], new: dict[str, str]) -> set[str]:
    """The keys whose value differs between ``old`` and ``new`` (present in one only counts)."""
    return {key for key, _value in old.items() ^ new.items()}


#: the changes of the last few results, and their marks (the worker adds, the UI thread reads)
_recent_changes: list[tuple[Analysis, Project, Changes]] = []
_recent_marks: list[tuple[Analysis, Project, Marks]] = []
_recent_ids: list[tuple[list[Finding], dict[int, Finding]]] = []
_KEEP = 3
_lock = threading.Lock()
