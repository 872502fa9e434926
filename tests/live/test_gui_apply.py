"""Database → Apply design… against the suite's server: the plan first, a confirmation, the steps, then nothing left."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pymongo
import pytest
from delay_proxy import DelayProxy
from live_support import LiveServer, print_server
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox

from modeller.rules import analyse
from modeller.ui.dialogs.apply_dialog import ApplyDesignDialog
from modeller.ui.main_window import MainWindow

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
WAIT_MS = 60_000


class Boxes:
    """Answers for the confirmation boxes, and their texts; an unexpected box fails the test."""

    def __init__(self) -> None:
        self.answers: list[QMessageBox.StandardButton] = []
        self.shown: list[str] = []

    def exec(self, box: QMessageBox) -> int:
        self.shown.append(f"{box.text()}\n{box.informativeText()}")
        if not self.answers:
            raise AssertionError(f"unexpected dialog: {self.shown[-1]}")
        return int(self.answers.pop(0).value)


@pytest.fixture
def boxes(monkeypatch: pytest.MonkeyPatch) -> Boxes:
    log = Boxes()
    monkeypatch.setattr(QMessageBox, "exec", lambda box: log.exec(box))
    return log


@pytest.fixture
def blog_window(qtbot, tmp_path: Path, boxes: Boxes) -> Iterator[MainWindow]:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery", use_engine=False)
    qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
    window.show()
    assert window.open_path(SAMPLES / "blog.modeller.json", ask=False)
    yield window
    window.document.undo_stack.setClean()


def _plan(qtbot, dialog: ApplyDesignDialog) -> None:
    qtbot.mouseClick(dialog.plan_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)


def _dialog(window: MainWindow, uri: str, database: str) -> ApplyDesignDialog:
    dialog = window.database_actions.show_apply()
    dialog.uri.setEditText(uri)
    dialog.database.setText(database)
    return dialog


def _collections(server: LiveServer, name: str) -> dict[str, list[str]]:
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        return {c: sorted(i["name"] for i in db[c].list_indexes()) for c in sorted(db.list_collection_names())}
    finally:
        client.close()


def test_the_plan_shows_first_then_runs_after_the_confirmation_and_a_second_plan_is_empty(
    qtbot, blog_window: MainWindow, boxes: Boxes, live_db: tuple[LiveServer, str]
) -> None:
    server, name = live_db
    print_server(server)
    dialog = _dialog(blog_window, server.uri, name)
    _plan(qtbot, dialog)
    rows = dict(dialog.rows())
    steps = next(v for k, v in rows.items() if k.startswith("Steps, in the order they run"))
    assert steps[0] == "1. create collection 'users' with its $jsonSchema validator (strict, error)"
    wanted = sorted(c.name for c in analyse(blog_window.document.project).design.collections)
    assert sorted(s.split(" ", 4)[3].strip("'") for s in steps if "create collection" in s) == wanted
    assert any("create index" in s for s in steps)
    assert _collections(server, name) == {}  # planning changed nothing
    assert dialog.apply_button.isEnabled()
    boxes.answers.append(QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert boxes.shown[0].startswith(f"Run {len(steps)} step(s) on database '{name}' at {server.uri}?")
    assert "nothing is dropped" in boxes.shown[0]
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)
    assert dialog.status.text().startswith(f"Applied {len(steps)} step(s) to '{name}'; nothing was dropped.")
    assert dialog.done_steps() == len(steps)
    after = _collections(server, name)
    assert sorted(after) == wanted
    assert sum(len(indexes) - 1 for indexes in after.values()) == sum("create index" in s for s in steps)
    _plan(qtbot, dialog)
    assert dialog.status.text().endswith("already matches the design.")
    assert not dialog.apply_button.isEnabled()


def test_declining_the_confirmation_changes_nothing(
    qtbot, blog_window: MainWindow, boxes: Boxes, live_db: tuple[LiveServer, str]
) -> None:
    server, name = live_db
    print_server(server)
    dialog = _dialog(blog_window, server.uri, name)
    _plan(qtbot, dialog)
    boxes.answers.append(QMessageBox.StandardButton.Cancel)
    dialog.confirm_and_apply()
    assert not dialog.running() and dialog.status.text() == "Not applied: the database is unchanged."
    assert _collections(server, name) == {}


def test_the_database_defaults_to_the_projects_and_an_unreachable_server_is_one_line(
    qtbot, blog_window: MainWindow
) -> None:
    dialog = blog_window.database_actions.show_apply()
    assert dialog.database.text() == (blog_window.document.project.database or "")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    dialog.uri.setEditText(f"mongodb://ann:hunter2@127.0.0.1:{port}/?directConnection=true")
    dialog.database.setText("blog")
    dialog.timeout.setValue(0.5)
    _plan(qtbot, dialog)
    text = dialog.status.text()
    assert dialog.status.is_error() and "\n" not in text and "hunter2" not in text
    assert text.startswith("Cannot reach mongodb://ann:***@127.0.0.1") and text.endswith("(or raise the Timeout)")
    assert dialog.rows() == [] and not dialog.apply_button.isEnabled()


def test_a_bad_database_name_is_refused_before_connecting(blog_window: MainWindow) -> None:
    dialog = _dialog(blog_window, "mongodb://127.0.0.1:1", "a/b")
    dialog.make_plan()
    assert not dialog.running()
    assert dialog.status.text().startswith("Database 'a/b': ")


def test_the_menu_has_the_action_with_its_shortcut(blog_window: MainWindow) -> None:
    action = blog_window.database_actions.apply_action
    assert action in blog_window.database_menu.actions()
    assert action.shortcut().toString() == "Ctrl+Shift+Y" and "(Ctrl+Shift+Y)" in action.toolTip()


def test_cancel_on_a_slow_server_stops_before_the_next_step(
    qtbot, blog_window: MainWindow, boxes: Boxes, live_db: tuple[LiveServer, str]
) -> None:
    server, name = live_db
    print_server(server)
    proxy = DelayProxy(server.uri)
    try:
        dialog = _dialog(blog_window, proxy.uri, name)
        _plan(qtbot, dialog)
        total = len(dialog.planned.plan.steps) if dialog.planned else 0
        assert total >= 3
        proxy.slow()  # the server stops answering: apply waits in its worker thread before any step
        dialog.timeout.setValue(600)
        dialog.apply_plan()
        job = dialog.job
        assert job is not None
        qtbot.waitUntil(lambda: proxy.waiting > 0, timeout=WAIT_MS)
        assert dialog.running() and dialog.status.text() == f"Applying {total} step(s)…"
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
        assert not dialog.running() and dialog.isVisible()
        assert dialog.status.text().startswith("Stopped after 0 step(s)")
        proxy.fast()  # the worker gets its answer, sees the Cancel and sends no step
        qtbot.waitUntil(lambda: job.thread is not None and not job.thread.is_alive(), timeout=WAIT_MS)
        assert _collections(server, name) == {}
        _plan(qtbot, dialog)  # the plan is still whole: applying again does everything
        assert dialog.planned is not None and len(dialog.planned.plan.steps) == total
    finally:
        proxy.close()


def _apply_with_a_collmod_step(qtbot, window: MainWindow, server: LiveServer, name: str) -> tuple[str, int, int]:
    """Apply the blog design over a ``users`` collection without a validator: (status text, the collMod step, steps)."""
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].create_collection("users")  # no validator: apply must set it with collMod
    finally:
        client.close()
    dialog = _dialog(window, server.uri, name)
    _plan(qtbot, dialog)
    steps = next(v for k, v in dialog.rows() if k.startswith("Steps"))
    number = next(i for i, s in enumerate(steps, start=1) if "set the validator of 'users'" in s)
    dialog.apply_plan()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)
    assert dialog.status.is_error() == (server.name == "mongoeco-limited")
    assert dialog.done_steps() == (number - 1 if server.name == "mongoeco-limited" else len(steps))
    return dialog.status.text(), number, len(steps)


def test_a_step_the_server_refuses_is_one_line_naming_it_and_the_steps_before_stay_done(
    qtbot, blog_window: MainWindow, boxes: Boxes, limited_db: tuple[LiveServer, str]
) -> None:
    server, name = limited_db  # plain mongoeco has no collMod: the step is refused
    print_server(server)
    text, number, total = _apply_with_a_collmod_step(qtbot, blog_window, server, name)
    assert "\n" not in text and "collMod" in text
    assert text.startswith(f"Step {number} of {total} failed ({number - 1} done; applying again continues): ")


def test_the_collmod_step_runs_on_a_server_that_has_it(
    qtbot, blog_window: MainWindow, boxes: Boxes, live_db: tuple[LiveServer, str]
) -> None:
    server, name = live_db
    print_server(server)
    text, _, total = _apply_with_a_collmod_step(qtbot, blog_window, server, name)
    assert text.startswith(f"Applied {total} step(s)")
