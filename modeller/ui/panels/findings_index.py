"""The findings filed by what they are about, so a canvas selection finds its findings without asking each one.

Selecting one card of a 10,000-entity project asked all 39,000 findings whether they concern it (about 2 s of
the UI thread under load, tryout a15 item 12). Filed by their subject's anchor (an entity for its fields, a
collection for its indexes) the findings of a selection are a few dictionary lookups away; only those few are
asked the exact question (:meth:`Selection.concerns`). The filing depends on the findings alone, so an analysis'
changes (findings in and out) update it in place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from modeller.rules.framework.findings import Finding
from modeller.rules.physical.design import Design
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
    collections of the chosen entities."""
    anchors: set[Anchor] = set(chosen.chosen)
    if chosen.entities:
        lines, queries = _ends(ids), _queries_of(ids)
        holding = _holding(design) if design is not None else {}
        for entity in chosen.entities:
            anchors.update(("relationship", key) for key in lines.get(entity, ()))
            anchors.update(("query", key) for key in queries.get(entity, ()))
            anchors.update(("collection", name) for name in holding.get(entity, ()))
    return anchors


#: the last maps made, with what they were made from (held, so compared by identity): a project's relationships
#: and queries stay the same objects across the edits that do not touch them, a design for one analysis
_made: dict[str, tuple[object, dict[str, list[str]]]] = {}


def _cached(name: str, source: object, make: Callable[[], dict[str, list[str]]]) -> dict[str, list[str]]:
    known = _made.get(name)
    if known is None or known[0] is not source:
        known = _made[name] = (source, make())
    return known[1]


def _ends(ids: Lookup) -> dict[str, list[str]]:
    """Entity id -> the relationships ending at it."""

    def make() -> dict[str, list[str]]:
        ends: dict[str, list[str]] = {}
        for rel in ids.rels.values():
            ends.setdefault(rel.one, []).append(rel.id)
            if rel.many != rel.one:
                ends.setdefault(rel.many, []).append(rel.id)
        return ends

    return _cached("ends", ids.rels, make)


def _queries_of(ids: Lookup) -> dict[str, list[str]]:
    """Entity id -> the queries on it."""

    def make() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for query in ids.queries.values():
            found.setdefault(query.entity, []).append(query.id)
        return found

    return _cached("queries", ids.queries, make)


def _holding(design: Design) -> dict[str, list[str]]:
    """Entity id -> the collections listing it (its own, the one it is embedded in, their companions)."""

    def make() -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for coll in design.collections:
            for entity in dict.fromkeys(coll.entities):
                found.setdefault(entity, []).append(coll.name)
        return found

    return _cached("holding", design, make)
