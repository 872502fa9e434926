"""``modeller design FILE``: the resolved physical design (collections, shapes, indexes, strategies)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from modeller.cli.output import EXIT_OK, fail, use_colour, write_json
from modeller.model.labels import Labels
from modeller.model.text import neutralize
from modeller.model.wording import counted

if TYPE_CHECKING:
    from modeller.rules.physical.design import Design, ShapeNode
    from modeller.rules.physical.planner import IndexUse, QueryPlan, WritePlan

HELP = "print the resolved physical design of a project"
BOLD, RESET = "\033[1m", "\033[0m"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a *.modeller.json project, or - for standard input")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")


def run(args: argparse.Namespace) -> int:
    from modeller.cli.sources import read_file_or_stdin
    from modeller.persistence import ProjectFileError
    from modeller.rules import analyse

    try:
        project = read_file_or_stdin(args.file)
    except ProjectFileError as err:
        return fail(str(err), multiline=True)  # one problem per line, each neutralized
    design = analyse(project).design
    if args.format == "json":
        write_json(design_json(design, Labels(project)))
    else:
        sys.stdout.write(render_text(design, use_colour(args.color), Labels(project)))
    return EXIT_OK


def design_json(design: Design, labels: Labels | None = None) -> dict[str, Any]:
    """DESIGN.md's shape: ``{"collections": [...], "relationships": [...], "queries": [...], "writes": [...]}``.

    Fields named ``id`` and ``entities`` hold ids (scripts join on them); with ``labels`` each relationship and
    query also carries its ``name``, each collection its ``entity_names`` and each write's ``source`` its
    ``relationship_name`` and ``entity_name``, the words a reader knows.
    """
    from modeller.export.query_plans import query_mongosh

    data = design.to_json()
    queries = [{**plan.to_json(), "mongosh": query_mongosh(plan)} for plan in design.queries]
    relationships = data["relationships"]
    collections = data["collections"]
    writes = data["writes"]
    if labels is not None:
        for query in queries:
            known = labels.queries.get(query["id"])
            query["name"] = known.name if known is not None and known.name else labels.query(query["id"])
        relationships = [
            {
                **rel,
                "name": labels.relationship(rel["id"]),
                "denormalized": [
                    {**copy, "source_name": labels.entity(copy["source_entity"])} for copy in rel["denormalized"]
                ],
            }
            for rel in relationships
        ]
        collections = [{**c, "entity_names": [labels.entity(e) for e in c["entities"]]} for c in collections]
        writes = [
            {
                **write,
                "source": {
                    **write["source"],
                    "relationship_name": labels.relationship(write["source"]["relationship"]),
                    "entity_name": labels.entity(write["source"]["entity"]),
                },
            }
            for write in writes
        ]
    out = {
        "collections": collections,
        "relationships": relationships,
        "queries": queries,
        "writes": writes,
    }
    if "companions" in data:  # revisions and archive collections beside an entity's own
        out["companions"] = data["companions"]
    return out


def render_text(design: Design, colour: bool, labels: Labels | None = None) -> str:
    """The design as text; ``labels`` names entities, relationships and queries in the user's words."""
    words = labels if labels is not None else _IdWords()

    def bold(text: str) -> str:
        return f"{BOLD}{text}{RESET}" if colour else text

    lines: list[str] = [f"database {neutralize(design.database)}", ""]
    for coll in design.stored():  # companions: revisions, archive, overflow
        beside = "" if coll.companion_of is None else f", beside {neutralize(coll.companion_of)}"
        lines.append(
            bold(f"collection {neutralize(coll.name)}")
            + f"  ({neutralize(', '.join(words.entity(e) for e in coll.entities))}{beside})"
        )
        if coll.why:
            lines.append(f"  {neutralize(coll.why)}")
        lines.append(f"  size: about {coll.avg_bytes:,} bytes per document, at most {coll.max_bytes:,}")
        if coll.timeseries:
            lines.append(f"  time series: {neutralize(json.dumps(coll.timeseries))}")
        lines.append("  shape:")
        for node in coll.shape:
            _shape(node, "    ", lines)
        if coll.indexes:
            lines.append("  indexes:")
            for idx in coll.indexes:
                keys = ", ".join(f"{neutralize(k)}: {v}" for k, v in idx.keys)
                opts = ["unique"] if idx.unique else []
                if idx.expire_after_s is not None:
                    opts.append(f"ttl {idx.expire_after_s}s")
                lines.append(f"    {{{keys}}}{' ' + ' '.join(opts) if opts else ''}  [{idx.origin}]")
                lines.append(f"      why: {neutralize(idx.why)}")
                for (k, _), reason in zip(idx.keys, idx.key_reasons, strict=False):
                    if reason:
                        lines.append(f"        {neutralize(k)}: {neutralize(reason)}")
        lines.append("")
    for rel in design.relationships:
        lines.append(
            bold(f"relationship {neutralize(words.relationship(rel.id))}")
            + f": {rel.shown} (chosen by {rel.chosen_by}"
            # a user's choice no rule makes has no rules: its why says what the engine would choose instead
            + (f"; rules {', '.join(rel.rules)})" if rel.rules else ")")
        )
        lines.append(f"  why: {neutralize(rel.why)}")
        if rel.tradeoff:
            lines.append(f"  trade-off: {neutralize(rel.tradeoff)}")
        for warning in rel.warnings:
            lines.append(f"  WARNING: {neutralize(warning)}")
        for copy in rel.denormalized:
            lines.append(
                f"  copy {neutralize(words.entity(copy.source_entity))}.{neutralize(copy.field)} -> "
                f"{neutralize(copy.collection)}.{neutralize(copy.path)} (staleness {copy.staleness_text()}, sync {copy.sync})"
            )
            lines.append(f"    {neutralize(copy.sync_advice)}")
        lines.append("")
    if design.queries:
        lines.append(bold("queries"))
        lines.extend(f"  {query_line(plan, words)}" for plan in design.queries)
        lines.append("")
    if design.writes:
        lines.append(bold("writes the design implies"))
        lines.extend(f"  {write_line(write, words)}" for write in design.writes)
        lines.append("")
    return "\n".join(lines)


def _index_text(index: IndexUse | None) -> str:
    return "a collection scan" if index is None else f"index {neutralize(index.name)}"


class _IdWords:
    """Names things by id: only for callers that have no project (the words come from :class:`Labels`)."""

    def entity(self, ident: str) -> str:
        return ident

    relationship = query = entity


def query_line(plan: QueryPlan, words: Labels | _IdWords | None = None) -> str:
    """One query's plan on one line: collection, index, sort, documents, joins."""
    words = words if words is not None else _IdWords()
    parts = [f"{plan.collection} by {_index_text(plan.index)}"]
    if plan.blocking_sort:
        over = " (over the server's blocking-sort memory limit)" if plan.sort_over_limit else ""
        parts.append(f"blocking sort of about {plan.sort_bytes:,} bytes{over}")
    parts.append(f"examines about {counted(plan.docs_examined, 'document')}, returns {plan.docs_returned:,}")
    if plan.assumptions:
        parts.append("assuming " + ", ".join(plan.assumptions))
    if plan.lookups:
        joins = ", ".join(
            f"{words.relationship(step.relationship) if step.relationship else 'a join'} from {step.collection} by {_index_text(step.index)}"
            for step in plan.lookups
        )
        parts.append(f"{plan.round_trips} round trips (joins {joins})")
    for step in plan.on_overflow:
        parts.append(
            f"only for documents with has_overflow: {step.collection} by {_index_text(step.index)} (outlier pattern)"
        )
    scope = f" ({plan.scope.label})" if plan.scope is not None else ""
    return neutralize(f"query {words.query(plan.id)}{scope}: " + "; ".join(parts))


def write_line(write: WritePlan, words: Labels | _IdWords | None = None) -> str:
    """One implied write on one line: what causes it, the collection and filter, the index, documents touched."""
    words = words if words is not None else _IdWords()
    entity = words.entity(write.entity)
    cause = f"{entity}.{write.field} changes" if write.field is not None else f"a new {entity}"
    rate = "" if write.per_sec is None else f", {write.per_sec:g}/s"
    return neutralize(
        f"{write.kind} ({words.relationship(write.relationship)}): {cause} -> update {write.collection} by {write.filter_path} using "
        f"{_index_text(write.index)}; {counted(write.docs_per_write, 'document')} per write, examines {write.docs_examined:,}"
        f"{rate}"
    )


def _shape(node: ShapeNode, indent: str, lines: list[str], variant: str | None = None) -> None:
    """One field and its children; a subtype's own field names its subtype (three ``specs`` read apart)."""
    extra: list[str] = []
    if node.role != "field":
        extra.append(node.role)
    if node.required:
        extra.append("required")
    if node.max_items is not None:
        extra.append(f"maxItems {node.max_items}")
    if node.ref_collection:
        extra.append(f"-> {neutralize(node.ref_collection)}")
    kind: str = node.bson_type
    if node.items is not None and node.items.bson_type != "object":
        kind = f"array<{node.items.bson_type}>"
    name = node.name if node.variant is None or node.variant == variant else f"{node.name} ({node.variant})"
    lines.append(f"{indent}{neutralize(name)}: {kind}" + (f"  ({', '.join(extra)})" if extra else ""))
    children = node.items.children if node.items is not None else node.children
    for child in children:
        _shape(child, indent + "  ", lines, node.variant or variant)
