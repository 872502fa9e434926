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


def _median_ms(action: Callable[[], object], repeat: int = REPEAT) -> float:
    action()  # warm-up: imports, caches
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def run() -> list[dict[str, Any]]:
    project = generate_project(1000, 1.5, 0.5, seed=0)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.modeller.json"
        save_project(project, path)
        size_kb = path.stat().st_size / 1024
        load_ms = _median_ms(lambda: load_project(path))
        save_ms = _median_ms(lambda: save_project(project, path))
        dumps_ms = _median_ms(lambda: dumps_project(project))
        tracemalloc.start()
        load_project(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return [
        {"name": "files.size", "value": round(size_kb), "unit": "KiB", "target": None},
        {"name": "files.load_validate", "value": round(load_ms, 1), "unit": "ms", "target": 300},
        {"name": "files.save", "value": round(save_ms, 1), "unit": "ms", "target": 200},
        {"name": "files.dumps", "value": round(dumps_ms, 1), "unit": "ms", "target": None},
        {"name": "files.load_peak_memory", "value": round(peak / 2**20, 1), "unit": "MiB", "target": None},
    ]
