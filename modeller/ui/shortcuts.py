"""Key sequences that differ between platforms."""

from __future__ import annotations

from PySide6.QtGui import QKeySequence


def redo_keys() -> list[QKeySequence]:
    """The platform's redo keys plus Ctrl+Y and Ctrl+Shift+Z, each once.

    ``QKeySequence(StandardKey.Redo)`` keeps only the platform's first binding, which is Ctrl+Y on Windows and
    in Qt's generic theme; adding Ctrl+Y again gave the action the same key twice, and Qt then ignores it as an
    ambiguous shortcut: neither key redid anything.
    """
    keys = list(QKeySequence.keyBindings(QKeySequence.StandardKey.Redo))
    for extra in ("Ctrl+Y", "Ctrl+Shift+Z"):
        sequence = QKeySequence(extra)
        if sequence not in keys:
            keys.append(sequence)
    return keys
