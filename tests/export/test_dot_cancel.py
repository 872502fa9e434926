"""Cancel stops Graphviz: a running ``dot`` (a minute for hundreds of collections) is killed, what it began writing is
removed and no ``dot`` process is left (session 9: Cancel could not stop it). Real ``dot`` on a generated diagram
large enough to take well over the runner's poll interval (~1 s of CPU at 400 entities, 330 collections)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from child_processes import children_named

from benchmarks.generate import generate_project
from modeller.export import ExportCancelled, export_project
from modeller.export import diagram as diagram_module
from modeller.export.diagram import RenderOutcome, dot_source, render
from modeller.model import Project
from modeller.rules import analyse
from modeller.rules.framework.analysis import Analysis

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def big() -> tuple[Project, Analysis]:
    if shutil.which("dot") is None:
        pytest.fail("Graphviz 'dot' is required for this test (Debian: apt-get install graphviz)")
    project = generate_project(400, 1.5, 0.5, seed=1)
    return project, analyse(project)


def test_a_cancel_kills_dot_and_leaves_no_file(tmp_path: Path, big: tuple[Project, Analysis]) -> None:
    project, analysis = big
    dot_file = tmp_path / "diagram.dot"
    dot_file.write_text(dot_source(analysis.design, project), encoding="utf-8")
    asked: list[list[int]] = []

    def cancel() -> bool:
        asked.append(children_named("dot"))  # dot is running while it is asked
        return True

    outcome = render(dot_file, cancel=cancel)
    assert outcome.cancelled and outcome.written == [] and outcome.notice is None
    assert asked and asked[0], "cancel must be asked while dot runs, or this test proves nothing"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diagram.dot"]  # no half-written svg or png
    assert children_named("dot") == []  # killed and reaped


def test_an_export_cancelled_during_the_layout_leaves_the_folder_as_it_was(
    tmp_path: Path, big: tuple[Project, Analysis], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, analysis = big
    target = tmp_path / "out"
    target.mkdir()
    (target / "keep.txt").write_text("the user's own file\n", encoding="utf-8")
    laying_out: list[str] = []
    outcomes: list[RenderOutcome] = []
    real_render = diagram_module.render

    def watched(*args: object, **kwargs: object) -> RenderOutcome:  # the real render, its outcome kept
        outcome = real_render(*args, **kwargs)  # type: ignore[arg-type]
        outcomes.append(outcome)
        return outcome

    monkeypatch.setattr("modeller.export.render", watched)

    def progress(_done: int, _total: int, what: str) -> None:
        if what.startswith("laying out"):
            laying_out.append(what)

    with pytest.raises(ExportCancelled):
        export_project(project, analysis, target, kinds="diagram", progress=progress, cancel=lambda: bool(laying_out))
    assert laying_out and [o.cancelled for o in outcomes] == [True]  # stopped inside dot, not after it
    assert [p.name for p in target.iterdir()] == ["keep.txt"]
    assert not [p for p in tmp_path.iterdir() if p != target]  # no staging folder left beside it
    assert children_named("dot") == []
