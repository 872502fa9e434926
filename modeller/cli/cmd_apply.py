"""``modeller apply FILE URI [--db NAME] [--dry-run]``: bring a database to the design, never dropping anything.

The plan (``modeller.live.apply``) is printed before anything runs; with
``--dry-run`` only the plan is printed. Exit 0 done (or nothing to do),
2 bad input, an unreachable server or a step the server refused (one line
saying which step and what to do; the steps before it are done, and running
apply again continues where it stopped).
"""

from __future__ import annotations

import argparse
import sys

from modeller.cli.cmd_infer import _seconds
from modeller.cli.output import EXIT_OK, fail, say, write_json

HELP = "create the design's collections, validators and indexes in a database (never drops; --dry-run plans only)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the project (.modeller.json, - for standard input)")
    parser.add_argument("uri", metavar="URI", help="a mongodb:// connection string")
    parser.add_argument("--db", metavar="NAME", help="the database (default: the project's database)")
    parser.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="how the plan is printed")
    parser.add_argument(
        "--timeout", type=_seconds, default=None, metavar="S", help="seconds to wait for the server (5)"
    )


def run(args: argparse.Namespace) -> int:
    from modeller.cli.connect import DatabaseTarget, open_target, say_warnings
    from modeller.live.apply import Step, plan_apply, run_plan
    from modeller.live.errors import LiveError
    from modeller.model.text import shown

    try:
        target: DatabaseTarget = open_target(args.file, args.uri, args.db, args.timeout)
    except LiveError as exc:
        return fail(str(exc))
    with target.source as source:
        say_warnings(source)
        try:
            state = source.read_state(target.database, target.design)
        except LiveError as exc:
            return fail(str(exc))
        plan = plan_apply(target.design, state, target.blocked)
        if args.format == "json":
            write_json({"server": source.shown, "dry_run": bool(args.dry_run), **plan.to_json()})
        else:
            say(f"server: {source.shown}")
            say("\n".join(plan.lines()), multiline=True)
        if args.dry_run or not plan.steps:
            return EXIT_OK
        total = len(plan.steps)
        reached = 0

        def progress(number: int, step: Step) -> None:
            nonlocal reached
            reached = number
            say(f"step {number}/{total}: {step.summary}", sys.stderr)

        try:
            run_plan(plan, lambda step: source.command(plan.database, step.command, step.summary), progress)
        except LiveError as exc:
            return fail(f"step {reached} of {total} failed ({reached - 1} done; apply again continues): {exc}")
        say(f"applied {total} step(s) to {shown(repr(target.database), 80)}; nothing was dropped", sys.stderr)
    return EXIT_OK
