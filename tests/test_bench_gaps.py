"""bench_open's gaps: each of the UI thread's longest gaps names the thread that ran in it, its step and where.

Content, not time: a thread holding the GIL in one long C call is the only other thread running, so the gap
it makes holds its CPU and its name; the table prints each gap's note under the rows.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root holds benchmarks/

from benchmarks.bench_open import describe_gap, gap_rows
from benchmarks.gui_child import UiGaps
from benchmarks.run import format_table


def test_a_gap_names_the_thread_that_held_the_interpreter_and_the_step_it_fell_in() -> None:
    gaps = UiGaps(keep=3)
    origin = time.perf_counter()
    gaps.start()
    for _ in range(3):  # short gaps of its own first: three are kept
        time.sleep(0.005)
        gaps.tick()
    summed, release = threading.Event(), threading.Event()

    def work() -> None:
        sum(range(20_000_000))  # one C call: the GIL is not given back until it returns
        summed.set()
        release.wait(60)  # alive at the next tick: a thread that ended is no longer seen

    busy = threading.Thread(target=work, name="modeller-analysis_0")
    busy.start()
    while not summed.is_set():
        time.sleep(0.005)
        gaps.tick()
    gaps.tick()
    gaps.stop()
    release.set()
    busy.join()

    timeline = {"read": (0.0, 0.0), "shown": (1e6, 0.0)}
    reported = gaps.report(origin, timeline)
    assert len(reported) == 3
    assert [g["wall_ms"] for g in reported] == sorted((g["wall_ms"] for g in reported), reverse=True)
    held = [g for g in reported if "modeller-analysis" in g["threads_cpu_ms"]]
    assert held, reported  # the gap the C call made holds the worker's CPU, under its name without the counter
    gap = held[0]
    assert gap["threads_cpu_ms"]["modeller-analysis"] > 0
    assert gap["step"] == "showing the read project (reset, first slice)"
    assert gap["wall_ms"] >= gap["ui_cpu_ms"] and gap["gil_wait_ms"] >= 0
    by_wait = gaps.report(origin, timeline, gil=True)
    assert [g["gil_wait_ms"] for g in by_wait] == sorted((g["gil_wait_ms"] for g in by_wait), reverse=True)


def test_the_table_prints_each_gap_with_its_note() -> None:
    gap = {
        "at_s": 30.5,
        "wall_ms": 139,
        "ui_cpu_ms": 125,
        "run_queue_ms": 4,
        "gil_wait_ms": 10,
        "threads_cpu_ms": {"modeller-check": 12},
        "step": "hand-over of the findings",
        "doing": {"MainThread": "findings_model._merge_all < findings_model._set_analysis"},
    }
    rows = gap_rows(10000, {"longest_gaps": [gap], "gil_gaps": [gap]})
    assert [r["name"] for r in rows] == ["open.10000.gap1", "open.10000.gil_wait1"]
    assert [r["value"] for r in rows] == [139, 10]
    note = describe_gap(gap)
    assert "hand-over of the findings" in note and "UI cpu 125 ms" in note and "GIL wait 10 ms" in note
    assert "modeller-check 12 ms" in note and "findings_model._merge_all" in note
    table = format_table([{**r, "ok": None} for r in rows])
    assert f"  open.10000.gap1: {note}" in table.splitlines()
