"""Database → Apply design…: plan what the database needs for the open design, confirm, run it off the UI thread.

The plan is ``modeller apply`` 's (:func:`modeller.live.apply.plan_apply` on
the server's listed state): create collections with their validators, set
validators with ``collMod`` (moderate and warn while stored documents would
fail), create missing indexes. Nothing is ever dropped; what the design does
not have is listed as notes. The steps run only after a confirmation; Cancel
stops before the next step, and applying again continues where it stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from modeller.live.apply import ApplyPlan, Step
from modeller.live.errors import LiveError
from modeller.model.text import shown
from modeller.ui.dialogs.connection_fields import ConnectionFields, database_problem, gui_words
from modeller.ui.dialogs.import_widgets import StatusLine
from modeller.ui.dialogs.job_dialog import JobDialog
from modeller.ui.document import ProjectDocument
from modeller.ui.jobs import JobCancelled

DONE_COLOR = "#1b7f3b"
FAILED_COLOR = "#b00020"


@dataclass
class Planned:
    """A plan and the server it was made against (the password hidden)."""

    plan: ApplyPlan
    server: str
    warnings: list[str]


@dataclass
class Applied:
    steps: int


class ApplyDesignDialog(JobDialog):
    """Connection and database; Plan shows the steps and notes; Apply runs them after a confirmation."""

    def __init__(self, document: ProjectDocument, settings: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ApplyDesignDialog")
        self.setWindowTitle("Apply design to a database")
        self.document = document
        self.planned: Planned | None = None
        self.step_items: list[QTreeWidgetItem] = []
        self.connection = ConnectionFields(settings)
        self.uri, self.password, self.timeout = self.connection.uri, self.connection.password, self.connection.timeout

        self.database = QLineEdit(document.project.database or "")
        self.database.setPlaceholderText("the database to bring to the design")
        self.database.setToolTip("Defaults to the project's database (Properties → Database)")
        self.database.textChanged.connect(lambda _t: self._forget_plan())
        self.uri.currentTextChanged.connect(lambda _t: self._forget_plan())
        self.plan_button = QPushButton("&Plan")
        self.plan_button.setToolTip("Read the database and list what apply would do; nothing is changed")
        self.plan_button.clicked.connect(self.make_plan)
        uri_row = QHBoxLayout()
        uri_row.addWidget(self.uri, 1)
        uri_row.addWidget(self.plan_button)
        uri_label = QLabel("Connection &string:")
        uri_label.setBuddy(self.uri)
        form = QFormLayout()
        form.addRow(uri_label, uri_row)
        form.addRow("&Password:", self.password)
        form.addRow("&Timeout:", self.timeout)
        form.addRow("&Database:", self.database)
        self.options_area = QWidget()
        self.options_area.setLayout(form)

        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setWordWrap(True)
        self.status = StatusLine("Press Plan to see what the database needs; nothing changes until you apply.")
        self.status.setObjectName("ApplyStatus")
        self.apply_button = QPushButton("&Apply…")
        self.apply_button.setToolTip("Run the planned steps after a confirmation (never drops anything)")
        self.apply_button.clicked.connect(self.confirm_and_apply)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop before the next step, or close (Esc)")
        self.cancel_button.clicked.connect(self.cancel)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.options_area)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        self.resize(760, 560)
        self._update_buttons()

    # ----------------------------------------------------------------- planning
    def _target(self) -> tuple[str, str] | None:
        name = self.database.text().strip()
        problem = self.connection.problem() or database_problem(name)
        if problem is not None:
            self.status.error(problem)
            return None
        return self.connection.connection_uri(), name

    def make_plan(self) -> None:
        """Analyse the open design and read the database (off the UI thread); show the steps and notes."""
        target = self._target()
        if target is None or self.job is not None:
            return
        uri, database = target
        project = self.document.project  # immutable: the worker reads it as it is now
        timeout = self.timeout.value()

        def work(_report: Callable[[Any], None], cancelled: threading.Event) -> Planned:
            from modeller.live.apply import plan_apply
            from modeller.live.source import Source
            from modeller.rules import analyse
            from modeller.rules.framework.findings import blocked_indexes

            analysis = analyse(project)
            blocked = {k: f"not created ({f.rule}): {f.message}" for k, f in blocked_indexes(analysis.findings).items()}
            if cancelled.is_set():
                raise JobCancelled()
            with Source(uri, timeout) as source:
                state = source.read_state(database, analysis.design)
                return Planned(plan_apply(analysis.design, state, blocked), source.shown, list(source.warnings))

        self._run("plan", work, f"Reading {shown(database, 80)} at {self.connection.shown_uri()}…")

    def show_plan(self, planned: Planned) -> None:
        self.planned = planned
        self.tree.clear()
        plan = planned.plan
        steps = QTreeWidgetItem(self.tree, [f"Steps, in the order they run ({len(plan.steps)})"])
        self.step_items = []
        for number, step in enumerate(plan.steps, start=1):
            item = QTreeWidgetItem(steps, [f"{number}. {shown(step.summary, 400)}"])
            item.setToolTip(0, shown(step.summary, 1000))
            item.setData(0, Qt.ItemDataRole.UserRole, step)
            self.step_items.append(item)
        if not plan.steps:
            QTreeWidgetItem(steps, ["Nothing to do: the database has every collection, validator and index"])
        if plan.notes:
            notes = QTreeWidgetItem(self.tree, [f"Not done by apply ({len(plan.notes)})"])
            for note in plan.notes:
                item = QTreeWidgetItem(notes, [shown(note.text, 400)])
                item.setToolTip(0, shown(note.text, 1000))
                for line in note.details:  # the fields documents fail the validator on
                    QTreeWidgetItem(item, [shown(line, 400)]).setToolTip(0, shown(line, 1000))
                item.setExpanded(bool(note.details))
            notes.setExpanded(True)
        for warning in planned.warnings:
            QTreeWidgetItem(self.tree, [f"Warning: {shown(warning, 400)}"])
        steps.setExpanded(True)
        if plan.steps:
            self.status.say(
                f"{len(plan.steps)} step(s) for {shown(repr(plan.database), 80)} at {shown(planned.server, 200)}. "
                "Nothing has changed yet: press Apply… to run them."
            )
        else:
            self.status.say(
                f"{shown(repr(plan.database), 80)} at {shown(planned.server, 200)} already matches the design."
            )

    def rows(self) -> list[tuple[str, list[str]]]:
        out = []
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            out.append((group.text(0), [group.child(j).text(0) for j in range(group.childCount())]))
        return out

    # ----------------------------------------------------------------- applying
    def confirm_and_apply(self) -> None:
        if self.planned is None or not self.planned.plan.steps or self.job is not None:
            return
        plan = self.planned.plan
        box = QMessageBox(self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Apply design")
        box.setText(
            f"Run {len(plan.steps)} step(s) on database {shown(repr(plan.database), 80)} "
            f"at {shown(self.planned.server, 200)}?"
        )
        box.setInformativeText(
            "Collections, validators and indexes are created or changed as listed; nothing is dropped. "
            "If a step fails, the ones before it stay done and applying again continues."
        )
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText("Apply")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        if box.exec() != QMessageBox.StandardButton.Yes:
            self.status.say("Not applied: the database is unchanged.")
            return
        self.apply_plan()

    def apply_plan(self) -> None:
        """Run the shown plan's steps in a worker thread (call after the user confirmed)."""
        target = self._target()
        if target is None or self.planned is None or self.job is not None:
            return
        uri, _database = target
        plan = self.planned.plan
        timeout = self.timeout.value()

        def work(report: Callable[[Any], None], cancelled: threading.Event) -> Applied:
            from modeller.live.apply import run_plan
            from modeller.live.source import Source

            def progress(number: int, step: Step) -> None:
                if cancelled.is_set():
                    raise JobCancelled()
                report(number)

            with Source(uri, timeout) as source:
                source.ping()
                total = run_plan(plan, lambda step: source.command(plan.database, step.command, step.summary), progress)
            report(total + 1)
            return Applied(total)

        self._run("apply", work, f"Applying {len(plan.steps)} step(s)…")

    def job_progress(self, number: int) -> None:
        """Steps before ``number`` are done; ``number`` runs."""
        green = QBrush(QColor(DONE_COLOR))
        for index, item in enumerate(self.step_items, start=1):
            step = item.data(0, Qt.ItemDataRole.UserRole)
            if index < number:
                item.setText(0, f"{index}. done: {shown(step.summary, 400)}")
                item.setForeground(0, green)
            elif index == number:
                item.setText(0, f"{index}. running: {shown(step.summary, 400)}")
        if number <= len(self.step_items):
            self.status.say(f"Step {number} of {len(self.step_items)}…")

    def done_steps(self) -> int:
        return sum(1 for item in self.step_items if ". done: " in item.text(0))

    def _settle_running(self, state: str, color: str | None = None) -> None:
        """The step shown as running when the job ends without finishing it: ``stopped`` or ``failed``."""
        for index, item in enumerate(self.step_items, start=1):
            if item.text(0).startswith(f"{index}. running: "):
                step = item.data(0, Qt.ItemDataRole.UserRole)
                item.setText(0, f"{index}. {state}: {shown(step.summary, 400)}")
                if color is not None:
                    item.setForeground(0, QBrush(QColor(color)))

    # ----------------------------------------------------------------- jobs and state
    def cancel(self) -> None:
        kind = self.stop_job()
        if kind is None:
            self.reject()
            return
        if kind == "apply":
            done = self.done_steps()
            self._settle_running("stopped (if it was sent, it finishes on the server)")
            self.status.say(
                f"Stopped after {done} step(s) (a step already sent finishes on the server). "
                "Press Plan to see what is left; applying again continues."
            )
            self.planned = None
        else:
            self.status.say("Cancelled: nothing was changed.")
        self._idle()

    def _run(self, kind: str, work: Callable[..., Any], message: str) -> None:
        self.options_area.setEnabled(False)
        self.apply_button.setEnabled(False)
        self.plan_button.setEnabled(False)
        self.status.say(message)
        self.run_job(kind, work, f"apply-{kind}", (LiveError,))

    def job_finished(self, kind: str, result: Any) -> None:
        self._idle()
        if isinstance(result, JobCancelled):
            return
        if isinstance(result, BaseException):
            message = gui_words(str(result))
            if kind == "apply":
                done = self.done_steps()
                total = len(self.step_items)
                message = f"Step {done + 1} of {total} failed ({done} done; applying again continues): {message}"
                self._settle_running("failed", FAILED_COLOR)
                self.planned = None
            self.status.error(message)
        elif isinstance(result, Planned):
            self.connection.remember()
            self.show_plan(result)
        else:
            assert isinstance(result, Applied)
            database = self.planned.plan.database if self.planned else self.database.text()
            self.planned = None
            self.status.say(
                f"Applied {result.steps} step(s) to {shown(repr(database), 80)}; nothing was dropped. "
                "Press Plan again to check: it should have nothing left to do."
            )
        self._update_buttons()

    def _forget_plan(self) -> None:
        """Another server or database: the shown plan is not theirs."""
        if self.planned is not None and self.job is None:
            self.planned = None
            self.tree.clear()
            self.step_items = []
            self.status.say("Press Plan to see what this database needs.")
        self._update_buttons()

    def _idle(self) -> None:
        self.options_area.setEnabled(True)
        self.plan_button.setEnabled(True)
        self._update_buttons()

    def _update_buttons(self) -> None:
        ready = self.job is None and self.planned is not None and bool(self.planned.plan.steps)
        self.apply_button.setEnabled(ready)
        self.plan_button.setText("&Plan again" if self.tree.topLevelItemCount() else "&Plan")
