"""``modeller --install-desktop``: a launcher (``.desktop`` file) and icon in the user's application menu.

Freedesktop.org layout (Linux desktops): ``$XDG_DATA_HOME/applications/modeller.desktop`` and
``$XDG_DATA_HOME/icons/hicolor/scalable/apps/modeller.svg`` (``XDG_DATA_HOME`` defaults to
``~/.local/share``). The launcher runs the ``modeller-gui`` program of this installation by its
absolute path, so it works for a pipx or venv install that is not on the menu's ``PATH``.
No Qt here: it runs before (and without) the GUI.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from modeller.ui.resources import read_text

DESKTOP_NAME = "modeller.desktop"
ICON_NAME = "modeller.svg"


def data_home(environ: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` when unset or not absolute (the spec ignores a relative one)."""
    value = environ.get("XDG_DATA_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".local" / "share"


def targets(environ: Mapping[str, str] = os.environ) -> tuple[Path, Path]:
    """Where the launcher and the icon go."""
    base = data_home(environ)
    return base / "applications" / DESKTOP_NAME, base / "icons" / "hicolor" / "scalable" / "apps" / ICON_NAME


def launcher_command() -> list[str]:
    """``modeller-gui`` beside this Python (a venv or pipx install), else ``python -m modeller``."""
    scripts = Path(sys.executable).parent
    for name in ("modeller-gui", "modeller-gui.exe"):
        if (scripts / name).is_file():
            return [str(scripts / name)]
    return [sys.executable, "-m", "modeller"]


def exec_quote(arg: str) -> str:
    """One argument of a ``.desktop`` ``Exec`` line (spec: double quotes; escape ``"`` `` ` `` ``$`` ``\\``)."""
    if arg and not any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`="):
        return arg.replace("%", "%%")
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return '"' + escaped.replace("%", "%%") + '"'


def desktop_text(command: list[str]) -> str:
    template = read_text(DESKTOP_NAME)
    if template is None:
        raise OSError(f"the launcher template {DESKTOP_NAME} is missing from the installation")
    # the Exec value is a desktop-entry string too: a backslash in it is escaped once more
    exec_line = " ".join(exec_quote(arg) for arg in command).replace("\\", "\\\\")
    return template.replace("@EXEC@", exec_line)


def install(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """Write the launcher and the icon (replacing an earlier install's); return their paths."""
    desktop, icon = targets(environ)
    svg = read_text("icons", "app.svg")
    if svg is None:
        raise OSError("the icon app.svg is missing from the installation")
    for path, text in ((icon, svg), (desktop, desktop_text(launcher_command()))):
        path.parent.mkdir(parents=True, exist_ok=True)
        staged = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        try:
            staged.write_text(text, encoding="utf-8")
            os.replace(staged, path)  # a half-written launcher never shows in the menu
        finally:
            staged.unlink(missing_ok=True)
    return [desktop, icon]


def uninstall(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """Remove what :func:`install` wrote; return the paths removed."""
    removed = []
    for path in targets(environ):
        if path.is_file():
            path.unlink()
            removed.append(path)
    return removed
