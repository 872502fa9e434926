"""Write a project file atomically, keeping the previous version as ``NAME.bak``.

The text goes to a temporary file in the same folder, is flushed and
fsynced, and only then replaces the original with ``os.replace``: a crash or
a full disk at any moment leaves either the old file or the new one, never
a mix. A temporary file stays locked by its save until the rename; when a
save is killed (``kill -9``), the next save of the same file removes the
unlocked ones it left (:func:`remove_stale_temps`).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import stat
from pathlib import Path

from modeller.model import Project
from modeller.persistence.canonical import dumps_project
from modeller.persistence.errors import ProjectSaveError
from modeller.persistence.locks import lock_fd, process_alive, remove_if_unowned

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
        raise ProjectSaveError.single(
            name, f"cannot save: the folder {str(folder)!r} does not exist; create it or choose another folder"
        )
    try:
        existing = target.stat()
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise _save_error(name, exc) from None

    remove_stale_temps(target)
    temp_name: str | None = None
    fd: int | None = None
    try:
        temp_name, fd = _create_temp(target)  # locked until closed: no other save takes it for stale
        _write_all(fd, data)
        os.fsync(fd)
        if existing is not None:
            _chmod(fd, temp_name, stat.S_IMODE(existing.st_mode))
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
        if fd is not None:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte (``os.write`` may write fewer); separate so tests can make it fail half-way."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _chmod(fd: int, name: str, mode: int) -> None:
    if os.chmod in os.supports_fd:
        os.chmod(fd, mode)
    else:  # pragma: no cover - Windows
        os.chmod(name, mode)


def _keep_backup(target: Path) -> None:
    """Copy the current file to ``.bak`` through a temporary name, so ``.bak`` is never half-written."""
    bak = backup_path(target)
    temp_bak, fd = _create_temp(bak)
    try:
        with open(target, "rb") as source:
            while chunk := source.read(1 << 20):
                _write_all(fd, chunk)
        shutil.copystat(target, temp_bak)
        os.replace(temp_bak, bak)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_bak)
        raise
    finally:
        os.close(fd)


def temp_pattern(target: Path) -> re.Pattern[str]:
    """The names :func:`_create_temp` gives temporary files of ``target`` (and of its ``.bak``)."""
    return re.compile(rf"\.{re.escape(target.name)}(?:{re.escape(BACKUP_SUFFIX)})?\.(\d+)\.[0-9a-f]{{8}}{TEMP_SUFFIX}")


def remove_stale_temps(target: Path) -> list[str]:
    """Remove temporary files an earlier save of ``target`` left when its process died; their names.

    A temporary file is locked by its save from creation to rename, so an
    unlocked one is abandoned — except an empty one of a live process, which
    may be between creating and locking it.
    """
    pattern = temp_pattern(target)
    removed = []
    try:
        names = [n for n in os.listdir(target.parent) if pattern.fullmatch(n)]
    except OSError:
        return []
    for entry in names:
        path = target.parent / entry
        match = pattern.fullmatch(entry)
        assert match is not None
        try:
            empty = os.lstat(path).st_size == 0
        except OSError:
            continue
        if empty and process_alive(int(match.group(1))):
            continue
        if remove_if_unowned(path):
            removed.append(entry)
    return removed


def _create_temp(target: Path) -> tuple[str, int]:
    """A new, locked file next to ``target``, created like ``open(path, "x")`` would (0o666 minus the umask).

    The name holds the process id and :func:`remove_stale_temps` recognises it.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = str(target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}"))
        try:
            fd = os.open(name, flags, 0o666)
        except FileExistsError:
            continue
        lock_fd(fd)
        return name, fd
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
