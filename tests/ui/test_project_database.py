"""Honest defaults: File > New asks for the project's name and database; export never silently uses ``test``."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox

from modeller.ui.dialogs.new_project_dialog import NewProjectDialog

from .live_helpers import open_sample


def _answer(monkeypatch: pytest.MonkeyPatch, fill, accept: bool = True) -> list[NewProjectDialog]:
    """Replace the modal loop: ``fill(dialog)`` types the answers, then Create (or Cancel) is pressed."""
    shown: list[NewProjectDialog] = []

    def run(dialog: NewProjectDialog) -> int:
        shown.append(dialog)
        fill(dialog)
        if accept:
            dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
        else:
            dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
        return int(dialog.result())

    monkeypatch.setattr(NewProjectDialog, "exec", run)
    return shown


def _type(qtbot, line, text: str) -> None:
    """Select all, Backspace, then type ``text`` key by key, as a user does."""
    line.setFocus()
    line.selectAll()
    qtbot.keyClick(line, Qt.Key.Key_Backspace)
    if text:
        qtbot.keyClicks(line, text)
    assert line.text() == text


def test_the_database_follows_the_project_name_until_the_user_types_one(qtbot) -> None:
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    assert (dialog.name.text(), dialog.database.text()) == ("Untitled", "untitled")
    dialog.name.setText("Shop & Stock 2026")
    assert dialog.database.text() == "shop_stock_2026"
    _type(qtbot, dialog.database, "inventory")
    dialog.name.setText("Something else")
    assert dialog.database.text() == "inventory"
    project = dialog.project()
    assert (project.name, project.database) == ("Something else", "inventory")


@pytest.mark.parametrize(
    ("name", "database", "problem"),
    [
        ("Shop", "shop.v2", "Database name shop.v2 contains '.', which MongoDB refuses; remove them."),
        ("Shop", "d" * 64, "Database name is longer than 63 bytes; shorten it."),
        ("Shop", "", "Type the name of the database the scripts create the collections in."),
        ("   ", "shop", "Type a name for the project."),
    ],
)
def test_create_is_refused_with_the_reason_while_an_answer_is_invalid(qtbot, name, database, problem) -> None:
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    dialog.name.setText(name)
    _type(qtbot, dialog.database, database)
    create = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not create.isEnabled()
    assert dialog.problem.text() == problem
    dialog.accept()  # Enter in a field: still refused
    assert dialog.result() != QDialog.DialogCode.Accepted


def test_a_hostile_project_name_still_gives_a_legal_database_name(qtbot) -> None:
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    dialog.name.setText('a/b\\c. "d$*<>:|?' + "é" * 80)
    database = dialog.database.text()
    assert database.startswith("a_b_c_d_") and len(database.encode("utf-8")) <= 63
    assert dialog.problem.text() == "" and dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()


def test_new_starts_an_empty_project_with_the_answers(make_window, monkeypatch) -> None:
    window = open_sample(make_window, "blog")

    def fill(dialog: NewProjectDialog) -> None:
        dialog.name.setText("Library")

    _answer(monkeypatch, fill)
    window.new_project()
    project = window.document.project
    assert (project.name, project.database, project.entities) == ("Library", "library", ())
    assert window.document.path is None and not window.document.is_modified()
    assert window.document.undo_stack.count() == 0


def test_cancel_leaves_the_current_project_alone(make_window, monkeypatch, dialogs) -> None:
    window = open_sample(make_window, "blog")
    before = window.document.project
    shown = _answer(monkeypatch, lambda dialog: dialog.name.setText("Library"), accept=False)
    window.new_project()
    assert shown and window.document.project is before
    assert not dialogs.shown  # no "save changes?" question for a New that did not happen


def _without_database(window) -> None:
    project = window.document.project.model_copy(update={"database": None})
    window.document.reset(project, None, modified=True)


def test_export_asks_for_a_database_when_the_project_has_none(make_window, qtbot, tmp_path: Path) -> None:
    window = open_sample(make_window, "blog")
    _without_database(window)
    dialog = window.show_export_dialog()
    dialog.folder.setText(str(tmp_path / "out"))
    assert dialog.database.text() == ""
    assert not dialog.export_button.isEnabled()
    assert "Type the name of the database" in dialog.status.text()
    dialog.start_export()  # refused: nothing runs, nothing changes
    assert not dialog.running() and window.document.project.database is None

    dialog.database.setText("journal")
    assert dialog.export_button.isEnabled() and dialog.status.text() == ""
    steps = window.document.undo_stack.count()
    dialog.start_export()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=30000)
    assert dialog.error is None, dialog.error
    script = (tmp_path / "out" / "setup.mongosh.js").read_text(encoding="utf-8")
    assert 'db.getSiblingDB("journal")' in script and '"test"' not in script
    # the name is now the project's: one undoable change
    assert window.document.project.database == "journal"
    assert window.document.undo_stack.count() == steps + 1
    window.document.undo_stack.undo()
    assert window.document.project.database is None
    dialog.close()


def test_export_shows_the_projects_database_and_an_edit_is_one_undo_step(make_window, qtbot, tmp_path: Path) -> None:
    window = open_sample(make_window, "blog")
    dialog = window.show_export_dialog()
    assert dialog.database.text() == "blog"
    dialog.database.setText("blog.v2")
    assert not dialog.export_button.isEnabled()
    assert "contains '.', which MongoDB refuses" in html.unescape(dialog.status.text())
    dialog.database.setText("blog_v2")
    dialog.folder.setText(str(tmp_path / "out"))
    for kind, box in dialog.kind_boxes.items():
        box.setChecked(kind == "setup")
    dialog.start_export()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=30000)
    assert 'db.getSiblingDB("blog_v2")' in (tmp_path / "out" / "setup.mongosh.js").read_text(encoding="utf-8")
    stack = window.document.undo_stack
    assert stack.undoText() == "Set the database to blog_v2"
    stack.undo()
    assert window.document.project.database == "blog"
    dialog.close()


def test_exporting_again_with_the_same_database_adds_no_undo_step(make_window, qtbot, tmp_path: Path) -> None:
    window = open_sample(make_window, "blog")
    dialog = window.show_export_dialog()
    dialog.folder.setText(str(tmp_path / "out"))
    for kind, box in dialog.kind_boxes.items():
        box.setChecked(kind == "setup")
    steps = window.document.undo_stack.count()
    dialog.start_export()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=30000)
    assert window.document.undo_stack.count() == steps and not window.document.is_modified()
    dialog.close()
