"""``modeller infer URI --db NAME`` / ``modeller infer FILE...``: a project from a live database or its exports.

A live database is sampled with ``$sample`` (``--sample`` documents per
collection, 1,000 by default); files are ``mongoexport`` output (JSON lines
or arrays, Extended JSON), one collection per file. The project goes to
standard output, or to ``-o FILE`` (an existing file is kept as ``FILE.bak``).
Exit 0 done, 2 bad input or an unreachable server (one line saying what to do).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from modeller.cli.output import EXIT_BAD_INPUT, EXIT_OK, fail, say
from modeller.model.wording import counted

HELP = "infer a project from a live database (URI --db NAME) or from mongoexport files"


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError("expected a number from 1 to 1,000,000")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0.1 <= value <= 3600:
        raise argparse.ArgumentTypeError("expected 0.1 to 3600 seconds")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "sources", nargs="+", metavar="URI|FILE", help="a mongodb:// connection string, or mongoexport files"
    )
    parser.add_argument("--db", metavar="NAME", help="the database to sample (with a URI)")
    parser.add_argument("--collections", metavar="A,B", help="only these collections (comma-separated; with a URI)")
    parser.add_argument(
        "--sample", type=_positive, default=None, metavar="N", help="documents sampled per collection (1000)"
    )
    parser.add_argument(
        "--timeout", type=_seconds, default=None, metavar="S", help="seconds to wait for the server (5)"
    )
    parser.add_argument(
        "--workload",
        action="store_true",
        help="also read $indexStats and the profiler (system.profile) into declared queries marked observed",
    )
    parser.add_argument("--name", metavar="NAME", help="the project's name (default: the database or first file)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the project here instead of standard output")


def run(args: argparse.Namespace) -> int:
    from modeller.cli.connect import say_warnings
    from modeller.live.errors import LiveError
    from modeller.live.infer import infer_project
    from modeller.live.schema_input import SchemaCollection
    from modeller.live.source import DEFAULT_SAMPLE, DEFAULT_TIMEOUT_S, Source, is_uri, redact
    from modeller.live.workload import Workload, add_queries
    from modeller.model.checks import check_project
    from modeller.model.names import check_database_name
    from modeller.model.text import neutralize, shown
    from modeller.persistence import ProjectFileError, dumps_project
    from modeller.persistence.save import save_text

    uris = [s for s in args.sources if is_uri(s)]
    mistyped = next((s for s in args.sources if not is_uri(s) and "://" in s), None)
    if mistyped is not None:  # mongo://host is no file either: say what a connection string starts with
        return fail(
            f"{shown(redact(mistyped), 200)} looks like a mistyped connection string: "
            "one starts with mongodb:// or mongodb+srv://"
        )
    workload: Workload | None = None
    schemas: list[SchemaCollection] = []
    size = args.sample or DEFAULT_SAMPLE
    try:
        if uris:
            if len(args.sources) > 1:
                return fail("give one connection string, or files, not both; infer URI --db NAME")
            if not args.db:
                return fail(f"which database of {shown(redact(uris[0]))}? add --db NAME")
            try:
                check_database_name(args.db)
            except ValueError as exc:
                return fail(f"--db {shown(repr(args.db), 80)}: {exc}")
            names = [n.strip() for n in (args.collections or "").split(",") if n.strip()] or None
            with Source(uris[0], args.timeout or DEFAULT_TIMEOUT_S) as source:
                say_warnings(source)
                if args.workload:  # before sampling: the profiler would record our own reads
                    listed = names or [c["name"] for c in source.collections(args.db)]
                    workload = source.read_workload(args.db, listed)
                samples, known = source.sample_database(args.db, names, size, _progress)
                for notice in source.notices:  # what the server would not tell (a refused $collStats)
                    say(f"modeller: warning: {notice}", sys.stderr)
            name, database = args.name or args.db, args.db
        else:
            if args.db or args.collections or args.timeout or args.workload:
                return fail("--db, --collections, --timeout and --workload go with a connection string (mongodb://...)")
            from modeller.live.files import read_inputs

            paths = [Path(p) for p in args.sources]
            samples, schemas = read_inputs(paths, args.sample)
            known = {}
            name, database = args.name or paths[0].stem, None
        left_out: list[str] = []
        project = infer_project(
            samples,
            name=neutralize(name)[:200] or "Inferred",
            database=database,
            known_ids=known,
            schemas=schemas,
            notices=left_out,
        )
        for notice in left_out:
            say(f"modeller: warning: {notice}", sys.stderr)
        if workload is not None:
            project = add_queries(project, workload)
    except LiveError as exc:
        return fail(str(exc))
    problems = check_project(project)
    if problems:  # the inference must only write valid projects: this is a bug
        raise AssertionError(f"inferred project is invalid: {problems[0]}")
    text = dumps_project(project)
    if not args.output:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        save_text(text.encode("utf-8"), args.output)
    except ProjectFileError as exc:
        for line in exc.lines():
            say(line, sys.stderr)
        return EXIT_BAD_INPUT
    entities = sum(1 for e in project.entities if e.collection)
    relationships = counted(len(project.relationships), "relationship")
    say(f"wrote {args.output}: {counted(entities, 'collection')}, {relationships}", sys.stderr)
    return EXIT_OK


def _progress(name: str, number: int, total: int) -> None:
    from modeller.model.text import shown

    say(f"sampling {number}/{total}: {shown(name, 100)}", sys.stderr)
