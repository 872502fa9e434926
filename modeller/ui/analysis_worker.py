"""Analysis off the UI thread: one worker thread, newest request wins.

The model is immutable (each edit makes the document swap in a new
project), so the project handed over is a consistent state that a worker
thread can read as it is while the user keeps editing. Each request carries
the generation (edit count) it was made for; the service drops results that
a newer edit has made stale. The preview's sample documents use the same
worker (one thread for the panel's life, not a thread per edit).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

from modeller.model import Project
from modeller.runtime.gc_pause import collector_paused, keep_long_lived
from modeller.ui.gil_share import ui_gets_the_gil_back

#: one frame at 60 Hz: an analysis slower than this moves to the worker thread
FRAME_S = 0.016


class AnalysisWorker(QObject):
    """Runs ``analyse`` in a single background thread, newest request wins (``name``: the thread's)."""

    #: generation, Analysis (or the exception raised), seconds the analysis took
    finished = Signal(int, object, float)

    def __init__(
        self, analyse: Callable[[Any], Any], parent: QObject | None = None, name: str = "modeller-analysis"
    ) -> None:
        super().__init__(parent)
        self._analyse = analyse
        #: generation -> CPU seconds of the worker thread in its analysis (wall time also holds the UI thread's
        #: turns at the GIL and the machine's other load; benchmarks report both); the last few only
        self.cpu_seconds: dict[int, float] = {}
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._pending: tuple[int, Any] | None = None
        self._running = False
        # queued: runs on the UI thread once each result has been delivered
        self.finished.connect(self._after_result)

    def submit(self, generation: int, project: Project | Any) -> None:
        """Analyse ``project`` (or another request) as it is now; a request still waiting is replaced, not queued."""
        self._pending = (generation, project)
        if not self._running:
            self._start_next()

    @property
    def busy(self) -> bool:
        """A request is running or waiting."""
        return self._running or self._pending is not None

    def shutdown(self) -> None:
        self._pending = None
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _start_next(self) -> None:
        if self._pending is None:
            self._running = False
            return
        generation, project = self._pending
        self._pending = None
        self._running = True
        self._executor.submit(self._run, generation, project)

    def _run(self, generation: int, project: Project | Any) -> None:
        started, cpu = time.perf_counter(), time.thread_time()
        # no collector passes over the millions of objects an analysis builds (seconds at 10,000 entities,
        # GIL held): the result is frozen instead, and the previous one freed by reference counting (gc_pause)
        with ui_gets_the_gil_back(), collector_paused():
            try:
                result: Any = self._analyse(project)
            except Exception as err:  # reported on the UI thread, never raised in the worker
                result = err
            keep_long_lived()
        self.cpu_seconds[generation] = time.thread_time() - cpu
        for old in [g for g in self.cpu_seconds if g < generation - 8]:
            del self.cpu_seconds[old]
        self._done_in_thread(generation, result, time.perf_counter() - started)

    def _done_in_thread(self, generation: int, result: Any, seconds: float) -> None:
        # emitted from the worker thread; this object lives on the UI thread, so delivery is queued
        self.finished.emit(generation, result, seconds)

    def _after_result(self, _generation: int, _result: Any, _seconds: float) -> None:
        self._start_next()
