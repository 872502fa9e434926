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

_OPEN_FLAGS = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


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


def try_lock(path: str | os.PathLike[str], *, create: bool = False) -> int | None:
    """An open, locked descriptor of the regular file ``path``, or None when it is locked, missing or not a file.

    The caller owns the descriptor: closing it (or dying) releases the lock.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS | (os.O_CREAT if create else 0), 0o600)
    except OSError:
        return None
    try:
        if not _is_regular(fd) or not lock_fd(fd):
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


def _is_regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)
