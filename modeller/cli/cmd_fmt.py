"""``modeller fmt FILE... [--check]``: rewrite project files in canonical form, like ``ruff format``.

Canonical means what ``save`` writes (see docs/file-format.md), so a file
formatted once never changes again and Git diffs show only real edits.
Exit 0 when done (or, with ``--check``, when every file is canonical), 1 when
``--check`` finds files that would change, 2 when a file cannot be read.
"""

from __future__ import annotations

import argparse
import sys

from modeller.cli.output import EXIT_BAD_INPUT, EXIT_FINDINGS, EXIT_OK

HELP = "rewrite project files in canonical form; --check: exit 1 if any is not canonical"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="*.modeller.json files to format")
    parser.add_argument(
        "--check", action="store_true", help="change nothing; list the files that would change and exit 1 if any"
    )


def run(args: argparse.Namespace) -> int:
    from modeller.persistence import ProjectFileError, dumps_project, load_project
    from modeller.persistence.save import save_text

    bad = 0
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
                print(line, file=sys.stderr)
        except OSError as exc:
            bad += 1
            print(f"{name}: cannot read: {exc.strerror or exc}", file=sys.stderr)
        except Exception as exc:  # a bug must still not end in a traceback
            bad += 1
            print(f"{name}: internal error ({type(exc).__name__}: {exc}); please report it", file=sys.stderr)

    verb = "would reformat" if args.check else "reformatted"
    for name in changed:
        print(f"{verb} {name}")
    summary = [f"{len(changed)} file{'s' if len(changed) != 1 else ''} {verb}"]
    if unchanged:
        summary.append(f"{unchanged} file{'s' if unchanged != 1 else ''} already canonical")
    print(", ".join(summary))
    if bad:
        print(f"modeller: error: {bad} file{'s' if bad != 1 else ''} could not be read", file=sys.stderr)
        return EXIT_BAD_INPUT
    return EXIT_FINDINGS if args.check and changed else EXIT_OK
