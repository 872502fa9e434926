"""What the GUI benchmarks' child processes share: a paint counter, the process's resident memory, CPU per thread.

Imported only inside those children (it imports PySide6), never by ``run.py`` itself.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject


class PaintWatch(QObject):
    """Counts the paint events of the widgets it is installed on."""

    def __init__(self) -> None:
        super().__init__()
        self.painted = 0
        #: called at each paint event, once counted (before the widget paints)
        self.on_paint: Callable[[], object] | None = None

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.painted += 1
            if self.on_paint is not None:
                self.on_paint()
        return False


def rss_mib() -> float:
    """Resident memory of this process in MiB (Linux), NaN elsewhere."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class ThreadClock:
    """CPU seconds each named thread of this process has used, sampled from /proc (Linux; 10 ms resolution).

    A thread that ends keeps its last sample: call :meth:`sample` often, or :meth:`count_threads_as_they_end`
    (sampling every 20 ms from the UI thread took half a second of its CPU, and the GIL, during a 10,000-entity
    open); threads of one name (the preview's samples, each a new thread) add up.
    """

    def __init__(self) -> None:
        self._tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        #: native thread id -> (name, CPU seconds at the last sample)
        self._seen: dict[int, tuple[str, float]] = {}

    def sample(self) -> None:
        for thread in threading.enumerate():
            tid = thread.native_id
            if tid is None:
                continue
            try:
                fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # utime, stime: fields 14 and 15 of stat, 12 and 13 after the ") state" split
            self._seen[tid] = (_kind(thread.name), (int(fields[11]) + int(fields[12])) / self._tick)

    def note_this_thread(self) -> None:
        """Record the calling thread's own CPU time (no /proc read): called as a thread ends, so a short-lived
        thread is counted without sampling every thread many times a second from the UI thread."""
        thread = threading.current_thread()
        if thread.native_id is not None:
            self._seen[thread.native_id] = (_kind(thread.name), time.thread_time())

    def count_threads_as_they_end(self) -> None:
        """From now on every thread notes its CPU time as its ``run`` returns (see :meth:`note_this_thread`)."""
        run = threading.Thread.run

        def run_and_note(thread: threading.Thread) -> None:
            try:
                run(thread)
            finally:
                self.note_this_thread()

        threading.Thread.run = run_and_note  # type: ignore[method-assign]

    def by_name(self) -> dict[str, float]:
        totals: dict[str, float] = {}
        for name, cpu in self._seen.values():
            totals[name] = round(totals.get(name, 0.0) + cpu, 2)
        return totals


def _kind(name: str) -> str:
    """A thread's name without the counter Python or the executor adds (``Thread-7 (_run)``, ``..._0``)."""
    if name.startswith("Thread-"):
        return "unnamed"
    return name.rstrip("_0123456789") or name
