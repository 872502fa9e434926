"""Work around a PySide6 6.12.0 reference-count bug on Python < 3.12.

With PySide6 6.12.0 every call of a Python override of a C++ virtual that
returns ``void`` (``paintEvent``, ``QGraphicsItem.paint``, ``QUndoCommand.redo``
...) releases one reference to ``None`` that it never took; bool-returning
overrides do the same to ``True``/``False``. Python 3.12 made these
singletons immortal, so the bug is harmless there; on 3.11 the count reaches
zero after some thousands of paints and the interpreter aborts
("none_dealloc: deallocating None"). PySide6 6.11.x does not have the bug.

Until a fixed PySide6 is available, give the three singletons a reference
count no session can exhaust, which is exactly what 3.12's immortality does.
"""

from __future__ import annotations

import ctypes
import sys

import PySide6

#: extra references given to None/True/False (2**40 paints would take centuries)
HEADROOM = 1 << 40

_done = False


def affected(python: tuple[int, int] | None = None, pyside: tuple[int, ...] | None = None) -> bool:
    python = python or (sys.version_info.major, sys.version_info.minor)
    pyside = pyside or tuple(PySide6.__version_info__[:3])
    return python < (3, 12) and pyside[:2] == (6, 12)


def protect_singletons() -> bool:
    """Apply the workaround once when this Python/PySide6 pair has the bug; True if applied."""
    global _done
    if _done or not affected() or sys.implementation.name != "cpython":
        return False
    for singleton in (None, True, False):
        # ob_refcnt is the first field of every PyObject in release builds of CPython
        ctypes.c_ssize_t.from_address(id(singleton)).value += HEADROOM
    _done = True
    return True
