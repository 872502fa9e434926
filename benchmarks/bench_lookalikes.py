"""The worst case of the polymorphic check, and of the loader's error report: many look-alike entities.

Two engine steps used to grow with the square of the model: the polymorphic rule compared every pair of
entities that share fields (3,200 look-alike entities: 55 s and 1.5 GB), and the loader located each
validation error by counting lines from the start of the file (10,000 errors: 26 s). Both must now grow
linearly; the figures are informational (DESIGN.md: analysis near-linear in size).
"""

from __future__ import annotations

import json
import time
import tracemalloc
from typing import Any

from benchmarks.generate import generate_data
from modeller.model import Project
from modeller.persistence import ProjectFileError, loads_project
from modeller.rules import analyse

SIZES = (1000, 5000, 10000)
COMMON = ("title", "status", "label", "code", "notes")


def lookalikes(n: int) -> dict[str, Any]:
    """A generated project whose entities each keep one field of their own and share the same five."""
    data = generate_data(n, 1.5, 0.5, seed=7)
    for i, entity in enumerate(data["entities"]):
        entity["fields"] = [{"name": f"own_{i}", "type": "int"}] + [{"name": c, "type": "string"} for c in COMMON]
    return data


def _analyse_figure(n: int) -> dict[str, Any]:
    project = Project.model_validate(lookalikes(n))
    started = time.process_time()
    analysis = analyse(project)
    seconds = time.process_time() - started
    assert any(f.rule == "polymorphic-pattern" for f in analysis.findings)
    return {"name": f"look-alikes: analyse {n:,} entities", "value": seconds * 1000, "unit": "ms CPU", "target": None}


def _memory_figure(n: int) -> dict[str, Any]:
    """Peak memory the analysis allocates (tracemalloc slows it down 2-3x: measured apart from the time)."""
    project = Project.model_validate(lookalikes(n))
    tracemalloc.start()
    analyse(project)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"name": f"look-alikes: analyse {n:,} peak memory", "value": peak / 2**20, "unit": "MiB", "target": None}


def _error_report_figure(n: int) -> dict[str, Any]:
    data = lookalikes(n)
    for entity in data["entities"]:
        entity["fields"][0]["type"] = "strin"  # one error per entity
    text = json.dumps(data, indent=2)
    started = time.process_time()
    try:
        loads_project(text, source="lookalikes.modeller.json")
    except ProjectFileError as exc:
        located = sum(p.line is not None for p in exc.problems)
    else:
        raise AssertionError("the project with one error per entity loaded")
    seconds = time.process_time() - started
    assert located >= n, f"{located} errors reported for {n} entities"
    return {"name": f"load with {n:,} errors, all located", "value": seconds * 1000, "unit": "ms CPU", "target": None}


def run() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    rows.extend(_analyse_figure(n) for n in SIZES)
    rows.append(_memory_figure(SIZES[-1]))
    rows.append(_error_report_figure(10000))
    return rows
