"""Auto-layout off the UI thread: progress, Cancel/Esc, fallback on failure, one undo entry, edits kept.

A fake ``dot`` (a small Python script) stands in for Graphviz so that timing
and output are under the test's control: it sleeps, then places the nodes in
one row, ``COLUMN_IN`` inches apart.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest

from modeller.model import Entity, Position
from modeller.ui.canvas.scene import SYNC_BUILD_MAX
from modeller.ui.commands import AddEntityCommand, MoveCommand, delete_command
from modeller.ui.document import ProjectDocument
from modeller.ui.layout import POINTS_PER_INCH, layered_positions
from modeller.ui.layout_job import LayoutJob
from modeller.ui.main_window import MainWindow

from .big_model import big_project
from .conftest import sample

COLUMN_IN = 4.0
PILE = Position(x=0, y=0)

FAKE_DOT = """\
import re, sys, time
source = sys.stdin.read()
time.sleep({delay})
nodes = re.findall(r'^  ("(?:[^"\\\\]|\\\\.)*") \\[width=([0-9.]+), height=([0-9.]+)\\];$', source, re.M)
print("graph 1 100 10")
for i, (name, w, h) in enumerate(nodes):
    print("node", name, {column} * i + float(w) / 2, 10 - float(h) / 2, w, h, '""', "solid box black lightgrey")
print("stop")
"""


def fake_dot(tmp_path: Path, delay: float) -> str:
    script = tmp_path / f"fake-dot-{delay:g}"
    script.write_text(f"#!{sys.executable}\n" + FAKE_DOT.format(delay=delay, column=COLUMN_IN))
    script.chmod(0o755)
    return str(script)


def fake_x(index: int) -> float:
    """Where the fake dot puts the card of the entity at ``index``: top-left x in scene pixels."""
    return round(COLUMN_IN * index * POINTS_PER_INCH)


def piled_sample(window: MainWindow) -> ProjectDocument:
    """The ecommerce sample with every card on one spot, so any layout visibly moves them."""
    assert window.open_path(sample("ecommerce"), ask=False)
    doc = window.document
    doc.push(MoveCommand(doc, {e.id: PILE for e in doc.project.entities}))
    return doc


def test_layout_runs_asynchronously_and_is_one_undo_entry(window: MainWindow, qtbot, tmp_path: Path) -> None:
    doc = piled_sample(window)
    window.layout_dot = fake_dot(tmp_path, 0.3)
    count = doc.undo_stack.count()
    ids = [e.id for e in doc.project.entities]
    window.layout_action.trigger()
    # still running: nothing applied yet, progress and Cancel visible, no second run
    assert window.layout_job is not None and window.layout_job.running
    assert doc.undo_stack.count() == count and all(doc.position(i) == PILE for i in ids)
    assert window.layout_progress_label.text() == f"Laying out {len(ids)} entities\u2026"
    assert window.layout_progress_label.isVisible() and window.layout_cancel_button.isVisible()
    assert not window.layout_action.isEnabled()
    qtbot.waitUntil(lambda: window.layout_job is None, timeout=10_000)
    assert doc.undo_stack.count() == count + 1 and doc.undo_stack.undoText() == "Auto-layout"
    assert [doc.position(i).x for i in ids] == [fake_x(n) for n in range(len(ids))]
    assert not window.layout_progress_label.isVisible() and window.layout_action.isEnabled()
    assert window.statusBar().currentMessage() == f"Arranged {len(ids)} cards (graphviz layout)"
    doc.undo_stack.undo()
    assert all(doc.position(i) == PILE for i in ids)


@pytest.mark.parametrize("how", ["button", "escape"])
def test_cancel_kills_dot_and_changes_nothing(window: MainWindow, qtbot, tmp_path: Path, how: str) -> None:
    doc = piled_sample(window)
    window.layout_dot = fake_dot(tmp_path, 30)
    count = doc.undo_stack.count()
    window.layout_action.trigger()
    job = window.layout_job
    assert job is not None and job._process is not None
    qtbot.waitUntil(lambda: job._process is not None and job._process.processId() > 0)
    pid = job._process.processId()
    if how == "button":
        QTest.mouseClick(window.layout_cancel_button, Qt.MouseButton.LeftButton)
    else:
        window.activateWindow()
        qtbot.waitActive(window)
        QTest.keyClick(window, Qt.Key.Key_Escape)
    assert window.layout_job is None and not job.running
    with pytest.raises(ProcessLookupError):  # dot was killed and reaped
        os.kill(pid, 0)
    qtbot.wait(100)  # a late result must not arrive either
    assert doc.undo_stack.count() == count
    assert all(doc.position(e.id) == PILE for e in doc.project.entities)
    assert window.statusBar().currentMessage() == "Auto-layout cancelled: nothing was moved"
    assert window.layout_action.isEnabled() and not window.layout_cancel_button.isVisible()


@pytest.mark.parametrize("dot", ["missing", "false"])
def test_failing_dot_falls_back_to_built_in_layout(window: MainWindow, qtbot, tmp_path: Path, dot: str) -> None:
    doc = piled_sample(window)
    binary = str(tmp_path / "no-such-dot") if dot == "missing" else shutil.which("false")
    assert binary is not None
    window.layout_dot = binary
    expected = layered_positions(doc.project, window.scene.card_sizes())
    count = doc.undo_stack.count()
    window.layout_action.trigger()
    qtbot.waitUntil(lambda: window.layout_job is None, timeout=10_000)
    assert doc.undo_stack.count() == count + 1 and doc.undo_stack.undoText() == "Auto-layout"
    assert {e.id: (doc.position(e.id).x, doc.position(e.id).y) for e in doc.project.entities} == expected
    message = window.statusBar().currentMessage()
    assert message.startswith(f"Arranged {len(expected)} cards (built-in layout); Graphviz dot ")
    assert ("could not be started" if dot == "missing" else "failed (exit 1") in message


def test_ui_thread_stays_responsive_while_dot_runs(window: MainWindow, qtbot, tmp_path: Path) -> None:
    doc = piled_sample(window)
    window.layout_dot = fake_dot(tmp_path, 1.0)
    ticks: list[int] = []
    timer = QTimer(window)
    timer.setInterval(20)
    timer.timeout.connect(lambda: ticks.append(len(ticks)))
    timer.start()
    window.layout_action.trigger()
    qtbot.waitUntil(lambda: window.layout_job is None, timeout=10_000)
    timer.stop()
    # dot slept a second; a blocked event loop would have fired the timer at most once
    assert len(ticks) >= 10
    assert doc.undo_stack.undoText() == "Auto-layout" and "graphviz layout" in window.statusBar().currentMessage()


def test_edits_made_while_dot_runs_are_kept(window: MainWindow, qtbot, tmp_path: Path) -> None:
    doc = piled_sample(window)
    window.layout_dot = fake_dot(tmp_path, 0.5)
    ids = [e.id for e in doc.project.entities]
    deleted, moved = ids[0], ids[1]
    window.layout_action.trigger()
    assert window.layout_job is not None
    command = delete_command(doc, entity_ids=[deleted])
    assert command is not None
    doc.push(command)
    doc.push(MoveCommand(doc, {moved: Position(x=-500, y=-400)}))
    doc.push(AddEntityCommand(doc, Entity(id="latecomer", name="Latecomer", fields=[]), Position(x=-900, y=-900)))
    count = doc.undo_stack.count()
    qtbot.waitUntil(lambda: window.layout_job is None, timeout=10_000)
    assert doc.undo_stack.count() == count + 1 and doc.undo_stack.undoText() == "Auto-layout"
    assert doc.entity(deleted) is None and doc.position(deleted) is None
    assert doc.position(moved) == Position(x=-500, y=-400)
    assert doc.position("latecomer") == Position(x=-900, y=-900)
    for index, entity_id in enumerate(ids[2:], start=2):  # the layout was made for the project at the start
        assert doc.position(entity_id).x == fake_x(index)
    assert window.statusBar().currentMessage() == (
        f"Arranged {len(ids) - 2} cards (graphviz layout); 2 cards added or moved during the layout stay where they are"
    )
    doc.undo_stack.undo()
    assert all(doc.position(i) == PILE for i in ids[2:]) and doc.position(moved) == Position(x=-500, y=-400)


def test_opening_another_project_cancels_the_layout(window: MainWindow, qtbot, tmp_path: Path) -> None:
    piled_sample(window)
    window.layout_dot = fake_dot(tmp_path, 30)
    window.layout_action.trigger()
    assert window.layout_job is not None
    assert window.open_path(sample("ecommerce"), ask=False)
    assert window.layout_job is None
    assert window.document.undo_stack.count() == 0


def test_slow_dot_times_out_into_the_built_in_layout(qtbot, tmp_path: Path) -> None:
    doc = ProjectDocument()
    for n in range(3):
        doc.push(AddEntityCommand(doc, Entity(id=f"e{n}", name=f"E{n}", fields=[]), None))
    job = LayoutJob(doc.project, {}, dot=fake_dot(tmp_path, 30), timeout_s=0.3)
    with qtbot.waitSignal(job.finished, timeout=10_000) as blocker:
        job.start()
    positions, engine = blocker.args
    assert engine == "built-in" and positions == layered_positions(doc.project, {})
    assert job.fallback_reason == "Graphviz dot took longer than 0.3 s" and not job.running


def test_one_esc_cancels_an_auto_layout_and_a_view_turn_running_together(make_window, qtbot, tmp_path: Path) -> None:
    """Review r16-ui item 2: the view turn had an Esc shortcut of its own besides the auto-layout's; with both
    running Qt found two shortcuts for one key and fired neither. One Esc now stops every long task."""
    window = make_window(use_engine=True)
    window.document.reset(big_project(SYNC_BUILD_MAX * 2))
    window.scene.finish_build()
    window.analysis.run_now()
    assert not window.cancel_shortcut.isEnabled()  # nothing runs: Esc is an ordinary key
    window.layout_dot = fake_dot(tmp_path, 30)
    window.layout_action.trigger()
    job = window.layout_job
    assert job is not None and job.running and window.cancel_shortcut.isEnabled()
    window.set_documents_view(True)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # a window shortcut: the key goes to the active window
    assert window.scene.arranging and window.arranging_status.isVisible()
    QTest.keyClick(window, Qt.Key.Key_Escape)
    assert window.layout_job is None and not job.running
    assert not window.scene.arranging and not window.scene.documents_view
    assert window.diagram_view_action.isChecked() and not window.arranging_status.isVisible()
    assert not window.layout_cancel_button.isVisible() and not window.cancel_shortcut.isEnabled()
    # one task alone: the same Esc stops it
    window.set_documents_view(True)
    assert window.scene.arranging and window.cancel_shortcut.isEnabled()
    QTest.keyClick(window, Qt.Key.Key_Escape)
    assert not window.scene.arranging and not window.scene.documents_view
    window.analysis.run_now()  # no worker still analysing after the test
