"""The collector's pause is one counted pause for every layer: a load, the sample documents and an analysis running
on one thread do not turn the collector back on while another thread's pause goes on (nor the other way round)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from modeller.export import samples as sample_module
from modeller.persistence import load as load_module
from modeller.persistence import load_project
from modeller.rules import engine as engine_module
from modeller.runtime.gc_pause import collector_paused

TRACKER = Path(__file__).resolve().parents[1] / "samples" / "task-tracker.modeller.json"
WAIT_S = 30


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def _overlapping(run: Callable[[], object], patch_inside: Callable[[Callable[[], None]], None]) -> list[bool]:
    """``run`` on a thread, entered while this thread's pause holds and still inside when that pause ends: whether
    the collector was off [after this pause ended, after ``run`` ended]."""
    inside, go_on = threading.Event(), threading.Event()

    def hold() -> None:
        inside.set()
        assert go_on.wait(WAIT_S)

    patch_inside(hold)
    seen: list[bool] = []
    with collector_paused():
        worker = threading.Thread(target=run)
        worker.start()
        assert inside.wait(WAIT_S)
    seen.append(not gc.isenabled())  # ``run``'s pause still holds
    go_on.set()
    worker.join(WAIT_S)
    seen.append(not gc.isenabled())
    return seen


def test_a_load_keeps_its_pause_when_another_ends_and_ends_it_last(monkeypatch: pytest.MonkeyPatch) -> None:
    text = TRACKER.read_text(encoding="utf-8")
    real = load_module._loads

    def patch(hold: Callable[[], None]) -> None:
        def held(*args: object, **kwargs: object) -> object:
            hold()
            return real(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(load_module, "_loads", held)

    assert _overlapping(lambda: load_module.loads_project(text), patch) == [True, False]


def test_the_sample_documents_and_an_analysis_share_the_counted_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    project = load_project(TRACKER)
    engine = engine_module.Analyser()
    design = engine.analyse(project).design
    real_build = sample_module._Builder.build

    def patch_samples(hold: Callable[[], None]) -> None:
        def build(self: object) -> object:
            hold()
            return real_build(self)  # type: ignore[arg-type]

        monkeypatch.setattr(sample_module._Builder, "build", build)

    assert _overlapping(lambda: sample_module.samples_and_notices(design, project), patch_samples) == [True, False]
    real_analyse = engine_module.Analyser._analyse

    def patch_engine(hold: Callable[[], None]) -> None:
        def analyse(self: object, p: object) -> object:
            hold()
            return real_analyse(self, p)  # type: ignore[arg-type]

        monkeypatch.setattr(engine_module.Analyser, "_analyse", analyse)

    assert _overlapping(lambda: engine.analyse(project), patch_engine) == [True, False]
