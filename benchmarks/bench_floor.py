"""The least a complete analysis of a generated project can cost in this interpreter, whatever the rules do.

``analyse`` must at least read every declared field of the model once and
allocate the objects it returns: one ``ShapeNode`` per node of every
collection's document shape, one ``IndexDesign`` per index and one
``Finding`` per finding. This module times exactly that — with the counts
taken from a real ``analyse`` of the same project and no logic at all — so
the full-analysis figure of ``bench_analyse`` can be read against what is
physically possible here (DESIGN.md retired its 50 ms target for this floor: keep near 250 ms).
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

from benchmarks.generate import generate_project
from modeller.model import Field, Project
from modeller.rules import analyse
from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.findings import Finding, SubjectRef
from modeller.rules.physical.design import IndexDesign, ShapeNode

SIZE = 1000
REPEAT = 7


def _read_fields(fields: list[Field]) -> int:
    """Read each field's attributes the engine needs at least once (name, type, nested fields, items)."""
    n = 0
    for f in fields:
        n += 1
        _ = (f.name, f.type, f.required, f.max_items, f.bytes)
        if f.fields:
            n += _read_fields(f.fields)
        if f.items is not None and f.items.fields:
            n += _read_fields(f.items.fields)
    return n


def read_model(project: Project) -> int:
    """Every entity, relationship and query attribute the engine reads, once."""
    n = sum(_read_fields(e.fields) for e in project.entities)
    for r in project.relationships:
        _ = (r.one, r.many, r.cardinality, r.typical, r.max, r.strategy, r.denormalize, r.read_together)
    for q in project.queries:
        _ = (q.entity, q.filter, q.sort, q.limit, q.joins)
    return n


def _count_nodes(nodes: list[ShapeNode]) -> int:
    n = 0
    for node in nodes:
        n += 1 + _count_nodes(node.children)
        if node.items is not None:
            n += 1 + _count_nodes(node.items.children)
    return n


def counts(analysis: Analysis) -> tuple[int, int, int]:
    """(shape nodes, indexes, findings) of a real analysis."""
    colls = analysis.design.collections
    return (
        sum(_count_nodes(c.shape) for c in colls),
        sum(len(c.indexes) for c in colls),
        len(analysis.findings),
    )


def allocate(nodes: int, indexes: int, findings: int) -> list[Any]:
    """Allocate as many output objects as the analysis returns, with no computation behind them."""
    subject = SubjectRef("entity", "e")
    out: list[Any] = [ShapeNode(f"f{i}", "string", required=True) for i in range(nodes)]
    out.extend(IndexDesign([("a", 1)], f"ix{i}") for i in range(indexes))
    out.extend(Finding("rule", "info", subject, f"message {i}", "why", "tradeoff", "ref") for i in range(findings))
    return out


def _cpu_ms(call: Any) -> float:
    """Median CPU ms, with the cyclic GC off as ``analyse`` has it."""
    samples = []
    gc.disable()
    try:
        for _ in range(REPEAT):
            started = time.process_time()
            call()
            samples.append((time.process_time() - started) * 1000)
    finally:
        gc.enable()
    return statistics.median(samples)


def run() -> list[dict[str, Any]]:
    project = generate_project(SIZE, 1.5, 0.5, seed=0)
    nodes, indexes, findings = counts(analyse(project))
    read = _cpu_ms(lambda: read_model(project))
    alloc = _cpu_ms(lambda: allocate(nodes, indexes, findings))
    name = f"analyse.floor.{SIZE}_entities"
    return [
        {"name": f"{name}.read_model.cpu", "value": round(read, 1), "unit": "ms", "target": None},
        {
            "name": f"{name}.allocate_{nodes}_nodes_{indexes}_indexes_{findings}_findings.cpu",
            "value": round(alloc, 1),
            "unit": "ms",
            "target": None,
        },
        {"name": f"{name}.total.cpu", "value": round(read + alloc, 1), "unit": "ms", "target": None},
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
