"""One piece of slow work (sampling a server, diffing two designs) in a worker thread, with Cancel.

The work is a plain function of ``(report, cancelled)``: ``report(value)``
sends progress to the UI thread, ``cancelled`` is an event it checks between
steps. A cancelled job's result is dropped by the UI, and the work only
builds values in memory, so a Cancel never leaves anything half-written.
Expected failures (``expected`` exceptions, one line each) arrive as the
exception itself; anything else writes a crash report and arrives as a
:class:`JobFailed` whose message names that report, never as a traceback.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from modeller.persistence.crash import internal_error_line, save_crash_report

Work = Callable[[Callable[[Any], None], threading.Event], Any]


class JobCancelled(Exception):
    """Raised inside the work when it sees the Cancel (the UI drops the result either way)."""


class JobFailed(Exception):
    """An unexpected error in the work: ``str()`` is the one line to show, naming the crash report."""


class BackgroundJob(QObject):
    """Runs ``work`` once in a daemon thread; ``progress`` and ``finished`` arrive on the UI thread (queued)."""

    progress = Signal(object)
    finished = Signal(object)  # the work's result, or the exception that stopped it

    def __init__(
        self,
        work: Work,
        name: str,
        expected: tuple[type[BaseException], ...] = (),
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.work = work
        self.name = name
        self.expected = expected
        self.cancelled = threading.Event()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name=f"modeller-{self.name}", daemon=True)
        self.thread.start()

    def cancel(self) -> None:
        self.cancelled.set()

    def _run(self) -> None:
        result: Any
        try:
            result = self.work(self._report, self.cancelled)
        except JobCancelled as err:
            result = err
        except self.expected as err:
            result = err
        except Exception as err:  # a bug: one line naming the crash report, not a traceback
            report, why_not = save_crash_report(err, f"modeller desktop app, {self.name}")
            result = JobFailed(internal_error_line(err, report, why_not).removeprefix("modeller: "))
        with contextlib.suppress(RuntimeError):  # the dialog that owned this job was closed: nobody is waiting
            self.finished.emit(result)

    def _report(self, value: Any) -> None:
        with contextlib.suppress(RuntimeError):
            self.progress.emit(value)
