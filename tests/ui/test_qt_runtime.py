"""The Qt binding in use must not corrupt Python's reference counts.

PySide6 6.12.0 on Python 3.11 releases a reference to ``None`` on every call
of a Python override returning void (``paintEvent``, ``redo``); after some
thousands of paints the interpreter aborts. pyproject.toml excludes it; this
test fails if such a binding comes back.
"""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QWidget


class _Painted(QWidget):
    def paintEvent(self, event) -> None:
        self.painted = getattr(self, "painted", 0) + 1


def test_void_overrides_keep_the_refcount_of_none(qtbot) -> None:
    widget = _Painted()
    qtbot.addWidget(widget)
    widget.resize(40, 40)
    widget.show()
    before = sys.getrefcount(None)
    for _ in range(300):
        widget.grab()  # renders through paintEvent, also offscreen
    assert widget.painted >= 300
    assert sys.getrefcount(None) - before > -100
