"""The GUI's last line of defence, and hostile names in its dialogs, title and status bar."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QMessageBox

from modeller.persistence.crash import SCRUBBED, scrub_crash_reports
from modeller.ui.commands.entity import EditEntityCommand
from modeller.ui.crash import CrashHandler
from modeller.ui.dialogs.messages import show_file_error
from modeller.ui.main_window import MainWindow

from .conftest import DialogLog, sample

EVIL = "evil\x1b]0;pwned\x07\u202eRTL\u2066<img src=x onerror=alert(1)>\nsecond line"
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def unsafe(text: str) -> list[str]:
    return [repr(c) for c in text if c in BIDI or (unicodedata.category(c) == "Cc" and c != "\n")]


class Shown:
    """Stands in for the modal crash dialog: records what it would say."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, str, Path | None, str]] = []

    def __call__(self, parent: Any, summary: str, report: Path | None, saved: str) -> None:
        self.calls.append((parent, summary, report, saved))


class Emitter(QObject):
    fired = Signal()


@pytest.fixture
def handler(window: MainWindow) -> Any:
    crash = CrashHandler(window, window.autosave_now, window.document.is_modified)
    crash.show = Shown()
    crash.install()
    yield crash
    crash.uninstall()


def rename_first(window: MainWindow, name: str) -> None:
    entity = window.document.project.entities[0]
    window.document.push(EditEntityCommand(window.document, entity.model_copy(update={"name": name})))


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_flushes_autosave_writes_a_report_and_shows_the_dialog(
    window: MainWindow, handler: CrashHandler, qtbot: Any
) -> None:
    assert window.open_path(sample("blog"))
    rename_first(window, "Unsaved Rename")
    assert not window.recovery.path.exists()  # the minute-timer has not written anything yet

    def broken_slot() -> None:
        raise RuntimeError(f"slot broke on {EVIL}")

    emitter = Emitter()
    emitter.fired.connect(broken_slot)
    QTimer.singleShot(0, emitter.fired.emit)
    qtbot.waitUntil(lambda: len(handler.show.calls) == 1, timeout=5000)

    # the autosave was flushed before anything else, into this instance's own recovery copy
    assert "Unsaved Rename" in window.recovery.path.read_text(encoding="utf-8")
    parent, summary, report, saved = handler.show.calls[0]
    assert parent is window
    assert summary.startswith("RuntimeError: slot broke on evil\\x1b]0;pwned") and not unsafe(summary)
    assert saved.startswith("Your work is safe: the unsaved changes were saved to the recovery copy")
    assert report is not None and report.parent == Path(os.environ["XDG_CACHE_HOME"]) / "modeller"
    text = report.read_text(encoding="utf-8")
    assert "Traceback (most recent call last):" in text and "in broken_slot" in text
    assert "where: modeller desktop app" in text and not unsafe(text)


@pytest.mark.qt_no_exception_capture
def test_nothing_unsaved_and_no_second_dialog_while_one_is_open(window: MainWindow, handler: CrashHandler) -> None:
    inner: list[int] = []

    def show(parent: Any, summary: str, report: Path | None, saved: str) -> None:
        inner.append(1)
        handler(ValueError, ValueError("while the dialog is open"), None)  # e.g. a paint error behind the box
        Shown.__call__(recorder, parent, summary, report, saved)

    recorder = Shown()
    handler.show = show
    handler(KeyError, KeyError("first"), None)
    assert inner == [1]  # the second error wrote its report but opened no second dialog
    assert len(handler.reports) == 2 and all(r is not None and r.exists() for r in handler.reports)
    assert recorder.calls[0][3] == "Your work is safe: the project has no unsaved changes."


def test_the_crash_dialog_says_the_work_is_safe_and_where_the_report_is(
    window: MainWindow, dialogs: DialogLog, tmp_path: Path
) -> None:
    handler = CrashHandler(window, window.autosave_now, window.document.is_modified)  # the real dialog
    dialogs.answers.append(QMessageBox.StandardButton.Ok)
    handler(ZeroDivisionError, ZeroDivisionError("division by zero"), None)
    text = dialogs.shown[-1]
    assert "Modeller hit an internal error: ZeroDivisionError: division by zero" in text
    assert "Your work is safe" in text and f"The details are in {handler.reports[0]}" in text


def test_an_autosave_that_fails_is_said_plainly(window: MainWindow, handler: CrashHandler) -> None:
    def failing() -> bool:
        raise OSError(28, "No space left on device")

    handler.autosave = failing
    handler(RuntimeError, RuntimeError("x"), None)
    saved = handler.show.calls[0][3]
    assert saved.startswith("Your unsaved changes could not be saved to the recovery copy (")
    assert "save the project now" in saved


def test_file_error_dialog_and_title_show_hostile_names_escaped_and_plain(
    make_window: Callable[..., MainWindow], dialogs: DialogLog, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    window = make_window()
    formats: list[Qt.TextFormat] = []
    original_exec = QMessageBox.exec

    def exec_and_note(box: QMessageBox) -> int:
        formats.append(box.textFormat())
        return original_exec(box)

    monkeypatch.setattr(QMessageBox, "exec", exec_and_note)
    bad = tmp_path / f"{EVIL}.modeller.json"
    bad.write_text("{", encoding="utf-8")
    dialogs.answers.append(QMessageBox.StandardButton.Ok)
    assert not window.open_path(bad)
    shown = dialogs.shown[-1]
    assert not unsafe(shown) and formats == [Qt.TextFormat.PlainText]  # <img ...> stays text
    assert "evil\\x1b]0;pwned\\x07\\u202eRTL\\u2066<img src=x onerror=alert(1)>\\nsecond line.modeller.json" in shown
    assert "\nsecond line" not in shown  # a newline in the name cannot fake another line of the message
    dialogs.answers.append(QMessageBox.StandardButton.Ok)
    show_file_error(window, "Cannot open project", bad, "x" * 1_000_000)
    assert len(dialogs.shown[-1]) < 5000  # a huge message is cut
    window.document.set_path(bad)
    assert not unsafe(window.title_text()) and "\\u202eRTL" in window.title_text()
    assert not unsafe(window.windowTitle()) and "\\u202eRTL" in window.windowTitle()
    window.notify(f"Saved {bad}", 1000)
    assert not unsafe(window.statusBar().currentMessage())


def test_an_exporter_bug_in_the_dialog_is_one_line_and_a_crash_report(
    window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from modeller.ui.dialogs import export_dialog

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise KeyError(f"exporter bug on {EVIL}")

    monkeypatch.setattr(export_dialog, "export_project", broken)
    assert window.open_path(sample("blog"))
    dialog = window.show_export_dialog()
    dialog.folder.setText(str(tmp_path / "out"))
    dialog.start_export()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=30000)
    assert dialog.error is not None and dialog.error.startswith("internal error: KeyError: ")
    assert "Traceback" not in dialog.error and not unsafe(dialog.error) and "\n" not in dialog.error
    report = Path(dialog.error.split(" — details in ", 1)[1].removesuffix(", please report it"))
    assert "in broken" in report.read_text(encoding="utf-8")
    assert "<img" not in dialog.status.text()  # the name is escaped as HTML too
    assert not (tmp_path / "out").exists()


@pytest.mark.qt_no_exception_capture
def test_old_reports_holding_a_password_are_masked_at_start_and_a_new_one_holds_none(window: MainWindow) -> None:
    """Tryout a13 item 11: a report an older build wrote kept tlsCertificateKeyFilePassword=hunter2 in plain text."""
    folder = Path(os.environ["XDG_CACHE_HOME"]) / "modeller"
    folder.mkdir(parents=True, exist_ok=True)
    old = folder / "crash-20261124-183349-408685.txt"
    old.write_text(
        "command: modeller infer mongodb://ann:s3cret@db/?tlsCertificateKeyFilePassword=hunter2 --db shop\n"
        "Traceback (most recent call last):\n  ServerSelectionTimeoutError: mongodb://db/?password=hunter2\n",
        encoding="utf-8",
    )
    clean = folder / "crash-20261124-190000-000001.txt"
    clean.write_text("command: modeller check x.json\nTraceback: ValueError\n", encoding="utf-8")
    before = clean.stat().st_mtime_ns
    crash = CrashHandler(window, window.autosave_now, window.document.is_modified)
    crash.show = Shown()
    crash.install()  # the app's start
    try:
        text = old.read_text(encoding="utf-8")
        assert "hunter2" not in text and "s3cret" not in text
        assert "mongodb://***@db/?tlsCertificateKeyFilePassword=***" in text and "?password=***" in text
        assert "Traceback (most recent call last):" in text  # the rest of the report is kept
        assert clean.stat().st_mtime_ns == before  # nothing to mask: not rewritten
        assert (old.stat().st_mode & 0o777) == 0o600 and not list(folder.glob("*.scrub"))
        assert (folder / SCRUBBED).exists() and scrub_crash_reports(folder) == 0  # once, not at every start
        crash(
            RuntimeError,
            RuntimeError("cannot reach mongodb://ann:s3cret@db/?tlsCertificateKeyFilePassword=hunter2"),
            None,
        )
    finally:
        crash.uninstall()
    (report,) = crash.reports
    assert report is not None and report.exists()
    written = report.read_text(encoding="utf-8")
    assert "cannot reach mongodb://***@db/?tlsCertificateKeyFilePassword=***" in written
    assert "hunter2" not in written and "s3cret" not in written
