"""Writing an export: a staging folder beside the target, moved into place only when complete.

The GUI's export dialog and the CLI share this: a progress callback, a cancel
check between steps, and no half-written output. Everything is generated into
``.<out>.modeller-tmp-*`` next to ``out_dir`` (same filesystem, so the final
``os.replace`` of each file is atomic), then moved; on any error or cancel the
staging folder is removed and the target is untouched.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

ProgressCallback = Callable[[int, int, str], None]
CancelCheck = Callable[[], bool]

_UNSAFE = re.compile(r"[^\w.\-]+", re.UNICODE)
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}


class ExportError(Exception):
    """The export could not be written (bad input, unwritable folder, full disk); the message says why."""


class ExportCancelled(ExportError):
    """The user cancelled; nothing was written."""


def safe_file_stem(name: str, taken: set[str]) -> str:
    """A file name for a collection name: no path separators, no leading dot, unique case-insensitively.

    Collection names may contain ``/``, ``..`` or ``\\``; they must never leave the export folder.
    """
    stem = _UNSAFE.sub("_", name).strip("._ ") or "collection"
    stem = stem[:100]
    if stem.lower() in _WINDOWS_RESERVED:
        stem = "_" + stem
    candidate, n = stem, 2
    while candidate.lower() in taken:
        candidate = f"{stem}-{n}"
        n += 1
    taken.add(candidate.lower())
    return candidate


def describe_os_error(exc: OSError, where: Path) -> str:
    """One plain sentence for the usual write failures."""
    reasons = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EROFS: "the file system is read-only",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EISDIR: "a file is expected but a folder is in the way",
    }
    reason = reasons.get(exc.errno or 0, exc.strerror or str(exc))
    return f"cannot write the export to {where}: {reason}"


class Staging:
    """A temporary folder beside ``out_dir`` that becomes the export's content on :meth:`commit`."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        parent = out_dir.parent
        if out_dir.exists() and not out_dir.is_dir():
            raise ExportError(f"cannot write the export to {out_dir}: it is a file, not a folder")
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.modeller-tmp-", dir=parent))
        except OSError as exc:
            raise ExportError(describe_os_error(exc, out_dir)) from exc
        self.files: list[str] = []

    def write(self, relative: str, content: str | bytes) -> None:
        target = self.path / relative
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                with open(target, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(content)
            else:
                target.write_bytes(content)
        except OSError as exc:
            raise ExportError(describe_os_error(exc, self.out_dir)) from exc
        self.files.append(relative)

    def adopt(self, relative: str) -> None:
        """Record a file some other program (Graphviz) wrote into the staging folder."""
        self.files.append(relative)

    def commit(self) -> list[Path]:
        """Move every staged file into ``out_dir`` (replacing older versions); return the final paths."""
        final: list[Path] = []
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            for relative in self.files:
                destination = self.out_dir / relative
                destination.parent.mkdir(parents=True, exist_ok=True)
                os.replace(self.path / relative, destination)
                final.append(destination)
        except OSError as exc:
            raise ExportError(describe_os_error(exc, self.out_dir)) from exc
        finally:
            self.discard()
        return final

    def discard(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
