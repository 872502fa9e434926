"""What the docks and the canvas derive from one analysis as a whole, worked out once per analysis.

The panel's header, the status bar, the details' empty text and the canvas
severity markers each walked every finding on the UI thread, one pass per asker
(tens of thousands of findings at 10,000 entities, issue 16). :func:`facts`
counts them in one pass and keeps the answer for the analysis; the analysis
worker calls :func:`prepare` before handing a result over, so a large
project's hand-over finds the counts, the markers and the id maps ready.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from modeller.model import Project
from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.findings import SEVERITY_RANK
from modeller.ui.panels.design_index import design_index
from modeller.ui.panels.finding_item import Lookup, lookup, project_labels, related_entities
from modeller.ui.panels.findings_order import sorted_sections
from modeller.ui.panels.sections import section_of

#: severities that put a marker on the canvas (suggestions keep the canvas calm)
MARKED = ("warning", "error")


@dataclass(frozen=True)
class Facts:
    """Counts and canvas markers of one analysis of one project."""

    #: severity -> open findings (overridden ones left out)
    opened: dict[str, int]
    #: severity -> open to-dos
    todo: dict[str, int]
    #: open decisions
    decisions: int
    #: entity id -> worst open warning/error about it (a relationship's counts for its line only)
    entity_marks: dict[str, str]
    #: relationship id -> worst open warning/error
    rel_marks: dict[str, str]


def count(analysis: Analysis, project: Project | Lookup) -> Facts:
    """One pass over the findings."""
    opened: dict[str, int] = {}
    todo: dict[str, int] = {}
    decisions = 0
    entities: dict[str, str] = {}
    rels: dict[str, str] = {}
    ids = lookup(project)
    for finding in analysis.findings:
        if finding.overridden:
            continue
        severity = finding.severity
        opened[severity] = opened.get(severity, 0) + 1
        if section_of(finding) == "todo":
            todo[severity] = todo.get(severity, 0) + 1
        else:
            decisions += 1
        if severity not in MARKED:
            continue
        if finding.subject.kind == "relationship":
            targets, store = [finding.subject.id], rels
        else:
            targets, store = related_entities(finding, ids, analysis.design), entities
        for target in targets:
            if SEVERITY_RANK[severity] > SEVERITY_RANK.get(store.get(target, ""), -1):
                store[target] = severity
    return Facts(opened, todo, decisions, entities, rels)


def facts(analysis: Analysis, project: Project) -> Facts:
    """The facts of ``analysis`` of ``project``, counted on the first question and kept while they are recent."""
    with _lock:
        for known_analysis, known_project, known in _recent:
            if known_analysis is analysis and known_project is project:
                return known
    made = count(analysis, project)
    with _lock:
        _recent.insert(0, (analysis, project, made))
        del _recent[_KEEP:]
    return made


def prepare(analysis: Analysis, project: Project, order: bool = True) -> None:
    """Work out, off the UI thread, what the hand-over of ``analysis`` will ask for (maps, counts, markers, the
    order of the findings list unless ``order`` is False, the words the first finding's details use)."""
    design_index(analysis.design)
    facts(analysis, project)
    if order:
        sorted_sections(analysis.findings)
    project_labels(project)


#: the facts of the last few analyses (the worker adds, the UI thread reads)
_recent: list[tuple[Analysis, Project, Facts]] = []
_KEEP = 3
_lock = threading.Lock()
