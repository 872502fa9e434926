"""The ``modeller`` program: command-line commands, or the desktop app.

``modeller validate ...`` (and every other command) runs the command line;
``modeller [FILE] [--screenshot OUT.png]`` opens the GUI. This module sits above
both layers so that ``cli`` and ``ui`` never import each other. The GUI needs
PySide6 (the ``gui`` extra); the commands never import it, so a CLI-only install
(``pip install modeller``, e.g. in CI) runs them without Qt.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence

from modeller.cli.main import COMMANDS, internal_error
from modeller.cli.main import main as cli_main
from modeller.cli.output import EXIT_BAD_INPUT, EXIT_OK, fail, say

#: what to run when the desktop app is wanted but PySide6 is missing
GUI_INSTALL_HINT = (
    "the desktop app needs PySide6, which is not installed; install it with "
    "pip install 'modeller[gui]' (or pipx install 'modeller[gui]'); the commands work without it: modeller --help"
)


#: options that manage the application-menu launcher (modeller/ui/desktop_entry.py)
DESKTOP_ACTIONS = ("--install-desktop", "--uninstall-desktop")


def wants_cli(args: Sequence[str]) -> bool:
    """Commands and the top-level ``--help``/``--version`` go to the command line."""
    return bool(args) and (args[0] in COMMANDS or args[0] in ("-h", "--help", "--version"))


def gui_available() -> bool:
    """PySide6 is importable (looked up without importing it: Qt loads only for the GUI)."""
    return importlib.util.find_spec("PySide6") is not None


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if wants_cli(args):
        return cli_main(args)
    if args and args[0] in DESKTOP_ACTIONS:
        return desktop_launcher(args[0], args[1:])
    return gui_main(args)


def desktop_launcher(action: str, rest: Sequence[str]) -> int:
    """``--install-desktop`` / ``--uninstall-desktop``: one line per outcome, or one error line."""
    from modeller.ui import desktop_entry  # no Qt: the launcher is written before (and without) the GUI

    if rest:
        return fail(f"{action} takes no other arguments")
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return fail(f"{action} is for Linux desktops (freedesktop.org menus); on this system run modeller-gui")
    try:
        paths = desktop_entry.install() if action == "--install-desktop" else desktop_entry.uninstall()
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        return fail(f"{action}: cannot write the launcher{where}: {exc.strerror or exc}; check that folder")
    if action == "--uninstall-desktop":
        say("removed " + " and ".join(map(str, paths)) if paths else "no launcher was installed; nothing removed")
    else:
        say(f"installed {paths[0]} and {paths[1]}; Modeller is now in the application menu")
        if not gui_available():
            say(f"note: {GUI_INSTALL_HINT}")
    return EXIT_OK


def gui_main(argv: Sequence[str] | None = None) -> int:
    """``modeller-gui [FILE]``: the desktop app (a windowed program on Windows: no console)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not gui_available():
        return fail(GUI_INSTALL_HINT, EXIT_BAD_INPUT)
    from modeller.ui.app import main as app_main  # imported late: Qt loads only for the GUI

    try:
        return int(app_main(args))
    except Exception as exc:  # before the window's own handler is installed (or in --screenshot): same last line
        return internal_error(exc, "modeller desktop app")


if __name__ == "__main__":
    raise SystemExit(main())
