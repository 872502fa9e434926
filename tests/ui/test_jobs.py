"""BackgroundJob: results and expected errors arrive on the UI thread; a bug is one line naming its crash report."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject

from modeller.live.errors import LiveError
from modeller.ui.jobs import BackgroundJob, JobFailed

WAIT_MS = 10_000


def _run(qtbot, work, expected=()) -> object:
    job = BackgroundJob(work, "test", expected=expected)
    seen: list[object] = []
    job.finished.connect(seen.append)
    job.start()
    qtbot.waitUntil(lambda: bool(seen), timeout=WAIT_MS)
    return seen[0]


def test_the_result_and_the_progress_arrive_on_the_ui_thread(qtbot) -> None:
    progress: list[tuple[object, bool]] = []

    def work(report, _cancelled) -> int:
        report("half")
        return 42

    job = BackgroundJob(work, "test")
    job.progress.connect(lambda value: progress.append((value, threading.current_thread() is threading.main_thread())))
    done: list[object] = []
    job.finished.connect(done.append)
    job.start()
    qtbot.waitUntil(lambda: bool(done), timeout=WAIT_MS)
    assert done == [42] and progress == [("half", True)]


def test_an_expected_error_arrives_as_itself(qtbot) -> None:
    def work(_report, _cancelled) -> None:
        raise LiveError("cannot reach mongodb://ann:***@h within 5 s; check the host")

    result = _run(qtbot, work, expected=(LiveError,))
    assert isinstance(result, LiveError) and str(result).startswith("cannot reach")


def test_a_bug_is_one_line_naming_the_crash_report_with_the_password_masked(qtbot) -> None:
    def work(_report, _cancelled) -> None:
        raise ValueError("boom at mongodb://ann:hunter2@host")

    result = _run(qtbot, work, expected=(LiveError,))
    assert isinstance(result, JobFailed)
    text = str(result)
    assert text.startswith("internal error: ValueError: boom at mongodb://***@host — details in ")
    assert "\n" not in text and "hunter2" not in text
    report = text.split("details in ", 1)[1].split(", please report it")[0]
    with open(report, encoding="utf-8") as handle:
        content = handle.read()
    assert "where: modeller desktop app, test" in content and "hunter2" not in content


def test_a_job_whose_dialog_is_gone_finishes_quietly(qtbot) -> None:
    owner = QObject()
    gate = threading.Event()
    errors: list[BaseException] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: errors.append(args.exc_value)  # type: ignore[assignment]
    try:
        job = BackgroundJob(lambda _r, _c: gate.wait(5), "test", parent=owner)
        job.start()
        thread = job.thread
        owner.deleteLater()
        qtbot.waitUntil(lambda: _deleted(job), timeout=WAIT_MS)
        gate.set()
        assert thread is not None
        thread.join(10)
        assert not thread.is_alive() and errors == []
    finally:
        threading.excepthook = previous


def _deleted(job: BackgroundJob) -> bool:
    try:
        job.objectName()
    except RuntimeError:
        return True
    return False
