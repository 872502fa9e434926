"""Query planner benchmark: planning every query and write of the generated 1,000-entity project.

The planner runs inside every resolve (and every incremental patch), so its
time adds to "edit -> findings on screen" (DESIGN.md "Performance targets").
Measured on a design resolved once, in CPU time (the machine is shared) with
the cyclic collector off as inside an analysis, best of a few runs:
``plan_design`` from nothing (a full analysis), with every plan cached (an
edit that changed no unit re-plans nothing), and the mongosh rendering of
every plan (what ``design --format json`` adds). Informational figures (no
target of their own).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

from benchmarks.generate import generate_project
from modeller.export.query_plans import query_mongosh
from modeller.rules import analyse
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.physical.facts import build_context
from modeller.rules.physical.planner import PlanCache, QueryPlan, WritePlan, plan_design
from modeller.rules.physical.resolver import resolve
from modeller.rules.settings import DEFAULT_SETTINGS

N_ENTITIES = 1000
REPEAT = 7


def _cpu_ms(call: Callable[[], Any]) -> tuple[float, Any]:
    """CPU milliseconds of ``call()`` with the cyclic collector off, as inside ``Analyser.analyse``."""
    gc.disable()
    try:
        start = time.process_time()
        value = call()
        return (time.process_time() - start) * 1000, value
    finally:
        gc.enable()


def run() -> list[dict[str, Any]]:
    project = generate_project(N_ENTITIES, 1.5, 0.5, seed=1)
    analyse(project)  # imports and registers the rules
    ctx = build_context(project, DEFAULT_SETTINGS)
    design, res = resolve(ctx, REGISTRY.deciders())
    cold: list[float] = []
    cached: list[float] = []
    queries: list[QueryPlan] = []
    writes: list[WritePlan] = []
    for _ in range(REPEAT):
        ms, (queries, writes) = _cpu_ms(lambda: plan_design(ctx, design, res))
        cold.append(ms)
        cache = PlanCache()
        plan_design(ctx, design, res, cache)
        cached.append(_cpu_ms(lambda: plan_design(ctx, design, res, cache))[0])  # noqa: B023 (called at once)
    render_ms, _ = _cpu_ms(lambda: [query_mongosh(plan) for plan in queries])
    return [
        {"name": f"planner.cold.{N_ENTITIES}_entities.cpu", "value": min(cold), "unit": "ms", "target": None},
        {"name": f"planner.unchanged.{N_ENTITIES}_entities.cpu", "value": min(cached), "unit": "ms", "target": None},
        {"name": "planner.queries_planned", "value": len(queries), "unit": "queries", "target": None},
        {"name": "planner.writes_planned", "value": len(writes), "unit": "writes", "target": None},
        {"name": "planner.mongosh_render.cpu", "value": render_ms, "unit": "ms", "target": None},
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:45} {row['value']:>10.1f} {row['unit']}")
