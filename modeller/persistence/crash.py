"""Crash reports: the last line of defence when an exception nobody expected escapes.

The user sees one line (CLI) or one dialog (GUI) that says where the report
is; the traceback goes to ``$XDG_CACHE_HOME/modeller/crash-<timestamp>.txt``
(``~/.cache/modeller`` without it). The report holds the version, the
platform, the command line and the traceback, nothing else: no environment
dump, credentials in URIs (``user:pass@``, ``?password=``,
``authMechanismProperties=``) are masked, and no line carries a control character
or runs on for megabytes.
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
import sys
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path

from modeller import __version__
from modeller.model.text import hide_secret_options, neutralize, shorten, shown

#: ``scheme://user:password@host`` -> ``scheme://***@host`` (a connection string must not leak into a report)
_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")
#: the longest line a report keeps (an exception message may quote a whole file)
_LINE_LIMIT = 2000


def crash_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """The user's cache folder for Modeller (XDG: a relative ``XDG_CACHE_HOME`` is ignored)."""
    base = environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "modeller"


def mask_secrets(text: str) -> str:
    """``text`` with the user:password part of every URI, and secret options such as ``?password=``, as ``***``."""
    return hide_secret_options(_CREDENTIALS.sub(r"\1***@", text))


def report_text(exc: BaseException, where: str, argv: Sequence[str] | None = None) -> str:
    """The crash report for ``exc``: what ran, on what, and the traceback."""
    args = sys.argv if argv is None else argv
    lines = [
        "Modeller crash report (please attach it to a bug report)",
        f"version: modeller {__version__}",
        f"python: {platform.python_version()} ({platform.platform()})",
        f"time: {time.strftime('%Y-%m-%d %H:%M:%S %z')}",
        f"where: {where}",
        f"command: {' '.join(args)}",
        "",
        *"".join(traceback.format_exception(exc)).splitlines(),
    ]
    return "\n".join(neutralize(shorten(mask_secrets(line), _LINE_LIMIT)) for line in lines) + "\n"


def write_crash_report(
    exc: BaseException, where: str, directory: Path | None = None, argv: Sequence[str] | None = None
) -> Path:
    """Write the report to a new file (readable by the user only) and return its path; raises OSError."""
    folder = crash_dir() if directory is None else directory
    folder.mkdir(parents=True, exist_ok=True)
    text = report_text(exc, where, argv).encode("utf-8", errors="replace")
    stamp = time.strftime("%Y%m%d-%H%M%S") + f"-{time.time_ns() // 1000 % 1_000_000:06d}"
    for attempt in range(100):
        path = folder / f"crash-{stamp}{f'-{attempt}' if attempt else ''}.txt"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as handle:
            handle.write(text)
        return path
    raise FileExistsError(f"no free crash report name in {folder}")


#: crash reports looked at per start (oldest ones beyond it wait for the next start) and the largest read
SCRUB_LIMIT, SCRUB_MAX_BYTES = 200, 1_000_000
#: a folder's reports were scrubbed once: this build masks what it writes, so later starts read nothing
SCRUBBED = ".scrubbed"


def scrub_crash_reports(directory: Path | None = None) -> int:
    """Mask the credentials an older build left in its crash reports (a ``tlsCertificateKeyFilePassword=`` in
    plain text); a report that cannot be rewritten, or is too large to read, is deleted. Returns how many were
    changed. Never raises: it runs at the app's start."""
    folder = crash_dir() if directory is None else directory
    marker = folder / SCRUBBED
    changed = 0
    try:
        if marker.exists():
            return 0
        found = sorted(folder.glob("crash-*.txt"))
    except OSError:
        return 0
    for path in found[-SCRUB_LIMIT:]:
        try:
            if path.is_symlink() or not path.is_file():
                continue
            if path.stat().st_size > SCRUB_MAX_BYTES:
                path.unlink()
                changed += 1
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            masked = "\n".join(mask_secrets(line) for line in text.split("\n"))
            if masked == text:
                continue
            spare = path.with_name(path.name + ".scrub")
            fd = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(masked)
            os.replace(spare, path)
            changed += 1
        except OSError:
            with contextlib.suppress(OSError):  # a secret that cannot be masked must not stay
                path.unlink()
                changed += 1
    if len(found) <= SCRUB_LIMIT:
        with contextlib.suppress(OSError):
            marker.touch()  # every report of an older build is done: later starts read none again
    return changed


def summary(exc: BaseException) -> str:
    """``Type: short message`` on one line, as the user sees it."""
    try:
        text = str(exc)
    except Exception:  # an exception whose message itself fails: the last line of defence must not
        text = "(the error message could not be read)"
    message = shown(mask_secrets(text))
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def save_crash_report(exc: BaseException, where: str, argv: Sequence[str] | None = None) -> tuple[Path | None, str]:
    """Write the report if possible: (its path, "") or (None, why it could not be written)."""
    try:
        return write_crash_report(exc, where, argv=argv), ""
    except Exception as err:  # a full disk, a read-only cache, an unprintable traceback: still one line
        return None, shown(getattr(err, "strerror", None) or type(err).__name__)


def internal_error_line(exc: BaseException, report: Path | None, why_not: str = "", doing: str = "") -> str:
    """The one line the CLI prints: what went wrong (while ``doing`` what) and where the details are."""
    if report is not None:
        where = f"details in {neutralize(report)}"
    else:
        where = f"no crash report could be written ({why_not or 'unknown reason'})"
    during = f" while {shown(doing, 1000)}" if doing else ""
    return f"modeller: internal error{during}: {summary(exc)} — {where}, please report it"
