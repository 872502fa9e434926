"""Advisory locks that the operating system drops when their process dies (even by ``kill -9``).

Saves, exports and the GUI's recovery copies leave files behind only when a
process dies half-way; the next run may remove such a file only if its owner
is gone. A lock held on an open file answers that without process ids (which
get reused): :func:`try_lock` succeeds exactly when no live process holds it.
``flock`` locks belong to the open file, so two holders in one process exclude
each other too (tests simulate two instances that way).
"""

from __future__ import annotations

import contextlib
import os
import stat

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_NO_LINK = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_OPEN_FLAGS = os.O_RDWR | _NO_LINK | getattr(os, "O_NONBLOCK", 0)
_FOLDER_FLAGS = os.O_RDONLY | _NO_LINK | getattr(os, "O_DIRECTORY", 0)


def lock_fd(fd: int) -> bool:
    """Take the exclusive lock on open file ``fd`` without waiting; False when another holder has it."""
    if fcntl is None:  # pragma: no cover - Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def try_lock(path: str | os.PathLike[str], *, create: bool = False, folder: bool = False) -> int | None:
    """An open, locked descriptor of the regular file (or ``folder``) ``path``; None when locked or missing.

    Never through a symbolic link. The caller owns the descriptor: closing it
    (or dying) releases the lock. Folders can be locked on POSIX only.
    """
    if folder and fcntl is None:  # pragma: no cover - Windows
        return None
    flags = _FOLDER_FLAGS if folder else _OPEN_FLAGS | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError:
        return None
    try:
        kind = stat.S_ISDIR if folder else stat.S_ISREG
        if not kind(os.fstat(fd).st_mode) or not lock_fd(fd):
            os.close(fd)
            return None
    except OSError:
        os.close(fd)
        return None
    return fd


def same_file(fd: int, path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not a newer file of the same name)."""
    try:
        here, there = os.fstat(fd), os.lstat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def remove_if_unowned(path: str | os.PathLike[str]) -> bool:
    """Remove the regular file ``path`` when no live process holds its lock; whether it was removed."""
    fd = try_lock(path)
    if fd is None:
        return False
    try:
        if not same_file(fd, path):
            return False
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` may be running (True when that cannot be known, and for this process)."""
    if pid == os.getpid() or os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
