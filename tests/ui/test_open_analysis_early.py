"""Issue 16: an open's analysis starts as the window shows the project, and runs once.

On a generated project large enough to be read in the background: the file is read, validated and checked once;
the analysis is handed to its worker as soon as the document is reset (the reset's slots run alone with the
interpreter, the cards after it share it), the reset schedules no second analysis of the same project, an edit
made while it runs still gets its own, and the findings fill the findings list in one reset. Order of events and
counts, not time.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

import modeller.persistence.load as load
from modeller.model import Project
from modeller.persistence import save_project
from modeller.ui.analysis import engine_analyse
from modeller.ui.commands.entity import EditEntityCommand
from modeller.ui.main_window import opens_in_background

from .big_model import big_project

pytestmark = pytest.mark.slow

ENTITIES = 300


@pytest.fixture
def big_file(tmp_path: Path) -> Path:
    path = tmp_path / "big.modeller.json"
    save_project(big_project(ENTITIES), path)
    assert opens_in_background(path)
    return path


def watched(window: Any, events: list[tuple[str, Any]]) -> None:
    """Record, on the UI thread, each hand-over to the worker (with the project then shown) and each reset."""
    worker = window.analysis._worker
    submit = worker.submit

    def recorded(generation: int, project: Project) -> None:
        events.append(("submitted", project, window.document.project is project))
        submit(generation, project)

    worker.submit = recorded
    window.document.project_reset.connect(lambda: events.append(("reset", window.document.project, None)))


def test_the_analysis_is_handed_over_as_the_project_is_shown_and_runs_once(make_window, qtbot, big_file) -> None:
    analysed: list[Project] = []
    real = engine_analyse()

    def analyse(project: Project) -> Any:
        analysed.append(project)
        return real(project)

    window = make_window(analyse=analyse)
    events: list[tuple[str, Any]] = []
    watched(window, events)
    checked: list[bool] = []
    window.open_finished.connect(checked.append)
    findings: list[Any] = []
    window.analysis.analysed.connect(findings.append)

    assert window.open_path(big_file, ask=False)
    qtbot.waitUntil(lambda: bool(checked) and bool(findings), timeout=120_000)
    qtbot.wait(200)  # turns of the event loop: nothing more is handed to the worker

    opened = window.document.project
    assert checked == [True] and len(opened.entities) == ENTITIES
    steps = [(step, project is opened, shown) for step, project, shown in events]
    # the reset, then handed over at once (the reset's own scheduled analysis never ran), and nothing more
    assert steps == [("reset", True, None), ("submitted", True, True)], steps
    assert len(analysed) == 1 and analysed[0] is opened
    assert len(findings) == 1 and window.analysis.latest is findings[0]
    assert window.recommendations.visible_findings()


def test_an_edit_while_the_early_analysis_runs_is_analysed_after_it(make_window, qtbot, big_file) -> None:
    release = threading.Event()
    real = engine_analyse()
    analysed: list[Project] = []

    def held_back(project: Project) -> Any:
        analysed.append(project)
        assert release.wait(60), "the test never released the analysis"
        return real(project)

    window = make_window(analyse=held_back)
    findings: list[Any] = []
    window.analysis.analysed.connect(findings.append)
    assert window.open_path(big_file, ask=False)
    qtbot.waitUntil(lambda: len(window.document.project.entities) == ENTITIES and bool(analysed), timeout=60_000)
    opened = window.document.project
    renamed = opened.entities[0].model_copy(update={"name": "Renamed Early"})
    window.document.push(EditEntityCommand(window.document, renamed, "Rename"))
    edited = window.document.project
    assert edited is not opened
    release.set()

    qtbot.waitUntil(lambda: bool(findings), timeout=120_000)
    qtbot.waitUntil(lambda: not window.analysis.background, timeout=120_000)
    # the open's analysis was made stale by the edit: the findings shown are the edited project's, analysed once
    assert [p is opened for p in analysed] == [True, False] and analysed[1] is edited
    assert len(findings) == 1 and window.analysis.latest is findings[0]


def test_the_findings_of_an_open_fill_the_findings_list_in_one_reset(make_window, qtbot, big_file) -> None:
    window = make_window(analyse=engine_analyse())
    window.document.reset(big_project(80))  # a project with findings listed before the open
    window.analysis.run_now()
    model = window.recommendations.model
    before = model.rowCount()
    assert before > 0
    signals: list[str] = []
    model.modelReset.connect(lambda: signals.append("reset"))
    model.rowsInserted.connect(lambda *_: signals.append("inserted"))
    model.rowsRemoved.connect(lambda *_: signals.append("removed"))
    findings: list[Any] = []
    window.analysis.analysed.connect(findings.append)

    assert window.open_path(big_file, ask=False)
    qtbot.waitUntil(lambda: bool(findings), timeout=120_000)

    assert signals == ["reset"]
    listed = sum(len(group) for group in model.groups)
    assert listed == len(findings[0].findings) > 0


def test_an_open_reads_validates_and_checks_the_file_once(make_window, qtbot, big_file, monkeypatch) -> None:
    calls: dict[str, int] = {"read": 0, "validated": 0, "checked": 0}

    def counted(name: str, function: Any) -> Any:
        def count(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return count

    monkeypatch.setattr(load, "loads_project", counted("read", load.loads_project))
    monkeypatch.setattr(load, "check_project", counted("checked", load.check_project))
    monkeypatch.setattr(Project, "model_validate", counted("validated", Project.model_validate))
    window = make_window(analyse=engine_analyse())
    checked: list[bool] = []
    window.open_finished.connect(checked.append)

    assert window.open_path(big_file, ask=False)
    qtbot.waitUntil(lambda: bool(checked), timeout=120_000)

    assert checked == [True] and len(window.document.project.entities) == ENTITIES
    assert calls == {"read": 1, "validated": 1, "checked": 1}


def test_the_open_s_checks_start_after_the_hand_over_of_its_findings(make_window, qtbot, big_file) -> None:
    """The check thread would take turns at the GIL with the findings list's fill (the open's longest UI stall):
    while any slot of ``analysed`` runs, the checks have not started; they start on a later turn and pass."""
    window = make_window(analyse=engine_analyse())
    started_during: list[bool] = []

    def hand_over(_analysis: Any) -> None:  # connected last: every other slot of the hand-over ran before it
        job = window.open_job
        started_during.append(job is not None and job.thread is not None)

    window.analysis.analysed.connect(hand_over)
    checked: list[bool] = []
    window.open_finished.connect(checked.append)
    assert window.open_path(big_file, ask=False)
    qtbot.waitUntil(lambda: bool(checked), timeout=120_000)

    assert started_during == [False]
    assert checked == [True] and len(window.document.project.entities) == ENTITIES
