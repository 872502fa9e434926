"""``modeller [FILE] [--view entities|documents] [--screenshot OUT.png [--size WxH]]``: start the desktop app.

Bad input (unknown option, missing or broken file, bad size) prints one clear
message on stderr and returns a non-zero exit code, never a traceback. A file
large enough to be read in the background (``OPEN_IN_BACKGROUND_BYTES``) opens
as File ▸ Open does: the window shows first, and a problem in the file is a
dialog there (the empty window stays); ``--screenshot`` always reads it first.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from modeller.model.text import shown

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise _BadInput(f"modeller: {shown(message, 1000)}")


class _BadInput(Exception):
    pass


def _size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d{2,5})\s*[xX×]\s*(\d{2,5})\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"size {text!r} is not WIDTHxHEIGHT, e.g. 1600x1000")
    width, height = int(match.group(1)), int(match.group(2))
    if not (200 <= width <= 10000 and 200 <= height <= 10000):
        raise argparse.ArgumentTypeError(f"size {text!r} must be between 200x200 and 10000x10000")
    return width, height


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="modeller", description="Modeller: design MongoDB schemas on a canvas.")
    p.add_argument("file", nargs="?", type=Path, help="project file to open (*.modeller.json)")
    p.add_argument("--screenshot", type=Path, metavar="OUT.png", help="render the window to a PNG and exit")
    p.add_argument("--size", type=_size, default=(1600, 1000), metavar="WxH", help="window size (default 1600x1000)")
    p.add_argument(
        "--view",
        choices=("entities", "documents"),
        default="entities",
        help="open in the Entities view (default) or the Documents view (collections as stored)",
    )
    p.add_argument(
        "--theme",
        choices=("system", "light", "dark"),
        default=None,
        help="colour theme for this run (default: the one chosen in View ▸ Theme, else system)",
    )
    return p


def main(args: list[str]) -> int:
    try:
        options = parser().parse_args(args)
    except _BadInput as err:
        print(err, file=sys.stderr)
        return EXIT_BAD_INPUT
    except SystemExit as done:  # --help
        return int(done.code or 0)
    if options.screenshot is not None:
        if options.file is None:
            print("modeller: --screenshot needs a project FILE to open", file=sys.stderr)
            return EXIT_BAD_INPUT
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    elif missing_display():
        print(
            "modeller: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set).\n"
            "  Run it in a desktop session, under a virtual display (xvfb-run modeller FILE),\n"
            "  or render the window to a picture: modeller FILE --screenshot OUT.png",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    return _run(options)


def missing_display(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> bool:
    """On Linux Qt aborts the process without a display; say so before it gets the chance."""
    if not platform.startswith("linux") or environ.get("QT_QPA_PLATFORM"):
        return False
    return not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def _run(options: argparse.Namespace) -> int:
    from modeller.ui.import_order import drop_read_sources, load_before_qt

    load_before_qt()  # before PySide6: its import hook then skips these modules
    from PySide6.QtCore import QCoreApplication, QSettings, QSize
    from PySide6.QtWidgets import QApplication

    from modeller.persistence import ProjectFileError, load_project
    from modeller.ui.main_window import opens_in_background

    project = None
    # a large file opens as File > Open does: the window first, the file read in a worker (errors in a dialog)
    later = options.file is not None and options.screenshot is None and opens_in_background(options.file)
    if options.file is not None and not later:
        try:
            project = load_project(options.file)
        except ProjectFileError as err:
            print(err, file=sys.stderr)  # one neutralized line per problem
            return EXIT_BAD_INPUT
        except OSError as err:
            print(f"{shown(options.file, 4096)}: {err.strerror or err}", file=sys.stderr)
            return EXIT_BAD_INPUT
    QCoreApplication.setOrganizationName("Modeller")
    QCoreApplication.setApplicationName("Modeller")
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "modeller"])
    assert isinstance(app, QApplication)
    from modeller.ui.crash import CrashHandler
    from modeller.ui.main_window import MainWindow
    from modeller.ui.theme.theme import apply_theme, stored_theme

    theme = options.theme or stored_theme(QSettings())
    apply_theme(app, theme)
    window = MainWindow()
    drop_read_sources()  # the window's modules are in; what the import hook read is not needed
    window.theme_actions[theme].setChecked(True)  # --theme applies to this run only, nothing is stored
    if project is not None:
        window.document.reset(project, options.file)
        if options.screenshot is None:
            window.add_recent(options.file)
    if options.screenshot is not None:
        width, height = options.size
        ok = window.render_screenshot(options.screenshot, QSize(width, height), options.view == "documents")
        # hide, not close: closing clears the recovery copy a real session may have left
        window.autosave_timer.stop()
        window.hide()
        if not ok:
            print(f"modeller: cannot write {shown(options.screenshot, 4096)}", file=sys.stderr)
            return EXIT_FAILED
        return EXIT_OK
    CrashHandler(window, window.autosave_now, window.document.is_modified).install()
    window.restore_window_layout()  # not for --screenshot: a picture must not depend on the last session
    window.show()
    if options.view == "documents":
        window.set_documents_view(True)
    window.view.fit_on_open()
    if project is None and not later:
        window.analysis.schedule()  # an empty project says "no findings" rather than "no analysis yet"
    if not window.offer_recovery() and later:
        window.open_path(options.file, ask=False)
    return int(app.exec())
