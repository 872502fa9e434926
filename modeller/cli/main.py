"""``modeller`` entry point: dispatch to one module per command.

Each command module exposes ``HELP`` (one line), ``add_arguments(parser)``
and ``run(args) -> int``. Command modules import their heavy dependencies
(engine, exporters) inside ``run`` so that building the parser stays cheap.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from modeller import __version__
from modeller.cli.output import COLOR_MODES, EXIT_BAD_INPUT, EXIT_INTERNAL, fail, say
from modeller.model.text import shown

#: command name -> module implementing it, in the order ``--help`` lists them.
COMMANDS: dict[str, str] = {
    "validate": "modeller.cli.cmd_validate",
    "fmt": "modeller.cli.cmd_fmt",
    "check": "modeller.cli.cmd_check",
    "design": "modeller.cli.cmd_design",
    "export": "modeller.cli.cmd_export",
    "diff": "modeller.cli.cmd_diff",
    "rules": "modeller.cli.cmd_rules",
    "infer": "modeller.cli.cmd_infer",
    "apply": "modeller.cli.cmd_apply",
    "drift": "modeller.cli.cmd_drift",
}

EPILOG = """exit codes: 0 fine; 1 findings at or above --fail-on (check), files not canonical (fmt --check) breaking changes (diff --fail-on breaking) or a database that drifts from the design (drift);
2 bad input (missing file, invalid JSON, schema violation, unknown version);
3 internal error (a bug: one line on stderr names the crash report to attach to a bug report)."""


class CommandLineParser(argparse.ArgumentParser):
    """argparse, except that a usage error never echoes the user's arguments raw (they may hold ESC sequences)."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        say(f"{self.prog}: error: {shown(message, 1000)}", sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    parser = CommandLineParser(
        prog="modeller",
        description="Design MongoDB schemas from entities, relationships and their workload.\n\n"
        "  modeller [FILE]                     open the desktop app (FILE optional)\n"
        "  modeller FILE --screenshot OUT.png  render the window to a PNG and exit [--size WxH]\n"
        "  modeller --install-desktop          add Modeller to the application menu (--uninstall-desktop)",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"modeller {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        command = sub.add_parser(
            name,
            help=module.HELP,
            description=module.HELP,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(command)
        command.add_argument(
            "--color",
            choices=COLOR_MODES,
            default="auto",
            help="colour the text output: auto (a terminal, unless NO_COLOR is set), always, never",
        )
        command.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        # a terminal that cannot show a character (LANG=C, a Windows code page) gets \uXXXX, not a crash
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args._module.run(args))
    except KeyboardInterrupt:
        return fail("interrupted", code=130)
    except BrokenPipeError:
        return 0
    except MemoryError:
        return fail("out of memory while reading the input; is the file a Modeller project?", code=EXIT_BAD_INPUT)
    except Exception as exc:  # the last line of defence: a bug is one line and a crash report, never a traceback
        return internal_error(exc, f"modeller {args.command}")


def internal_error(exc: BaseException, where: str) -> int:
    """Write the crash report, print the one line that names it, and return exit code 3."""
    from modeller.persistence.crash import internal_error_line, save_crash_report

    report, why_not = save_crash_report(exc, where)
    say(internal_error_line(exc, report, why_not), sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    raise SystemExit(main())
