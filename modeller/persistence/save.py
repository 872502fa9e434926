"""Write a project file atomically, keeping the previous version as ``NAME.bak``.

The text goes to a temporary file in the same folder, is flushed and
fsynced, and only then replaces the original with ``os.replace``: a crash or
a full disk at any moment leaves either the old file or the new one, never
a mix, and never a stray temporary file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import tempfile
from pathlib import Path

from modeller.model import Project
from modeller.persistence.canonical import dumps_project
from modeller.persistence.errors import ProjectSaveError

BACKUP_SUFFIX = ".bak"
TEMP_SUFFIX = ".tmp"


def backup_path(path: str | os.PathLike[str]) -> Path:
    """``plan.modeller.json`` -> ``plan.modeller.json.bak``."""
    target = Path(path)
    return target.with_name(target.name + BACKUP_SUFFIX)


def save_project(project: Project, path: str | os.PathLike[str], *, backup: bool = True) -> None:
    """Write ``project`` to ``path`` in canonical form.

    With ``backup`` (the default) an existing file is kept as ``PATH.bak``
    first; ``modeller fmt`` turns it off because it only changes layout of
    the text, like ``ruff format``. Raises :class:`ProjectSaveError`, with the
    original file untouched, when anything fails.
    """
    name = os.fspath(path)
    try:
        data = dumps_project(project).encode("utf-8")
    except (ValueError, UnicodeEncodeError) as exc:
        raise ProjectSaveError.single(
            name, f"cannot save: the project holds a value JSON cannot store ({exc})"
        ) from None
    save_text(data, name, backup=backup)


def save_text(data: bytes, path: str | os.PathLike[str], *, backup: bool = True) -> None:
    """Atomically replace the file at ``path`` with ``data`` (see :func:`save_project`)."""
    name = os.fspath(path)
    target = Path(os.path.realpath(name))  # write through a symlink, do not replace it
    if target.is_dir():
        raise ProjectSaveError.single(name, "cannot save: this path is a folder")
    folder = target.parent
    if not folder.is_dir():
        raise ProjectSaveError.single(name, f"cannot save: the folder {str(folder)!r} does not exist")
    try:
        existing = target.stat()
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise _save_error(name, exc) from None

    temp_name: str | None = None
    try:
        temp_name, fd = _create_temp(target)
        with os.fdopen(fd, "wb") as handle:
            _write_all(handle, data)
            handle.flush()
            os.fsync(handle.fileno())
        if existing is not None:
            os.chmod(temp_name, stat.S_IMODE(existing.st_mode))
        if backup and existing is not None:
            _keep_backup(target)
        os.replace(temp_name, target)
        temp_name = None
        _sync_folder(folder)
    except OSError as exc:
        raise _save_error(name, exc) from None
    finally:
        if temp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)


def _write_all(handle: object, data: bytes) -> None:
    """The write itself, separate so tests can make it fail half-way."""
    handle.write(data)  # type: ignore[attr-defined]


def _keep_backup(target: Path) -> None:
    """Copy the current file to ``.bak`` through a temporary name, so ``.bak`` is never half-written."""
    bak = backup_path(target)
    fd, temp_bak = tempfile.mkstemp(prefix=f".{bak.name}.", suffix=TEMP_SUFFIX, dir=target.parent)
    os.close(fd)
    try:
        shutil.copy2(target, temp_bak)
        os.replace(temp_bak, bak)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_bak)
        raise


def _create_temp(target: Path) -> tuple[str, int]:
    """A new file next to ``target``, created like ``open(path, "x")`` would (0o666 minus the umask)."""
    for _ in range(100):
        name = str(target.with_name(f".{target.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"))
        try:
            return name, os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name next to {target.name}")


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); harmless where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _save_error(name: str, exc: OSError) -> ProjectSaveError:
    reason = exc.strerror or str(exc) or type(exc).__name__
    return ProjectSaveError.single(name, f"cannot save: {reason}; the file on disk is unchanged")
