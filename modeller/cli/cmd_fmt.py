"""``modeller fmt FILE... [--check]``: rewrite project files in canonical form, like ``ruff format``.

Canonical means what ``save`` writes (see docs/file-format.md), so a file
formatted once never changes again and Git diffs show only real edits.
Exit 0 when done (or, with ``--check``, when every file is canonical), 1 when
``--check`` finds files that would change, 2 when a file cannot be read, 3 when
reading one hit a bug (the others are still formatted).
"""

from __future__ import annotations

import argparse
import sys

from modeller.cli.output import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, say
from modeller.model.wording import counted

HELP = "rewrite project files in canonical form; --check: exit 1 if any is not canonical"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="*.modeller.json files to format")
    parser.add_argument(
        "--check", action="store_true", help="change nothing; list the files that would change and exit 1 if any"
    )


def run(args: argparse.Namespace) -> int:
    from modeller.persistence import ProjectFileError, dumps_project, load_project
    from modeller.persistence.crash import internal_error_line, save_crash_report
    from modeller.persistence.save import save_text

    bad = crashed = 0
    changed: list[str] = []
    unchanged = 0
    for name in args.files:
        try:
            project = load_project(name)
            with open(name, "rb") as handle:
                current = handle.read()
            canonical = dumps_project(project).encode("utf-8")
            if current == canonical:
                unchanged += 1
                continue
            if not args.check:
                # only the text's layout changes, so no .bak (like ruff format)
                save_text(canonical, name, backup=False)
            changed.append(name)
        except ProjectFileError as exc:
            bad += 1
            for line in exc.lines():
                say(line, sys.stderr)
        except OSError as exc:
            bad += 1
            say(f"{name}: cannot read: {exc.strerror or exc}", sys.stderr)
        except Exception as exc:  # a bug: one line and a crash report, then the next file
            bad += 1
            crashed += 1
            report, why_not = save_crash_report(exc, f"modeller fmt, formatting {name}")
            say(internal_error_line(exc, report, why_not, doing=f"formatting {name}"), sys.stderr)

    verb = "would reformat" if args.check else "reformatted"
    for name in changed:
        say(f"{verb} {name}")
    summary = [f"{counted(len(changed), 'file')} {verb}"]
    if unchanged:
        summary.append(f"{counted(unchanged, 'file')} already canonical")
    say(", ".join(summary))
    if bad:
        say(f"modeller: error: {counted(bad, 'file')} could not be read", sys.stderr)
        return EXIT_INTERNAL if crashed else EXIT_BAD_INPUT
    return EXIT_FINDINGS if args.check and changed else EXIT_OK
