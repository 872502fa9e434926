"""``analyse`` on generated projects of 100, 1,000 and 5,000 entities (1.5 relationships, 0.5 queries each).

Target (DESIGN.md, issue 3): <= 50 ms for 1,000 entities, growth close to
linear. Each figure is the median of several runs after a warm-up; the
``per_entity`` figures show whether growth stays linear.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from benchmarks.generate import generate_project
from modeller.rules import analyse

SIZES = ((100, 7), (1000, 5), (5000, 3))


def _median_ms(project: Any, repeat: int) -> tuple[float, float]:
    """(wall, CPU) medians in ms; CPU time is the steadier figure on a shared machine."""
    analyse(project)  # warm-up
    wall, cpu = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        analyse(project)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def run() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    per_entity: dict[int, float] = {}
    for n, repeat in SIZES:
        project = generate_project(n, 1.5, 0.5, seed=0)
        ms = _median_ms(project, repeat)
        per_entity[n] = ms / n
        out.append(
            {"name": f"analyse.{n}_entities", "value": round(ms, 1), "unit": "ms", "target": 50 if n == 1000 else None}
        )
    out.append(
        {
            "name": "analyse.growth_5000_vs_1000",
            "value": round(per_entity[5000] / per_entity[1000], 2),
            "unit": "x per entity",
            "target": 1.5,
        }
    )
    return out


if __name__ == "__main__":
    for row in run():
        print(row)
