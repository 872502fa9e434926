"""``modeller export FILE --out DIR``: write the mongosh script, validators, samples, diagram and report.

Everything is generated from the engine's resolved design, into a staging
folder that replaces the files in ``DIR`` only when the export is complete.
Bad input (missing or invalid file, unknown ``--only`` kind, unwritable folder)
is one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from modeller.cli.output import EXIT_BAD_INPUT, EXIT_OK, fail, say

HELP = "export the design: mongosh script, validators, indexes, samples, diagram, DESIGN.md"

#: modeller.export.KINDS in words (that module is not imported for --help; a test keeps the two equal)
KINDS_TEXT = "setup, validators, schema, indexes, samples, diagram, report, pydantic, typescript"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the *.modeller.json project to export")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created if missing)")
    parser.add_argument(
        "--only", metavar="KIND,...", default=None, help=f"write only these kinds (comma-separated): {KINDS_TEXT}"
    )
    parser.add_argument("--samples", type=int, default=5, metavar="N", help="sample documents per collection (5)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of the samples (0)")
    parser.add_argument(
        "--with-samples", action="store_true", help="make setup.mongosh.js insert the sample documents (idempotently)"
    )
    parser.add_argument(
        "--with-sharding",
        action="store_true",
        help="shard the advised collections in setup.mongosh.js: enableSharding, the shard-key index, "
        "shardCollection, a commented analyzeShardKey block (only when the project is sharded)",
    )
    parser.add_argument("--no-render", action="store_true", help="write diagram.dot without running Graphviz")


def run(args: argparse.Namespace) -> int:
    from modeller.export import ExportError, export_project, parse_kinds
    from modeller.export.files import describe_os_error
    from modeller.persistence import ProjectFileError, load_project
    from modeller.rules import analyse

    try:
        kinds = parse_kinds(args.only)
    except ExportError as exc:
        return fail(str(exc))
    if args.samples < 0:
        return fail(f"--samples must be 0 or more, not {args.samples}")
    try:
        project = load_project(args.file)
    except ProjectFileError as exc:
        return fail(str(exc).splitlines()[0] if str(exc) else f"{args.file}: cannot be loaded")
    analysis = analyse(project)
    try:
        result = export_project(
            project,
            analysis,
            args.out,
            kinds=kinds,
            samples=args.samples,
            seed=args.seed,
            with_samples=args.with_samples,
            with_sharding=args.with_sharding,
            render_diagram=not args.no_render,
            protect=[Path(args.file)],
        )
    except ExportError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(describe_os_error(exc, Path(args.out)))
    for path in result.files:
        say(f"wrote {path}")
    for path in result.removed:
        say(f"removed {path} (written by an earlier export, not part of this one)")
    if args.with_sharding and not project.sharded and "setup" in kinds:
        say("note: --with-sharding ignored: the project is not marked 'sharded'")
    for notice in result.notices:
        say(f"note: {notice}")
    return EXIT_OK if result.files else EXIT_BAD_INPUT
