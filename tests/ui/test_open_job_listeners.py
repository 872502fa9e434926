"""Every listener of a background open's ``finished`` hears it: the window deletes the job only once the worker
has finished emitting and every queued call has run (deleting it from the first listener, while the worker was
still posting the signal to the others, dropped theirs)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt

from modeller.model import Project
from modeller.ui import main_window
from modeller.ui.main_window import MainWindow

from .conftest import sample


def test_every_listener_of_the_open_hears_it(window: MainWindow, qtbot, monkeypatch) -> None:
    go = threading.Event()
    read = main_window._read

    def held(path: Path) -> Project:
        go.wait(30)
        return read(path)

    monkeypatch.setattr(main_window, "_read", held)
    ended: list[bool] = []
    window.open_finished.connect(ended.append)
    assert window.open_path(sample("task-tracker"), ask=False, background=True)
    job = window.open_job
    assert job is not None
    heard: list[str] = []
    # a listener that takes a while, in the worker's thread: the signal reaches the listeners after it later
    job.finished.connect(lambda _result: time.sleep(0.3), Qt.ConnectionType.DirectConnection)
    for name in ("status bar", "recent files", "a plug-in"):  # connected after the window's own listener
        job.finished.connect(lambda result, name=name: heard.append(f"{name}: {type(result).__name__}"))
    go.set()
    qtbot.waitUntil(lambda: not shiboken6.isValid(job), timeout=30_000)
    assert ended == [True] and window.document.project.name
    assert heard == ["status bar: Project", "recent files: Project", "a plug-in: Project"]
