"""Opening a large project in the GUI: first frame, open -> findings on screen, UI stalls, memory.

Figures per size (issue 16), each measured in its own child process (offscreen Qt,
so the memory figure is the app's own):
- ``open.N.first_frame``: File ▸ Open until the canvas has painted cards of the new project once
  (the file is read in a worker thread and the canvas built in slices, so this is the first slice).
- ``open.N.first_frame_cpu``: the CPU time of the process (every thread) over the same span: on a
  shared machine a slow wall figure beside a steady CPU figure is the machine's load, not the open.
- ``open.N.in_view``: File ▸ Open until the cards in sight and their lines are in the scene (the others are
  built after the findings arrive: while the analysis runs they take only short slices).
- ``open.N.built``: File ▸ Open until every card and line is in the scene; ``open.N.built_cpu`` the process's
  CPU time over the same span.
- ``open.N.to_findings``: File ▸ Open until the analysis is shown (recommendations,
  preview, canvas markers and status bar updated, window repainted).
- ``open.N.to_findings_cpu``: the CPU time of the process (every thread) over the same span.
- ``open.N.ui_blocked_max``: the longest gap between two ticks of a 5 ms timer on the UI
  thread during the whole open, the hand-over of the findings included (how long a click
  could wait); target 100 ms.
- ``open.N.ui_busy_max``: the most CPU time the UI thread spent between two ticks of that timer: the longest
  piece of UI work, without the waits for the interpreter or the machine (steadier on a loaded machine).
- ``open.N.gap1`` .. ``gap3``: the three longest of those gaps, longest first, each with a note: the open's step
  it fell in, the UI thread's CPU in it, its wait in the machine's run queue (the load), the rest (waiting for
  the GIL), the CPU each other thread used meanwhile, and the modeller function each thread was seen in
  (gui_child.UiGaps): where the next stall to cut is.
- ``open.N.gil_wait1`` .. ``gil_wait3``: the three gaps in which the UI thread waited longest for the GIL (the gap
  less its CPU and its run-queue wait: another thread of the app held the interpreter), with the same notes.
- ``open.N.rss``: resident memory once the findings are on screen.
- ``open.N.cpu.THREAD``: CPU seconds of each thread until the findings are on screen (``open`` the read,
  ``check`` the checks across the project, ``analysis``, ``warm-up`` the preview's imports, ``MainThread`` the
  UI thread since the open started): open -> findings is their sum on one interpreter, whatever the machine does.
- ``open.N.handover`` / ``open.N.handover_ui_cpu``: from the analysis result reaching the UI thread until the
  findings are on screen, wall and the UI thread's CPU.
- ``open.N.read_cpu`` = ``parse_cpu`` (bytes -> JSON data, in the open thread) + ``validate_cpu`` (JSON data ->
  Project): the open thread's CPU in the read.
- ``open.N.analysis_wait``: from the read project reaching the UI thread until the analysis is handed to its
  worker: the reset's slots, which run alone with the interpreter (the analysis can start no earlier than the
  read's end).
- ``open.N.ui_cpu_in_analysis``: the UI thread's CPU while the analysis runs (it shares the interpreter with it:
  each of its milliseconds there delays the findings); once the cards in sight are built this is mostly this
  benchmark's own 5 ms timer (a profile of that span at 10,000 entities found nothing else).
- ``open.N.load``: the machine's 1-minute load average, the higher of the open's start and end: on this
  2-core machine wall figures taken at a load of 4 or more are mostly the other processes (compare the CPU
  figures then).

Sizes: ``MODELLER_BENCH_OPEN_SIZES`` (comma-separated entity counts, default ``1000,5000``;
``10000`` takes a minute or more), run with ``python -m benchmarks.run --only open``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SIZES = (1000, 5000)
TARGETS = {1000: (0.5, 1.0, 300), 10000: (3.0, 6.0, 1024)}  # first frame s, to findings s, RSS MiB

CHILD = r"""
import json, os, sys, tempfile, time
from pathlib import Path
os.environ["QT_QPA_PLATFORM"] = "offscreen"
sys.path.insert(0, sys.argv[1])
n = int(sys.argv[2])
from modeller.ui.import_order import drop_read_sources, load_before_qt
load_before_qt()  # in the order the app starts (modeller/ui/app.py)
from PySide6.QtCore import QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication
from benchmarks.generate import generate_project
from modeller.persistence import save_project
from modeller.ui.main_window import MainWindow


from benchmarks.gui_child import PaintWatch, ThreadClock, UiGaps, rss_mib
from modeller.ui.analysis import AnalysisService

# the hand-over of the findings starts as the worker's result reaches the UI thread (patched before the window
# connects it)
delivered = AnalysisService._worker_finished
AnalysisService._worker_finished = lambda self, *args: (mark("handover"), delivered(self, *args))


app = QApplication([])
folder = Path(tempfile.mkdtemp())
path = folder / "bench.modeller.json"
save_project(generate_project(n, 1.5, 0.5, seed=0), path)
settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
window = MainWindow(settings=settings, recovery_dir=folder / "recovery")
drop_read_sources()
window.resize(1600, 1000)
window.show()
app.processEvents()
watch = PaintWatch()
window.view.viewport().installEventFilter(watch)
arrived = []
reset_paints = []
built = []
built_cpu = []
in_view = []
window.scene.in_view_built.connect(lambda: in_view.append(time.perf_counter()))
window.document.project_reset.connect(lambda: reset_paints.append(watch.painted))
window.scene.built.connect(lambda: (built.append(time.perf_counter()), built_cpu.append(time.process_time())))
arrived_cpu = []
clock = ThreadClock()
clock.count_threads_as_they_end()
# the open's timeline: seconds since the start of each step, and the UI thread's CPU seconds by then
timeline = {}


def mark(step, ui=True):
    if step not in timeline:
        timeline[step] = (round(time.perf_counter() - started, 3), round(time.thread_time() - started_ui, 3) if ui else None)


window.document.project_reset.connect(lambda: mark("shown"))
window.scene.in_view_built.connect(lambda: mark("in_view"))
window.open_finished.connect(lambda _ok: mark("checked"))
window.scene.built.connect(lambda: mark("built"))
worker = window.analysis._worker
submit = worker.submit
worker.submit = lambda *args: (mark("analysis_started"), submit(*args))
loaded = window._loaded
window._loaded = lambda *args: (mark("read"), loaded(*args))
# the read's CPU in the open thread: the text parsed into JSON data, then the whole read (validation is the rest)
read_cpu = {}
import modeller.persistence.load as load_module
import modeller.ui.main_window as main_window_module


def cpu_into(key, function):
    def timed(*args, **kwargs):
        cpu = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            read_cpu[key] = read_cpu.get(key, 0.0) + time.thread_time() - cpu
    return timed


load_module._parse = cpu_into("parse", load_module._parse)
main_window_module._read = cpu_into("read", main_window_module._read)
worker_done = worker._done_in_thread
worker._done_in_thread = lambda *args: (mark("analysed_in_worker", ui=False), worker_done(*args))
cpu_at_findings = {}


def findings_shown(_analysis):
    window.repaint()
    arrived.append(time.perf_counter())
    arrived_cpu.append(time.process_time())
    mark("findings")
    clock.sample()
    cpu_at_findings.update(clock.by_name())


window.analysis.analysed.connect(findings_shown)
gaps = {"last": time.perf_counter(), "max": 0.0, "last_cpu": time.thread_time(), "cpu_max": 0.0}
longest = UiGaps(keep=3)


def tick():
    longest.tick()
    now, cpu = time.perf_counter(), time.thread_time()
    gaps["max"] = max(gaps["max"], now - gaps["last"])
    gaps["cpu_max"] = max(gaps["cpu_max"], cpu - gaps["last_cpu"])
    gaps["last"], gaps["last_cpu"] = now, cpu


ticker = QTimer()
ticker.setInterval(5)
ticker.timeout.connect(tick)
ticker.start()
app.processEvents()
# the open itself starts from the event loop, like a menu action does
load_at_start = os.getloadavg()[0]
started = time.perf_counter()
started_cpu = time.process_time()
started_ui = time.thread_time()
gaps["last"], gaps["last_cpu"] = started, time.thread_time()
longest.start()
QTimer.singleShot(0, lambda: window.open_path(path, ask=False))
frame = {}


def painted():
    # the first paint of the new project's cards: taken once that paint is over (the next turn of the loop)
    if "wall" not in frame and reset_paints and window.scene.entity_items and watch.painted > reset_paints[0]:
        frame["wall"] = None
        QTimer.singleShot(0, lambda: frame.update(wall=time.perf_counter() - started, cpu=time.process_time() - started_cpu))


watch.on_paint = painted
# a real event loop waits (the app's own sleeps between events): a loop of processEvents() and sleeps took
# a second and more of the UI thread's CPU at 10,000 entities, and its share of the interpreter from the analysis
waiting = QEventLoop()
poll = QTimer()
poll.setInterval(20)
poll.timeout.connect(lambda: (arrived and built) and waiting.quit())
poll.start()
QTimer.singleShot(600_000, waiting.quit)
waiting.exec()
poll.stop()
first_frame, first_frame_cpu = frame.get("wall"), frame.get("cpu")
to_findings = arrived[0] - started if arrived else float("nan")
clock.sample()
tick()  # the hand-over of the findings ran after the last tick: without this its stall went uncounted
ticker.stop()
longest.stop()
print(json.dumps({
    "first_frame_s": first_frame, "first_frame_cpu_s": first_frame_cpu, "in_view_s": in_view[0] - started if in_view else float("nan"), "built_s": built[0] - started if built else float("nan"), "to_findings_s": to_findings, "to_findings_cpu_s": arrived_cpu[0] - started_cpu if arrived_cpu else float("nan"), "blocked_max_ms": gaps["max"] * 1000, "busy_max_ms": gaps["cpu_max"] * 1000,
    "built_cpu_s": built_cpu[0] - started_cpu if built_cpu else float("nan"),
    "timeline": timeline, "cpu_at_findings": cpu_at_findings, "cpu_at_built": clock.by_name(),
    "rss_mib": rss_mib(), "read_cpu": read_cpu, "load": max(load_at_start, os.getloadavg()[0]), "findings": len(window.analysis.latest.findings) if window.analysis.latest else 0,
    "longest_gaps": longest.report(started, timeline), "gil_gaps": longest.report(started, timeline, gil=True),
}))
os._exit(0)
"""


def sizes() -> list[int]:
    raw = os.environ.get("MODELLER_BENCH_OPEN_SIZES", "")
    if not raw.strip():
        return list(DEFAULT_SIZES)
    return [int(part) for part in raw.split(",") if part.strip()]


def measure(n: int) -> dict[str, Any]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), str(n)],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"open benchmark ({n}) failed ({done.returncode}): {done.stderr[-2000:]}")
    return dict(json.loads(lines[-1]))


def threads_until_findings(n: int, m: dict[str, Any]) -> list[dict[str, Any]]:
    """The CPU of each thread until the findings, and the hand-over's share of the UI thread."""
    timeline = m["timeline"]
    cpu = {**m["cpu_at_findings"], "MainThread": timeline.get("findings", (0, float("nan")))[1]}
    rows = [
        {"name": f"open.{n}.cpu.{name}", "value": round(seconds, 2), "unit": "s cpu", "target": None}
        for name, seconds in sorted(cpu.items())
        if name != "unnamed"
    ]
    read = m.get("read_cpu", {})
    if "read" in read and "parse" in read:
        rows += [
            {"name": f"open.{n}.read_cpu", "value": round(read["read"] * 1000), "unit": "ms cpu", "target": None},
            {"name": f"open.{n}.parse_cpu", "value": round(read["parse"] * 1000), "unit": "ms cpu", "target": None},
            {
                "name": f"open.{n}.validate_cpu",
                "value": round((read["read"] - read["parse"]) * 1000),
                "unit": "ms cpu",
                "target": None,
            },
        ]
    if "read" in timeline and "analysis_started" in timeline:
        wait = timeline["analysis_started"][0] - timeline["read"][0]
        rows.append({"name": f"open.{n}.analysis_wait", "value": round(wait * 1000), "unit": "ms", "target": None})
    if "analysis_started" in timeline and "handover" in timeline:
        during = timeline["handover"][1] - timeline["analysis_started"][1]
        rows.append(
            {"name": f"open.{n}.ui_cpu_in_analysis", "value": round(during * 1000), "unit": "ms cpu", "target": None}
        )
    if "handover" in timeline and "findings" in timeline:
        (start, start_cpu), (end, end_cpu) = timeline["handover"], timeline["findings"]
        rows.append({"name": f"open.{n}.handover", "value": round((end - start) * 1000), "unit": "ms", "target": None})
        rows.append(
            {
                "name": f"open.{n}.handover_ui_cpu",
                "value": round((end_cpu - start_cpu) * 1000),
                "unit": "ms cpu",
                "target": None,
            }
        )
    return rows


def describe_gap(gap: dict[str, Any]) -> str:
    """One line for a gap of :meth:`UiGaps.report`: its step, how it splits, who ran, where."""
    threads = ", ".join(f"{name} {ms} ms" for name, ms in gap["threads_cpu_ms"].items()) or "none"
    doing = "; ".join(f"{name}: {where}" for name, where in gap["doing"].items())
    return (
        f"at {gap['at_s']} s, {gap['step']}: UI cpu {gap['ui_cpu_ms']} ms, run queue {gap['run_queue_ms']} ms, "
        f"GIL wait {gap['gil_wait_ms']} ms; other threads' cpu: {threads}; in {doing or '-'}"
    )


def gap_rows(n: int, m: dict[str, Any]) -> list[dict[str, Any]]:
    """The UI thread's three longest gaps and the three longest waits for the GIL, each with its step and split
    (the ``note`` the table prints)."""
    return [
        {
            "name": f"open.{n}.gap{rank}",
            "value": gap["wall_ms"],
            "unit": "ms",
            "target": None,
            "note": describe_gap(gap),
        }
        for rank, gap in enumerate(m.get("longest_gaps", []), start=1)
    ] + [
        {
            "name": f"open.{n}.gil_wait{rank}",
            "value": gap["gil_wait_ms"],
            "unit": "ms",
            "target": None,
            "note": describe_gap(gap),
        }
        for rank, gap in enumerate(m.get("gil_gaps", []), start=1)
    ]


def run() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n in sizes():
        m = measure(n)
        frame_t, findings_t, rss_t = TARGETS.get(n, (None, None, None))
        rows += [
            {"name": f"open.{n}.first_frame", "value": round(m["first_frame_s"], 2), "unit": "s", "target": frame_t},
            {
                "name": f"open.{n}.first_frame_cpu",
                "value": round(m["first_frame_cpu_s"], 2),
                "unit": "s cpu",
                "target": None,
            },
            {"name": f"open.{n}.in_view", "value": round(m["in_view_s"], 2), "unit": "s", "target": None},
            {"name": f"open.{n}.built", "value": round(m["built_s"], 2), "unit": "s", "target": None},
            {"name": f"open.{n}.built_cpu", "value": round(m["built_cpu_s"], 2), "unit": "s cpu", "target": None},
            {"name": f"open.{n}.to_findings", "value": round(m["to_findings_s"], 2), "unit": "s", "target": findings_t},
            {
                "name": f"open.{n}.to_findings_cpu",
                "value": round(m["to_findings_cpu_s"], 2),
                "unit": "s cpu",
                "target": None,
            },
            {"name": f"open.{n}.ui_blocked_max", "value": round(m["blocked_max_ms"]), "unit": "ms", "target": None},
            {"name": f"open.{n}.ui_busy_max", "value": round(m["busy_max_ms"]), "unit": "ms cpu", "target": None},
            *gap_rows(n, m),
            *threads_until_findings(n, m),
            {"name": f"open.{n}.rss", "value": round(m["rss_mib"]), "unit": "MiB", "target": rss_t},
            {"name": f"open.{n}.findings", "value": m["findings"], "unit": "findings", "target": None},
            {"name": f"open.{n}.load", "value": round(m["load"], 1), "unit": "load avg", "target": None},
        ]
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
