"""The open of a large project is one bulk phase: no collector passes and short GIL turns from the read until the
cards are built and the findings show, then what it built is frozen and both settings come back (issue 16: passes
of a third of a second over the open's objects, and 5 ms GIL turns of the preview's thread, stalled the window).

Whether the window stalls is a benchmark figure (benchmarks/bench_open.py); these tests say when the phase holds.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from modeller.persistence import save_project
from modeller.ui.canvas.scene import SYNC_BUILD_MAX
from modeller.ui.gil_share import SHARED_INTERVAL_S
from modeller.ui.main_window import OPEN_IN_BACKGROUND_BYTES
from modeller.ui.open_phase import BUILT, FINDINGS, OpenPhase

from .big_model import big_project

ENTITIES = 600  # read in the background and built in slices, yet quick


@pytest.fixture
def large_file(tmp_path: Path) -> Path:
    path = tmp_path / "large.modeller.json"
    save_project(big_project(ENTITIES), path)
    assert path.stat().st_size >= OPEN_IN_BACKGROUND_BYTES and ENTITIES > SYNC_BUILD_MAX
    return path


def settings_now() -> tuple[bool, float]:
    return gc.isenabled(), sys.getswitchinterval()


def test_the_phase_holds_until_every_part_of_the_shown_project_is_done() -> None:
    before = settings_now()
    assert before[0] and before[1] > SHARED_INTERVAL_S
    frozen = gc.get_freeze_count()
    phase = OpenPhase()
    phase.begin()
    try:
        kept = [[n] for n in range(1000)]  # what the open builds: lists the collector tracks
        assert settings_now() == (False, SHARED_INTERVAL_S) and phase.active
        phase.done(BUILT)  # the project shown before finished its build: not this open's
        phase.shown({BUILT, FINDINGS})
        phase.done(FINDINGS)
        assert phase.active and settings_now() == (False, SHARED_INTERVAL_S)
        phase.done(BUILT)
        assert not phase.active and settings_now() == before
        # what the open built is out of the collector's sight: no pass traverses it again
        assert gc.get_freeze_count() >= frozen + len(kept)
        phase.end()  # nothing held: nothing happens
        assert settings_now() == before
    finally:
        phase.end()
        gc.unfreeze()


def test_a_project_shown_with_nothing_to_wait_for_ends_the_phase_at_once() -> None:
    phase = OpenPhase()
    phase.begin()
    phase.shown(set())
    assert not phase.active and gc.isenabled()
    gc.unfreeze()


@pytest.mark.slow
def test_a_large_open_runs_without_collector_and_gives_it_back_with_its_findings(
    make_window, qtbot, large_file
) -> None:
    before = settings_now()
    window = make_window(use_engine=True)
    seen: list[tuple[bool, float]] = []  # the settings at each tick of a UI timer during the open
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: seen.append(settings_now()))
    arrived: list[int] = []
    window.analysis.analysed.connect(lambda _a: arrived.append(len(window.scene.entity_items)))
    built: list[bool] = []
    window.scene.built.connect(lambda: built.append(True))
    timer.start()
    assert window.open_path(large_file, ask=False)
    assert settings_now() == (False, SHARED_INTERVAL_S) and window.open_phase.active
    qtbot.waitUntil(lambda: bool(arrived) and bool(built), timeout=120_000)
    timer.stop()
    # the preview's sample starts once every card is drawn, and holds its own pause while it runs
    qtbot.waitUntil(lambda: window.open_job is None and not window.preview.sampling, timeout=60_000)
    assert not window.open_phase.active and settings_now() == before
    during = [s for s in seen if s != before]
    assert during and set(during) == {(False, SHARED_INTERVAL_S)}
    # the ticks while it held came first, then only the given-back settings: it never let go in between
    assert seen[: len(during)] == during
    gc.unfreeze()


@pytest.mark.slow
def test_a_failed_or_closed_open_gives_the_collector_back(make_window, qtbot, large_file, dialogs) -> None:
    before = settings_now()
    window = make_window(use_engine=True)
    text = large_file.read_text()
    large_file.write_text(text[: len(text) // 2])  # cut: not JSON any more
    dialogs.answers.append(QMessageBox.StandardButton.Ok)
    ended: list[bool] = []
    window.open_finished.connect(ended.append)
    assert window.open_path(large_file, ask=False)
    assert not gc.isenabled()
    qtbot.waitUntil(lambda: bool(ended), timeout=60_000)
    assert ended == [False] and not window.open_phase.active and settings_now() == before

    large_file.write_text(text)
    assert window.open_path(large_file, ask=False)
    qtbot.waitUntil(lambda: window.document.path == large_file, timeout=60_000)  # shown, still building
    assert window.open_phase.active and not gc.isenabled()
    window.document.undo_stack.setClean()
    assert window.close()
    assert not window.open_phase.active
    # the workers still running (the checks, the analysis) hold their own pauses until they end
    qtbot.waitUntil(lambda: settings_now() == before, timeout=60_000)
    gc.unfreeze()
