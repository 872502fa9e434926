"""The findings filed by what they are about, so a canvas selection finds its findings without asking each one.

Selecting one card of a 10,000-entity project asked all 39,000 findings whether they concern it (about 2 s of
the UI thread under load, tryout a15 item 12). Filed by their subject's anchor (an entity for its fields, a
collection for its indexes) the findings of a selection are a few dictionary lookups away; only those few are
asked the exact question (:meth:`Selection.concerns`). The filing depends on the findings alone, so an analysis'
changes (findings in and out) update it in place.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from modeller.rules.framework.findings import Finding
from modeller.rules.physical.design import Design
from modeller.ui.panels.design_index import design_index
from modeller.ui.panels.finding_item import Lookup, Selection

Anchor = tuple[str, str]


def anchor(finding: Finding) -> Anchor:
    """What a finding hangs on: its entity (a field's too), relationship, query or collection (an index's too)."""
    kind, ident = finding.subject.kind, finding.subject.id
    if kind == "field":
        return "entity", ident.partition(".")[0]
    if kind == "index":
        return "collection", ident.partition("#")[0]
    if kind in ("entity", "relationship", "query"):
        return kind, ident
    return "collection", ident


class FindingsIndex:
    """Findings by anchor, each list keyed by identity (an analysis' unchanged findings are the same objects)."""

    def __init__(self, findings: Iterable[Finding] = ()) -> None:
        self.by_anchor: dict[Anchor, dict[int, Finding]] = {}
        self.add(findings)

    def add(self, findings: Iterable[Finding]) -> None:
        by_anchor = self.by_anchor
        for finding in findings:
            by_anchor.setdefault(anchor(finding), {})[id(finding)] = finding

    def remove(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            filed = self.by_anchor.get(anchor(finding))
            if filed is not None:
                filed.pop(id(finding), None)

    def concerning(self, chosen: Selection, ids: Lookup, design: Design | None) -> Iterator[Finding]:
        """The findings ``chosen`` concerns (as :meth:`Selection.concerns` answers), from the anchors that can."""
        for key in anchors_of(chosen, ids, design):
            for finding in self.by_anchor.get(key, {}).values():
                if chosen.concerns(finding, ids, design):
                    yield finding


def anchors_of(chosen: Selection, ids: Lookup, design: Design | None) -> set[Anchor]:
    """What the findings about ``chosen`` can hang on: the chosen objects, and the relationships, queries and
    collections of the chosen entities (from maps the project's lookup and the design's index own: they go
    with the project version and the analysis they were made for)."""
    anchors: set[Anchor] = set(chosen.chosen)
    if chosen.entities:
        lines, queries = ids.ends, ids.queries_of
        listing = design_index(design).listing if design is not None else {}
        for entity in chosen.entities:
            anchors.update(("relationship", key) for key in lines.get(entity, ()))
            anchors.update(("query", key) for key in queries.get(entity, ()))
            anchors.update(("collection", name) for name in listing.get(entity, ()))
    return anchors
