"""Live advice on a generated project (1,000 entities; ``MODELLER_BENCH_LIVE_SIZE`` for another size):
edit -> updated findings on screen.

At another size than 1,000 every figure's name carries it (``live.10000.edit_to_findings``) and
the targets are DESIGN.md's for that size when it has them (10,000: open <= 6 s, edit <= 200 ms).

Figures (issue 6):
- ``live.open_to_findings``: File > Open of the saved project until its findings are on screen
  (load, canvas, analysis off the UI thread, panels, paint). Target <= 1 s (DESIGN.md).
- ``live.analysis``: ``analyse(project)`` alone (median wall, with the collector's pass it
  causes, as ``bench_analyse`` times it), the engine's cost per edit.
- ``live.edit_to_findings``: once the open has drawn every badge and marker, an isolated edit
  (the first after a pause, as when the user changes one value) until the recommendations
  panel, the preview and the canvas markers show the new analysis and the window has processed its paint events. Target <= 100 ms
  including the debounce: the first edit after a pause is analysed at once (leading edge),
  off the UI thread once an analysis has taken longer than a frame.
- ``live.burst_to_findings``: the last of a burst of edits (typing) until findings are on
  screen: the 150 ms debounce waits for the pause, by design (informational).
- ``live.edit_analysis``: the incremental re-analysis of one edit alone (in the worker), the engine's
  share of edit_to_findings (wall: it also holds the UI thread's turns at the GIL and the machine's load).
- ``live.edit_analysis_cpu``: the same step in CPU time of the worker thread (what the engine costs,
  whatever else runs on the machine).
- ``live.edit_ui_cpu``: CPU time of the UI thread from the edit until its findings are painted (the edit
  command, the hand-over, panels, markers, paint and the waiting loop's own event processing).
- ``live.edit_command_cpu``: the part of edit_ui_cpu the edit command takes (the document and the canvas).
- ``live.edit_handover_cpu``: the part of edit_ui_cpu from the worker's result to the paint (panels, markers,
  preview, status bar, paint). The rest of edit_ui_cpu is the UI thread's own event processing while the analysis
  runs, which grows with the analysis' wall time on a loaded machine.
- ``live.edit_ui_cpu_settled``: CPU time of the UI thread from the edit until the window is idle again (the
  250 ms pause after it, and longer while markers or the preview's sample are still due): also what the edit left for later, the list's layout in batches, markers
  out of sight in slices, the preview. What typing competes with; edit_ui_cpu stops at the paint.
- ``live.edit_other_cpu``: over the same span, the CPU of every thread but the UI thread and the analysis
  worker (the process' CPU minus those two, so threads that ended count too): the preview's sample worker,
  Qt's own threads, an autosave that happened to run. A thread per thread figure from /proc says "python"
  for all of them; this one is the rest of what an edit costs the machine (issue 16).
- ``live.edit_during_open_tail``: the first edit while the open's tail still runs (cards out of sight
  being built in slices, badges and markers due) until its findings are on screen; the edit makes its own
  items and the build goes on, so this is what a user who edits at once waits (informational).
- ``live.edit_during_open_tail_blocked``: the longest the UI thread was busy in that edit.
- ``live.load``: the machine's one-minute load average when the edits were timed (2 cores): wall
  figures taken under load are that much slower than on a quiet machine; CPU figures are not.
- ``live.ui_after_analysis``: edit_to_findings minus the analysis itself: this issue's share
  (hand-over from the worker, panels, markers, paint).
- ``live.panel_refresh``: the recommendations panel rebuilding its list from one analysis.
- ``live.ui_blocked_max``: the longest the UI thread was busy during an edit-to-findings cycle
  (how long a keystroke could wait); informational, a frame is 16 ms.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from benchmarks.bench_analyse import full_samples
from benchmarks.generate import generate_project
from modeller.persistence import save_project
from modeller.ui.commands import EditRelationshipCommand

REPEAT = 9
CARDINALITIES = ("one-to-many", "one-to-squillions")
#: entities of the generated project (``MODELLER_BENCH_LIVE_SIZE``)
DEFAULT_SIZE = 1000
#: DESIGN.md "Performance targets" per size: (open -> findings s, edit -> findings ms)
TARGETS = {1000: (1.0, 100.0), 10_000: (6.0, 200.0)}


def size() -> int:
    """The project size asked for (``MODELLER_BENCH_LIVE_SIZE``, default 1,000)."""
    text = os.environ.get("MODELLER_BENCH_LIVE_SIZE", "").strip().replace("_", "").replace(",", "")
    if not text:
        return DEFAULT_SIZE
    if not text.isdigit() or int(text) < 10:
        raise SystemExit(f"MODELLER_BENCH_LIVE_SIZE={text!r}: give a number of entities of at least 10 (e.g. 10000)")
    return int(text)


def _app() -> QApplication:
    app = QApplication.instance()
    return app if isinstance(app, QApplication) else QApplication([])


def _wait(condition: Any, timeout_s: float = 10.0) -> None:
    deadline = time.perf_counter() + timeout_s
    while not condition():
        QCoreApplication.processEvents()
        if time.perf_counter() > deadline:
            raise TimeoutError("the analysis did not arrive")
        time.sleep(0.002)


def _settle(ms: int) -> None:
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        QCoreApplication.processEvents()
        time.sleep(0.002)


class _Probe:
    """Counts analyses that reached the screen; tracks the longest UI-thread stall."""

    def __init__(self, window: Any) -> None:
        self.seen = 0
        self.max_gap = 0.0
        self._last = time.perf_counter()
        # connected after the window's own slots: runs once the panels are updated
        window.analysis.analysed.connect(self._arrived)
        self.window = window
        self.ticker = QTimer()
        self.ticker.setInterval(5)
        self.ticker.timeout.connect(self._tick)

    def _arrived(self, _analysis: object) -> None:
        self.window.repaint()  # paint now: "on screen", not merely "scheduled"
        self.seen += 1

    def _tick(self) -> None:
        now = time.perf_counter()
        self.max_gap = max(self.max_gap, now - self._last)
        self._last = now

    def reset_gap(self) -> None:
        self._last = time.perf_counter()
        self.max_gap = 0.0


def run() -> list[dict[str, Any]]:
    from modeller.ui.main_window import MainWindow

    _app()
    n_entities = size()
    # seconds: a 10,000-entity open takes many times a 1,000 one's
    slow = max(1.0, n_entities / DEFAULT_SIZE)
    project = generate_project(n_entities, 1.5, 0.5, seed=0)
    analysis_ms = statistics.median(s.wall for s in full_samples(project, 5 if slow <= 2 else 2)) * 1000

    settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "modeller-bench", "live")
    window = MainWindow(settings=settings, use_engine=True)
    window.resize(1600, 1000)
    window.show()
    probe = _Probe(window)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.modeller.json"
        save_project(project, path, backup=False)
        clock = QElapsedTimer()
        clock.start()
        window.open_path(path, ask=False)
        _wait(lambda: probe.seen >= 1, 30 * slow)
        open_ms = clock.nsecsElapsed() / 1e6
    rel_ids = [r.id for r in project.relationships[:REPEAT]]

    def edit(rel_id: str, n: int) -> None:
        rel = window.document.relationship(rel_id)
        assert rel is not None
        new = rel.model_copy(update={"cardinality": CARDINALITIES[n % 2], "max": None, "typical": None})
        window.document.push(EditRelationshipCommand(window.document, new))

    # an edit while the open's tail runs (cards out of sight still being built, badges and markers in slices):
    # what a user who edits at once waits; it also warms the worker, so the timed edits below know the
    # analysis is slow or fast
    probe.ticker.start()
    probe.reset_gap()
    clock = QElapsedTimer()
    clock.start()
    edit(rel_ids[0], 1)
    _wait(lambda: probe.seen >= 2, 60 * slow)
    tail_ms, tail_blocked = clock.nsecsElapsed() / 1e6, probe.max_gap * 1000
    # then everything the open started is finished (the cards out of sight, their badges and markers), so the
    # timed edits measure the edit alone, not the open's tail competing with it for the GIL
    window.scene.finish_build()
    window.scene.finish_badges()
    window.live.finish_markers()
    _wait(lambda: not window.scene.building and not window.live.markers_pending, 10 * slow)
    _settle(250)

    isolated, stalls, after, engine, engine_cpu, ui_cpu, settled_cpu, other_cpu = [], [], [], [], [], [], [], []
    command_cpu, handover_cpu = [], []
    load = os.getloadavg()[0]
    for n, rel_id in enumerate(rel_ids):
        before = probe.seen
        probe.reset_gap()
        clock = QElapsedTimer()
        clock.start()
        cpu, process_cpu = time.thread_time(), time.process_time()
        edit(rel_id, n)
        command_cpu.append((time.thread_time() - cpu) * 1000)
        _wait(lambda before=before: probe.seen > before, 10 * slow)
        isolated.append(clock.nsecsElapsed() / 1e6)
        ui_cpu.append((time.thread_time() - cpu) * 1000)
        handover_cpu.append((time.thread_time() - window.analysis.arrived_cpu) * 1000)
        engine.append(window.analysis.last_seconds * 1000)
        engine_cpu.append(window.analysis.last_cpu_seconds * 1000)
        after.append(isolated[-1] - engine[-1])
        stalls.append(probe.max_gap * 1000)
        _settle(250)  # a pause: the next edit is "the first after a pause"
        _wait(lambda: not window.live.markers_pending and not window.preview.sampling, 30 * slow)
        settled_cpu.append((time.thread_time() - cpu) * 1000)
        other_cpu.append((time.process_time() - process_cpu) * 1000 - settled_cpu[-1] - engine_cpu[-1])
    load = max(load, os.getloadavg()[0])

    bursts = []
    for n in range(3):
        before = probe.seen
        for k in range(5):  # five keystrokes 40 ms apart
            edit(rel_ids[k], n + k)
            _settle(40)
        clock = QElapsedTimer()
        clock.start()
        _wait(lambda before=before: probe.seen > before and not window.analysis._timer.isActive(), 10 * slow)
        bursts.append(clock.nsecsElapsed() / 1e6)
        _settle(300)

    latest = window.analysis.latest
    panel_times = []
    for _ in range(5):
        started = time.perf_counter()
        window.recommendations.set_analysis(latest)
        panel_times.append(time.perf_counter() - started)
    n_findings = len(latest.findings) if latest is not None else 0
    probe.ticker.stop()
    window.document.undo_stack.setClean()
    window.close()
    open_target, edit_target = TARGETS.get(n_entities, (None, None))
    prefix = "live." if n_entities == DEFAULT_SIZE else f"live.{n_entities}."
    rows: list[tuple[str, float, str, float | None]] = [
        ("analysis", round(analysis_ms, 1), "ms", None),
        ("findings", n_findings, "findings", None),
        ("open_to_findings", round(open_ms / 1000, 2), "s", open_target),
        ("edit_to_findings", round(statistics.median(isolated), 1), "ms", edit_target),
        ("edit_to_findings_max", round(max(isolated), 1), "ms", None),
        ("edit_analysis", round(statistics.median(engine), 1), "ms", None),
        ("edit_analysis_cpu", round(statistics.median(engine_cpu), 1), "ms", None),
        ("edit_ui_cpu", round(statistics.median(ui_cpu), 1), "ms", None),
        ("edit_command_cpu", round(statistics.median(command_cpu), 1), "ms", None),
        ("edit_handover_cpu", round(statistics.median(handover_cpu), 1), "ms", None),
        ("edit_ui_cpu_settled", round(statistics.median(settled_cpu), 1), "ms", None),
        ("edit_other_cpu", round(statistics.median(other_cpu), 1), "ms", None),
        ("ui_after_analysis", round(statistics.median(after), 1), "ms", None),
        ("burst_to_findings", round(statistics.median(bursts), 1), "ms", None),
        ("panel_refresh", round(statistics.median(panel_times) * 1000, 1), "ms", None),
        ("ui_blocked_max", round(statistics.median(stalls), 1), "ms", None),
        ("edit_during_open_tail", round(tail_ms, 1), "ms", None),
        ("edit_during_open_tail_blocked", round(tail_blocked, 1), "ms", None),
        ("load", round(load, 2), "load", None),
    ]
    return [
        {"name": prefix + name, "value": value, "unit": unit, "target": target} for name, value, unit, target in rows
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
