"""Runs the recommendation engine after edits, debounced, off the typing and dragging path.

The engine is a pure function of the project. Without one (``analyse`` None,
as some tests build the window) the canvas shows the user's own strategy only.
The recommendations and preview docks subscribe to :attr:`AnalysisService.analysed`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from modeller.model import Project
from modeller.rules import Analyser
from modeller.rules.framework.analysis import Analysis
from modeller.ui.analysis_changes import note_changes
from modeller.ui.analysis_worker import FRAME_S, AnalysisWorker
from modeller.ui.document import ProjectDocument
from modeller.ui.panels.analysis_facts import prepare

Analyse = Callable[[Project], Any]

#: entities + relationships from which a first analysis is expected to take longer than a frame
#: (about 0.5 ms per entity on the generated projects): such a project is analysed off the UI thread
#: from the start, e.g. right after File ▸ Open, before any timing is known
LARGE_PROJECT = 60


def is_large(project: Project) -> bool:
    return len(project.entities) + len(project.relationships) >= LARGE_PROJECT


def engine_analyse() -> Analyse:
    """A fresh incremental analyser, one per window.

    The document replaces edited objects and keeps the others, so the
    analyser re-checks only what an edit touched.
    """
    return Analyser().analyse


def _prepared(analyse: Analyse) -> Analyse:
    """``analyse``, then (still in the worker) what the hand-over will ask of the result: the design's index,
    the project's id maps, the counts and the canvas markers (a second or more of the UI thread at 10,000
    entities when each asker worked it out there, issue 16), and what changed against the previous result
    (the docks and the canvas touch only that, see analysis_changes)."""
    previous: list[tuple[Analysis, Project]] = []

    def run(project: Project) -> Any:
        result = analyse(project)
        if isinstance(result, Analysis):
            changes = note_changes(previous[0] if previous else None, result, project)
            # with changes the findings list places those alone: the order of all 40,000 (a sort, about 80 ms
            # of this thread at 10,000 entities) is needed only for a first analysis or one that changed much
            prepare(result, project, order=changes is None)
            previous[:] = [(result, project)]
        return result

    return run


class AnalysisService(QObject):
    """Re-analyses the document ``delay_ms`` after the last change (``analyse`` None: no engine)."""

    #: the engine's Analysis (findings + design)
    analysed = Signal(object)
    #: the engine raised: the message for the status bar
    failed = Signal(str)
    #: True while an analysis runs in the background ("Analysing…" in the status bar), False when done
    running = Signal(bool)

    def __init__(
        self,
        document: ProjectDocument,
        analyse: Analyse | None = None,
        delay_ms: int = 150,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.latest: Any = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._run_scheduled)
        document.changed.connect(self.schedule)
        # newest-wins worker thread once an analysis takes longer than a frame
        self.delay_ms = delay_ms
        self.generation = 0
        self.last_seconds = 0.0
        #: CPU seconds the last analysis took on its own thread (``last_seconds`` is wall time)
        self.last_cpu_seconds = 0.0
        self._last_start = -1e9
        #: this (UI) thread's CPU clock when the last worker result arrived: benchmarks split the UI's share of an
        #: edit there (the edit and the wait before it, the hand-over after it)
        self.arrived_cpu = 0.0
        #: an analysis for the current state is running in the background
        self.background = False
        #: (generation, project) of an analysis an open started for the project it shows (analyse_early)
        self._early: tuple[int, Project] | None = None
        #: the analysis as both paths run it: on this thread (run_now) and in the worker
        self._run = _prepared(analyse) if analyse is not None else None
        self._worker = AnalysisWorker(self._run, self) if self._run is not None else None
        if self._worker is not None:
            self._worker.finished.connect(self._worker_finished)

    @property
    def available(self) -> bool:
        return self._run is not None

    def schedule(self) -> None:
        """After a change: the first edit after a pause is analysed at once, a burst once it pauses."""
        if self._run is None:
            return
        early, self._early = self._early, None
        if early is not None and early[0] == self.generation and early[1] is self.document.project:
            return  # the project an open is showing: its analysis has started (analyse_early)
        self.generation += 1
        paused = (time.monotonic() - self._last_start) * 1000 >= self.delay_ms
        self._timer.start(0 if paused and not self._timer.isActive() else self.delay_ms)

    def analyse_early(self, project: Project) -> None:
        """An open shows ``project``: a large one is analysed from now in the worker, while the window builds its
        cards, instead of from the event loop's next turn after the first cards (50-200 ms at 10,000 entities;
        DESIGN.md "Performance targets": open -> findings). The analysis the reset's own change scheduled is
        replaced (called before the reset: that change then schedules nothing); any other change schedules as
        usual, and its newer generation makes this result stale."""
        if self._worker is None or not is_large(project):
            return
        self._timer.stop()
        self.generation += 1
        self._early = (self.generation, project)
        self._last_start = time.monotonic()
        self._worker.submit(self.generation, project)
        self._set_background(True)

    def run_now(self) -> None:
        """Analyse immediately, on this thread (screenshots and tests do not wait for the debounce)."""
        self._timer.stop()
        if self._run is None:
            return
        self._last_start = time.monotonic()
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            result = self._run(self.document.project)
        except Exception as err:  # the engine must never take the editor down with it
            self.latest = None
            self.failed.emit(f"analysis failed: {type(err).__name__}: {err}")
            self._set_background(False)
            return
        finally:
            self.last_seconds = time.perf_counter() - started
            self.last_cpu_seconds = time.thread_time() - cpu
        self.latest = result
        self.analysed.emit(self.latest)
        self._set_background(False)

    def _set_background(self, on: bool) -> None:
        if on != self.background:
            self.background = on
            self.running.emit(on)

    def _run_scheduled(self) -> None:
        """Fast analyses run here; a large project, or one that took longer than a frame last time, goes
        to the worker so opening or editing it never freezes the window."""
        project = self.document.project
        if self._worker is None or (self.last_seconds <= FRAME_S and not is_large(project)):
            self.run_now()
            return
        self._last_start = time.monotonic()
        self._worker.submit(self.generation, project)
        self._set_background(True)

    def _worker_finished(self, generation: int, result: object, seconds: float) -> None:
        self.arrived_cpu = time.thread_time()
        self.last_seconds = seconds
        if self._worker is not None:
            self.last_cpu_seconds = self._worker.cpu_seconds.get(generation, 0.0)
        if generation != self.generation:
            return  # stale: a newer edit is already scheduled
        if isinstance(result, Exception):
            self._set_background(False)
            self.latest = None
            self.failed.emit(f"analysis failed: {type(result).__name__}: {result}")
            return
        self.latest = result
        self.analysed.emit(result)
        # after the findings: "done" asks for the counts, and before them it counted the last analysis' findings
        # against the new project on the UI thread (a second at 10,000 entities, issue 16)
        self._set_background(False)
