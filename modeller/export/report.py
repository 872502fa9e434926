"""``DESIGN.md``: the design as a team reviews it in a pull request.

Sections: summary, collections (shape, indexes), relationships (strategy, reason,
trade-off, how to write it), the sync plan of every denormalized field, and the
findings grouped by severity with their references. User text is escaped:
names sit in code spans whose fences outgrow any backticks inside them, table
cells escape ``|``, free text escapes HTML and Markdown (links, images, bare
URLs render as text), and nothing keeps a newline, control or bidi character.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from modeller.export.common import (
    GENERATOR,
    database_name,
    design_digest,
    entity_names,
    human_bytes,
    human_count,
    index_key,
    index_options,
    timeseries_options,
)
from modeller.export.literals import js_value, one_line
from modeller.export.query_plans import query_mongosh
from modeller.export.snippets import (
    archive_snippet,
    bucket_snippet,
    counter_snippet,
    relationship_snippet,
    sync_snippet,
)
from modeller.model.labels import Labels
from modeller.model.project import Project
from modeller.model.wording import counted, duration
from modeller.rules.framework.findings import SEVERITIES, Finding
from modeller.rules.framework.sections import plain_summary
from modeller.rules.physical.design import CollectionDesign, DenormalizedCopy, Design, ShapeNode
from modeller.rules.physical.documents import many_to_many_holds
from modeller.rules.physical.planner import Step
from modeller.rules.physical.shardkey import ShardAdvice

_SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BACKTICKS = re.compile(r"`+")
# a URL, bare or not, of any scheme a renderer might follow, and e-mail addresses (GitHub auto-links all of them)
_LINK = r"(?i)(?:\b[a-z][a-z0-9+.-]*://|\bwww\.|\b(?:javascript|vbscript|data|file|mailto|xmpp|tel):)\S*"
_URL = re.compile(_LINK + r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
#: the same matches in a text without ``@``, in half the time (the e-mail branch is tried at every character)
_URL_NO_EMAIL = re.compile(_LINK)
_WEB_URL = re.compile(r"https?://[A-Za-z0-9\-._~:/?#@!$&'*+,;=%]+(?<![.,;:!?'])")
_MARKUP = re.compile(r"[\\`*_\[\]~&<>]")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# what turns a line into a heading, list, quote, thematic break or table when it starts one
_BLOCK_START = re.compile(r"^(?:([#+=|-])|\d{1,9}([.)]))")
_TITLES = {"error": "Errors", "warning": "Warnings", "suggestion": "Suggestions", "info": "Information"}


def code(value: object) -> str:
    """An inline code span that shows ``value`` literally, whatever backticks it contains."""
    flat = one_line(str(value))
    longest = max((len(m) for m in _BACKTICKS.findall(flat)), default=0) if "`" in flat else 0
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def prose(value: object) -> str:
    """Free text from the engine or the user, on one line, that Markdown shows as the text it is.

    A description must not embed a remote image, link to ``javascript:``, inject
    HTML or start a heading: HTML is escaped as entities, Markdown punctuation
    with backslashes, and URLs (also bare ones, which GitHub would auto-link)
    are shown in code spans.
    """
    return _block_safe(_inline(one_line(str(value)).lstrip(" ")))


def reference(value: object) -> str:
    """A rule's reference (engine text): like :func:`prose`, but its web URLs stay links: a citation's
    ``<https://…>`` an autolink (escaped, it read ``&lt;https://…&gt;`` in the raw Markdown), a bare one bare."""
    flat = one_line(str(value)).lstrip(" ")
    out: list[str] = []
    pos = 0
    for match in _WEB_URL.finditer(flat):
        before, url = flat[pos : match.start()], match.group()
        bracketed = before.endswith("<") and flat.startswith(">", match.end())
        out.append(_inline(before[:-1] if bracketed else before))
        out.append(f"<{url}>" if bracketed else url)
        pos = match.end() + (1 if bracketed else 0)
    out.append(_inline(flat[pos:]))
    return _block_safe("".join(out))


def _inline(text: str) -> str:
    """URLs in code spans, everything else with its markup escaped."""
    if "@" in text:
        pattern = _URL
    elif ":" in text or "www." in text.lower():
        pattern = _URL_NO_EMAIL
    else:
        return _inert(text)  # no URL can match: the report calls this 100,000 times at 2,000 entities
    out: list[str] = []
    pos = 0
    for match in pattern.finditer(text):
        out.append(_inert(text[pos : match.start()]))
        out.append(code(match.group()))
        pos = match.end()
    out.append(_inert(text[pos:]))
    return "".join(out)


def _block_safe(text: str) -> str:
    """Escape the mark that would make a line a heading, list item, thematic break or table."""
    match = _BLOCK_START.match(text)
    if match is None:
        return text
    group = 1 if match[1] else 2
    return text[: match.start(group)] + "\\" + match[group] + text[match.end(group) :]


def _inert(text: str) -> str:
    """Markdown and HTML punctuation escaped; ``_`` only where it could open or close emphasis."""
    return _MARKUP.sub(_escape_markup, text)


def _escape_markup(match: re.Match[str]) -> str:
    char = match.group()
    if char in _ENTITIES:
        return _ENTITIES[char]
    if char == "_":
        text, at = match.string, match.start()
        inside_word = 0 < at < len(text) - 1 and text[at - 1].isalnum() and text[at + 1].isalnum()
        if inside_word:  # snake_case names stay readable: intraword _ never emphasizes
            return char
    return "\\" + char


def cell(value: str) -> str:
    """A table cell: ``|`` would end the cell."""
    return value.replace("|", "\\|")


def fenced(body: str, lang: str = "") -> list[str]:
    """A fenced block whose fence is longer than any backtick run inside ``body``."""
    longest = max((len(m) for m in _BACKTICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{lang}", body, fence]


#: prefix of the relationship entries in the id -> words map the shape notes read (ids of two lists may coincide)
REL_KEY = "relationship:"


def _shape_lines(nodes: Sequence[ShapeNode], names: dict[str, str], depth: int = 1) -> list[str]:
    """The document shape as indented pseudo-JSON with a note per field."""
    out: list[str] = []
    pad = "  " * depth
    for node in nodes:
        key = node.name if _SIMPLE.match(node.name) else js_value(node.name)
        notes = _notes(node, names)
        suffix = f"  // {one_line(notes)}" if notes else ""
        if node.bson_type == "object" and node.children and node.field_type != "point":
            out.append(f"{pad}{key}: {{{suffix}")
            out.extend(_shape_lines(node.children, names, depth + 1))
            out.append(f"{pad}}}")
        elif (
            node.bson_type == "array"
            and node.items is not None
            and node.items.bson_type == "object"
            and node.items.children
        ):
            out.append(f"{pad}{key}: [{{{suffix}")
            out.extend(_shape_lines(node.items.children, names, depth + 1))
            out.append(f"{pad}}}]")
        elif node.bson_type == "array":
            inner = node.items.field_type or node.items.bson_type if node.items is not None else "any"
            out.append(f"{pad}{key}: [{inner}]{suffix}")
        else:
            out.append(f"{pad}{key}: {node.field_type or node.bson_type}{suffix}")
    return out


def _notes(node: ShapeNode, names: dict[str, str]) -> str:
    notes: list[str] = []
    if node.required:
        notes.append("required")
    if node.unique:
        notes.append("unique")
    if node.role not in ("field", "id"):
        notes.append(node.role)
    if node.ref_collection:
        notes.append(f"-> {node.ref_collection}")
    elif node.entity and node.role in ("embedded", "extended-ref", "subset"):
        notes.append(names.get(node.entity, node.entity))
    if node.max_items is not None:
        notes.append(f"at most {node.max_items}")
    if node.sort is not None:
        notes.append(f"sorted by {node.sort[0]} {'desc' if node.sort[1] < 0 else 'asc'}")
    if node.source is not None and node.role != "id":
        notes.append(f"copy of {names.get(node.source.entity, node.source.entity)}.{node.source.path}")
    if node.computation is not None:
        comp = node.computation
        over = names.get(REL_KEY + comp.relationship, comp.relationship)
        notes.append(f"{comp.op}({comp.field or ''}) over {over}")
    if node.variant:
        notes.append(f"only in {node.variant}")
    if node.enum:
        notes.append("one of " + ", ".join(str(v) for v in node.enum))
    return "; ".join(notes)


def _count_words(count: int | None) -> str:
    """The collection's size as the model says it: a number, or that none was given (never "About ?")."""
    return "Document count not set" if count is None else f"About {human_count(count)} documents"


def _collection_section(
    coll: CollectionDesign, names: dict[str, str], advice: ShardAdvice | None = None, shards_given: bool = True
) -> list[str]:
    """One collection's facts; ``shards_given``: the project sets its shard count (else the advice assumed one)."""
    out = [f"### {code(coll.name)}", ""]
    stored = ", ".join(code(names.get(e, e)) for e in coll.entities)
    out.append(
        f"Stores {stored}. {_count_words(coll.count)}, average {human_bytes(coll.avg_bytes)}, "
        f"largest {human_bytes(coll.max_bytes)}."
    )
    if coll.why:
        out.append("")
        out.append(prose(coll.why))
    ts = timeseries_options(coll)
    facts: list[str] = []
    if ts is not None:
        ttl = f", documents expire after {duration(ts[1])}" if ts[1] is not None else ""
        facts.append(f"- Time-series collection: {code(js_value(ts[0]))}{ttl}.")
    if coll.bucket is not None:
        b = coll.bucket
        facts.append(
            f"- Bucket pattern: up to {counted(b.size, 'reading')} per document in {code(b.items_field)}, one series per "
            f"{code(b.series_field)}, from {code(b.start_field)} to {code(b.end_field)}."
        )
    if coll.variants:
        facts.append(
            f"- Polymorphic: discriminator {code(coll.discriminator or 'type')}, variants "
            + ", ".join(code(v) for v in coll.variants)
            + "."
        )
    if advice is None and coll.shard_key:
        facts.append("- Shard key: " + ", ".join(code(k) for k in coll.shard_key) + ".")
    if advice is not None:
        facts.append(
            "- Shard key: "
            + (code(js_value(dict(advice.chosen.keys))) if advice.chosen is not None else "none allowed")
            + f" ({prose(advice.why)}; {counted(advice.shards, 'shard')}"
            + ("" if shards_given else " assumed: the project gives no shard count")
            + ")."
        )
    if facts:
        out.append("")
        out.extend(facts)
    out.append("")
    out.extend(fenced("\n".join(["{", *_shape_lines(coll.shape, names), "}"]), "js"))
    out.append("")
    if coll.indexes:
        out.append("| index | keys | options | why |")
        out.append("|---|---|---|---|")
        for index in coll.indexes:
            options = {k: v for k, v in index_options(index).items() if k != "name"}
            why = "; ".join([index.why, *index.key_reasons]) if index.why or index.key_reasons else ""
            out.append(
                "| "
                + " | ".join(
                    cell(part)
                    for part in (
                        code(index.name),
                        code(js_value(index_key(index))),
                        code(js_value(options)) if options else "",
                        prose(why),
                    )
                )
                + " |"
            )
        out.append("")
    else:
        out.append("No secondary indexes (only `_id`).")
        out.append("")
    if advice is not None:
        out.extend(_shard_table(advice))
    snippet = bucket_snippet(coll)
    if snippet:
        out.append("Writing a reading:")
        out.append("")
        out.extend(fenced(snippet, "js"))
        out.append("")
    counters = counter_snippet(coll)
    if counters:
        out.append("Counting events (approximation pattern):")
        out.append("")
        out.extend(fenced(counters, "js"))
        out.append("")
    return out


def _shard_table(advice: ShardAdvice) -> list[str]:
    """The advisor's candidates with their scores (each 0..1), the chosen one first in words."""
    out = [
        "| shard key candidate | chosen | targeted traffic | values | top value | monotonic | score | refused |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in advice.candidates:
        card = c.key_cardinality
        top = c.key_top_share
        cells = (
            code(js_value(dict(c.keys))),
            "yes" if c is advice.chosen else "",
            f"{c.targeted:.0%}",
            "?" if card is None else human_count(card),
            "?" if top is None else f"{top:.1%}",
            "yes" if c.monotonic else "",
            f"{c.score:.2f}",
            prose("; ".join(c.refused)),
        )
        out.append("| " + " | ".join(cell(part) for part in cells) + " |")
    out.append("")
    return out


def _relationship_section(
    design: Design, project: Project, names: dict[str, str], findings: Iterable[Finding] = ()
) -> list[str]:
    rels = {rel.id: rel for rel in project.relationships}
    # the rules behind each storage decision as check files them (a one-to-N kept one-way is not rule 6's)
    filed = {
        f.decision.id: [f.rule, *f.also]
        for f in findings
        if f.decision is not None and f.decision.kind == "relationship"
    }
    out: list[str] = []
    for rd in design.relationships:
        rel = rels.get(rd.id)
        heading = "### relationship"
        if rel is not None:
            role = f"{prose(rel.name)}: " if rel.name else ""
            heading = (
                f"### {role}{code(names.get(rel.one, rel.one))} → {code(names.get(rel.many, rel.many))} "
                f"({rel.cardinality})"
            )
        out.extend([heading, ""])
        chooser = "your choice" if rd.chosen_by == "user" else "chosen by the engine"
        rules = ", ".join(code(r) for r in filed.get(rd.id, rd.rules))
        holds = (
            many_to_many_holds(rd.strategy, rel.cardinality, names.get(rel.one, rel.one), names.get(rel.many, rel.many))
            if rel is not None
            else ""
        )
        holds = f": {prose(holds)}" if holds else ""
        out.append(f"- **Strategy:** {code(rd.strategy)}{holds} ({chooser}{'; rules ' + rules if rules else ''}).")
        if rd.why:
            out.append(f"- **Why:** {prose(rd.why)}")
        if rd.tradeoff:
            out.append(f"- **Trade-off:** {prose(rd.tradeoff)}")
        for warning in rd.warnings:
            out.append(f"- **Warning:** {prose(warning)}")
        for copy in rd.denormalized:
            out.append(
                f"- **Copies** {code(names.get(copy.source_entity, copy.source_entity) + '.' + copy.field)} into "
                f"{code(copy.collection + '.' + copy.path)} ({copy.direction}, staleness {copy.staleness_text()}, "
                f"sync: {copy.sync})."
            )
        snippet = relationship_snippet(design, rd)
        if snippet:
            out.append("")
            out.extend(fenced(snippet, "js"))
        out.append("")
    return out


def _sync_section(design: Design, project: Project, names: dict[str, str], labels: Labels) -> list[str]:
    copies = [(rd, copy) for rd in design.relationships for copy in rd.denormalized]
    if not copies:
        return ["No denormalized fields: every value lives in exactly one document.", ""]
    out = [
        "| copy | source | direction | staleness | sync | extra writes/s |",
        "|---|---|---|---|---|---|",
    ]
    subsets: dict[tuple[str, str], list[DenormalizedCopy]] = {}
    for _rd, copy in copies:
        up = copy.update
        if up is not None and up.kind == "push-latest":
            subsets.setdefault((up.collection, up.set_path), []).append(copy)
    listed: set[tuple[str, str]] = set()
    for rd, copy in copies:
        up = copy.update
        where, writes = code(copy.collection + "." + copy.path), _copy_writes(copy, names)
        if up is not None and up.kind == "push-latest":
            # one push writes every copied field of a subset element: one row per subset
            key = (up.collection, up.set_path)
            if key in listed:
                continue
            listed.add(key)
            where = f"{code(up.collection + '.' + up.set_path)} ({', '.join(code(f) for f in up.pushed)})"
            writes = _subset_writes(project, rd.id, subsets[key], names, labels)
        out.append(
            "| "
            + " | ".join(
                cell(part)
                for part in (
                    where,
                    code(names.get(copy.source_entity, copy.source_entity) + "." + copy.field)
                    if up is None or up.kind != "push-latest"
                    else code(names.get(copy.source_entity, copy.source_entity)),
                    copy.direction,
                    copy.staleness_text(),
                    copy.sync,
                    writes,
                )
            )
            + " |"
        )
    out.append("")
    pushed: set[tuple[str, str]] = set()
    for rd, copy in copies:
        up = copy.update
        where, fields = copy.collection + "." + copy.path, ""
        if up is not None and up.kind == "push-latest":
            # one update pushes every copied field of a subset element: one paragraph and snippet per subset
            if (up.collection, up.set_path) in pushed:
                continue
            pushed.add((up.collection, up.set_path))
            where = f"{up.collection}.{up.set_path}"
            fields = ", ".join(code(f) for f in up.pushed) + "; "
        head = f"**{code(where)}** ({fields}relationship {prose(labels.relationship(rd.id))})"
        out.append(f"{head}: {prose(copy.sync_advice) if copy.sync_advice else 'no advice recorded.'}")
        out.append("")
        out.extend(fenced(sync_snippet(design, copy), "js"))
        out.append("")
    return out


def _copy_writes(copy: DenormalizedCopy, names: dict[str, str]) -> str:
    """A copy's extra writes per second (its source's updates times its copies), or why it is not known."""
    if copy.fanout is not None:
        return f"{copy.fanout:g}"
    source = f"{names.get(copy.source_entity, copy.source_entity)}.{copy.field}"
    return prose(f"? (no update rate on {source}: set one to see the cost)")


def _subset_writes(
    project: Project, rel_id: str, copies: list[DenormalizedCopy], names: dict[str, str], labels: Labels
) -> str:
    """A subset's extra writes per second: one push per new N, one update per update of a copied field."""
    rel = labels.rels.get(rel_id)
    source = labels.entities.get(copies[0].source_entity)
    inserts = rel.writes_per_sec if rel is not None and rel.writes_per_sec is not None else None
    if inserts is None and source is not None:
        inserts = source.writes_per_sec
    if inserts is None:
        name = names.get(copies[0].source_entity, copies[0].source_entity)
        return prose(f"? (no write rate on {name} or on {labels.relationship(rel_id)}: set one to see the cost)")
    fields = {f.name: f for f in source.fields} if source is not None else {}
    copied = {c.field for c in copies}
    updates = sum(f.updates_per_sec or 0.0 for name, f in fields.items() if name in copied and not f.immutable)
    what = f"a push per new {prose(names.get(copies[0].source_entity, copies[0].source_entity))}"
    return f"{inserts + updates:g} ({what}" + (", an update per edit of a copied field)" if updates else ")")


def _findings_section(findings: Iterable[Finding], labels: Labels) -> list[str]:
    grouped: dict[str, list[Finding]] = {severity: [] for severity in SEVERITIES}
    for finding in findings:
        grouped.setdefault(finding.severity, []).append(finding)
    out: list[str] = []
    if not any(grouped.values()):
        return ["No findings.", ""]
    for severity in reversed(SEVERITIES):
        items = grouped.get(severity) or []
        if not items:
            continue
        out.extend([f"### {_TITLES.get(severity, severity)} ({len(items)})", ""])
        for f in items:
            marker = " *(overridden" + (f": {prose(f.note)}" if f.note else "") + ")*" if f.overridden else ""
            subject = labels.subject(f.subject.kind, f.subject.id)
            if f.subject.kind in ("entity", "relationship", "field"):
                subject = f"{f.subject.kind} {subject}"
            out.append(f"- **{code(f.rule)}** on {prose(subject)}: {prose(f.message)}{marker}")
            if f.why:
                out.append(f"  - Why: {prose(f.why)}")
            if f.tradeoff:
                out.append(f"  - Trade-off: {prose(f.tradeoff)}")
            if f.fix is not None:
                out.append(f"  - Fix: {prose(f.fix.description)}")
            if f.reference:
                out.append(f"  - Reference: {reference(f.reference)}")
        out.append("")
    return out


def key_roles(step: Step) -> list[tuple[str, str]]:
    """Each key of the step's index with its ESR role, so a reader sees which part of the index serves what."""
    if step.index is None:
        return []
    n_sort = len(step.sort) if step.index.sort else 0
    roles = ["Equality"] * step.index.eq + ["Sort"] * n_sort + ["Range"] * step.index.range
    return [(path, roles[i] if i < len(roles) else "unused") for i, (path, _dir) in enumerate(step.index.keys)]


def _access_section(design: Design, project: Project) -> list[str]:
    labels = Labels(project)
    if not design.queries:
        return ["No declared queries.", ""]
    out: list[str] = []
    for plan in design.queries:
        known = labels.queries.get(plan.id)
        title = known.name if known is not None and known.name else f"Query {labels.query(plan.id)}"
        out.extend([f"### {prose(title)}", ""])
        if plan.scope is not None:
            out.append(f"- Reads {prose(plan.scope.label)}.")
        for n, step in enumerate(plan.steps, start=1):
            index = (
                code(step.index.name) + " (" + ", ".join(f"{code(path)} {role}" for path, role in key_roles(step)) + ")"
                if step.index is not None
                else "none (collection scan)"
            )
            out.append(
                f"- Read {n}: collection {code(step.collection)}, index {index}, "
                f"{counted(step.docs_examined, 'document')} examined, {step.docs_returned:,} returned."
            )
        if plan.assumptions:
            out.append(f"- The estimates assume {prose(', '.join(plan.assumptions))}.")
        sort = f"yes, about {plan.sort_bytes} bytes" if plan.blocking_sort else "no"
        out.append(f"- Round trips: {plan.round_trips}; lookups: {len(plan.lookups)}; blocking sort: {sort}.")
        for step in plan.on_overflow:
            out.append(
                f"- Only for documents with has_overflow: true (outlier pattern), one more read of "
                f"{code(step.collection)} by {code(step.foreign_field or '')}."
            )
        out.append("")
        out.extend(fenced(query_mongosh(plan), "js"))
        out.append("")
    return out


def design_report(design: Design, project: Project, findings: Iterable[Finding] = ()) -> str:
    """``DESIGN.md`` text for ``design`` (with ``findings`` from the same analysis)."""
    labels = Labels(project)
    # entity id -> name, and REL_KEY + relationship id -> "One → Many" (a computed field names its relationship)
    names = {**entity_names(project), **{REL_KEY + r.id: labels.relationship(r.id) for r in project.relationships}}
    findings = list(findings)
    n_indexes = sum(len(c.indexes) for c in design.collections)
    out = [
        f"# Design report: {prose(project.name)}",
        "",
        f"Database {code(database_name(design, project))}. Generated by {GENERATOR} from design "
        f"sha256:{design_digest(design, project)}; export again after changing the project instead of editing this file.",
        "",
    ]
    if project.description:
        out.extend([prose(project.description), ""])
    out.extend(
        [
            "## Summary",
            "",
            f"- {counted(len(design.collections), 'collection')}, {counted(n_indexes, 'index', 'indexes')}, "
            f"{counted(len(design.relationships), 'relationship')}.",
            f"- Findings: {counted(len(findings), 'finding')}: {plain_summary(findings)}.",
            "",
            "## Collections",
            "",
        ]
    )
    for coll in design.stored():
        out.extend(_collection_section(coll, names, design.shard_advice.get(coll.name), project.shards is not None))
        mover = archive_snippet(coll, project, labels.entities)
        if mover:
            out.extend(["Moving old documents (archive pattern):", ""])
            out.extend(fenced(mover, "js"))
            out.append("")
    out.extend(["## Relationships", ""])
    out.extend(_relationship_section(design, project, names, findings) or ["No relationships.", ""])
    out.extend(["## Sync plan for denormalized fields", ""])
    out.extend(_sync_section(design, project, names, labels))
    out.extend(["## Access patterns", ""])
    out.extend(_access_section(design, project))
    out.extend(["## Findings", ""])
    out.extend(_findings_section(findings, labels))
    return "\n".join(out).rstrip("\n") + "\n"
