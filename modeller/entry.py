"""The ``modeller`` program: command-line commands, or the desktop app.

``modeller validate ...`` (and every other command) runs the command line;
``modeller [FILE] [--screenshot OUT.png]`` opens the GUI. This module sits above
both layers so that ``cli`` and ``ui`` never import each other.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence

from modeller.cli.main import COMMANDS, internal_error
from modeller.cli.main import main as cli_main


def wants_cli(args: Sequence[str]) -> bool:
    """Commands and the top-level ``--help``/``--version`` go to the command line."""
    return bool(args) and (args[0] in COMMANDS or args[0] in ("-h", "--help", "--version"))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    # without the GUI package (a CLI-only install) everything goes to the command line
    if wants_cli(args) or importlib.util.find_spec("modeller.ui") is None:
        return cli_main(args)
    from modeller.ui.app import main as gui_main  # imported late: Qt loads only for the GUI

    try:
        return int(gui_main(args))
    except Exception as exc:  # before the window's own handler is installed (or in --screenshot): same last line
        return internal_error(exc, "modeller desktop app")


if __name__ == "__main__":
    raise SystemExit(main())
