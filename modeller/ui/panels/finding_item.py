"""How one finding reads in the panel: its subject's name, its details as HTML, what it concerns.

Kept free of widgets so the wording is testable on its own and the canvas can
ask the same questions ("which entity does this finding point at?").
"""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Iterable
from functools import cached_property
from typing import Any

from modeller.model import Project, Query, Relationship
from modeller.model.labels import Labels, query_numbers, query_words, relationship_words
from modeller.model.wording import duration
from modeller.rules.framework.findings import Finding, SubjectRef
from modeller.rules.physical.design import Design
from modeller.ui.panels.design_index import design_index

#: links inside the detail view: ``rule:<id>`` opens the rule reference in the app
RULE_SCHEME = "rule"

_CITATION = re.compile(r"(?:\[(?P<key>[^\]]+)\]\s*)?(?P<title>[^<;]*?)\s*<(?P<where>[^>]+)>")
_URL = re.compile(r"https?://[^\s<>\"')]+")


def finding_key(finding: Finding) -> tuple[str, str, str]:
    """Stable identity of a finding across re-analyses (keeps the selection while the user edits)."""
    return (finding.rule, finding.subject.kind, finding.subject.id)


class Lookup:
    """Id -> object maps of one project, built once per refresh (1,000-entity projects, 5,000 findings)."""

    def __init__(self, project: Project, previous: Lookup | None = None) -> None:
        self.project = project
        # an edit keeps the tuples it did not touch: their maps are the previous version's (read-only, shared)
        old = previous.project if previous is not None else None
        self.names: dict[str, str]
        self.rels: dict[str, Relationship]
        self.queries: dict[str, Query]
        if previous is not None and old is not None and old.entities is project.entities:
            self.names = previous.names
        else:
            self.names = {e.id: e.name for e in project.entities}
        if previous is not None and old is not None and old.relationships is project.relationships:
            self.rels = previous.rels
            if "ends" in vars(previous):  # made for a selection's findings: the same relationships, the same ends
                self.ends = previous.ends
        else:
            self.rels = {r.id: r for r in project.relationships}
        if previous is not None and old is not None and old.queries is project.queries:
            self.queries, self.query_numbers = previous.queries, previous.query_numbers
            if "queries_of" in vars(previous):
                self.queries_of = previous.queries_of
        else:
            self.queries = {q.id: q for q in project.queries}
            self.query_numbers = query_numbers(project)

    def name(self, entity_id: str) -> str:
        return self.names.get(entity_id, entity_id)

    @cached_property
    def ends(self) -> dict[str, list[str]]:
        """Entity id -> the relationships ending at it (made when a selection first asks for its findings)."""
        ends: dict[str, list[str]] = {}
        for rel in self.rels.values():
            ends.setdefault(rel.one, []).append(rel.id)
            if rel.many != rel.one:
                ends.setdefault(rel.many, []).append(rel.id)
        return ends

    @cached_property
    def queries_of(self) -> dict[str, list[str]]:
        """Entity id -> the queries on it (made when a selection first asks for its findings)."""
        found: dict[str, list[str]] = {}
        for query in self.queries.values():
            found.setdefault(query.entity, []).append(query.id)
        return found


def lookup(project: Project | Lookup) -> Lookup:
    """The maps of ``project``: built once per project version and shared by everyone who asks (the panel,
    the canvas markers), instead of three 10,000-entry dictionaries per asker and analysis."""
    if isinstance(project, Lookup):
        return project
    with _lock:
        for known in _recent:
            if known.project is project:
                return known
        previous = _recent[0] if _recent else None
    made = Lookup(project, previous)
    with _lock:
        _recent.insert(0, made)
        del _recent[_KEEP:]
    return made


#: the maps of the last few projects (the document's current one, the one an analysis ran on)
_recent: list[Lookup] = []
_KEEP = 3
#: the analysis worker asks too (panels/analysis_facts.prepare)
_lock = threading.Lock()


def subject_label(project: Project | Lookup, subject: SubjectRef) -> str:
    """The subject as the user knows it: "Person", "Person → Task", "Task.due_date", "index tasks#due"."""
    ids = lookup(project)
    kind, ident = subject.kind, subject.id
    if kind == "entity":
        return ids.name(ident)
    if kind == "relationship":
        rel = ids.rels.get(ident)
        if rel is None:
            return ident
        return f"{ids.name(rel.one)} → {ids.name(rel.many)}"
    if kind == "field":
        entity_id, _, path = ident.partition(".")
        return f"{ids.name(entity_id)}.{path}" if path else ident
    if kind == "query":
        query = ids.queries.get(ident)
        label = (
            (query.name or query_words(query, ids.name(query.entity), ids.query_numbers.get(ident)))
            if query is not None
            else ident
        )
        return f"query {label if len(label) <= 40 else label[:39].rstrip() + '…'}"
    if kind == "index":
        return f"index {ident}"
    return f"collection {ident}"


def named_in(project: Project | Lookup, subject: SubjectRef) -> str | None:
    """The words a message uses for a query or relationship subject (``'post page'``, ``Author → Post``)."""
    ids = lookup(project)
    if subject.kind == "query":
        query = ids.queries.get(subject.id)
        return (
            query_words(query, ids.name(query.entity), ids.query_numbers.get(subject.id)) if query is not None else None
        )
    if subject.kind == "relationship":
        rel = ids.rels.get(subject.id)
        return relationship_words(ids.name(rel.one), ids.name(rel.many)) if rel is not None else None
    return None


def _collection_of(design: Design | None, name: str) -> list[str]:
    if design is None:
        return []
    coll = design_index(design).collection(name)
    return list(coll.entities) if coll is not None else []


def related_entities(finding: Finding, project: Project | Lookup, design: Design | None) -> list[str]:
    """Entity ids a finding is about (a relationship counts for both its ends)."""
    kind, ident = finding.subject.kind, finding.subject.id
    if kind == "entity":
        return [ident]
    if kind == "field":
        return [ident.partition(".")[0]]
    ids = lookup(project)
    if kind == "relationship":
        rel = ids.rels.get(ident)
        return [rel.one, rel.many] if rel is not None else []
    if kind == "query":
        query = ids.queries.get(ident)
        return [query.entity] if query is not None else []
    if kind == "index":
        return _collection_of(design, ident.partition("#")[0])
    return _collection_of(design, ident)


class Selection:
    """A canvas selection (``(kind, id)`` pairs of entities and relationships) asked, finding by finding,
    whether a finding belongs to it; the sets are built once per selection, not once per finding."""

    def __init__(self, chosen: Iterable[tuple[str, str]] = ()) -> None:
        self.chosen = set(chosen)
        self.entities = {ident for kind, ident in self.chosen if kind == "entity"}

    def __bool__(self) -> bool:
        return bool(self.chosen)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Selection) and other.chosen == self.chosen

    __hash__ = None  # type: ignore[assignment]

    def concerns(self, finding: Finding, project: Project | Lookup, design: Design | None) -> bool:
        """Is ``finding`` about a chosen object (a relationship or an entity, or anything of a chosen entity)?"""
        if (finding.subject.kind, finding.subject.id) in self.chosen:
            return True
        if not self.entities:
            return False
        return any(entity_id in self.entities for entity_id in related_entities(finding, project, design))


def canvas_target(finding: Finding, project: Project, design: Design | None) -> tuple[str, str] | None:
    """The canvas object to select and center for a finding: ``("relationship", id)`` or ``("entity", id)``."""
    if finding.subject.kind == "relationship":
        if any(r.id == finding.subject.id for r in project.relationships):
            return ("relationship", finding.subject.id)
        return None
    ids = related_entities(finding, project, design)
    known = {e.id for e in project.entities}
    for entity_id in ids:
        if entity_id in known:  # an embedded entity still has its own card
            return ("entity", entity_id)
    return None


def humanize_key(key: str) -> str:
    """``days_to_16mib`` -> ``days to 16 MiB`` (keys are the engine's, shown to people)."""
    text = (key[:-2] if _in_seconds(key) else key).replace("_", " ")  # "interval_s" shows "10 seconds"
    text = re.sub(r"(\d+)\s*mib\b", r"\1 MiB", text, flags=re.IGNORECASE)
    text = re.sub(r"(\d+)\s*kib\b", r"\1 KiB", text, flags=re.IGNORECASE)
    text = re.sub(r"\bper s\b|\bper sec\b", "per second", text)
    return text


def format_number(value: Any) -> str:
    """Thousands separators, at most three significant decimals; other values as text."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:,.3g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_number(v) for v in value)
    return str(value)


def figure_text(key: str, value: Any) -> str:
    """One figure of a finding's numbers as a person reads it: a ``*_share`` as a percentage, a ``*_s`` as a
    period ("90 days"), a list of records (the shard-key candidates) one short line each; others as numbers."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if key.endswith("_share"):
            return _percent(value)
        if _in_seconds(key):
            return duration(value)
    if isinstance(value, dict):
        return _record_text(value)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value):
        return "\n".join(_record_text(v) for v in value)
    return format_number(value)


def _in_seconds(key: str) -> bool:
    """``interval_s``, ``expire_after_s``: a period in seconds (``per_s`` is a rate)."""
    return key.endswith("_s") and not key.endswith("per_s")


def _percent(share: float) -> str:
    return f"{share * 100:,.3g}%"


def _record_text(record: dict[str, Any]) -> str:
    """A shard-key candidate as ``{tenant: 1, created_at: 1} — score 0.82, targets 75% of queries``; any other
    record as its figures side by side."""
    if "key" in record and isinstance(record.get("scores"), dict):
        names = list(record.get("fields") or [])
        parts = []
        for i, (path, direction) in enumerate(record["key"]):
            name = names[i] if i < len(names) else path
            parts.append(f"{name}: " + ('"hashed"' if direction == "hashed" else str(direction)))
        text = "{" + ", ".join(parts) + "} — score " + f"{record['scores'].get('total', 0):.2f}"
        if isinstance(record.get("targeted_share"), (int, float)):
            text += f", targets {_percent(record['targeted_share'])} of queries"
        if record.get("user"):
            text += ", your key"
        if record.get("refused"):
            text += ", refused by the server"
        return text
    return ", ".join(f"{humanize_key(str(k))} {figure_text(str(k), v)}" for k, v in record.items())


def reference_html(reference: str) -> str:
    """The reference text with each ``[Key] Title <url>`` citation as a link (escaped)."""
    parts: list[str] = []
    pos = 0
    for match in _CITATION.finditer(reference):
        parts.append(html.escape(reference[pos : match.start()]))
        where = match.group("where")
        title = html.escape(match.group("title") or match.group("key") or where)
        if where.startswith(("http://", "https://")):
            parts.append(f'<a href="{html.escape(where, quote=True)}">{title}</a>')
        else:
            parts.append(f"{title} ({html.escape(where)})")
        pos = match.end()
    rest = reference[pos:]
    last = 0
    for match in _URL.finditer(rest):
        parts.append(html.escape(rest[last : match.start()]))
        url = match.group(0)
        parts.append(f'<a href="{html.escape(url, quote=True)}">{html.escape(url)}</a>')
        last = match.end()
    parts.append(html.escape(rest[last:]))
    return "".join(parts).replace("; ", "<br>")


_CODE = re.compile(r"`([^`]+)`")


def _text_html(text: str) -> str:
    """Escape a finding's plain text and show its `code` spans in a fixed-width font."""
    return _CODE.sub(r"<code>\1</code>", html.escape(text))


def _named(key: str, value: Any, words: Labels) -> Any:
    """A number that lists ids (``queries``, ``entities``, at any depth) as the user's words; others as they are."""
    if isinstance(value, dict):
        return {k: _named(str(k), v, words) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not all(isinstance(v, str) for v in value):
        return [_named(key, v, words) for v in value]
    if not isinstance(value, (list, tuple)):
        return value
    if key.endswith("queries"):
        return [words.query(v) for v in value]
    if key.endswith("entities"):
        return [words.entity(v) for v in value]
    return value


#: the words that carry meaning (four letters or more: "the", "of", "in" say nothing about repetition)
_WORD = re.compile(r"[\w']{4,}")
#: share of a why clause's words the message already holds from which the clause is a repeat
REPEATED_SHARE = 0.7


_PARENTHESES = re.compile(r"\([^()]*\)")


def _words(text: str) -> set[str]:
    """The meaningful words of ``text`` outside parentheses (a citation or an aside says nothing new)."""
    while True:
        bare = _PARENTHESES.sub(" ", text)
        if bare == text:
            return {w.lower() for w in _WORD.findall(bare)}
        text = bare


def _clauses(text: str) -> list[str]:
    """``text`` cut after each "; ", ": " or ". " outside parentheses (each piece keeps its separator)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and ch in ";.:" and text[i + 1 : i + 2] == " " and text[i - 1 : i] != ".":  # not "..."
            out.append(text[start : i + 2])
            start = i + 2
    return [*out, text[start:]] if text[start:] else out


def why_beyond(message: str, why: str) -> str:
    """The why without the clauses the message above it already says (tryout a14: the details printed the message,
    then a "Why." that mostly repeated it); empty when nothing new is left."""
    said = _words(message)
    kept = []
    for clause in _clauses(why):
        mine = _words(clause)
        if not mine or len(mine & said) / len(mine) < REPEATED_SHARE:
            kept.append(clause)
    text = "".join(kept).strip()
    if text.endswith((";", ":")):  # the clause after it was a repeat: end the sentence here
        text = text[:-1] + "."
    return text if text.rstrip(".").strip() else ""


def detail_html(finding: Finding, project: Project) -> str:
    """Everything the panel shows for an expanded finding."""
    esc = html.escape
    rows = [
        f"<p><b>{_text_html(finding.message)}</b></p>",
        f"<p style='color:gray'>{esc(finding.severity.capitalize())} · {esc(subject_label(project, finding.subject))}"
        f" · rule <a href='{RULE_SCHEME}:{esc(finding.rule, quote=True)}'>{esc(finding.rule)}</a></p>",
    ]
    if finding.overridden:
        note = esc(finding.note or "(no note)")
        rows.append(f"<p style='background:#fff4d6;color:#5a4500;padding:4px'><b>Overridden:</b> {note}</p>")
    why = why_beyond(finding.message, finding.why)
    if why:
        rows.append(f"<p><b>Why.</b> {_text_html(why)}</p>")
    if finding.tradeoff:
        rows.append(f"<p><b>Trade-off.</b> {_text_html(finding.tradeoff)}</p>")
    if finding.numbers:
        words = project_labels(project)
        cells = ""
        unit = ""
        for k, v in finding.numbers.items():
            unit = unit if k == "limit" else str(k)  # a limit is in the unit of the figure before it
            text = figure_text(unit, _named(str(k), v, words))
            align = "left" if "\n" in text else "right"
            cells += (
                f"<tr><td style='padding-right:12px' valign='top'>{esc(humanize_key(str(k)))}</td>"
                f"<td align='{align}'><b>{esc(text).replace(chr(10), '<br>')}</b></td></tr>"
            )
        rows.append(f"<p><b>The numbers.</b></p><table cellspacing='0'>{cells}</table>")
    if finding.fix is not None:
        rows.append(f"<p><b>Fix.</b> {_text_html(finding.fix.description)}</p>")
    if finding.reference:
        rows.append(f"<p><b>Reference.</b> {reference_html(finding.reference)}</p>")
    rows.append(f"<p><a href='{RULE_SCHEME}:{esc(finding.rule, quote=True)}'>Read the rule's documentation…</a></p>")
    return "\n".join(rows)


def project_labels(project: Project) -> Labels:
    """The words of ``project``, built once per project version (a 10,000-entity project's maps took 20-60 ms,
    and the details are shown again after every analysis; the analysis worker builds them first)."""
    if not _last_labels or _last_labels[0].project is not project:
        _last_labels[:] = [Labels(project)]
    return _last_labels[0]


#: the words of the project the details showed last
_last_labels: list[Labels] = []
