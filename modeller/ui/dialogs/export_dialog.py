"""File → Export…: choose outputs, folder, samples and seed; export off the UI thread with Cancel.

The dialog runs exactly what ``modeller export`` runs (``analyse`` then
``export_project`` with the same defaults), so both write the same files for
the same seed. The exporter stages everything beside the target folder and
moves it into place only when complete: an error or a Cancel leaves the
folder as it was, and the dialog says so in one sentence.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from modeller.export import KINDS, ExportCancelled, ExportError, ExportResult, describe_files, export_project
from modeller.export.files import describe_os_error
from modeller.model import Project
from modeller.model.text import neutralize, shorten
from modeller.persistence.crash import internal_error_line, save_crash_report
from modeller.rules import analyse
from modeller.ui.dialogs.database_name import database_problem

KIND_LABELS: dict[str, str] = {
    "setup": "mongosh setup script (setup.mongosh.js)",
    "validators": "$jsonSchema validators (validators/*.json)",
    "schema": "JSON Schema files (schema/*.schema.json)",
    "indexes": "Index script (indexes.mongosh.js)",
    "samples": "Sample documents (samples/*.json)",
    "diagram": "Diagram (diagram.dot, SVG/PNG when Graphviz is installed)",
    "report": "Design report (DESIGN.md)",
    "pydantic": "pydantic v2 models (models.py)",
    "typescript": "TypeScript interfaces (models.ts)",
}


class _ExportJob(QObject):
    """One export in a worker thread; signals arrive on the UI thread (queued)."""

    progress = Signal(int, int, str)
    finished = Signal(object)  # ExportResult, or the exception that stopped the export

    def __init__(self, project: Project, options: dict[str, Any]) -> None:
        super().__init__()
        self.project = project
        self.options = options
        self.cancelled = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._run, name="modeller-export", daemon=True).start()

    def _run(self) -> None:
        try:
            self.progress.emit(0, 1, "analysing the design")
            analysis = analyse(self.project)
            result: Any = export_project(
                self.project,
                analysis,
                progress=lambda done, total, what: self.progress.emit(done, total, what),
                cancel=self.cancelled.is_set,
                **self.options,
            )
        except ExportError as err:
            result = err
        except OSError as err:
            result = ExportError(describe_os_error(err, Path(self.options["out_dir"])))
        except Exception as err:  # an exporter bug: one line naming the crash report, not a traceback
            report, why_not = save_crash_report(err, "modeller desktop app, export")
            result = RuntimeError(internal_error_line(err, report, why_not).removeprefix("modeller: "))
        self.finished.emit(result)


class ExportDialog(QDialog):
    """Options, then progress with Cancel, then a summary with "Open folder"."""

    def __init__(
        self,
        project: Project,
        default_dir: Path | None = None,
        parent: QWidget | None = None,
        set_database: Callable[[str], Project] | None = None,
    ) -> None:
        """``set_database(name)`` records a changed database name in the project (one undoable edit) and
        returns the project to export; without it the change applies to this export only."""
        super().__init__(parent)
        self.setObjectName("ExportDialog")
        self.setWindowTitle("Export")
        self.project = project  # immutable: the worker reads it as it is
        self.set_database = set_database
        self.job: _ExportJob | None = None
        self.result: ExportResult | None = None
        self.error: str | None = None

        self.kind_boxes: dict[str, QCheckBox] = {}
        kinds = QGroupBox("Outputs")
        grid = QGridLayout(kinds)
        for i, kind in enumerate(KINDS):
            box = QCheckBox(KIND_LABELS.get(kind, kind))
            box.setChecked(True)
            box.toggled.connect(self._update_buttons)
            self.kind_boxes[kind] = box
            grid.addWidget(box, i // 2, i % 2)
        self.with_samples = QCheckBox("Insert the sample documents in the setup script")
        self.with_sharding = QCheckBox("Shard the collections in the setup script (sharded projects)")
        self.with_sharding.setEnabled(project.sharded)
        grid.addWidget(self.with_samples, (len(KINDS) + 1) // 2, 0, 1, 2)
        grid.addWidget(self.with_sharding, (len(KINDS) + 1) // 2 + 1, 0, 1, 2)

        self.folder = QLineEdit(str(default_dir) if default_dir else "")
        self.folder.setPlaceholderText("Folder to write the export into")
        self.folder.textChanged.connect(self._update_buttons)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(browse)
        self.samples = QSpinBox()
        self.samples.setRange(0, 10_000)
        self.samples.setValue(5)
        self.samples.setToolTip("Sample documents per collection")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(0)
        self.seed.setToolTip("The same seed always generates the same sample documents")
        # never a silent "test": the project's database, or an empty field the user must fill
        self.database = QLineEdit(project.database or "")
        self.database.setPlaceholderText("The database the scripts create the collections in")
        self.database.setToolTip("Saved in the project (Edit → Undo takes it back)")
        self.database.textChanged.connect(self._update_buttons)
        form = QFormLayout()
        form.addRow("Database:", self.database)
        form.addRow("Folder:", folder_row)
        form.addRow("Samples per collection:", self.samples)
        form.addRow("Seed:", self.seed)

        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.status = QLabel()
        self.status.setObjectName("ExportStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.export_button = QPushButton("Export")
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.start_export)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.open_button = QPushButton("Open folder")
        self.open_button.setVisible(False)
        self.open_button.clicked.connect(self.open_folder)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.accept)
        self.close_button.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.open_button, self.export_button, self.cancel_button, self.close_button):
            buttons.addWidget(button)

        self.options_area = QWidget()
        options_layout = QVBoxLayout(self.options_area)
        options_layout.setContentsMargins(0, 0, 0, 0)
        options_layout.addWidget(kinds)
        options_layout.addLayout(form)
        layout = QVBoxLayout(self)
        layout.addWidget(self.options_area)
        layout.addWidget(self.progress)
        layout.addWidget(self.status, 1)
        layout.addLayout(buttons)
        self._update_buttons()

    # ----------------------------------------------------------------- options
    def chosen_kinds(self) -> list[str]:
        return [kind for kind in KINDS if self.kind_boxes[kind].isChecked()]

    def options(self) -> dict[str, Any]:
        """Keyword arguments of ``export_project`` (out_dir included)."""
        return {
            "out_dir": Path(self.folder.text().strip()).expanduser(),
            "kinds": self.chosen_kinds(),
            "samples": self.samples.value(),
            "seed": self.seed.value(),
            "with_samples": self.with_samples.isChecked(),
            # the project decides, not the box's enabled state: the options area is disabled while exporting
            "with_sharding": self.with_sharding.isChecked() and self.project.sharded,
        }

    # ----------------------------------------------------------------- actions
    def start_export(self) -> None:
        if self.job is not None or not self.chosen_kinds() or not self.folder.text().strip():
            return
        database = self.database.text().strip()
        if database_problem(database) is not None:
            return
        if database != self.project.database:
            self.project = (
                self.set_database(database)
                if self.set_database is not None
                else self.project.model_copy(update={"database": database})
            )
        self.result, self.error = None, None
        options = self.options()  # read before the options area is disabled below
        self.options_area.setEnabled(False)
        self.export_button.setEnabled(False)
        self.open_button.setVisible(False)
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.status.setText("Starting…")
        self.job = _ExportJob(self.project, options)
        self.job.progress.connect(self._progress)
        self.job.finished.connect(self._finished)
        self.job.start()

    def cancel(self) -> None:
        """Cancel a running export (nothing is written), or close the dialog."""
        if self.job is not None:
            self.job.cancelled.set()
            self.cancel_button.setEnabled(False)
            self.status.setText("Cancelling…")
        else:
            self.reject()

    def running(self) -> bool:
        return self.job is not None

    def open_folder(self) -> None:
        if self.result is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.result.out_dir)))

    def reject(self) -> None:
        if self.job is not None:  # closing the window cancels; the result is dropped
            self.job.cancelled.set()
        super().reject()

    # --------------------------------------------------------------- internals
    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Export into folder", self.folder.text())
        if chosen:
            self.folder.setText(chosen)

    def _update_buttons(self) -> None:
        problem = database_problem(self.database.text().strip())
        ready = bool(self.chosen_kinds()) and bool(self.folder.text().strip()) and self.job is None and not problem
        self.export_button.setEnabled(ready)
        if self.job is None and self.result is None and self.error is None:
            self.status.setText(_escape(problem) if problem else "")

    def _progress(self, done: int, total: int, what: str) -> None:
        if self.job is None:
            return
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.status.setText(what[:1].upper() + what[1:] + "…" if what else "")

    def _finished(self, result: object) -> None:
        self.job = None
        self.options_area.setEnabled(True)
        self.cancel_button.setEnabled(True)
        self.progress.setVisible(False)
        if isinstance(result, ExportResult):
            self.result = result
            self._summary(result)
        elif isinstance(result, ExportCancelled):
            self.error = str(result)
            self.status.setText("Export cancelled. Nothing was written; the folder is as it was.")
        else:
            self.error = str(result)
            self.status.setText(f"<b>The export failed.</b> {_escape(str(result))}<br>Nothing was written.")
            self.status.setStyleSheet("color: #b00020;")
        self._update_buttons()

    def _summary(self, result: ExportResult) -> None:
        self.status.setStyleSheet("")
        names = describe_files(result.files, result.out_dir)
        shown = names[:12]
        more = f"<br>… and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
        notices = "".join(f"<p>Note: {_escape(n)}</p>" for n in result.notices)
        removed = describe_files(result.removed, result.out_dir)
        cleaned = (
            f"<p>Removed {len(removed)} file(s) an earlier export wrote that are no longer part of the design: "
            + _escape(", ".join(removed[:6]) + (f" and {len(removed) - 6} more" if len(removed) > 6 else ""))
            + "</p>"
            if removed
            else ""
        )
        self.status.setText(
            f"<b>Exported {len(names)} file(s)</b> to {_escape(str(result.out_dir))}:<br>"
            + "<br>".join(_escape(n) for n in shown)
            + more
            + cleaned
            + notices
        )
        self.open_button.setVisible(True)
        self.export_button.setText("Export again")
        self.cancel_button.setVisible(False)
        self.close_button.setVisible(True)


def _escape(text: str) -> str:
    """User text (paths, names in errors) as rich text: HTML escaped, controls and bidi shown as escapes, cut."""
    return html.escape(neutralize(shorten(text, 2000), keep_newlines=True)).replace("\n", "<br>")
