"""``modeller validate FILE...``: load and validate project files, reporting every problem.

Valid files are confirmed on stdout; each problem goes to stderr as
``FILE:LINE:COL: $.json.path: problem``. Exit 0 when every file is valid,
2 when any is not.
"""

from __future__ import annotations

import argparse
import sys

from modeller.cli.output import EXIT_BAD_INPUT, EXIT_OK

HELP = "load and validate project files; report every error"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="*.modeller.json files to validate")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing for valid files")


def run(args: argparse.Namespace) -> int:
    from modeller.persistence import ProjectFileError, load_project

    failed = 0
    for name in args.files:
        try:
            project = load_project(name)
        except ProjectFileError as exc:
            failed += 1
            for line in exc.lines():
                print(line, file=sys.stderr)
            continue
        except Exception as exc:  # a bug in the loader must still not end in a traceback
            failed += 1
            print(
                f"{name}: internal error while reading ({type(exc).__name__}: {exc}); please report it", file=sys.stderr
            )
            continue
        if not args.quiet:
            print(
                f"{name}: valid ({_count(len(project.entities), 'entity', 'entities')}, "
                f"{_count(len(project.relationships), 'relationship', 'relationships')}, "
                f"{_count(len(project.queries), 'query', 'queries')})"
            )
    if failed:
        total = len(args.files)
        print(f"modeller: error: {failed} of {total} file{'s' if total != 1 else ''} invalid", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_OK


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"
