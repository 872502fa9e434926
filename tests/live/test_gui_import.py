"""File → Import from database… against the suite's server: new project, merge as one undo step, errors, Cancel.

The dialog is driven like a user would (fields, buttons), the work runs in its
worker thread, and the window is checked for what the user sees: entities,
the Recommendations panel, the status line. A proxy in front of the server
holds its answers back to show that the window keeps running its event loop
and that Cancel leaves the open project untouched.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pymongo
import pytest
from bson import ObjectId
from delay_proxy import DelayProxy
from live_support import LiveServer, print_server
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import QMessageBox

from modeller.ui.connections import recent_connections, remember_connection
from modeller.ui.dialogs.import_database_dialog import ImportDatabaseDialog
from modeller.ui.main_window import MainWindow

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
WAIT_MS = 60_000


@pytest.fixture(autouse=True)
def no_message_boxes(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(box: QMessageBox) -> int:
        raise AssertionError(f"unexpected dialog: {box.text()}")

    monkeypatch.setattr(QMessageBox, "exec", refuse)


@pytest.fixture
def make_window(qtbot, tmp_path: Path) -> Iterator[Callable[..., MainWindow]]:
    windows: list[MainWindow] = []

    def make(use_engine: bool = True) -> MainWindow:
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
        window = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery", use_engine=use_engine)
        qtbot.addWidget(window, before_close_func=lambda w: w.document.undo_stack.setClean())
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.document.undo_stack.setClean()


def _shop(server: LiveServer, name: str) -> None:
    """Two collections with a parent reference (orders.user_id -> users._id) and an embedded array."""
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        users = [{"_id": ObjectId(), "email": f"u{i}@x.org", "tier": "gold" if i % 2 else "free"} for i in range(20)]
        db.users.insert_many(users)
        db.orders.insert_many(
            [
                {
                    "_id": ObjectId(),
                    "user_id": users[i % 20]["_id"],
                    "total": 10.5 * i,
                    "lines": [{"sku": f"s{j}", "qty": j} for j in range(1 + i % 3)],
                }
                for i in range(60)
            ]
        )
        db.users.create_index([("email", 1)], unique=True, name="email_unique")
    finally:
        client.close()


def _connect(qtbot, dialog: ImportDatabaseDialog, uri: str, database: str) -> None:
    dialog.uri.setEditText(uri)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.database.findText(database) >= 0, timeout=WAIT_MS)
    dialog.database.setCurrentText(database)
    dialog.list_collections()
    qtbot.waitUntil(lambda: not dialog.running() and dialog.collections.count() > 0, timeout=WAIT_MS)


def test_import_opens_a_new_project_and_shows_the_engine_findings(
    qtbot, make_window, live_db: tuple[LiveServer, str]
) -> None:
    server, name = live_db
    print_server(server)
    _shop(server, name)
    window = make_window()
    dialog = window.database_actions.show_import_database()
    _connect(qtbot, dialog, server.uri, name)
    assert dialog.chosen_collections() == ["orders", "users"]  # all checked by default
    dialog.sample.setValue(50)
    with qtbot.waitSignal(dialog.imported, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    project = window.document.project
    entities = {e.collection: e for e in project.entities if e.collection}
    assert sorted(entities) == ["orders", "users"]
    assert entities["users"].count == 20 and "20 documents sampled" in (entities["users"].description or "")
    assert [i.name for i in entities["users"].indexes] == ["email_unique"]
    refs = [r for r in project.relationships if r.strategy == "parent-ref"]
    assert [(r.one, r.many) for r in refs] == [(entities["users"].id, entities["orders"].id)]
    assert any(r.strategy == "embed" and r.one == entities["orders"].id for r in project.relationships)
    assert window.document.path is None and window.document.is_modified()  # unsaved: closing asks to save
    assert set(project.layout) == {e.id for e in project.entities}  # laid out, not stacked
    assert window.docks["recommendations"].isVisible()
    assert "as a new project" in window.statusBar().currentMessage()
    window.analysis.run_now()
    findings = window.recommendations.visible_findings()
    ids = {e.id for e in project.entities} | {r.id for r in project.relationships}
    assert findings and all(f.subject.id in ids or f.subject.kind == "project" for f in findings)
    assert recent_connections(window.settings)[0] == server.uri


def test_import_merges_into_the_open_project_as_one_undo_step(
    qtbot, make_window, live_db: tuple[LiveServer, str]
) -> None:
    server, name = live_db
    print_server(server)
    _shop(server, name)
    window = make_window()
    assert window.open_path(SAMPLES / "task-tracker.modeller.json", ask=False)
    before = window.document.project
    window.analysis.run_now()
    dialog = window.database_actions.show_import_database()
    _connect(qtbot, dialog, server.uri, name)
    dialog.destination_choice.merge_radio.setChecked(True)
    with qtbot.waitSignal(dialog.imported, timeout=WAIT_MS):
        dialog.start_import()
    after = window.document.project
    stack = window.document.undo_stack
    assert stack.count() == 1 and stack.text(0).startswith("Import ")
    added = [e for e in after.entities if e.id not in {b.id for b in before.entities}]
    assert sorted(e.collection for e in added if e.collection) == ["orders", "users"]
    assert {e.name for e in before.entities}.isdisjoint({e.name for e in added})  # fresh names where they clash
    assert window.document.path == SAMPLES / "task-tracker.modeller.json"
    stack.undo()
    assert window.document.project.entities == before.entities
    assert window.document.project.relationships == before.relationships
    stack.redo()
    assert window.document.project.entities == after.entities


def test_a_collection_the_project_already_has_is_not_imported_twice(
    qtbot, make_window, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, name = live_db
    print_server(server)
    _shop(server, name)
    window = make_window()
    first = window.database_actions.show_import_database()
    _connect(qtbot, first, server.uri, name)
    first.set_collections(["users"])
    with qtbot.waitSignal(first.imported, timeout=WAIT_MS):
        first.start_import()
    qtbot.waitUntil(lambda: "import-database" not in window.database_actions.dialogs, timeout=WAIT_MS)
    window.analysis.run_now()
    second = window.database_actions.show_import_database()
    _connect(qtbot, second, server.uri, name)
    second.destination_choice.merge_radio.setChecked(True)
    with qtbot.waitSignal(second.imported, timeout=WAIT_MS):
        second.start_import()
    collections = [e.collection for e in window.document.project.entities if e.collection]
    assert sorted(collections) == ["orders", "users"]
    message = window.statusBar().currentMessage()
    assert "Import 1 collection from database" in message and "not imported again: users" in message
    assert "1 relationship(s) to them left out" in message


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_an_unreachable_server_is_one_line_and_the_password_stays_masked(qtbot, make_window) -> None:
    window = make_window(use_engine=False)
    dialog = window.database_actions.show_import_database()
    uri = f"mongodb://ann:hunter2@127.0.0.1:{_closed_port()}/?directConnection=true"
    dialog.uri.setEditText(uri)
    dialog.uri.lineEdit().editingFinished.emit()
    assert dialog.uri.currentText() == uri.replace(":hunter2@", "@")  # the field shows no password
    assert dialog.password.text() == "hunter2" and dialog.password.echoMode() == dialog.password.EchoMode.Password
    assert dialog.connection_uri() == uri
    dialog.timeout.setValue(0.5)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)
    text = dialog.status.text()
    assert dialog.status.is_error() and "\n" not in text
    assert text.startswith("Cannot reach mongodb://ann:***@127.0.0.1") and "check the host and port" in text
    assert text.endswith("(or raise the Timeout)")
    assert "hunter2" not in text
    assert recent_connections(window.settings) == []  # only a connection that worked is remembered
    assert remember_connection(window.settings, dialog.connection_uri()) == uri.replace(":hunter2@", "@")
    window.settings.sync()
    assert "hunter2" not in Path(window.settings.fileName()).read_text(encoding="utf-8")


def test_a_server_that_will_not_list_its_databases_says_the_name_can_be_typed(
    qtbot, make_window, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Tryout a13 item 8: a user without the listDatabases privilege (or the stand-in, which cannot size a
    Decimal128) was left at "refused listing the databases"; typing the name in the Database field works."""
    import modeller.live.browse as browse
    from modeller.live.errors import LiveError

    def refuse(_source: object) -> list[str]:
        raise LiveError(
            "the server at mongodb://127.0.0.1:1 refused listing the databases ($bsonSize cannot encode value of "
            "type Decimal128); it may not support this command"
        )

    monkeypatch.setattr(browse, "database_names", refuse)
    window = make_window(use_engine=False)
    dialog = window.database_actions.show_import_database()
    dialog.uri.setEditText("mongodb://127.0.0.1:1/?directConnection=true")
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)
    text = dialog.status.text()
    assert dialog.status.is_error() and "\n" not in text, text
    assert "refused listing the databases" in text
    assert text.endswith(
        "; it may not support this command. Type the database's name in the Database field instead: its "
        "collections are then listed"
    )
    dialog.grab().save(str(tmp_path / "refused-listing.png"))
    print(tmp_path / "refused-listing.png")


def test_a_late_answer_says_the_dialogs_timeout_field_not_the_clis_option() -> None:
    """Tryout a13 item 8: the status line mixed in "--timeout (the Timeout field)"."""
    from modeller.ui.dialogs.connection_fields import gui_words

    cli = (
        "the server at mongodb://h:1 did not answer its status check within 1 s while looking up which sampled "
        "values are _ids of 'orders'; --timeout waits longer"
    )
    assert gui_words(cli).endswith("'orders'; a larger Timeout waits longer")
    assert "--timeout" not in gui_words(cli)


def test_a_failed_reference_look_up_says_what_failed_and_what_to_do(
    qtbot, make_window, limited_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """Every collection is sampled, then the look-up of the references' _ids times out (the limited server stops
    such a find at its time limit): the rows say the collections were read, the status line says what failed."""
    server, name = limited_db
    print_server(server)
    _shop(server, name)
    window = make_window(use_engine=False)
    dialog = window.database_actions.show_import_database()
    _connect(qtbot, dialog, server.uri, name)
    dialog.start_import()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)
    assert [dialog.progress.status(n) for n in ("orders", "users")] == ["sampled", "sampled"]
    text = dialog.status.text()
    assert dialog.status.is_error() and "\n" not in text, text
    assert text.startswith("Every collection was sampled, but the server at ")
    assert "stopped looking up which sampled values are _ids of 'orders': it took longer than the server " in text
    assert (
        "(operation exceeded time limit); try again when it is less busy; or leave 'orders' out of the import" in text
    )
    grab = window.grab()
    grab.save(str(tmp_path / "lookup.png"))
    dialog.grab().save(str(tmp_path / "lookup-dialog.png"))
    print(tmp_path / "lookup-dialog.png")


def test_secret_options_are_hidden_and_never_remembered(qtbot, make_window, live_server: LiveServer) -> None:
    print_server(live_server)
    window = make_window(use_engine=False)
    dialog = window.database_actions.show_import_database()
    dialog.uri.setEditText(live_server.uri + "&tlsCertificateKeyFilePassword=s3cret")
    dialog.uri.lineEdit().editingFinished.emit()
    assert "s3cret" not in dialog.uri.currentText() and "tlsCertificateKeyFilePassword=***" in dialog.uri.currentText()
    assert dialog.connection_uri().endswith("tlsCertificateKeyFilePassword=s3cret")
    stored = remember_connection(window.settings, dialog.uri.currentText())
    assert "tlsCertificateKeyFilePassword" not in stored and stored == live_server.uri


def test_a_slow_server_keeps_the_window_running_and_cancel_leaves_the_project_untouched(
    qtbot, make_window, live_db: tuple[LiveServer, str]
) -> None:
    server, name = live_db
    print_server(server)
    _shop(server, name)
    proxy = DelayProxy(server.uri)
    try:
        window = make_window(use_engine=False)
        assert window.open_path(SAMPLES / "blog.modeller.json", ask=False)
        before = window.document.project
        dialog = window.database_actions.show_import_database()
        _connect(qtbot, dialog, proxy.uri, name)
        ticks: list[int] = []
        timer = QTimer(window)
        timer.timeout.connect(lambda: ticks.append(1))
        timer.start(10)
        proxy.slow()  # the server stops answering: the import waits in its worker thread
        dialog.timeout.setValue(600)
        dialog.start_import()
        job = dialog.job
        assert job is not None and dialog.running()
        qtbot.waitUntil(lambda: len(ticks) >= 20, timeout=WAIT_MS)  # the UI thread keeps running
        assert dialog.running() and not dialog.import_button.isEnabled()
        window.repaint()  # painting works while the worker waits
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
        assert not dialog.running() and dialog.isVisible()
        assert dialog.status.text().startswith("Import cancelled: nothing was imported")
        assert all(dialog.progress.status(n) != "sampling…" for n in dialog.progress.rows)
        proxy.fast()  # the worker now gets its answers; its result must be dropped
        qtbot.waitUntil(lambda: job.thread is not None and not job.thread.is_alive(), timeout=WAIT_MS)
        qtbot.wait(50)
        assert window.document.project is before and window.document.undo_stack.count() == 0
        assert dialog.result is None and dialog.status.text().startswith("Import cancelled")
        timer.stop()
    finally:
        proxy.close()


def test_the_import_menu_entries_have_shortcuts_and_tips(make_window) -> None:
    window = make_window(use_engine=False)
    actions = window.database_actions
    for action in actions.file_actions():
        assert not action.shortcut().isEmpty()
        assert action.shortcut().toString() in action.toolTip()
    file_menu = window.menuBar().actions()[0].menu()
    assert actions.import_database_action in file_menu.actions()


def test_wrong_credentials_are_one_line_saying_what_to_check(qtbot, make_window, live_server: LiveServer) -> None:
    print_server(live_server)
    window = make_window(use_engine=False)
    dialog = window.database_actions.show_import_database()
    host = live_server.uri.split("//", 1)[1].split("/", 1)[0]
    dialog.uri.setEditText(f"mongodb://ann@{host}/?directConnection=true&authSource=admin")
    dialog.password.setText("hunter2")
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)
    text = dialog.status.text()
    assert dialog.status.is_error() and "\n" not in text and "hunter2" not in text
    assert text.startswith(f"Authentication failed at mongodb://ann:***@{host}/")
    assert "check the user name, the Password field, and the authSource" in text
    assert dialog.database.count() == 0 and recent_connections(window.settings) == []


def test_hostile_collection_names_are_shown_escaped_and_imported_as_they_are(
    qtbot, make_window, live_db: tuple[LiveServer, str]
) -> None:
    server, name = live_db
    print_server(server)
    evil = "evil\u202etxt.exe"
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name][evil].insert_many([{"title": f"t{i}"} for i in range(5)])
    finally:
        client.close()
    window = make_window(use_engine=False)
    dialog = window.database_actions.show_import_database()
    _connect(qtbot, dialog, server.uri, name)
    assert dialog.collections.item(0).text() == "evil\\u202etxt.exe"  # the list never renders the bidi control
    assert dialog.chosen_collections() == [evil]
    with qtbot.waitSignal(dialog.imported, timeout=WAIT_MS):
        dialog.start_import()
    assert [e.collection for e in window.document.project.entities] == [evil]
    assert "\u202e" not in window.statusBar().currentMessage()
