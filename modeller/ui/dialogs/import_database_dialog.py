"""File → Import from database…: connect, pick a database and collections, sample them off the UI thread.

The same work as ``modeller infer URI --db NAME`` (``Source.sample_database``
then ``infer_project``), with a progress bar per collection and Cancel. The
password stays in a masked field for this session: the connection-string
field and the remembered connections never hold it (nor secret options). A
Cancel drops everything sampled so far: the open project is not touched
until an import has completed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from modeller.live.errors import LiveError
from modeller.live.source import DEFAULT_SAMPLE, Source
from modeller.model.text import shown
from modeller.ui.dialogs.connection_fields import ConnectionFields, database_problem, gui_words
from modeller.ui.dialogs.import_widgets import (
    CollectionProgress,
    DestinationChoice,
    ImportDialog,
    StatusLine,
    documents,
    lay_out_import,
)
from modeller.ui.importing import Imported
from modeller.ui.jobs import JobCancelled


def _label(text: str, buddy: QWidget) -> QLabel:
    """A form label whose mnemonic (Alt+letter) focuses ``buddy`` (a row holding a layout has none by itself)."""
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


class ImportDatabaseDialog(ImportDialog):
    """Connection, database, collections, sample size and where the result goes; then progress and Cancel."""

    def __init__(self, settings: Any, has_project: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ImportDatabaseDialog")
        self.setWindowTitle("Import from database")
        self.settings = settings

        self.connection = ConnectionFields(settings)
        self.uri, self.password, self.timeout = self.connection.uri, self.connection.password, self.connection.timeout
        self.connect_button = QPushButton("&Connect")
        self.connect_button.setToolTip("List the server's databases")
        self.connect_button.clicked.connect(self.connect_server)
        uri_row = QHBoxLayout()
        uri_row.addWidget(self.uri, 1)
        uri_row.addWidget(self.connect_button)

        self.database = QComboBox()
        self.database.setEditable(True)
        self.database.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.database.lineEdit().setPlaceholderText("Connect to list them, or type a name")
        self.database.activated.connect(lambda _i: self.list_collections())
        self.database.lineEdit().editingFinished.connect(self._database_typed)
        self.collections = QListWidget()
        self.collections.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.collections.setMinimumHeight(110)
        self.collections.itemChanged.connect(lambda _item: self._update_buttons())
        self.collections.setToolTip("The collections to sample (all by default)")
        all_button, none_button = QPushButton("All"), QPushButton("None")
        all_button.clicked.connect(lambda: self._check_all(True))
        none_button.clicked.connect(lambda: self._check_all(False))
        pick = QVBoxLayout()
        pick.addWidget(all_button)
        pick.addWidget(none_button)
        pick.addStretch(1)
        collections_row = QHBoxLayout()
        collections_row.addWidget(self.collections, 1)
        collections_row.addLayout(pick)
        self.sample = QSpinBox()
        self.sample.setRange(1, 1_000_000)
        self.sample.setGroupSeparatorShown(True)
        self.sample.setValue(DEFAULT_SAMPLE)
        self.sample.setSuffix(" documents per collection")
        self.sample.setToolTip("Documents read with $sample from each collection")
        self.destination_choice = DestinationChoice(has_project)

        form = QFormLayout()
        form.addRow(_label("Connection &string:", self.uri), uri_row)
        form.addRow("&Password:", self.password)
        form.addRow("&Timeout:", self.timeout)
        form.addRow("&Database:", self.database)
        form.addRow(_label("Co&llections:", self.collections), collections_row)
        form.addRow("&Sample:", self.sample)
        form.addRow("Result:", self.destination_choice)
        self.options_area = QWidget()
        self.options_area.setLayout(form)

        self.progress = CollectionProgress()
        self.status = StatusLine("Enter the connection string and press Connect.")
        self.import_button, self.cancel_button = lay_out_import(
            self, self.options_area, self.progress, self.status, "Sample the checked collections and infer the model"
        )
        self.import_button.clicked.connect(self.start_import)
        self.cancel_button.clicked.connect(self.cancel)
        self.resize(640, 560)
        self._update_buttons()

    # ----------------------------------------------------------------- the connection
    def connection_uri(self) -> str:
        return self.connection.connection_uri()

    def shown_uri(self) -> str:
        return self.connection.shown_uri()

    def _check_uri(self) -> str | None:
        problem = self.connection.problem()
        if problem is not None:
            self._error(problem)
            return None
        return self.connection.connection_uri()

    def connect_server(self) -> None:
        """List the server's databases (off the UI thread); the chosen one then lists its collections."""
        uri = self._check_uri()
        if uri is None or self.job is not None:
            return
        timeout = self.timeout.value()

        def work(_report: Callable[[Any], None], _cancelled: threading.Event) -> list[str]:
            from modeller.live.browse import database_names

            with Source(uri, timeout) as source:
                return database_names(source)

        self._run("connect", work, f"Connecting to {self.shown_uri()}…")

    def list_collections(self) -> None:
        name = self.database.currentText().strip()
        if not name or self.job is not None:
            return
        problem = database_problem(name)
        if problem is not None:
            self._error(problem)
            return
        uri = self._check_uri()
        if uri is None:
            return
        timeout = self.timeout.value()

        def work(_report: Callable[[Any], None], _cancelled: threading.Event) -> list[str]:
            from modeller.live.browse import collection_names

            with Source(uri, timeout) as source:
                return collection_names(source, name)

        self._run("collections", work, f"Listing the collections of {shown(name, 80)}…")

    def _database_typed(self) -> None:
        if self.job is None and self.database.currentText().strip() and not self.collections.count():
            self.list_collections()

    # ----------------------------------------------------------------- collections
    def set_collections(self, names: list[str]) -> None:
        self.collections.clear()
        for name in names:
            item = QListWidgetItem(shown(name, 120))
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            item.setCheckState(Qt.CheckState.Checked)
            self.collections.addItem(item)
        self._update_buttons()

    def chosen_collections(self) -> list[str]:
        items = (self.collections.item(i) for i in range(self.collections.count()))
        return [i.data(Qt.ItemDataRole.UserRole) for i in items if i.checkState() == Qt.CheckState.Checked]

    def _check_all(self, on: bool) -> None:
        state = Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        for i in range(self.collections.count()):
            self.collections.item(i).setCheckState(state)

    # ----------------------------------------------------------------- the import
    def start_import(self) -> None:
        uri = self._check_uri()
        database = self.database.currentText().strip()
        names = self.chosen_collections()
        if uri is None or self.job is not None:
            return
        problem = database_problem(database) or (None if names else "Check at least one collection to import.")
        if problem is not None:
            self._error(problem)
            return
        timeout, size = self.timeout.value(), self.sample.value()
        self.progress.set_rows(names)
        self.progress.setVisible(True)

        def work(report: Callable[[Any], None], cancelled: threading.Event) -> Imported:
            from modeller.live.infer import infer_project
            from modeller.model.checks import check_project
            from modeller.model.text import neutralize
            from modeller.ui.importing import laid_out

            def progress(name: str, number: int, total: int) -> None:
                if cancelled.is_set():
                    raise JobCancelled()
                report(("sampling", name, number, total))

            def looking_up() -> None:
                if cancelled.is_set():
                    raise JobCancelled()
                report(("looking up", "", len(names), len(names)))

            with Source(uri, timeout) as source:
                samples, known = source.sample_database(database, names, size, progress, looking_up)
            if cancelled.is_set():
                raise JobCancelled()
            report(("inferring", "", len(names), len(names)))
            project = infer_project(
                samples, name=neutralize(database)[:200] or "Inferred", database=database, known_ids=known
            )
            problems = check_project(project)
            if problems:  # inference must only build valid projects: a bug, reported with a crash report
                raise AssertionError(f"inferred project is invalid: {problems[0]}")
            return Imported(
                laid_out(project),
                f"database {database}",
                {s.name: s.stats.documents for s in samples},
            )

        self._run("import", work, f"Sampling {len(names)} collection(s) of {shown(database, 80)}…")

    def cancel(self) -> None:
        """Stop the running step at once (its result is dropped), or close the dialog."""
        kind = self.stop_job()
        if kind is None:
            self.reject()
            return
        self.progress.stop("cancelled")
        if kind == "import":
            self._say("Import cancelled: nothing was imported, the open project is unchanged.")
        else:
            self._say("Cancelled. Press Connect to try again.")
        self._idle()

    # ----------------------------------------------------------------- jobs
    def _run(self, kind: str, work: Callable[..., Any], message: str) -> None:
        self.options_area.setEnabled(False)
        self.import_button.setEnabled(False)
        self.cancel_button.setText("Cancel")
        self._say(message)
        self.run_job(kind, work, f"import-{kind}", (LiveError,))

    def job_progress(self, value: Any) -> None:
        step, name, number, total = value
        if step == "sampling":
            self.progress.finish_busy()
            self.progress.busy(name)
            self._say(f"Sampling {number} of {total}: {shown(name, 80)}…")
        elif step == "looking up":  # every collection is read: a failure from here on is not one of theirs
            self.progress.finish_busy()
            self._say("Looking up which sampled values are _ids of the other collections (references)…")
        else:
            self.progress.finish_busy()
            self._say("Inferring the model from the samples…")

    def job_finished(self, kind: str, result: Any) -> None:
        self._idle()
        if isinstance(result, JobCancelled):
            return
        if isinstance(result, BaseException):
            self.progress.stop("not read")
            message = gui_words(str(result))
            if kind == "connect" and any(f"{w} listing the databases" in message for w in ("refused", "allowed while")):
                # the server answered but would not list (no listDatabases privilege): the name can still be typed
                message += ". Type the database's name in the Database field instead: its collections are then listed"
            self._error(message)
            return
        if kind == "connect":
            self.connection.remember()
            self._databases(result)
        elif kind == "collections":
            self.set_collections(result)
            self._say(
                f"{len(result)} collection(s) in {shown(self.database.currentText(), 80)}. "
                "Uncheck the ones to leave out, then press Import."
                if result
                else f"{shown(self.database.currentText(), 80)} has no collections to sample; pick another database."
            )
        else:
            self.connection.remember()
            for name, count in result.documents.items():
                self.progress.done(name, documents(count, "sampled"))
            self.hand_over(result)

    def _databases(self, names: list[str]) -> None:
        current = self.database.currentText().strip()
        self.database.clear()
        self.database.addItems(names)
        if current and current in names:
            self.database.setCurrentText(current)
        elif names:
            self.database.setCurrentIndex(0)
        if not names:
            self._say("Connected. The server lists no databases: type the database's name.")
            return
        self._say(f"Connected to {self.shown_uri()}: {len(names)} database(s). Pick one.")
        self.list_collections()

    # ----------------------------------------------------------------- state
    def _idle(self) -> None:
        self.options_area.setEnabled(True)
        self._update_buttons()

    def _update_buttons(self) -> None:
        ready = self.job is None and bool(self.chosen_collections()) and bool(self.database.currentText().strip())
        self.import_button.setEnabled(ready)

    def _say(self, text: str) -> None:
        self.status.say(text)

    def _error(self, text: str) -> None:
        self.status.error(text)
