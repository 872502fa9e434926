"""``modeller design FILE``: the resolved physical design (collections, shapes, indexes, strategies)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from modeller.cli.output import EXIT_OK, fail, use_colour, write_json
from modeller.model.text import neutralize

if TYPE_CHECKING:
    from modeller.rules.physical.design import Design, ShapeNode

HELP = "print the resolved physical design of a project"
BOLD, RESET = "\033[1m", "\033[0m"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a *.modeller.json project")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")


def run(args: argparse.Namespace) -> int:
    from modeller.persistence import ProjectFileError, load_project
    from modeller.rules import analyse

    try:
        project = load_project(args.file)
    except ProjectFileError as err:
        return fail(str(err), multiline=True)  # one problem per line, each neutralized
    design = analyse(project).design
    if args.format == "json":
        write_json(design_json(design))
    else:
        sys.stdout.write(render_text(design, use_colour()))
    return EXIT_OK


def design_json(design: Design) -> dict[str, Any]:
    """DESIGN.md's shape: ``{"collections": [...], "relationships": [...]}``."""
    data = design.to_json()
    return {"collections": data["collections"], "relationships": data["relationships"]}


def render_text(design: Design, colour: bool) -> str:
    def bold(text: str) -> str:
        return f"{BOLD}{text}{RESET}" if colour else text

    lines: list[str] = [f"database {neutralize(design.database)}", ""]
    for coll in design.collections:
        lines.append(bold(f"collection {neutralize(coll.name)}") + f"  ({neutralize(', '.join(coll.entities))})")
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
            bold(f"relationship {neutralize(rel.id)}") + f": {rel.strategy} (chosen by {rel.chosen_by}; "
            f"rules {', '.join(rel.rules) or '-'})"
        )
        lines.append(f"  why: {neutralize(rel.why)}")
        if rel.tradeoff:
            lines.append(f"  trade-off: {neutralize(rel.tradeoff)}")
        for warning in rel.warnings:
            lines.append(f"  WARNING: {neutralize(warning)}")
        for copy in rel.denormalized:
            lines.append(
                f"  copy {neutralize(copy.source_entity)}.{neutralize(copy.field)} -> "
                f"{neutralize(copy.collection)}.{neutralize(copy.path)} (staleness {copy.staleness}, sync {copy.sync})"
            )
            lines.append(f"    {neutralize(copy.sync_advice)}")
        lines.append("")
    return "\n".join(lines)


def _shape(node: ShapeNode, indent: str, lines: list[str]) -> None:
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
    lines.append(f"{indent}{neutralize(node.name)}: {kind}" + (f"  ({', '.join(extra)})" if extra else ""))
    children = node.items.children if node.items is not None else node.children
    for child in children:
        _shape(child, indent + "  ", lines)
