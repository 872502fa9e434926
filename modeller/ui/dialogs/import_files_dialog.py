"""File → Import from files…: infer a model from ``mongoexport`` files and ``$jsonSchema`` validators, with Cancel.

The same reading as ``modeller infer FILE...`` (:func:`modeller.live.files.read_inputs`,
one collection per file: documents named by the file, or a validator) and the same result handling as
the database import: a new project, or new entities in the open one as one
undo step. A Cancel drops what was read; the open project is not touched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
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
from modeller.model.text import shown
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

FILE_FILTER = "Exports and validators (*.json *.jsonl *.ndjson);;All files (*)"


class ImportFilesDialog(ImportDialog):
    """Files (one collection each), how many documents to read, where the result goes; then progress."""

    def __init__(self, has_project: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ImportFilesDialog")
        self.setWindowTitle("Import from files")

        self.files = QListWidget()
        self.files.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.files.setMinimumHeight(120)
        self.files.setToolTip(
            "One file per collection: mongoexport output (named after the file) or a $jsonSchema validator"
        )
        add, remove = QPushButton("&Add files…"), QPushButton("&Remove")
        add.setToolTip("Pick mongoexport output: JSON lines, a JSON array, canonical or relaxed Extended JSON")
        add.clicked.connect(self.browse)
        remove.clicked.connect(self._remove_selected)
        side = QVBoxLayout()
        side.addWidget(add)
        side.addWidget(remove)
        side.addStretch(1)
        files_row = QHBoxLayout()
        files_row.addWidget(self.files, 1)
        files_row.addLayout(side)
        self.limit = QSpinBox()
        self.limit.setRange(0, 1_000_000)
        self.limit.setGroupSeparatorShown(True)
        self.limit.setSpecialValueText("every document")
        self.limit.setSuffix(" documents per file")
        self.limit.setToolTip("Read only the first N documents of each file (every document: 0)")
        self.destination_choice = DestinationChoice(has_project)
        form = QFormLayout()
        files_label = QLabel("&Files:")
        files_label.setBuddy(self.files)
        form.addRow(files_label, files_row)
        form.addRow("Read:", self.limit)
        form.addRow("Result:", self.destination_choice)
        self.options_area = QWidget()
        self.options_area.setLayout(form)

        self.progress = CollectionProgress("File")
        self.status = StatusLine("Add the exported files or validators, one per collection, then press Import.")
        self.import_button, self.cancel_button = lay_out_import(
            self, self.options_area, self.progress, self.status, "Read the files and infer the model"
        )
        self.import_button.clicked.connect(self.start_import)
        self.cancel_button.clicked.connect(self.cancel)
        self.resize(600, 480)
        self._update_buttons()

    # ----------------------------------------------------------------- files
    def browse(self) -> None:
        chosen, _ = QFileDialog.getOpenFileNames(self, "Import from files", "", FILE_FILTER)
        self.add_files([Path(p) for p in chosen])

    def add_files(self, paths: list[Path]) -> None:
        have = set(self.paths())
        for path in paths:
            if path in have:
                continue
            item = QListWidgetItem(shown(str(path), 300))
            item.setData(Qt.ItemDataRole.UserRole, str(path))
            self.files.addItem(item)
            have.add(path)
        self._update_buttons()

    def paths(self) -> list[Path]:
        return [Path(self.files.item(i).data(Qt.ItemDataRole.UserRole)) for i in range(self.files.count())]

    def _remove_selected(self) -> None:
        for item in self.files.selectedItems():
            self.files.takeItem(self.files.row(item))
        self._update_buttons()

    # ----------------------------------------------------------------- the import
    def start_import(self) -> None:
        paths = self.paths()
        if self.job is not None or not paths:
            return
        limit = self.limit.value() or None
        keys = [str(path) for path in paths]
        self.progress.set_rows(keys, [path.name for path in paths])
        self.progress.setVisible(True)

        def work(report: Callable[[Any], None], cancelled: threading.Event) -> Imported:
            from modeller.live.files import read_inputs
            from modeller.live.infer import infer_project
            from modeller.model.checks import check_project
            from modeller.model.text import neutralize
            from modeller.ui.importing import laid_out

            samples, schemas, seen = [], [], {}
            for key, path in zip(keys, paths, strict=True):
                if cancelled.is_set():
                    raise JobCancelled()
                report(("reading", key))
                got, validators = read_inputs([path], limit)
                for name in [s.name for s in got] + [v.name for v in validators]:
                    if name in seen:
                        raise LiveError(
                            f"{shown(str(path), 300)}: a second file for collection {shown(repr(name), 100)} "
                            f"(also {shown(seen[name].name, 100)}); remove one of them: one file per collection"
                        )
                    seen[name] = path
                samples += got
                schemas += validators
                what = (
                    f"{shown(validators[0].name, 40)}: $jsonSchema validator"
                    if validators
                    else f"{shown(got[0].name, 40)}: {documents(got[0].stats.documents, 'read')}"
                )
                report(("read", key, what))
            if cancelled.is_set():
                raise JobCancelled()
            project = infer_project(samples, name=neutralize(paths[0].stem)[:200] or "Inferred", schemas=schemas)
            problems = check_project(project)
            if problems:  # inference must only build valid projects: a bug, reported with a crash report
                raise AssertionError(f"inferred project is invalid: {problems[0]}")
            origin = f"{len(paths)} file{'s' if len(paths) != 1 else ''}"
            counts = {s.name: s.stats.documents for s in samples} | {v.name: 0 for v in validators}
            return Imported(laid_out(project), origin, counts)

        self.options_area.setEnabled(False)
        self.import_button.setEnabled(False)
        self.status.say(f"Reading {len(paths)} file(s)…")
        self.run_job("import", work, "import-files", (LiveError,))

    def cancel(self) -> None:
        if self.stop_job() is None:
            self.reject()
            return
        self.progress.stop("cancelled")
        self.status.say("Import cancelled: nothing was imported, the open project is unchanged.")
        self._idle()

    def job_progress(self, value: Any) -> None:
        if value[0] == "reading":
            self.progress.busy(value[1], "reading…")
            self.status.say(f"Reading {shown(Path(value[1]).name, 80)}…")
        else:
            self.progress.done(value[1], value[2])

    def job_finished(self, kind: str, result: Any) -> None:
        self._idle()
        if isinstance(result, JobCancelled):
            return
        if isinstance(result, BaseException):
            self.progress.stop("not read")
            self.status.error(str(result))
            return
        self.hand_over(result)

    def _idle(self) -> None:
        self.options_area.setEnabled(True)
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.import_button.setEnabled(self.job is None and self.files.count() > 0)
