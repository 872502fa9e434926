"""The recommendations dock: "To do" (what to change, most severe first) and "Decisions" (what the engine
chose, closed until opened), with Apply and Override.

It only reads: new findings arrive through :meth:`RecommendationsPanel.set_analysis`
(from the analysis runner); acting on a finding pushes a command to the
document. Selecting a finding asks the window to select and center its
subject; a canvas selection filters the list to what concerns it.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable

from PySide6.QtCore import QModelIndex, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from modeller.model import Project
from modeller.model.wording import counted
from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.findings import Finding
from modeller.rules.framework.sections import sections_summary
from modeller.ui.analysis_changes import Changes
from modeller.ui.commands.apply_fix import (
    OverrideCommand,
    RemoveOverrideCommand,
    apply_fix_command,
    find_override,
)
from modeller.ui.document import ProjectDocument
from modeller.ui.edits import EditRefused
from modeller.ui.panels import severity as sev
from modeller.ui.panels.analysis_facts import Facts, facts
from modeller.ui.panels.finding_item import RULE_SCHEME, canvas_target, detail_html, finding_key, lookup
from modeller.ui.panels.findings_model import FINDING_ROLE, HEADER_ROLE, SECTION_ROLE, FindingsFilter, FindingsModel
from modeller.ui.panels.findings_rows import lay_out_lazily
from modeller.ui.panels.sections import section_of

#: the severity filter's choices: label, severities shown (None: all)
SEVERITY_CHOICES: list[tuple[str, set[str] | None]] = [
    ("All severities", None),
    ("Errors and warnings", {"error", "warning"}),
    ("Errors", {"error"}),
]

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


#: what the details show while no finding is selected: what the two sections are, in full
EMPTY_DETAILS = (
    "<p><b>To do</b> lists what to change in your design, most severe first. "
    "<b>Decisions</b> lists what the engine chose for you (storage, indexes) and why; click its header to open it.</p>"
    "<p>Select an item to see why, the trade-off, the numbers behind it and where the advice comes from.</p>"
)
#: ... and when the design follows every recommendation
NOTHING_TO_DO = (
    "<p><b>Nothing to do:</b> your design follows every recommendation.</p>"
    "<p>Open <b>Decisions</b> to review what the engine chose for you and why.</p>"
)
#: ... and when the filters hide every open to-do (the header still counts them: say so, never "nothing to do")
FILTERED_TO_DO = (
    "<p><b>Nothing to do here:</b> {todo} of the design concern{s} other parts or severities than the ones "
    "shown. Tick <b>All</b> or choose <b>All severities</b> to see {them}.</p>"
)


#: ... and when the text filter hides every open to-do
FILTERED_BY_WORDS = (
    "<p><b>Nothing to do here:</b> no to-do listed matches “{words}”. Clear the filter to see {them}.</p>"
)
#: the text filter waits this long after the last key before it filters (tens of thousands of rows)
FILTER_DELAY_MS = 250


#: the header before any analysis (an empty project has none until its first edit): what to do, not a wait
NO_ANALYSIS = "No advice yet: it appears here as you draw."


def analysing_text(project: Project) -> str:
    """What the header and the status bar say while the first analysis of ``project`` runs (a large project
    just opened: its findings take seconds), instead of the empty project's "as you draw"."""
    return f"Analysing {counted(len(project.entities), 'entity', 'entities')}…"


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
        #: the first analysis of a project opens the most severe finding, so its details show at once
        self._fresh = True

        self.header = QLabel(NO_ANALYSIS)
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.PlainText)  # it quotes the filter's words as typed
        self.show_all = QCheckBox("All")
        self.show_all.setToolTip("Show the findings of the whole project, not only of the selection")
        self.show_all.setChecked(True)
        self.show_all.setVisible(False)
        self.show_all.toggled.connect(self._refill)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.header, 1)
        top.addWidget(self.show_all)

        self.severity_box = QComboBox()
        self.severity_box.setToolTip("Which findings to list")
        for label, _severities in SEVERITY_CHOICES:
            self.severity_box.addItem(label)
        self.severity_box.currentIndexChanged.connect(lambda _i: self._refill())
        top.addWidget(self.severity_box)
        #: the text filter: words of an entity, field or rule (tryout a15 item 5: 39,000 findings at 10,000
        #: entities had only the severity filter); applied once typing pauses
        self.filter_box = QLineEdit()
        self.filter_box.setObjectName("FindingsFilterText")
        self.filter_box.setPlaceholderText("Filter: entity, field or rule")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.setToolTip("Show only the findings whose text or rule holds each of these words (any case)")
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(FILTER_DELAY_MS)
        self._filter_timer.timeout.connect(self._refill)
        self.filter_box.textChanged.connect(lambda _text: self._filter_timer.start())
        self.filter_box.returnPressed.connect(self._refill)
        filters = QHBoxLayout()
        filters.setContentsMargins(0, 0, 0, 0)
        filters.addWidget(self.filter_box, 1)

        # model/view: tens of thousands of findings cost only the rows on screen
        self.model = FindingsModel(self)
        self.proxy = FindingsFilter(self.model, self)
        #: the findings list (a list view: uniform rows lay out without asking the model row by row)
        self.tree = QListView()
        self.tree.setObjectName("FindingsTree")
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.rows = lay_out_lazily(self.tree)  # rows measured when shown, not all 12,000 after an open
        self.tree.setModel(self.proxy)
        self.tree.selectionModel().currentChanged.connect(self._current_changed)
        self.tree.clicked.connect(self._item_clicked)

        self.details = QTextBrowser()
        self.details.setObjectName("FindingDetails")
        self.details.setOpenLinks(False)
        self.details.anchorClicked.connect(self._link_clicked)

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
        layout.addLayout(filters)
        layout.addWidget(splitter, 1)
        self._show_details(None)
        document.project_reset.connect(self._project_reset)

    # ----------------------------------------------------------------- inputs
    def set_analysis(self, analysis: Analysis | None, changes: Changes | None = None) -> None:
        """Show a new analysis result, keeping the selected finding when it still exists.

        The model merges the new findings into its rows, so only rows that changed are touched (``changes``:
        those the analysis worker found, see analysis_changes).
        """
        keep = finding_key(self._current) if self._current is not None else None
        self.analysis = analysis
        self.model.set_analysis(analysis, lookup(self.document.project), changes)
        self._restore_current(keep)
        if self._current is None:
            self._show_details(None)  # "nothing to do" must follow the new findings, not an earlier analysis
        if self._fresh and analysis is not None:
            self._fresh = False
            first = self.proxy.index(1, 0)  # the most severe to-do, when there is one
            if self._current is None and first.isValid() and first.data(FINDING_ROLE) is not None:
                self.tree.setCurrentIndex(first)
            elif self._current is None:
                self._show_details(None)
        self._update_header()
        self.counts_changed.emit(self.counts())

    def set_selection(self, selection: Iterable[tuple[str, str]]) -> None:
        """Filter to the canvas selection (``(kind, id)`` pairs); empty shows everything."""
        new = list(selection)
        if new == self._selection:
            return
        self._selection = new
        self.show_all.setVisible(bool(new))
        if new and self.show_all.isChecked():
            self.show_all.setChecked(False)  # its toggled signal refills: once, not twice
            return
        self._refill()

    # ---------------------------------------------------------------- reading
    def counts(self) -> dict[str, int]:
        return dict(self._facts().opened) if self.analysis is not None else {}

    def _facts(self) -> Facts:
        assert self.analysis is not None
        return facts(self.analysis, self.document.project)

    def visible_findings(self, section: str | None = None) -> list[Finding]:
        """The findings the filters select (a closed section's too), in display order; or one section's."""
        return self.proxy.shown_findings(section)

    def set_section_open(self, section: str, opened: bool) -> None:
        """Open or close "To do" / "Decisions" (the header row's click does the same)."""
        self.proxy.set_collapsed(section, not opened)

    def item_for(self, finding: Finding) -> QModelIndex | None:
        """The view's row of ``finding`` (matched by rule and subject), or None when it is not listed."""
        self.proxy.set_collapsed(section_of(finding), False)
        index = self._index_for_key(finding_key(finding))
        return index if index.isValid() else None

    def select_finding(self, finding: Finding) -> None:
        index = self.item_for(finding)
        if index is not None:
            self.tree.setCurrentIndex(index)

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
        self.model.replace_next()
        self._selection = []
        self.show_all.setVisible(False)
        self._current = None
        self._fresh = True
        self.proxy.set_filter(None, self._severities())
        self._update_header()

    def _say(self, text: str, error: bool = False) -> None:
        self.message.setStyleSheet(f"color: {sev.COLORS['error']};" if error else "")
        self.message.setText(text)

    def _refill(self) -> None:
        """Apply the selection and severity filter (the proxy re-checks rows; nothing is rebuilt)."""
        self._filter_timer.stop()
        selecting = bool(self._selection) and not self.show_all.isChecked()
        self.proxy.set_filter(set(self._selection) if selecting else None, self._severities(), self.filter_box.text())
        self._update_header()
        if self._current is None:
            self._show_details(None)

    def _severities(self) -> set[str] | None:
        return SEVERITY_CHOICES[self.severity_box.currentIndex()][1]

    def _restore_current(self, keep: tuple[str, str, str] | None) -> None:
        """After an analysis: keep showing the finding the user had chosen (its row may have moved)."""
        current = self.tree.currentIndex()
        finding = current.data(FINDING_ROLE) if current.isValid() else None
        if keep is not None and (finding is None or finding_key(finding) != keep):
            index = self._index_for_key(keep)
            self.tree.setCurrentIndex(index)  # an invalid index when the finding is gone
            finding = index.data(FINDING_ROLE) if index.isValid() else None
        elif keep is None and finding is not None:
            self.tree.setCurrentIndex(QModelIndex())
            finding = None
        if finding is not self._current:
            self._current = finding
            self._show_details(finding)

    def _index_for_key(self, key: tuple[str, str, str]) -> QModelIndex:
        """The first row shown whose finding has ``key``: looked up in the model's lists, not asked of each of the
        view's rows (12,000 at 10,000 entities, after any edit that replaced the finding the user had chosen)."""
        for row in self.model.rows_where(lambda finding: finding_key(finding) == key):
            index = self.proxy.mapFromSource(self.model.index(row))
            if index.isValid():
                return index
        return QModelIndex()

    def _update_header(self) -> None:
        if self.analysis is None:
            project = self.document.project
            self.header.setText(analysing_text(project) if project.entities else NO_ANALYSIS)
            return
        text = self.summary_text()
        words = " ".join(self.filter_box.text().split()) if self.proxy.words else ""  # as typed, not folded
        if self.proxy.selecting or words:
            shown = self.proxy.shown_count()
            one = shown == 1
            said = []
            if self.proxy.selecting:
                said.append(f"{'concerns' if one else 'concern'} the selection")
            if words:
                said.append(f"{'matches' if one else 'match'} “{words}”")
            text = f"{shown} of {counted(len(self.analysis.findings), 'finding')} {' and '.join(said)} · {text}"
        self.header.setText(text)

    def summary_text(self) -> str:
        """``"To do: 1 warning · 12 decisions"``: the panel's header and the status bar say the same thing."""
        if self.analysis is None:
            return ""
        known = self._facts()
        return sections_summary(known.todo, known.decisions)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        finding = current.data(FINDING_ROLE) if current.isValid() else None
        self._current = finding
        self._show_details(finding)

    def _item_clicked(self, index: QModelIndex) -> None:
        if index.data(HEADER_ROLE):
            section = index.data(SECTION_ROLE)
            self.proxy.set_collapsed(section, section not in self.proxy.collapsed)
            return
        finding = index.data(FINDING_ROLE)
        if finding is None or self.analysis is None:
            return
        target = canvas_target(finding, self.document.project, self.analysis.design)
        if target is not None:
            self.subject_activated.emit(*target)

    def _show_details(self, finding: Finding | None) -> None:
        self.message.clear()
        if finding is None:
            self.details.setHtml(self._empty_details())
            self.apply_button.setEnabled(False)
            self.apply_button.setText("Apply")
            self.override_button.setEnabled(False)
            self.override_button.setText("Override…")
            return
        self.details.setHtml(detail_html(finding, self.document.project))
        has_fix = finding.fix is not None and bool(finding.fix.changes)
        self.apply_button.setEnabled(has_fix)
        if finding.decided:  # the design already does it: "Apply" would promise a change that is not there
            self.apply_button.setText("Pin in the model" if has_fix else "Already in the design")
        else:
            self.apply_button.setText("Apply" if has_fix else "No automatic fix")
        if has_fix and finding.fix is not None:
            self.apply_button.setToolTip(
                f"The design already does this; pinning writes it into the model ({finding.fix.description}) so it "
                "stays when the workload changes (one undoable step)"
                if finding.decided
                else f"{finding.fix.description} (one undoable step)"
            )
        overridden = finding.overridden or find_override(self.document, finding) is not None
        self.override_button.setEnabled(True)
        self.override_button.setText("Remove override" if overridden else "Override…")

    def _empty_details(self) -> str:
        """What the details say with no finding chosen; never "nothing to do" while the header counts a to-do."""
        if self.analysis is None:
            return EMPTY_DETAILS
        todo = sum(self._facts().todo.values())
        if todo == 0:
            return NOTHING_TO_DO
        if any(not f.overridden for f in self.proxy.iter_shown("todo")):
            return EMPTY_DETAILS
        if self.proxy.words:
            words = html.escape(" ".join(self.filter_box.text().split()))
            return FILTERED_BY_WORDS.format(words=words, them="it" if todo == 1 else f"all {todo:,}")
        return FILTERED_TO_DO.format(
            todo=counted(todo, "to-do"), s="s" if todo == 1 else "", them="it" if todo == 1 else "them"
        )

    def _link_clicked(self, url: QUrl) -> None:
        if url.scheme() == RULE_SCHEME:
            self.rule_requested.emit(url.path() or url.toString().partition(":")[2])
        else:
            QDesktopServices.openUrl(url)
