"""File → Compare with…: the diff of the resolved designs by collection, with risks, and Export migration…."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from modeller.model import Field
from modeller.ui.commands.entity import EditEntityCommand
from modeller.ui.dialogs.compare_dialog import CompareDialog

from .conftest import sample

EXPORT_TESTS = str(Path(__file__).resolve().parents[1] / "export")
if EXPORT_TESTS not in sys.path:
    sys.path.insert(0, EXPORT_TESTS)

from js_harness import node_check  # noqa: E402

WAIT_MS = 60_000


def _open_copy(window, tmp_path: Path, name: str = "blog") -> Path:
    path = tmp_path / f"{name}.modeller.json"
    shutil.copyfile(sample(name), path)
    assert window.open_path(path, ask=False)
    return path


def _compare(qtbot, dialog: CompareDialog) -> None:
    qtbot.mouseClick(dialog.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)


def _add_required_rating(window) -> None:
    document = window.document
    post = next(e for e in document.project.entities if e.collection == "posts")
    new = post.model_copy(update={"fields": (*post.fields, Field(name="rating", type="int", required=True))})
    document.push(EditEntityCommand(document, new))


@pytest.mark.node
def test_unsaved_changes_are_listed_by_collection_and_the_migration_is_written(
    qtbot, make_window, tmp_path: Path
) -> None:
    window = make_window()
    _open_copy(window, tmp_path)
    _add_required_rating(window)
    dialog = window.database_actions.show_compare()
    assert dialog.saved_radio.isChecked()
    _compare(qtbot, dialog)
    summary = dialog.summary.text()
    assert summary.startswith("From the last saved version to the open design: 1 schema change in 1 collection")
    rows = dict(dialog.rows())
    assert next(iter(rows)) == "Collection posts — 1 change, 1 breaking"
    [(change, risk)] = rows["Collection posts — 1 change, 1 breaking"]
    assert change.startswith("BREAKING  field added: ") and "rating" in change
    assert "existing documents" in risk
    assert dialog.export_button.isEnabled()
    out = dialog.write_migration(tmp_path / "blog-migration.mongosh.js")
    assert out is not None and out.exists()
    script = out.read_text(encoding="utf-8")
    assert '"rating"' in script and '"posts"' in script
    assert '// Run it with: mongosh "mongodb://HOST:PORT" blog-migration.mongosh.js' in script
    node_check(out)
    assert dialog.status.text().startswith(f"Migration script written to {out}")
    dialog.copy_button.click()
    markdown = QGuiApplication.clipboard().text()
    assert markdown.startswith("## Schema changes") and "### Collection `posts`" in markdown and "rating" in markdown


def test_an_unchanged_project_says_so_and_offers_no_migration(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    _open_copy(window, tmp_path)
    dialog = window.database_actions.show_compare()
    _compare(qtbot, dialog)
    assert dialog.summary.text().startswith(
        "No changes: the open design resolves to the same database design as the last saved version."
    )
    assert dialog.rows() == [] and not dialog.export_button.isEnabled()


def test_another_file_is_the_old_side(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    other = tmp_path / "old.modeller.json"
    shutil.copyfile(sample("blog"), other)
    _open_copy(window, tmp_path)
    _add_required_rating(window)
    window.save()
    dialog = window.database_actions.show_compare()
    dialog.file_path.setText(str(other))
    assert dialog.file_radio.isChecked()
    _compare(qtbot, dialog)
    assert dialog.summary.text().startswith("From old.modeller.json to the open design: 1 schema change")


def test_a_broken_file_is_one_line_and_writes_nothing(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    _open_copy(window, tmp_path)
    broken = tmp_path / "broken.modeller.json"
    broken.write_text('{"format": "modeller", ', encoding="utf-8")
    dialog = window.database_actions.show_compare()
    dialog.file_radio.setChecked(True)
    dialog.file_path.setText(str(broken))
    _compare(qtbot, dialog)
    text = dialog.summary.text()
    assert dialog.summary.is_error() and "\n" not in text
    assert text.startswith(str(broken)) and text.endswith("pick a valid project file")
    assert dialog.rows() == [] and not dialog.export_button.isEnabled()


def test_the_migration_never_replaces_a_project_file(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    path = _open_copy(window, tmp_path)
    _add_required_rating(window)
    dialog = window.database_actions.show_compare()
    _compare(qtbot, dialog)
    before = path.read_bytes()
    assert dialog.write_migration(path) is None
    assert dialog.status.text() == "blog.modeller.json is a project file; name the script *.mongosh.js instead"
    assert path.read_bytes() == before


def test_an_unsaved_new_project_compares_with_a_file_only(make_window) -> None:
    window = make_window()
    dialog = window.database_actions.show_compare()
    assert not dialog.saved_radio.isEnabled() and dialog.file_radio.isChecked()
    dialog.compare()
    assert dialog.summary.text() == "Name the project file to compare with (Browse… picks one)."


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=60,
    )


def test_a_git_revision_of_the_open_file_is_the_old_side(qtbot, make_window, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "design").mkdir(parents=True)
    _git(repo, "init", "-q")
    window = make_window()
    path = _open_copy(window, repo / "design")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    _add_required_rating(window)
    assert window.save()  # saved, so "the last saved version" would show nothing: HEAD still has the old one
    dialog = window.database_actions.show_compare()
    dialog.revision_radio.setChecked(True)
    _compare(qtbot, dialog)
    assert dialog.summary.text().startswith(f"From HEAD ({path.name}) to the open design: 1 schema change")
    dialog.revision.setText("no-such-branch")
    _compare(qtbot, dialog)
    text = dialog.summary.text()
    assert dialog.summary.is_error() and text.startswith("no-such-branch:./blog.modeller.json: git cannot show")
    assert dialog.rows() == []
