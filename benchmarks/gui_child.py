"""What the GUI benchmarks' child processes share: a paint counter, the process's resident memory, CPU per thread,
the UI thread's longest gaps.

Imported only inside those children (it imports PySide6), never by ``run.py`` itself.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


#: the open's steps in the order the child marks them, and what the window does from each mark to the next
STEPS = (
    ("read", "showing the read project (reset, first slice)"),
    ("shown", "building the cards in sight"),
    ("in_view", "building while the analysis runs"),
    ("handover", "hand-over of the findings"),
    ("findings", "after the findings (check, preview sample, rest of the cards)"),
    ("checked", "building the rest of the cards"),
    ("built", "after the build"),
)


class UiGaps:
    """The UI thread's longest gaps between two ticks of its timer, each with what it was made of.

    A gap is split into the UI thread's own CPU, its wait in the machine's run queue (another process had the
    core: the load, /proc schedstat) and the rest: waiting for the GIL (another thread of this process ran
    Python, or was itself preempted while holding it). Each other thread's CPU in the gap says who ran; a
    sampler thread notes every 20 ms which modeller function the UI thread and each worker were in (its own
    share of the GIL is a few per cent of one thread). Linux only; elsewhere the run queue reads as zero.
    """

    def __init__(self, keep: int = 3) -> None:
        self.keep = keep
        self._ui = threading.get_ident()
        try:
            self._sched_fd: int | None = os.open(f"/proc/self/task/{threading.get_native_id()}/schedstat", os.O_RDONLY)
        except OSError:
            self._sched_fd = None
        #: thread ident -> (kind, CPU clock id), each thread but the sampler (the tick runs 200 times a second on
        #: the UI thread: it must cost microseconds)
        self._threads: dict[int, tuple[str, int]] = {}
        self._last: tuple[float, float, float, dict[str, float]] | None = None
        #: (start, wall, UI CPU, UI run-queue wait, CPU of each other thread) of the longest gaps, longest first
        self.longest: list[Gap] = []
        #: the same for the gaps with the longest waits for the GIL (wall - UI CPU - run queue), longest first
        self.most_waiting: list[Gap] = []
        #: (time, {thread kind: "file:function < file:function"}) every 20 ms while sampling
        self.samples: list[tuple[float, dict[str, str]]] = []
        self._sampling = False

    def start(self) -> None:
        self._last = self._now()
        self._sampling = True
        threading.Thread(target=self._sample, name="bench-sampler", daemon=True).start()

    def stop(self) -> None:
        self._sampling = False

    def tick(self) -> None:
        """Called from the UI thread's timer: the time since the last tick is one gap (between start and stop)."""
        if not self._sampling:
            return
        now = self._now()
        if self._last is not None:
            (t0, cpu0, queue0, threads0), (t1, cpu1, queue1, threads1) = self._last, now
            # a thread started in the gap counts from zero; one that ended in it is no longer seen
            others = {
                name: round(cpu - threads0.get(name, 0.0), 4)
                for name, cpu in threads1.items()
                if name != "MainThread" and cpu - threads0.get(name, 0.0) > 0
            }
            gap = (t0, t1 - t0, cpu1 - cpu0, queue1 - queue0, others)
            self.longest = _kept(self.longest, gap, self.keep, lambda g: g[1])
            self.most_waiting = _kept(self.most_waiting, gap, self.keep, _gil_wait)
        self._last = now

    def report(self, origin: float, timeline: dict[str, Any], gil: bool = False) -> list[dict[str, Any]]:
        """The longest gaps (``gil``: those waiting longest for the GIL), seconds from ``origin`` (the open's
        start), each with its step in ``timeline``."""
        out = []
        for start, wall, cpu, queue, others in self.most_waiting if gil else self.longest:
            at = start - origin
            end = start + wall
            seen: dict[str, dict[str, int]] = {}
            for t, tops in self.samples:
                if start <= t <= end:
                    for name, top in tops.items():
                        seen.setdefault(name, {})
                        seen[name][top] = seen[name].get(top, 0) + 1
            doing = {name: max(tops, key=lambda top: tops[top]) for name, tops in seen.items()}
            # the step the gap started in, and those that started inside it (a step's mark is made by its first
            # piece of work, often inside the gap that piece makes)
            steps = ["reading the file"]
            for mark, what in STEPS:
                if mark in timeline and timeline[mark][0] <= at:
                    steps = [what]
                elif mark in timeline and timeline[mark][0] <= end - origin:
                    steps.append(what)
            step = " -> ".join(steps)
            out.append(
                {
                    "at_s": round(at, 3),
                    "wall_ms": round(wall * 1000),
                    "ui_cpu_ms": round(cpu * 1000),
                    "run_queue_ms": round(queue * 1000),
                    "gil_wait_ms": round(max(0.0, wall - cpu - queue) * 1000),
                    "threads_cpu_ms": {name: round(c * 1000) for name, c in sorted(others.items()) if c >= 0.001},
                    "step": step,
                    "doing": doing,
                }
            )
        return out

    def _now(self) -> tuple[float, float, float, dict[str, float]]:
        queue = 0.0
        if self._sched_fd is not None:
            queue = int(os.pread(self._sched_fd, 100, 0).split()[1]) / 1e9
        threads: dict[str, float] = {}
        for thread in threading.enumerate():  # every tick: one thread may end as another starts (the read's, the
            # analysis'), so their number alone does not say the list changed
            known = self._threads.get(thread.ident) if thread.ident is not None else None
            if known is None:
                if thread.ident is None or thread.name == "bench-sampler":
                    continue
                try:
                    known = self._threads[thread.ident] = (_kind(thread.name), time.pthread_getcpuclockid(thread.ident))
                except (OSError, AttributeError):
                    continue
            name, clock = known
            try:
                threads[name] = threads.get(name, 0.0) + time.clock_gettime(clock)
            except OSError:  # ended meanwhile, or an ident reused by a new thread: listed anew at the next tick
                self._threads.pop(thread.ident, None)  # type: ignore[arg-type]
                continue
        return time.perf_counter(), time.thread_time(), queue, threads

    def _sample(self) -> None:
        while self._sampling:
            time.sleep(0.02)
            names = {thread.ident: _kind(thread.name) for thread in threading.enumerate()}
            tops = {
                names.get(ident, "?"): _where(frame)
                for ident, frame in sys._current_frames().items()
                if ident != threading.get_ident()
            }
            self.samples.append((time.perf_counter(), {k: v for k, v in tops.items() if v}))


Gap = tuple[float, float, float, float, dict[str, float]]


def _gil_wait(gap: Gap) -> float:
    return gap[1] - gap[2] - gap[3]


def _kept(gaps: list[Gap], gap: Gap, keep: int, size: Callable[[Gap], float]) -> list[Gap]:
    """``gaps`` with ``gap`` among them if it is one of the ``keep`` largest by ``size``, largest first."""
    if len(gaps) >= keep and size(gap) <= size(gaps[-1]):
        return gaps
    return sorted([*gaps, gap], key=size, reverse=True)[:keep]


def _where(frame: Any) -> str:
    """The innermost two modeller functions of a stack ("" when it is in none)."""
    found: list[str] = []
    while frame is not None and len(found) < 2:
        filename = frame.f_code.co_filename
        if "/modeller/" in filename:
            found.append(f"{Path(filename).stem}.{frame.f_code.co_name}")
        frame = frame.f_back
    return " < ".join(found)
