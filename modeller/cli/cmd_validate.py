"""``modeller validate FILE...``: load and validate project files, reporting every problem.

Valid files are confirmed on stdout; each problem goes to stderr as
``FILE:LINE:COL: $.json.path: problem``. Exit 0 when every file is valid,
2 when any is not, 3 when reading one hit a bug (the others are still checked).
"""

from __future__ import annotations

import argparse
import sys

from modeller.cli.output import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK, say
from modeller.model.wording import counted

HELP = "load and validate project files; report every error"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="*.modeller.json files to validate (- reads standard input)"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing for valid files")


def run(args: argparse.Namespace) -> int:
    from modeller.cli.sources import STDIN_NAME, read_file_or_stdin
    from modeller.persistence import ProjectFileError
    from modeller.persistence.crash import internal_error_line, save_crash_report

    failed = crashed = 0
    for spec in args.files:
        name = STDIN_NAME if spec == "-" else spec
        try:
            project = read_file_or_stdin(spec)
        except ProjectFileError as exc:
            failed += 1
            for line in exc.lines():
                say(line, sys.stderr)
            continue
        except Exception as exc:  # a bug in the loader: one line and a crash report, then the next file
            failed += 1
            crashed += 1
            report, why_not = save_crash_report(exc, f"modeller validate, reading {name}")
            say(internal_error_line(exc, report, why_not, doing=f"reading {name}"), sys.stderr)
            continue
        if not args.quiet:
            say(
                f"{name}: valid ({counted(len(project.entities), 'entity', 'entities')}, "
                f"{counted(len(project.relationships), 'relationship')}, "
                f"{counted(len(project.queries), 'query', 'queries')})"
            )
    if failed:
        total = len(args.files)
        say(f"modeller: error: {failed} of {counted(total, 'file')} invalid", sys.stderr)
        return EXIT_INTERNAL if crashed else EXIT_BAD_INPUT
    return EXIT_OK
