"""The dialogs' messages say what to do for what the user did (tryout item 11): a bad Git revision is advice about a
revision, Export migration into a missing folder says to create it, a step cut short by Cancel or a failure is not
left "running", and a wrong password points at the Password field in the dialogs."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pymongo import errors
from PySide6.QtCore import Qt

import modeller.live.source as source_module
from modeller.live.apply import ApplyPlan, Step
from modeller.live.errors import LiveError
from modeller.model import Field
from modeller.ui.commands.entity import EditEntityCommand
from modeller.ui.dialogs.apply_dialog import ApplyDesignDialog, Planned
from modeller.ui.dialogs.compare_dialog import CompareDialog
from modeller.ui.dialogs.connection_fields import gui_words

from .conftest import sample

WAIT_MS = 60_000


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=60,
    )


def _compare(qtbot, dialog: CompareDialog) -> None:
    qtbot.mouseClick(dialog.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)


@pytest.fixture
def committed(qtbot, make_window, tmp_path: Path) -> Any:
    """A window with blog.modeller.json open from a Git repository, committed, then edited (one new field)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    path = repo / "blog.modeller.json"
    shutil.copyfile(sample("blog"), path)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    window = make_window()
    assert window.open_path(path, ask=False)
    document = window.document
    post = next(e for e in document.project.entities if e.collection == "posts")
    new = post.model_copy(update={"fields": (*post.fields, Field(name="rating", type="int", required=True))})
    document.push(EditEntityCommand(document, new))
    return window


def test_a_bad_revision_says_what_to_do_about_the_revision(qtbot, committed: Any) -> None:
    dialog = committed.database_actions.show_compare()
    dialog.revision.setText("nosuchrev")
    dialog.revision_radio.setChecked(True)
    _compare(qtbot, dialog)
    text = dialog.summary.text()
    assert dialog.summary.is_error() and "\n" not in text
    assert text.startswith("nosuchrev:./blog.modeller.json: git cannot show this revision (invalid object name")
    assert text.endswith("check the revision: a branch, a tag or a commit id that git log lists (HEAD, main, HEAD~1)")
    assert "path" not in text.partition(")")[2] and "project file" not in text


def test_a_revision_without_the_file_says_so(qtbot, committed: Any, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "other.txt").write_text("x")
    _git(repo, "rm", "-q", "--cached", "blog.modeller.json")
    _git(repo, "add", "other.txt")
    _git(repo, "commit", "-q", "-m", "second")
    dialog = committed.database_actions.show_compare()
    dialog.revision.setText("HEAD")
    dialog.revision_radio.setChecked(True)
    _compare(qtbot, dialog)
    text = dialog.summary.text()
    assert dialog.summary.is_error()
    assert text.endswith("the file is not in that revision: pick a revision that has it (git log -- FILE lists them)")


def test_a_file_that_is_no_project_still_gets_the_file_advice(qtbot, committed: Any, tmp_path: Path) -> None:
    broken = tmp_path / "broken.modeller.json"
    broken.write_text("{")
    dialog = committed.database_actions.show_compare()
    dialog.file_path.setText(str(broken))
    _compare(qtbot, dialog)
    assert dialog.summary.is_error() and dialog.summary.text().endswith("; pick a valid project file")


@pytest.mark.node
def test_export_migration_into_a_missing_folder_says_to_create_it(qtbot, committed: Any, tmp_path: Path) -> None:
    dialog = committed.database_actions.show_compare()
    dialog.revision_radio.setChecked(True)
    _compare(qtbot, dialog)
    assert dialog.diff is not None and dialog.diff.changes
    missing = tmp_path / "nodir" / "sub" / "m.mongosh.js"
    assert dialog.write_migration(missing) is None
    text = dialog.status.text()
    assert dialog.status.is_error() and "\n" not in text
    assert text.endswith(f"the folder {str(missing.parent)!r} does not exist; create it or choose another folder")
    assert not missing.parent.exists()


# ---------------------------------------------------------------------------------------------- apply


class _Server:
    """A stand-in for :class:`Source`: step 2 waits until released (a slow server), or fails."""

    def __init__(self, fail: bool) -> None:
        self.fail = fail
        self.release = threading.Event()
        self.waiting = threading.Event()
        self.shown = "mongodb://h:1"
        self.warnings: list[str] = []

    def __call__(self, uri: str, timeout: float) -> _Server:
        return self

    def __enter__(self) -> _Server:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def ping(self) -> None:
        pass

    def command(self, database: str, command: Any, doing: str) -> None:
        if command.get("create") != "two":
            return
        if self.fail:
            raise LiveError("the server at mongodb://h:1 refused creating 'two' (no space); free some")
        self.waiting.set()
        self.release.wait(WAIT_MS / 1000)


@pytest.fixture
def apply_dialog(qtbot, committed: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ApplyDesignDialog, Any]]:
    def server(fail: bool) -> _Server:
        fake = _Server(fail)
        monkeypatch.setattr(source_module, "Source", fake)
        servers.append(fake)
        return fake

    servers: list[_Server] = []
    dialog = committed.database_actions.show_apply()
    dialog.uri.setEditText("mongodb://h:1")
    dialog.database.setText("blog")
    steps = [Step("create", name, f"create collection {name!r}", {"create": name}) for name in ("one", "two", "three")]
    dialog.show_plan(Planned(ApplyPlan("blog", steps), "mongodb://h:1", []))
    yield dialog, server
    for fake in servers:
        fake.release.set()
    if dialog.job is not None and dialog.job.thread is not None:
        dialog.job.thread.join(WAIT_MS / 1000)


def test_cancel_in_the_middle_leaves_no_step_running(qtbot, apply_dialog: tuple[ApplyDesignDialog, Any]) -> None:
    dialog, server = apply_dialog
    fake = server(fail=False)
    dialog.apply_plan()
    job = dialog.job
    qtbot.waitUntil(lambda: fake.waiting.is_set() and dialog.step_items[1].text(0).startswith("2. running: "))
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    labels = [item.text(0) for item in dialog.step_items]
    assert labels == [
        "1. done: create collection 'one'",
        "2. stopped (if it was sent, it finishes on the server): create collection 'two'",
        "3. create collection 'three'",
    ]
    assert dialog.status.text().startswith("Stopped after 1 step(s)")
    fake.release.set()
    qtbot.waitUntil(lambda: job is not None and job.thread is not None and not job.thread.is_alive(), timeout=WAIT_MS)
    assert [item.text(0) for item in dialog.step_items] == labels, "the dropped result changes nothing"


def test_a_failed_step_is_labelled_failed(qtbot, apply_dialog: tuple[ApplyDesignDialog, Any]) -> None:
    dialog, server = apply_dialog
    server(fail=True)
    dialog.apply_plan()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)
    assert [item.text(0) for item in dialog.step_items] == [
        "1. done: create collection 'one'",
        "2. failed: create collection 'two'",
        "3. create collection 'three'",
    ]
    assert dialog.status.is_error() and dialog.status.text().startswith("Step 2 of 3 failed (1 done;")


def test_a_wrong_password_is_right_on_the_command_line_and_points_at_the_password_field_in_the_dialogs() -> None:
    uri = "mongodb://ann:hunter2@127.0.0.1:1/?authSource=admin"
    with source_module.Source(uri, 1) as src, pytest.raises(LiveError) as caught, src._errors("connecting"):
        raise errors.OperationFailure("Authentication failed.", code=18)
    cli = str(caught.value)
    assert cli == (
        "authentication failed at mongodb://ann:***@127.0.0.1:1/?authSource=admin; check the user name and "
        "password, and the authSource in the connection string"
    )
    assert gui_words(cli).endswith(
        "; check the user name, the Password field, and the authSource in the connection string"
    )
