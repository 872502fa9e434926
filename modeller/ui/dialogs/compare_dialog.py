"""File → Compare with…: what changes for the database from another version to the open design.

The diff is ``modeller diff`` 's (``diff_projects``: the resolved designs, not
the JSON text), computed off the UI thread; the list is grouped by
collection, each change with its risk, breaking ones marked. "Export
migration…" writes the same script as ``modeller diff OLD NEW --migration``.
OLD is the last saved version of the open file, another project file, or the
open file at a Git revision (``git show REV:./FILE`` in its folder); NEW
is the open design as it was when Compare was pressed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QGuiApplication
from PySide6.QtWidgets import (
    QButtonGroup,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from modeller.model import Project
from modeller.model.text import shown
from modeller.model.wording import counted
from modeller.persistence import ProjectFileError, load_project
from modeller.review.diff import SchemaDiff, by_collection, summary_line
from modeller.ui.dialogs.import_widgets import StatusLine
from modeller.ui.dialogs.job_dialog import JobDialog
from modeller.ui.document import ProjectDocument, project_stem
from modeller.ui.jobs import JobCancelled

PROJECT_FILTER = "Modeller projects (*.modeller.json);;JSON files (*.json);;All files (*)"
SCRIPT_FILTER = "mongosh scripts (*.mongosh.js *.js);;All files (*)"
BREAKING_COLOR = "#b00020"


def kind_label(kind: str) -> str:
    """``field-added`` -> ``field added`` (the kinds ``modeller diff`` prints, in words)."""
    return kind.replace("-", " ")


class _WrappedCells(QStyledItemDelegate):
    """Cells as tall as their text wrapped at the column's width (QTreeView alone keeps one line and cuts it)."""

    #: the tree's indentation and the cell's margins
    MARGIN = 48

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self._tree = tree

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        hint = super().sizeHint(option, index)
        width = max(40, self._tree.columnWidth(index.column()) - self.MARGIN)
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        font = index.data(Qt.ItemDataRole.FontRole) or option.font  # type: ignore[attr-defined]
        box = QFontMetrics(font).boundingRect(QRect(0, 0, width, 100_000), int(Qt.TextFlag.TextWordWrap), text)
        return QSize(hint.width(), max(hint.height(), box.height() + 4))


class CompareDialog(JobDialog):
    """Pick OLD, compare, read the changes by collection, export the migration script."""

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CompareDialog")
        self.setWindowTitle("Compare with")
        self.document = document
        self.diff: SchemaDiff | None = None
        self.old_name = ""
        #: OLD is read from a Git revision (its errors say what to do themselves)
        self._from_revision = False

        self.saved_radio = QRadioButton("Its last &saved version")
        self.saved_radio.setToolTip("What is on disk now: the diff shows your unsaved changes")
        self.file_radio = QRadioButton("Another project &file:")
        self.file_radio.setToolTip("An older or newer copy, a colleague's version, another branch's export")
        self.revision_radio = QRadioButton("A &Git revision:")
        self.revision_radio.setToolTip("The open file as committed at a revision (git show REV:FILE)")
        group = QButtonGroup(self)
        group.addButton(self.saved_radio)
        group.addButton(self.file_radio)
        group.addButton(self.revision_radio)
        self.revision = QLineEdit("HEAD")
        self.revision.setPlaceholderText("HEAD, main, HEAD~3, a commit id")
        self.revision.setToolTip("Any revision git understands; the file is the open one, in its repository")
        self.revision.textEdited.connect(lambda _text: self.revision_radio.setChecked(True))
        self.file_path = QLineEdit()
        self.file_path.setPlaceholderText("path/to/schema.modeller.json")
        self.file_path.textChanged.connect(lambda text: text and self.file_radio.setChecked(True))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self.browse)
        self.compare_button = QPushButton("&Compare")
        self.compare_button.setDefault(True)
        self.compare_button.setToolTip("Diff the resolved designs (what changes for the database)")
        self.compare_button.clicked.connect(self.compare)
        choose = QGridLayout()
        choose.addWidget(self.saved_radio, 0, 0, 1, 3)
        choose.addWidget(self.file_radio, 1, 0)
        choose.addWidget(self.file_path, 1, 1)
        choose.addWidget(browse, 1, 2)
        choose.addWidget(self.revision_radio, 2, 0)
        choose.addWidget(self.revision, 2, 1)
        choose.addWidget(self.compare_button, 0, 3, 3, 1)
        choose.setColumnStretch(1, 1)
        if document.path is not None:
            self.saved_radio.setChecked(True)
        else:
            for radio in (self.saved_radio, self.revision_radio):
                radio.setEnabled(False)
                radio.setToolTip("The open project has not been saved yet")
            self.revision.setEnabled(False)
            self.file_radio.setChecked(True)

        self.summary = StatusLine("Choose what to compare the open design with, then press Compare.")
        self.summary.setObjectName("CompareSummary")
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Change", "Risk for the stored data"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(False)
        # both columns share the width and wrap: a fixed 420 px Change column cut every strategy change short
        self.tree.setWordWrap(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.tree.setItemDelegate(_WrappedCells(self.tree))
        self.tree.header().sectionResized.connect(lambda *_: self.tree.doItemsLayout())  # rows re-wrap to the width

        self.export_button = QPushButton("&Export migration…")
        self.export_button.setToolTip(
            "Write the mongosh script that brings a database from the other version to this design"
        )
        self.export_button.clicked.connect(self.export_migration)
        self.copy_button = QPushButton("Copy as &Markdown")
        self.copy_button.setToolTip("The diff as a pull-request comment (modeller diff --format markdown)")
        self.copy_button.clicked.connect(self.copy_markdown)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.copy_button)
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        buttons.addWidget(close)

        layout = QVBoxLayout(self)
        layout.addLayout(choose)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        self.detail = StatusLine()
        self.detail.setObjectName("CompareDetail")
        self.detail.setMinimumHeight(3 * self.detail.fontMetrics().lineSpacing() + 4)
        self.tree.currentItemChanged.connect(self._show_detail)
        layout.addWidget(self.detail)
        self.status = StatusLine()
        self.status.setObjectName("CompareStatus")
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        self.resize(900, 560)
        self._update_buttons()

    # ----------------------------------------------------------------- comparing
    def browse(self) -> None:
        start = str(self.document.path.parent) if self.document.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Compare with project", start, PROJECT_FILTER)
        if path:
            self.file_path.setText(path)

    def old_path(self) -> Path | None:
        if self.saved_radio.isChecked():
            return self.document.path
        text = self.file_path.text().strip()
        return Path(text).expanduser() if text else None

    def compare(self) -> None:
        """Load OLD (a file, or the open file at a Git revision) and diff it with the open design in a worker."""
        if self.job is not None:
            return
        load = self._old_loader()
        if load is None:
            return
        new = self.document.project  # immutable: the worker reads it as it is now

        def work(_report: Callable[[Any], None], cancelled: threading.Event) -> SchemaDiff:
            from modeller.review import diff_projects

            old = load()
            if cancelled.is_set():
                raise JobCancelled()
            return diff_projects(old, new)

        self.compare_button.setEnabled(False)
        self.status.say("")
        self.summary.say(f"Comparing with {self.old_name}…")
        self.run_job("compare", work, "compare", (ProjectFileError,))

    def _old_loader(self) -> Callable[[], Project] | None:
        """How the worker reads OLD, and its name in the summary; None (with the reason shown) when unset."""
        self._from_revision = self.revision_radio.isChecked() and self.document.path is not None
        if self._from_revision and self.document.path is not None:
            from modeller.persistence.revisions import load_revision

            rev, path = self.revision.text().strip(), self.document.path
            if not rev or rev.startswith("-") or ":" in rev:
                self.summary.error("Name a Git revision such as HEAD, main or a commit id.")
                return None
            self.old_name = f"{shown(rev, 80)} ({shown(path.name, 120)})"
            return lambda: load_revision(f"{rev}:./{path.name}", cwd=path.parent)
        path = self.old_path()
        if path is None:
            self.summary.error("Name the project file to compare with (Browse… picks one).")
            return None
        self.old_name = "the last saved version" if self.saved_radio.isChecked() else shown(path.name, 120)
        return lambda: load_project(path)

    def job_finished(self, kind: str, result: Any) -> None:
        self.compare_button.setEnabled(True)
        if isinstance(result, BaseException):
            self.diff = None
            self.tree.clear()
            lines = str(result).splitlines() or [type(result).__name__]
            more = f" (and {len(lines) - 1} more problems)" if len(lines) > 1 else ""
            # a revision's error already says what to do (persistence/revisions.py); a file's gets the advice here
            advice = "" if self._from_revision else "; pick a valid project file"
            self.summary.error(f"{lines[0]}{more}{advice}")
        else:
            self.show_diff(result)
        self._update_buttons()

    def show_diff(self, diff: SchemaDiff) -> None:
        """The changes grouped by collection, each with its risk; breaking ones marked."""
        self.diff = diff
        self.tree.clear()
        self.detail.say("")
        if not diff.changes:
            self.summary.say(
                f"No changes: the open design resolves to the same database design as {self.old_name}. "
                "There is no migration to write."
            )
            return
        self.summary.say(f"From {self.old_name} to the open design: {summary_line(diff)}.")
        red = QBrush(QColor(BREAKING_COLOR))
        for collection, changes in by_collection(diff.changes).items():
            breaking = sum(1 for c in changes if c.breaking)
            title = f"Collection {shown(collection, 120)}" if collection else "Whole project"
            counts = counted(len(changes), "change") + (f", {breaking} breaking" if breaking else "")
            group = QTreeWidgetItem(self.tree, [f"{title} — {counts}", ""])
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            group.setFirstColumnSpanned(True)
            for change in changes:
                mark = "BREAKING  " if change.breaking else ""
                item = QTreeWidgetItem(
                    group, [f"{mark}{kind_label(change.kind)}: {shown(change.summary, 300)}", shown(change.risk, 300)]
                )
                item.setToolTip(0, shown(change.summary, 1000))
                item.setToolTip(1, shown(change.risk, 1000))
                item.setData(0, Qt.ItemDataRole.UserRole, change)
                if change.breaking:
                    item.setForeground(0, red)
                    item.setForeground(1, red)
            group.setExpanded(True)
        self.tree.doItemsLayout()  # row heights for the wrapped text at the current column widths

    def _show_detail(self, item: QTreeWidgetItem | None, _previous: object = None) -> None:
        """The selected change in full (the list cuts long lines): what changes, and the risk."""
        change = item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None
        if change is None:
            self.detail.say("")
            return
        mark = "Breaking: " if change.breaking else ""
        self.detail.say(f"{mark}{shown(change.summary, 1000)}\nRisk: {shown(change.risk, 1000)}")

    def rows(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """What the list shows: (group title, [(change, risk)]), for tests and screen readers alike."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            kids = [(group.child(j).text(0), group.child(j).text(1)) for j in range(group.childCount())]
            out.append((group.text(0), kids))
        return out

    # ----------------------------------------------------------------- outputs
    def export_migration(self) -> Path | None:
        """Ask where, then write the migration script atomically; the result is said in the summary line."""
        if self.diff is None or not self.diff.changes:
            return None
        base = self.document.path.parent if self.document.path else Path.home()
        stem = project_stem(self.document.path) if self.document.path else "migration"
        path, _ = QFileDialog.getSaveFileName(
            self, "Export migration script", str(base / f"{stem}-migration.mongosh.js"), SCRIPT_FILTER
        )
        if not path:
            return None
        return self.write_migration(Path(path))

    def write_migration(self, path: Path) -> Path | None:
        from modeller.persistence.save import save_text
        from modeller.review.migration import migration_script

        assert self.diff is not None
        if path.name.endswith(".modeller.json") or (self.document.path is not None and path == self.document.path):
            self.status.error(f"{shown(path.name, 120)} is a project file; name the script *.mongosh.js instead")
            return None
        try:
            save_text(migration_script(self.diff, Path(path).name).encode("utf-8"), path, backup=False)
        except ProjectFileError as err:
            self.status.error(str(err).splitlines()[0])
            return None
        self.status.say(
            f"Migration script written to {shown(str(path), 300)}. Run it with mongosh against the database "
            "(it is safe to run again; read its comments first)."
        )
        return path

    def copy_markdown(self) -> None:
        from modeller.review.render import diff_markdown

        if self.diff is not None:
            QGuiApplication.clipboard().setText(diff_markdown(self.diff))
            self.status.say("The diff is on the clipboard as Markdown, ready for a pull-request comment.")

    def _update_buttons(self) -> None:
        has_changes = self.diff is not None and bool(self.diff.changes)
        self.export_button.setEnabled(has_changes)
        self.copy_button.setEnabled(self.diff is not None)
