"""The timer's autosave runs in a worker thread (serializing 10,000 entities held the window for seconds), writes
the same copy the crash handler's synchronous one does, loses to a save made meanwhile, and says when it fails."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from modeller.persistence import dumps_project
from modeller.ui.main_window import MainWindow
from modeller.ui.recovery import RecoveryStore

from .conftest import sample
from .test_files import modify


def test_the_timer_writes_the_copy_from_a_worker_thread(make_window: Callable[..., MainWindow]) -> None:
    window = make_window()
    assert window.open_path(sample("blog"))
    assert window.autosave_in_background() is None  # nothing unsaved, nothing written
    modify(window)
    thread = window.autosave_in_background()
    assert thread is not None and thread.name == "autosave"
    thread.join(30)
    assert window.recovery.path.read_text(encoding="utf-8") == dumps_project(window.document.project)


def test_a_copy_made_before_a_save_is_not_written_after_it(tmp_path: Path) -> None:
    store = RecoveryStore(tmp_path / "recovery")
    generation = store.generation
    store.clear()  # the user saved while the worker was serializing
    assert store.write("{}", None, generation) is False
    assert not store.path.exists()
    assert store.write("{}", None, store.generation) is True and store.path.is_file()
    store.clear()


def test_a_failed_background_autosave_is_shown_in_the_status_bar(
    make_window: Callable[..., MainWindow], qtbot, tmp_path: Path
) -> None:
    window = make_window()
    assert window.open_path(sample("blog"))
    modify(window)
    blocker = tmp_path / "not a folder"
    blocker.write_text("", encoding="utf-8")
    usual, window.recovery.directory = window.recovery.directory, blocker / "recovery"  # mkdir fails: a file
    with qtbot.waitSignal(window.autosave_failed, timeout=30_000):
        window.autosave_in_background()
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Autosave failed: "), timeout=5_000)
    window.recovery.directory = usual
