"""``modeller drift FILE URI [--db NAME] [--format text|json] [--sample N]``: does the database still match the design?

Made for CI: exit 0 in sync, 1 on drift, 2 on bad input or an unreachable
server. Compares collections, validators, indexes (keys and options) and a
``$sample`` of each collection's documents against the design's shape.
"""

from __future__ import annotations

import argparse

from modeller.cli.cmd_infer import _positive, _seconds
from modeller.cli.output import EXIT_FINDINGS, EXIT_OK, fail, say, write_json

HELP = "compare a database with the design: collections, validators, indexes, sampled document shapes (exit 1: drift)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the project (.modeller.json, - for standard input)")
    parser.add_argument("uri", metavar="URI", help="a mongodb:// connection string")
    parser.add_argument("--db", metavar="NAME", help="the database (default: the project's database)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    parser.add_argument(
        "--sample", type=_positive, default=None, metavar="N", help="documents sampled per collection (1000)"
    )
    parser.add_argument(
        "--timeout", type=_seconds, default=None, metavar="S", help="seconds to wait for the server (5)"
    )


def run(args: argparse.Namespace) -> int:
    from modeller.cli.connect import open_target, say_warnings
    from modeller.live.drift import compare
    from modeller.live.errors import LiveError
    from modeller.live.source import DEFAULT_SAMPLE

    try:
        target = open_target(args.file, args.uri, args.db, args.timeout)
        with target.source as source:
            say_warnings(source)
            state = source.read_state(target.database)
            samples = {
                c.name: source.sample(target.database, c.name, args.sample or DEFAULT_SAMPLE)
                for c in target.design.collections
                if c.name in state.collections and not state.collections[c.name].is_view
            }
            shown = source.shown
    except LiveError as exc:
        return fail(str(exc))
    report = compare(target.design, state, samples, target.undeclared)
    if args.format == "json":
        write_json({"server": shown, **report.to_json()})
    else:
        say("\n".join(report.lines()), multiline=True)
    return EXIT_OK if report.in_sync else EXIT_FINDINGS
