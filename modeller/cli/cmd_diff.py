"""``modeller diff OLD NEW``: what changes for the database between two versions of a project.

OLD and NEW are project files or Git revisions (``HEAD:schema.modeller.json``). Exit 0, or 1 with
``--fail-on breaking`` when a change breaks existing documents or queries; 2 on bad input.
``--migration OUT`` also writes the mongosh migration script.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from modeller.cli.output import EXIT_FINDINGS, EXIT_OK, fail, say, write_json

HELP = "compare two versions of a project (files or git revisions) and write the migration script"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the project before: a file or a git revision such as HEAD:FILE")
    parser.add_argument("new", metavar="NEW", help="the project after: a file or a git revision")
    parser.add_argument(
        "--format", choices=("text", "markdown", "json"), default="text", help="output format (default text)"
    )
    parser.add_argument(
        "--fail-on", choices=("breaking",), default=None, help="exit 1 when a change breaks existing documents"
    )
    parser.add_argument("--migration", metavar="OUT", help="also write the mongosh migration script to OUT")


def run(args: argparse.Namespace) -> int:
    from modeller.cli.sources import read_project
    from modeller.persistence import ProjectFileError
    from modeller.review import diff_projects
    from modeller.review.render import diff_json, diff_markdown, diff_text

    try:
        old = read_project(args.old)
        new = read_project(args.new)
    except ProjectFileError as err:
        return fail(str(err), multiline=True)
    if args.migration is not None:
        refusal = _refuse_target(args.migration, (args.old, args.new))
        if refusal:
            return fail(refusal)
    diff = diff_projects(old, new)
    if args.migration is not None:
        from modeller.review.migration import migration_script

        problem = _write(args.migration, migration_script(diff, Path(args.migration).name))
        if problem:
            return fail(problem)
    if args.format == "json":
        write_json(diff_json(diff))
    else:
        text = diff_markdown(diff) if args.format == "markdown" else diff_text(diff)
        say(text.rstrip("\n"), multiline=True)
    if args.migration is not None:
        say(f"migration script written to {args.migration}", sys.stderr)
    return EXIT_FINDINGS if args.fail_on == "breaking" and diff.breaking else EXIT_OK


def _refuse_target(out: str, inputs: tuple[str, str]) -> str | None:
    """The migration script must never replace a project (or a folder)."""
    if out.endswith(".modeller.json") or any(
        os.path.exists(p) and os.path.abspath(p) == os.path.abspath(out) for p in inputs
    ):
        return f"{out}: refusing to write the migration script over a project file; name a *.mongosh.js file"
    if os.path.isdir(out):
        return f"{out}: is a folder; name a file such as migration.mongosh.js"
    return None


def _write(out: str, text: str) -> str | None:
    """Write atomically (a temporary file renamed over OUT); a problem as one line, else None."""
    tmp = f"{out}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, out)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return f"{out}: cannot write the migration script: {exc.strerror or exc}"
    return None
