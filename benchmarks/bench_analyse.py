"""``analyse`` on generated projects of 100, 1,000 and 5,000 entities (1.5 relationships, 0.5 queries each).

Targets (DESIGN.md "Performance"): full analysis <= 50 ms for 1,000
entities, re-analysis after one edit <= 5 ms (incremental), growth close to
linear. Full figures are medians of several cold runs (a fresh ``analyse``
each time); incremental figures are medians over several single edits made
the way the GUI makes them (``model_copy`` of the edited object) and
analysed by one :class:`~modeller.rules.engine.Analyser`. CPU time is the
steadier figure on a shared machine; wall time is reported next to it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.rules import analyse
from modeller.rules.engine import Analyser

SIZES = ((100, 7), (1000, 5), (5000, 3))
INCREMENTAL_SIZES = ((1000, 7), (5000, 5))


def _timed(call: Callable[[], Any]) -> tuple[float, float]:
    """(wall, CPU) seconds of one call."""
    started, started_cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - started, time.process_time() - started_cpu


def _median_ms(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples) * 1000, statistics.median(s[1] for s in samples) * 1000


def full_ms(project: Project, repeat: int) -> tuple[float, float]:
    """(wall, CPU) medians in ms of a full analysis."""
    analyse(project)  # warm-up (imports, caches of rule documentation)
    return _median_ms([_timed(lambda: analyse(project)) for _ in range(repeat)])


def rename_field(project: Project, i: int) -> Project:
    """The GUI's field rename: new field, new entity, every other object kept."""
    entities = list(project.entities)
    entity = entities[i % len(entities)]
    fields = list(entity.fields)
    fields[-1] = fields[-1].model_copy(update={"name": f"{fields[-1].name}_{i}"})
    entities[i % len(entities)] = entity.model_copy(update={"fields": fields})
    return project.model_copy(update={"entities": entities})


def change_cardinality(project: Project, i: int) -> Project:
    """The GUI's cardinality change of one relationship."""
    rels = list(project.relationships)
    rel = rels[i % len(rels)]
    new = "one-to-many" if rel.cardinality != "one-to-many" else "one-to-few"
    rels[i % len(rels)] = rel.model_copy(update={"cardinality": new, "max": None, "typical": None})
    return project.model_copy(update={"relationships": rels})


def incremental_ms(project: Project, edit: Callable[[Project, int], Project], repeat: int) -> tuple[float, float]:
    """(wall, CPU) medians in ms of re-analysing after one edit."""
    analyser = Analyser()
    analyser.analyse(project)
    samples = []
    for k in range(repeat):
        project = edit(project, k * 101 + 7)
        edited = project
        samples.append(_timed(lambda edited=edited: analyser.analyse(edited)))  # type: ignore[misc]
        if analyser.last_mode != "incremental":
            raise AssertionError("the re-analysis did not reuse the previous one")
    return _median_ms(samples)


def run() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    per_entity: dict[int, float] = {}
    projects = {n: generate_project(n, 1.5, 0.5, seed=0) for n, _ in SIZES}
    for n, repeat in SIZES:
        wall, cpu = full_ms(projects[n], repeat)
        per_entity[n] = cpu / n
        target = 50 if n == 1000 else None
        out.append({"name": f"analyse.full.{n}_entities.cpu", "value": round(cpu, 1), "unit": "ms", "target": target})
        out.append({"name": f"analyse.full.{n}_entities.wall", "value": round(wall, 1), "unit": "ms", "target": None})
    out.append(
        {
            "name": "analyse.full.growth_5000_vs_1000",
            "value": round(per_entity[5000] / per_entity[1000], 2),
            "unit": "x per entity",
            "target": 1.5,
        }
    )
    incremental: dict[int, float] = {}
    for n, repeat in INCREMENTAL_SIZES:
        for label, edit in (("rename_field", rename_field), ("cardinality", change_cardinality)):
            wall, cpu = incremental_ms(projects[n], edit, repeat)
            incremental[n] = max(incremental.get(n, 0.0), cpu)
            target = 5 if n == 1000 else None
            name = f"analyse.incremental.{label}.{n}_entities"
            out.append({"name": f"{name}.cpu", "value": round(cpu, 2), "unit": "ms", "target": target})
            out.append({"name": f"{name}.wall", "value": round(wall, 2), "unit": "ms", "target": None})
    out.append(
        {
            "name": "analyse.incremental.growth_5000_vs_1000",
            "value": round(incremental[5000] / incremental[1000], 2),
            "unit": "x (5x the entities)",
            "target": None,
        }
    )
    return out


if __name__ == "__main__":
    for row in run():
        print(row)
