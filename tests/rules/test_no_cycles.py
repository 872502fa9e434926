"""No reference cycle survives an analysis.

Objects in a reference cycle are freed only by the cyclic garbage
collector, which then has to scan everything alive: one cycle reaching the
context or the design (a nested function that calls itself is enough) kept
~150k objects per analysis of 1,000 entities alive and cost a 150-210 ms
collection after each one. Here the collector runs disabled and in
``DEBUG_SAVEALL`` mode, so whatever it would have freed after an analysis is
counted and named.
"""

from __future__ import annotations

import gc
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.bench_analyse import change_cardinality, rename_field
from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.engine import Analyser

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.modeller.json"))


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """One analysis first: imports and one-time caches are not what an analysis leaves behind."""
    analyse(generate_project(20, 1.5, 0.5, seed=3))


def cyclic_garbage(call: Callable[[], Any]) -> list[Any]:
    """What the cyclic collector finds after ``call`` (collection held off while it runs, nothing is freed)."""
    was_enabled = gc.isenabled()
    gc.disable()
    gc.collect()
    gc.garbage.clear()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        call()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


def describe(garbage: list[Any]) -> str:
    """The types found, most frequent first (functions by name: a self-calling closure is the usual culprit)."""
    names = Counter(
        f"function {obj.__qualname__}" if callable(obj) and hasattr(obj, "__qualname__") else type(obj).__qualname__
        for obj in garbage
    )
    return ", ".join(f"{count} {name}" for name, count in names.most_common(12))


def assert_no_cycles(garbage: list[Any]) -> None:
    assert len(garbage) == 0, f"{len(garbage)} objects left in reference cycles: {describe(garbage)}"


def test_the_check_sees_a_cycle() -> None:
    """The helper is not blind: a self-referencing closure like the resolver's old ``place`` is found."""

    def leave_a_cycle() -> None:
        def place(depth: int) -> int:
            return depth if depth > 2 else place(depth + 1)

        place(0)

    garbage = cyclic_garbage(leave_a_cycle)
    assert garbage, "a nested function calling itself must be cyclic garbage"
    assert "function test_the_check_sees_a_cycle.<locals>.leave_a_cycle.<locals>.place" in describe(garbage)


def test_generated_project_leaves_no_cycles() -> None:
    project = generate_project(150, 1.5, 0.5, seed=0)
    assert_no_cycles(cyclic_garbage(lambda: analyse(project)))


def test_kept_analysis_holds_no_cycles() -> None:
    """The result the GUI keeps is freed by reference counting alone when it is replaced."""
    project = generate_project(150, 1.5, 0.5, seed=1)
    kept: list[Any] = [analyse(project)]
    assert_no_cycles(cyclic_garbage(kept.clear))


def _edits(project: Project) -> Iterator[Project]:
    for k in range(4):
        project = rename_field(project, k * 101 + 7)
        yield project
        project = change_cardinality(project, k * 37 + 3)
        yield project


def test_incremental_analyses_leave_no_cycles() -> None:
    """The GUI's analyser: patched and whole-model re-analyses, then a reset, leave nothing to collect."""
    project = generate_project(150, 1.5, 0.5, seed=2)
    analyser = Analyser()
    analyser.analyse(project)
    modes: set[tuple[str, bool]] = set()

    def reanalyse() -> None:
        for edited in _edits(project):
            analyser.analyse(edited)
            modes.add((analyser.last_mode, analyser.last_patched))

    assert_no_cycles(cyclic_garbage(reanalyse))
    assert ("incremental", True) in modes, "no edit took the patch path"
    assert_no_cycles(cyclic_garbage(analyser.reset))


def test_samples_are_there() -> None:
    assert len(SAMPLES) >= 5, "samples/ not found: the per-sample checks below would not run"


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_leaves_no_cycles(path: Path) -> None:
    project = load_project(path)
    assert_no_cycles(cyclic_garbage(lambda: analyse(project)))
