"""Files: save/close/open round trip, load errors, the unsaved-changes prompt, autosave recovery, recent files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox

from modeller.model import Position
from modeller.persistence import load_project
from modeller.ui.commands import MoveCommand
from modeller.ui.commands.entity import EditEntityCommand
from modeller.ui.dialogs.new_project_dialog import NewProjectDialog
from modeller.ui.document import empty_project
from modeller.ui.main_window import MainWindow

from .conftest import DialogLog, sample

B = QMessageBox.StandardButton


def canvas_state(window: MainWindow) -> tuple[dict[str, tuple[float, float]], set[str]]:
    positions = {key: (item.pos().x(), item.pos().y()) for key, item in window.scene.entity_items.items()}
    return positions, set(window.scene.relationship_items)


def modify(window: MainWindow) -> None:
    entity = window.document.project.entities[0]
    window.document.push(EditEntityCommand(window.document, entity.model_copy(update={"name": "Renamed"})))


def test_save_close_open_gives_equal_project_and_canvas(make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    first = make_window()
    assert first.open_path(sample("ecommerce"))
    entity = first.document.project.entities[0].id
    first.document.push(MoveCommand(first.document, {entity: Position(x=1234, y=-56)}))
    modify(first)
    out = tmp_path / "shop.modeller.json"
    assert first.save_to(out)
    assert not first.document.is_modified() and first.title_text() == "shop.modeller.json — Modeller"
    saved_project, saved_canvas = first.document.project.model_copy(deep=True), canvas_state(first)
    first.close()

    second = make_window()
    assert second.open_path(out)
    assert second.document.project == saved_project
    assert load_project(out) == saved_project
    assert canvas_state(second) == saved_canvas
    assert saved_canvas[0][entity] == (1234, -56)
    assert second.recent_files()[0] == str(out.resolve())
    assert next(a.toolTip() for a in second.recent_menu.actions()) == str(out.resolve())


def test_corrupt_file_shows_one_dialog_and_keeps_project(
    window: MainWindow, dialogs: DialogLog, tmp_path: Path
) -> None:
    assert window.open_path(sample("blog"))
    modify(window)
    before = window.document.project.model_copy(deep=True)
    bad = tmp_path / "broken.modeller.json"
    bad.write_text('{"format": "mongo-schema-modeller", "format_version": 1, "name": "x",\n "entities": [1]}\n')
    dialogs.answers = [B.Discard, B.Ok]  # the unsaved-changes prompt, then the error box
    assert not window.open_path(bad)
    assert len(dialogs.shown) == 2
    message = dialogs.shown[1]
    assert "broken.modeller.json" in message and "$.entities[0]" in message and ":2:" in message
    assert "Traceback" not in message
    assert window.document.project == before
    assert window.document.path == sample("blog")
    assert window.document.is_modified()


def test_missing_file_is_reported(window: MainWindow, dialogs: DialogLog, tmp_path: Path) -> None:
    dialogs.answers = [B.Ok]
    assert not window.open_path(tmp_path / "nope.modeller.json")
    assert "nope.modeller.json" in dialogs.shown[0]
    assert window.document.project == empty_project()


@pytest.mark.parametrize("answer", ["save", "discard", "cancel"])
def test_unsaved_prompt_buttons(
    window: MainWindow, dialogs: DialogLog, tmp_path: Path, answer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(NewProjectDialog, "exec", lambda _dialog: QDialog.DialogCode.Accepted)  # "Untitled"
    path = tmp_path / "blog.modeller.json"
    path.write_bytes(sample("blog").read_bytes())
    assert window.open_path(path)
    modify(window)
    edited = window.document.project.model_copy(deep=True)
    dialogs.answers = [{"save": B.Save, "discard": B.Discard, "cancel": B.Cancel}[answer]]
    window.new_project()
    assert "Save the changes to “blog.modeller.json”" in dialogs.shown[0]
    if answer == "cancel":
        assert window.document.project == edited and window.document.is_modified()
        assert load_project(path) != edited
    else:
        new = empty_project().model_copy(update={"database": "untitled"})
        assert window.document.project == new and not window.document.is_modified()
        assert (load_project(path) == edited) is (answer == "save")


def test_close_with_unsaved_changes_can_be_cancelled(window: MainWindow, dialogs: DialogLog) -> None:
    assert window.open_path(sample("blog"))
    modify(window)
    dialogs.answers = [B.Cancel]
    assert not window.close()
    assert window.isVisible()


def test_autosave_recovery_restores_edits(make_window: Callable[..., MainWindow], dialogs: DialogLog) -> None:
    crashed = make_window()
    assert crashed.open_path(sample("task-tracker"))
    assert not crashed.autosave_now()  # nothing unsaved, nothing written
    modify(crashed)
    assert crashed.autosave_timer.interval() == 60_000 and crashed.autosave_timer.isActive()
    assert crashed.autosave_now()
    edited = crashed.document.project.model_copy(deep=True)
    # the session "crashes": no close, so the recovery copy stays, and its lock goes with the process
    restarted_too_early = make_window()
    assert not restarted_too_early.offer_recovery()  # the owner still runs: not offered
    crashed.recovery.abandon()

    restarted = make_window()
    dialogs.answers = [B.Yes]
    assert restarted.offer_recovery()
    assert "task-tracker.modeller.json" in dialogs.shown[0]
    assert restarted.document.project == edited
    assert restarted.document.is_modified()
    assert restarted.document.path == sample("task-tracker")
    assert restarted.title_text().startswith("task-tracker.modeller.json*")


def test_recovery_discarded_on_request_and_cleared_on_save(
    make_window: Callable[..., MainWindow], dialogs: DialogLog, tmp_path: Path
) -> None:
    crashed = make_window()
    assert crashed.open_path(sample("blog"))
    modify(crashed)
    assert crashed.autosave_now() and crashed.recovery.path.is_file()
    assert crashed.save_to(tmp_path / "b.modeller.json")
    assert not crashed.recovery.path.exists()
    modify(crashed)
    crashed.autosave_now()
    crashed.recovery.abandon()  # the crash
    restarted = make_window()
    dialogs.answers = [B.Discard]
    assert not restarted.offer_recovery()
    assert not restarted.recovery.path.exists()
    assert list(restarted.recovery.directory.iterdir()) == []  # the copy, its meta and its lock are gone
    assert restarted.document.project == empty_project()


def test_first_save_names_an_untitled_project_after_its_file(
    make_window: Callable[..., MainWindow], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tryout a14 item 9: a project drawn in the empty window exported as "Untitled" after Save As blog."""
    window = make_window()
    target = tmp_path / "blog.modeller.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(target), ""))
    assert window.document.project.name == "Untitled" and window.save_as()
    assert load_project(target).name == "blog" and not window.document.is_modified()
    window.document.undo_stack.undo()
    assert window.document.project.name == "Untitled"  # one undo step, like any other edit
    named = tmp_path / "other.modeller.json"
    window.document.undo_stack.redo()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(named), ""))
    assert window.save_as() and load_project(named).name == "blog"  # a name is never replaced
