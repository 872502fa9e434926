"""The recommendations dock: the engine's findings, grouped by severity, with Apply and Override.

It only reads: new findings arrive through :meth:`RecommendationsPanel.set_analysis`
(from the analysis runner); acting on a finding pushes a command to the
document. Selecting a finding asks the window to select and center its
subject; a canvas selection filters the list to what concerns it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.findings import Finding
from modeller.ui.commands.apply_fix import (
    OverrideCommand,
    RemoveOverrideCommand,
    apply_fix_command,
    find_override,
)
from modeller.ui.document import ProjectDocument
from modeller.ui.edits import EditRefused
from modeller.ui.panels import severity as sev
from modeller.ui.panels.finding_item import (
    RULE_SCHEME,
    Lookup,
    canvas_target,
    concerns,
    detail_html,
    finding_key,
    open_counts,
    subject_label,
)

FINDING_ROLE = Qt.ItemDataRole.UserRole + 1
#: rows listed per severity: beyond this a list is not read, it is filtered (select an entity)
MAX_PER_GROUP = 300

#: asks the user for an override note: (parent, finding, current note) -> note, or None when cancelled
AskNote = Callable[[QWidget, Finding, str], "str | None"]


def ask_note_dialog(parent: QWidget, finding: Finding, current: str) -> str | None:
    """The default Override… prompt (tests replace :attr:`RecommendationsPanel.ask_note`)."""
    text, ok = QInputDialog.getMultiLineText(
        parent,
        "Override advice",
        f"Keep the current design against “{finding.message}”.\nWhy? (saved in the project file)",
        current,
    )
    return text if ok else None


class RecommendationsPanel(QWidget):
    """Findings tree on top, the selected finding's details and actions below."""

    #: ("entity" | "relationship", id): select and center it on the canvas
    subject_activated = Signal(str, str)
    #: a rule id: open its documentation (Help → Rule reference)
    rule_requested = Signal(str)
    #: severity -> number of open (not overridden) findings
    counts_changed = Signal(dict)

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RecommendationsPanel")
        self.document = document
        self.analysis: Analysis | None = None
        self.ask_note: AskNote = ask_note_dialog
        self._selection: list[tuple[str, str]] = []
        self._current: Finding | None = None
        self._shown: list[Finding] = []
        #: the first analysis of a project opens the most severe finding, so its details show at once
        self._fresh = True

        self.header = QLabel("Waiting for the first analysis…")
        self.header.setWordWrap(True)
        self.show_all = QCheckBox("All")
        self.show_all.setToolTip("Show the findings of the whole project, not only of the selection")
        self.show_all.setChecked(True)
        self.show_all.setVisible(False)
        self.show_all.toggled.connect(self._refill)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header, 1)
        top.addWidget(self.show_all)

        self.tree = QTreeWidget()
        self.tree.setObjectName("FindingsTree")
        self.tree.setHeaderHidden(True)
        self.tree.setColumnCount(1)
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.currentItemChanged.connect(self._current_changed)
        self.tree.itemClicked.connect(self._item_clicked)

        self.details = QTextBrowser()
        self.details.setObjectName("FindingDetails")
        self.details.setOpenLinks(False)
        self.details.anchorClicked.connect(self._link_clicked)
        self.details.setPlaceholderText("Select a finding to see why, the trade-off, the numbers and the source.")

        self.apply_button = QPushButton("Apply")
        self.apply_button.setToolTip("Apply the fix to the model (one undoable step)")
        self.apply_button.clicked.connect(self.apply_current)
        self.override_button = QPushButton("Override…")
        self.override_button.setToolTip("Keep your design and record why; the finding stays listed, marked overridden")
        self.override_button.clicked.connect(self.override_current)
        self.message = QLabel()
        self.message.setObjectName("ActionMessage")
        self.message.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.override_button)
        buttons.addStretch(1)

        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.details, 1)
        lower_layout.addLayout(buttons)
        lower_layout.addWidget(self.message)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.tree)
        splitter.addWidget(lower)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self._show_details(None)
        document.project_reset.connect(self._project_reset)

    # ----------------------------------------------------------------- inputs
    def set_analysis(self, analysis: Analysis | None) -> None:
        """Show a new analysis result, keeping the selected finding when it still exists."""
        self.analysis = analysis
        self._refill()
        if self._fresh and analysis is not None:
            self._fresh = False
            if self._current is None and self.tree.topLevelItemCount():
                group = self.tree.topLevelItem(0)
                if group.childCount():
                    self.tree.setCurrentItem(group.child(0))
        self.counts_changed.emit(self.counts())

    def set_selection(self, selection: Iterable[tuple[str, str]]) -> None:
        """Filter to the canvas selection (``(kind, id)`` pairs); empty shows everything."""
        new = list(selection)
        if new == self._selection:
            return
        self._selection = new
        if new:
            self.show_all.setChecked(False)
        self.show_all.setVisible(bool(new))
        self._refill()

    # ---------------------------------------------------------------- reading
    def counts(self) -> dict[str, int]:
        return open_counts(self.analysis)

    def visible_findings(self) -> list[Finding]:
        """The findings listed right now, in display order."""
        return list(self._shown)

    def item_for(self, finding: Finding) -> QTreeWidgetItem | None:
        wanted = finding_key(finding)
        for g in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(g)
            for i in range(group.childCount()):
                item = group.child(i)
                shown = item.data(0, FINDING_ROLE)
                if shown is not None and finding_key(shown) == wanted:
                    return item
        return None

    def select_finding(self, finding: Finding) -> None:
        item = self.item_for(finding)
        if item is not None:
            self.tree.setCurrentItem(item)

    # ---------------------------------------------------------------- actions
    def apply_current(self) -> None:
        finding = self._current
        if finding is None:
            return
        try:
            command = apply_fix_command(self.document, finding)
        except EditRefused as err:
            self._say(f"Cannot apply: {err}", error=True)
            return
        self.document.push(command)
        self._say(f"Applied: {finding.fix.description if finding.fix else finding.rule} (Undo reverts it)")

    def override_current(self) -> None:
        finding = self._current
        if finding is None:
            return
        existing = find_override(self.document, finding)
        if finding.overridden or existing is not None:
            self.document.push(RemoveOverrideCommand(self.document, finding))
            self._say("Override removed: the advice counts again")
            return
        note = self.ask_note(self, finding, existing.note if existing else "")
        if note is None:
            return
        try:
            command = OverrideCommand(self.document, finding, note.strip())
        except EditRefused as err:
            self._say(f"Cannot override: {err}", error=True)
            return
        self.document.push(command)
        self._say("Overridden: the note is saved with the project")

    # --------------------------------------------------------------- internals
    def _project_reset(self) -> None:
        self._selection = []
        self.show_all.setVisible(False)
        self._current = None
        self._fresh = True

    def _say(self, text: str, error: bool = False) -> None:
        self.message.setStyleSheet(f"color: {sev.COLORS['error']};" if error else "")
        self.message.setText(text)

    def _filtered(self, ids: Lookup) -> list[Finding]:
        if self.analysis is None:
            return []
        findings = self.analysis.findings
        if self._selection and not self.show_all.isChecked():
            design = self.analysis.design
            findings = [f for f in findings if concerns(f, self._selection, ids, design)]
        return findings

    def _refill(self) -> None:
        keep = finding_key(self._current) if self._current is not None else None
        project = Lookup(self.document.project)
        findings = self._filtered(project)
        groups: dict[str, list[Finding]] = {s: [] for s in sev.ORDER}
        for finding in findings:
            groups.setdefault(finding.severity, []).append(finding)
        self.tree.setUpdatesEnabled(False)
        self.tree.blockSignals(True)
        try:
            self.tree.clear()
            self._shown = []
            restore: QTreeWidgetItem | None = None
            italic = QFont()
            italic.setItalic(True)
            for severity in sev.ORDER:
                members = sorted(groups.get(severity, []), key=lambda f: (f.overridden, f.rule, f.subject.id))
                if not members:
                    continue
                open_n = sum(1 for f in members if not f.overridden)
                label = f"{sev.PLURAL[severity]} ({open_n})"
                if open_n != len(members):
                    label += f" + {len(members) - open_n} overridden"
                group = QTreeWidgetItem([label])
                group.setIcon(0, sev.icon(severity))
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
                bold = group.font(0)
                bold.setBold(True)
                group.setFont(0, bold)
                self.tree.addTopLevelItem(group)
                children = []
                hidden = len(members) - MAX_PER_GROUP
                if hidden > 0:
                    members = members[:MAX_PER_GROUP]
                for finding in members:
                    text = f"{subject_label(project, finding.subject)}: {finding.message}"
                    if finding.overridden:
                        text = "[overridden] " + text
                    item = QTreeWidgetItem([text])
                    item.setIcon(0, sev.icon(severity))
                    item.setToolTip(
                        0, finding.message + (f"\nOverridden: {finding.note}" if finding.overridden else "")
                    )
                    item.setData(0, FINDING_ROLE, finding)
                    if finding.overridden:
                        item.setFont(0, italic)
                        item.setForeground(0, self.palette().placeholderText())
                    children.append(item)
                    self._shown.append(finding)
                    if keep is not None and finding_key(finding) == keep:
                        restore = item
                if hidden > 0:
                    more = QTreeWidgetItem([f"… {hidden:,} more: select an entity or relationship to see its findings"])
                    more.setFlags(Qt.ItemFlag.ItemIsEnabled)
                    more.setForeground(0, self.palette().placeholderText())
                    children.append(more)
                group.addChildren(children)
                group.setExpanded(True)
            self._current = None
            if restore is not None:
                self.tree.setCurrentItem(restore)
                self._current = restore.data(0, FINDING_ROLE)
        finally:
            self.tree.blockSignals(False)
            self.tree.setUpdatesEnabled(True)
        self._show_details(self._current)
        self._update_header(len(findings))

    def _update_header(self, shown: int) -> None:
        if self.analysis is None:
            self.header.setText("Waiting for the first analysis…")
            return
        total = len(self.analysis.findings)
        text = sev.summary(self.counts())
        if self._selection and not self.show_all.isChecked():
            text = f"{shown} of {total} findings concern the selection · {text}"
        self.header.setText(text)

    def _current_changed(self, current: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        finding = current.data(0, FINDING_ROLE) if current is not None else None
        self._current = finding
        self._show_details(finding)

    def _item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        finding = item.data(0, FINDING_ROLE)
        if finding is None or self.analysis is None:
            return
        target = canvas_target(finding, self.document.project, self.analysis.design)
        if target is not None:
            self.subject_activated.emit(*target)

    def _show_details(self, finding: Finding | None) -> None:
        self.message.clear()
        if finding is None:
            self.details.clear()
            self.apply_button.setEnabled(False)
            self.apply_button.setText("Apply")
            self.override_button.setEnabled(False)
            self.override_button.setText("Override…")
            return
        self.details.setHtml(detail_html(finding, self.document.project))
        has_fix = finding.fix is not None and bool(finding.fix.changes)
        self.apply_button.setEnabled(has_fix)
        self.apply_button.setText("Apply" if has_fix else "No automatic fix")
        if has_fix and finding.fix is not None:
            self.apply_button.setToolTip(f"{finding.fix.description} (one undoable step)")
        overridden = finding.overridden or find_override(self.document, finding) is not None
        self.override_button.setEnabled(True)
        self.override_button.setText("Remove override" if overridden else "Override…")

    def _link_clicked(self, url: QUrl) -> None:
        if url.scheme() == RULE_SCHEME:
            self.rule_requested.emit(url.path() or url.toString().partition(":")[2])
        else:
            QDesktopServices.openUrl(url)
