"""Runs the recommendation engine after edits, debounced, off the typing and dragging path.

The engine (``modeller.rules.analyse``) is a pure function of the project. It
is looked up at run time (a capability check, not a version guess): while the
engine package does not provide it, the canvas shows the user's own strategy
only. Issue 6's recommendations dock subscribes to :attr:`AnalysisService.analysed`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from modeller.model import Project
from modeller.ui.document import ProjectDocument

Analyse = Callable[[Project], Any]


def engine_analyse() -> Analyse | None:
    """``modeller.rules.analyse`` if the engine provides it, else None."""
    try:
        rules = importlib.import_module("modeller.rules")
    except ImportError:
        return None
    found = getattr(rules, "analyse", None)
    return found if callable(found) else None


class AnalysisService(QObject):
    """Re-analyses the document ``delay_ms`` after the last change."""

    #: the engine's Analysis (findings + design)
    analysed = Signal(object)
    #: the engine raised: the message for the status bar
    failed = Signal(str)

    def __init__(
        self, document: ProjectDocument, analyse: Analyse | None = None, delay_ms: int = 150,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self._analyse = analyse if analyse is not None else engine_analyse()
        self.latest: Any = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self.run_now)
        document.changed.connect(self.schedule)

    @property
    def available(self) -> bool:
        return self._analyse is not None

    def schedule(self) -> None:
        if self._analyse is not None:
            self._timer.start()

    def run_now(self) -> None:
        """Analyse immediately (screenshots and tests do not wait for the debounce)."""
        self._timer.stop()
        if self._analyse is None:
            return
        try:
            self.latest = self._analyse(self.document.project)
        except Exception as err:  # the engine must never take the editor down with it
            self.latest = None
            self.failed.emit(f"analysis failed: {type(err).__name__}: {err}")
            return
        self.analysed.emit(self.latest)
