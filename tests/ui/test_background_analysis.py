"""Opening a large project never freezes the window: its first analysis runs in the background
(newest request wins, stale results are dropped) while the status bar says "Analysing…";
small projects keep the immediate analysis on the UI thread."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.persistence import save_project
from modeller.rules.framework.analysis import Analysis
from modeller.rules.physical.design import Design, RelationshipDesign
from modeller.ui.analysis import LARGE_PROJECT, is_large
from modeller.ui.commands import EditEntityCommand
from modeller.ui.main_window import MainWindow

from .conftest import sample


class GatedEngine:
    """A fake analyse() that blocks until released and records which thread ran it, on which names."""

    def __init__(self, gated: bool = True) -> None:
        self.gate = threading.Event()
        if not gated:
            self.gate.set()
        self.started = threading.Event()
        self.calls: list[tuple[str, str]] = []  # (thread name, first entity's name)

    def __call__(self, project) -> Analysis:
        self.calls.append((threading.current_thread().name, project.entities[0].name if project.entities else ""))
        self.started.set()
        assert self.gate.wait(10), "the test never released the engine"
        rels = [
            RelationshipDesign(r.id, "parent-ref", "engine", [], [], project.entities[0].name)
            for r in project.relationships
        ]
        return Analysis(findings=[], design=Design(database="test", collections=[], relationships=rels))


def large_file(tmp_path: Path) -> Path:
    project = generate_project(n_entities=40, rels_per_entity=1.5, queries_per_entity=0.5, seed=3)
    assert is_large(project) and len(project.entities) < LARGE_PROJECT
    path = tmp_path / "large.modeller.json"
    save_project(project, path)
    return path


def test_open_large_project_analyses_in_background(make_window, qtbot, tmp_path: Path) -> None:
    engine = GatedEngine()
    window: MainWindow = make_window(analyse=engine)
    path = large_file(tmp_path)
    ticks: list[int] = []
    window.analysis.running.connect(lambda on: ticks.append(int(on)))

    assert window.open_path(path, ask=False)  # returns although the engine is blocked
    qtbot.waitUntil(engine.started.is_set, timeout=5000)
    qtbot.wait(30)  # the UI thread keeps handling events meanwhile
    # the first analysis of the opened project says how much it reads
    assert window.findings_label.text() == f"Analysing {len(window.document.project.entities)} entities…"
    assert window.analysis.latest is None and window.analysis.background
    assert engine.calls[0][0].startswith("modeller-analysis")

    first_name = window.document.project.entities[0].name
    renamed = window.document.project.entities[0].model_copy(update={"name": "Renamed while analysing"})
    window.document.push(EditEntityCommand(window.document, renamed, "Rename"))
    qtbot.wait(window.analysis.delay_ms + 50)  # the newer request is queued behind the running one

    with qtbot.waitSignal(window.analysis.analysed, timeout=5000) as blocker:
        engine.gate.set()
    # the result for the project as opened was stale: only the renamed state reaches the panels
    assert [c[1] for c in engine.calls] == [first_name, "Renamed while analysing"]
    assert blocker.args[0].design.relationships[0].why == "Renamed while analysing"
    qtbot.waitUntil(lambda: not window.analysis.background, timeout=2000)
    assert not window.findings_label.text().startswith("Analysing")
    assert window.analysis.latest is blocker.args[0]
    assert ticks == [1, 0]
    rel = window.document.project.relationships[0]
    assert window.scene.relationship_items[rel.id].badge_text() in (f"auto → {'parent-ref'}", rel.strategy)


def test_small_project_is_analysed_at_once_on_the_ui_thread(make_window, qtbot) -> None:
    engine = GatedEngine(gated=False)
    window: MainWindow = make_window(analyse=engine)
    ticks: list[bool] = []
    window.analysis.running.connect(ticks.append)
    with qtbot.waitSignal(window.analysis.analysed, timeout=2000):
        assert window.open_path(sample("task-tracker"), ask=False)
    assert engine.calls and all(thread == threading.main_thread().name for thread, _ in engine.calls)
    assert ticks == [] and not window.analysis.background
    assert not window.findings_label.text().startswith("Analysing")


def test_slow_analysis_moves_to_the_worker_even_for_a_small_project(make_window, qtbot) -> None:
    engine = GatedEngine(gated=False)
    window: MainWindow = make_window(analyse=engine)
    with qtbot.waitSignal(window.analysis.analysed, timeout=2000):
        assert window.open_path(sample("task-tracker"), ask=False)
    window.analysis.last_seconds = 0.5  # as if the last run had taken half a second
    person = window.document.entity("person")
    with qtbot.waitSignal(window.analysis.analysed, timeout=3000):
        window.document.push(EditEntityCommand(window.document, person.model_copy(update={"name": "Human"})))
    assert engine.calls[-1] == (engine.calls[-1][0], "Human")
    assert engine.calls[-1][0].startswith("modeller-analysis")
