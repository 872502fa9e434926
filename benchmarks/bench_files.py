"""Open and save a generated project of 1,000 entities, 1,500 relationships and 500 queries.

Targets (DESIGN.md, issue 2): load + validate <= 300 ms, save <= 200 ms.
Each figure is the median of several runs after one warm-up, so a single
slow run on a busy machine does not decide the result.
"""

from __future__ import annotations

import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.generate import generate_project
from modeller.persistence import dumps_project, load_project, save_project

REPEAT = 7


def _median_ms(action: Callable[[], object], repeat: int = REPEAT) -> tuple[float, float]:
    """Median wall time and median CPU time of ``action`` in ms.

    The CPU time shows how much of a slow wall time is the machine being
    busy with other work (wall much larger than CPU) rather than our code.
    """
    action()  # warm-up: imports, caches
    wall, cpu = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def run() -> list[dict[str, Any]]:
    project = generate_project(1000, 1.5, 0.5, seed=0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.modeller.json"
        save_project(project, path)
        size_kb = path.stat().st_size / 1024
        load_ms, load_cpu = _median_ms(lambda: load_project(path))
        save_ms, save_cpu = _median_ms(lambda: save_project(project, path))
        dumps_ms, _ = _median_ms(lambda: dumps_project(project))
        tracemalloc.start()
        load_project(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return [
        {"name": "files.size", "value": round(size_kb), "unit": "KiB", "target": None},
        {"name": "files.load_validate", "value": round(load_ms, 1), "unit": "ms", "target": 300},
        {"name": "files.load_validate_cpu", "value": round(load_cpu, 1), "unit": "ms cpu", "target": None},
        {"name": "files.save", "value": round(save_ms, 1), "unit": "ms", "target": 200},
        {"name": "files.save_cpu", "value": round(save_cpu, 1), "unit": "ms cpu", "target": None},
        {"name": "files.dumps", "value": round(dumps_ms, 1), "unit": "ms", "target": None},
        {"name": "files.load_peak_memory", "value": round(peak / 2**20, 1), "unit": "MiB", "target": None},
    ]
