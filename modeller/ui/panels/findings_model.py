"""The findings as a Qt item model: a header row per section ("To do", "Decisions"), its findings beneath,
most severe first.

A 10,000-entity project has tens of thousands of findings: the view paints only
the rows on screen, and a new analysis is merged into the rows already there
(rows inserted, removed or changed, in runs), so an edit that changes two
findings emits signals for two rows, not a reset of the whole list. Filtering
by the canvas selection and by severity, and closing a section, is :class:`FindingsFilter`, a proxy.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from operator import itemgetter
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QFont, QGuiApplication

from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.findings import Finding
from modeller.rules.physical.design import Design
from modeller.runtime.gc_pause import collector_paused
from modeller.ui.analysis_changes import Changes, relabelled
from modeller.ui.panels import severity as sev
from modeller.ui.panels.finding_item import Lookup, Selection, named_in, subject_label
from modeller.ui.panels.findings_index import FindingsIndex, anchor, anchors_of
from modeller.ui.panels.findings_order import OVERRIDDEN as _OVERRIDDEN
from modeller.ui.panels.findings_order import SortKey, sort_key, sorted_sections
from modeller.ui.panels.sections import (
    COLLAPSED_AT_START,
    SECTIONS,
    counted_label,
    first_sentence,
    section_label,
    section_of,
)

FINDING_ROLE = Qt.ItemDataRole.UserRole + 1
SEVERITY_ROLE = Qt.ItemDataRole.UserRole + 2
HEADER_ROLE = Qt.ItemDataRole.UserRole + 3
SECTION_ROLE = Qt.ItemDataRole.UserRole + 4

AnyIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
_HEADER_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemNeverHasChildren
_FINDING_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


class FindingsModel(QAbstractListModel):
    """One flat list: per section a header row, then that section's findings.

    Flat on purpose: a list view with uniform rows lays out tens of thousands of rows without
    asking the (Python) model about each one, where a tree view walks every expanded row again
    after each inserted or removed row.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.groups: list[list[Finding]] = [[] for _ in SECTIONS]
        self._keys: list[list[SortKey]] = [[] for _ in SECTIONS]
        self._labels = [section_label(s, [], False) for s in SECTIONS]
        #: the listed findings by identity (what the next analysis is compared with)
        self._shown: dict[int, Finding] = {}
        self.ids: Lookup | None = None
        #: the analysis listed, and what changed since the one before it (None: compared in full)
        self.analysis: Analysis | None = None
        self.changes: Changes | None = None
        #: each listed finding's row text, worked out once: the view measures every row again after any
        #: inserted or removed row, and the subject's label costs more than the measuring (issue 16)
        self._texts: dict[int, tuple[Finding, str]] = {}
        #: the text filter's words are looked for in these (row text and rule name, case-folded), by finding
        self._searched: dict[int, tuple[Finding, str]] = {}
        #: the last analysis replaced every row (one model reset)
        self._reset = False
        #: the project was replaced: its first analysis replaces every row, whatever findings the two share
        self._replacing = False
        self.design: Design | None = None
        self._italic = QFont()
        self._italic.setItalic(True)
        self._bold = QFont()
        self._bold.setBold(True)

    # ------------------------------------------------------------ updating
    def set_analysis(self, analysis: Analysis | None, ids: Lookup, changes: Changes | None = None) -> None:
        """Merge a new analysis into the rows: only findings that appeared, left or changed emit signals
        (``changes``: what the analysis worker found changed, used when it leads from the rows shown now)."""
        with collector_paused():
            self._set_analysis(analysis, ids, changes)

    def replace_next(self) -> None:
        """Another project is shown (New, Open, Revert): its first analysis fills the rows in one reset. Findings
        the engine kept from the project before (alike by identity) made it merge each section instead, in runs
        of inserted and removed rows (hundreds of signals, each filtered and laid out; issue 16)."""
        self._replacing = True

    def _set_analysis(self, analysis: Analysis | None, ids: Lookup, changes: Changes | None) -> None:
        self.design = analysis.design if analysis is not None else None
        replacing = self._replacing and analysis is not None
        self._replacing = self._replacing and not replacing  # kept until an analysis arrives
        if replacing or (changes is not None and (self.analysis is not changes.since or self.ids is None)):
            changes = None  # they lead from another analysis than the one listed
        if changes is not None:
            assert self.ids is not None
            names_changed, queries_changed = changes.relabelled, changes.queries
        else:
            names_changed = self.ids is None or relabelled(self.ids.project, ids.project)
            queries_changed = self.ids is not None and self.ids.project.queries is not ids.project.queries
        if names_changed or queries_changed:
            self._texts.clear()  # the labels name entities, relationship ends and queries
            self._searched.clear()
        self.ids = ids
        #: what the filter may carry over from the last analysis (see FindingsFilter._concerns)
        self.changes = changes
        self.analysis = analysis
        findings = analysis.findings if analysis is not None else []
        # the incremental engine hands back the very objects of unchanged findings: only the others are placed
        # (edit -> findings <= 200 ms at 10,000 entities: the worker's list of changes, or set operations on
        # the ids, not a loop over 40,000 rows)
        shown = self._shown
        if changes is not None:
            fresh, gone = changes.fresh, changes.gone
            for finding in gone:
                del shown[id(finding)]
            shown.update(zip(map(id, fresh), fresh, strict=True))
            listed = shown
        else:
            listed = dict(zip(map(id, findings), findings, strict=True))
            if replacing or not shown:
                # every row is listed anew in one reset: no set operations on 40,000 ids (25 ms of the open's
                # hand-over at 10,000 entities); a finding the engine kept counts as gone and fresh
                fresh, gone = list(listed.values()), list(shown.values())
            else:
                fresh = list(map(listed.__getitem__, listed.keys() - shown.keys()))
                gone = list(map(shown.__getitem__, shown.keys() - listed.keys()))
        touched: set[int] = set()
        self._reset = False
        if replacing or 4 * (len(fresh) + len(gone)) > len(findings) + len(shown):
            touched = self._merge_all(findings, fresh, gone, replacing)
        else:
            for finding in fresh:
                touched.add(SECTIONS.index(section_of(finding)))
            for finding in gone:
                touched.add(SECTIONS.index(section_of(finding)))
            for g in sorted(touched):
                section = SECTIONS[g]
                self._patch(
                    g, [f for f in gone if section_of(f) == section], [f for f in fresh if section_of(f) == section]
                )
        self._shown = listed if fresh or gone else shown
        for finding in gone:
            self._texts.pop(id(finding), None)
            self._searched.pop(id(finding), None)
        for g in range(len(SECTIONS)):
            header = self.index(self.start(g))
            if g in touched:
                label = self.section_label(g, False)
                if label != self._labels[g]:
                    self._labels[g] = label
                    self.dataChanged.emit(header, header)
            if names_changed and self.groups[g] and not self._reset:
                # a renamed entity changes the subject labels of its rows, not the rows themselves (rows just
                # reset are read afresh anyway: a signal for all of them made the filter check each one again)
                self.dataChanged.emit(self.index(self.start(g) + 1), self.index(self.start(g) + len(self.groups[g])))

    def _merge_all(
        self, findings: list[Finding], fresh: list[Finding], gone: list[Finding], replacing: bool = False
    ) -> set[int]:
        """Sort every finding and merge each group with its rows (a first analysis, or one that changed much)."""
        ordered = sorted_sections(findings)  # sorted by the analysis worker already (findings_order)
        if replacing or len(self._shown) + len(findings) == len(fresh) + len(gone):
            # nothing stays (a first analysis, another project): one reset, so the filter and the view take
            # every row in one pass, not once per inserted run and again for the removed ones
            self.beginResetModel()
            for g, (rows, keys) in enumerate(ordered):
                self.groups[g], self._keys[g] = rows, keys
            self.endResetModel()
            self._reset = True
        else:
            for g, (rows, keys) in enumerate(ordered):
                self._merge(g, rows, keys)
        return set(range(len(SECTIONS)))

    def _patch(self, g: int, gone: list[Finding], fresh: list[Finding]) -> None:
        """Few findings changed: replace, remove and insert those rows alone (binary search on the sort keys)."""
        rows, keys = self.groups[g], self._keys[g]
        parent_base = self.start(g) + 1
        incoming = {sort_key(f): f for f in fresh}
        if len(incoming) != len(fresh):  # two new findings alike in rule, subject and text: merge the group
            leaving_ids = {id(f) for f in gone}
            kept = [f for f in rows if id(f) not in leaving_ids]
            keyed = sorted(((sort_key(f), f) for f in [*kept, *fresh]), key=itemgetter(0))
            self._merge(g, [f for _key, f in keyed], [key for key, _f in keyed])
            return
        leaving = [(sort_key(f), f) for f in gone]
        for key, old in sorted(leaving, key=itemgetter(0), reverse=True):
            row = self._position(g, old, key)
            if row < 0:
                continue  # not listed (cannot happen while rows and _shown agree)
            replacement = incoming.pop(key, None)
            if replacement is not None:
                rows[row] = replacement  # same rule, subject and text: the row stays where it is
                if replacement != old:
                    self.dataChanged.emit(self.index(parent_base + row), self.index(parent_base + row))
                continue
            self.beginRemoveRows(_ROOT, parent_base + row, parent_base + row)
            del rows[row]
            del keys[row]
            self.endRemoveRows()
        for key, finding in sorted(incoming.items(), key=itemgetter(0)):
            row = bisect_right(keys, key)
            self.beginInsertRows(_ROOT, parent_base + row, parent_base + row)
            rows.insert(row, finding)
            keys.insert(row, key)
            self.endInsertRows()

    def _merge(self, g: int, new: list[Finding], new_keys: list[SortKey]) -> None:
        """Walk the old and the new sorted rows together, emitting one signal per run of rows."""
        rows, keys = self.groups[g], self._keys[g]
        base = self.start(g) + 1
        row = j = 0
        changed: list[int] = []
        while row < len(rows) or j < len(new):
            if j == len(new) or (row < len(rows) and keys[row] < new_keys[j]):
                end = row
                while end < len(rows) and (j == len(new) or keys[end] < new_keys[j]):
                    end += 1
                self.beginRemoveRows(_ROOT, base + row, base + end - 1)
                del rows[row:end]
                del keys[row:end]
                self.endRemoveRows()
            elif row == len(rows) or new_keys[j] < keys[row]:
                end = j
                while end < len(new) and (row == len(rows) or new_keys[end] < keys[row]):
                    end += 1
                self.beginInsertRows(_ROOT, base + row, base + row + end - j - 1)
                rows[row:row] = new[j:end]
                keys[row:row] = new_keys[j:end]
                self.endInsertRows()
                row += end - j
                j = end
            else:
                if rows[row] is not new[j]:
                    if rows[row] != new[j]:
                        changed.append(base + row)
                    rows[row] = new[j]  # rows hold this analysis' objects (the next one is compared by identity)
                row += 1
                j += 1
        for first, last in _runs(changed):
            self.dataChanged.emit(self.index(first), self.index(last))

    # ------------------------------------------------------------ reading
    def section_label(self, g: int, collapsed: bool) -> str:
        """Group ``g``'s header text, counted on its sort keys (open findings sort before overridden ones)."""
        keys = self._keys[g]
        return counted_label(SECTIONS[g], bisect_left(keys, _OVERRIDDEN), len(keys), collapsed)

    def rows_where(self, wanted: Callable[[Finding], bool]) -> Iterator[int]:
        """The rows of the findings ``wanted`` accepts, top to bottom."""
        base = 0
        for group in self.groups:
            for i, finding in enumerate(group):
                if wanted(finding):
                    yield base + 1 + i
            base += len(group) + 1

    def start(self, g: int) -> int:
        """The row of group ``g``'s header."""
        return sum(len(group) + 1 for group in self.groups[:g])

    def locate(self, row: int) -> tuple[int, int]:
        """``(group, position)`` of a row; position -1 is the group's header."""
        for g, group in enumerate(self.groups):
            if row <= len(group):
                return g, row - 1
            row -= len(group) + 1
        raise IndexError(row)

    def row_of(self, finding: Finding) -> int:
        """The row listing ``finding``, -1 if none (a merge may not have placed it yet)."""
        g = SECTIONS.index(section_of(finding))
        at = self._position(g, finding, sort_key(finding))
        return -1 if at < 0 else self.start(g) + 1 + at

    def _position(self, g: int, finding: Finding, key: SortKey) -> int:
        """Where group ``g`` lists ``finding`` (its sort key ``key``), -1 if it does not: a binary search on the
        sort keys, then the findings alike in rule, subject and text by identity."""
        rows, keys = self.groups[g], self._keys[g]
        at = bisect_left(keys, key)
        while at < len(rows) and rows[at] is not finding and keys[at] == key:
            at += 1
        return at if at < len(rows) and rows[at] is finding else -1

    def finding(self, index: AnyIndex) -> Finding | None:
        if not index.isValid():
            return None
        g, i = self.locate(index.row())
        return self.groups[g][i] if i >= 0 else None

    def text(self, finding: Finding) -> str:
        known = self._texts.get(id(finding))
        if known is not None and known[0] is finding:
            return known[1]
        text = self._text(finding)
        self._texts[id(finding)] = (finding, text)
        return text

    def searched_text(self, finding: Finding) -> str:
        """What the text filter looks in: the row's text and the rule's name (also with spaces), case-folded; kept
        like the row texts (a keystroke asks every one of ~39,000 findings at 10,000 entities, more than once)."""
        known = self._searched.get(id(finding))
        if known is not None and known[0] is finding:
            return known[1]
        rule = finding.rule
        text = f"{self.text(finding)} {rule} {rule.replace('-', ' ')}".casefold()
        self._searched[id(finding)] = (finding, text)
        return text

    def _text(self, finding: Finding) -> str:
        label = subject_label(self.ids, finding.subject) if self.ids is not None else finding.subject.id
        sentence = first_sentence(finding.message)
        named = named_in(self.ids, finding.subject) if self.ids is not None else None
        # a message that already names its query or relationship reads alone ("query 'x': query 'x' needs" was twice)
        text = sentence if named is not None and named in sentence else f"{label}: {sentence}"
        return "[overridden] " + text if finding.overridden else text

    # ------------------------------------------------------------ QAbstractListModel
    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        return 0 if parent.isValid() else sum(map(len, self.groups)) + len(self.groups)

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _HEADER_FLAGS if self.locate(index.row())[1] < 0 else _FINDING_FLAGS

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        g, i = self.locate(index.row())
        if i < 0:
            if role == Qt.ItemDataRole.DisplayRole:
                return self._labels[g]
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
            if role == Qt.ItemDataRole.BackgroundRole:
                return QGuiApplication.palette().alternateBase()
            if role == SECTION_ROLE:
                return SECTIONS[g]
            if role == HEADER_ROLE:
                return True
            return None
        finding = self.groups[g][i]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(finding)
        if role == FINDING_ROLE:
            return finding
        if role == SEVERITY_ROLE:
            return finding.severity
        if role == SECTION_ROLE:
            return SECTIONS[g]
        if role == HEADER_ROLE:
            return False
        if role == Qt.ItemDataRole.DecorationRole:
            return sev.icon(finding.severity)
        if role == Qt.ItemDataRole.ToolTipRole:
            return finding.message + (f"\nOverridden: {finding.note}" if finding.overridden else "")
        if finding.overridden:
            if role == Qt.ItemDataRole.FontRole:
                return self._italic
            if role == Qt.ItemDataRole.ForegroundRole:
                return QGuiApplication.palette().placeholderText()
        return None


class FindingsFilter(QSortFilterProxyModel):
    """Shows the findings that concern the canvas selection and have a chosen severity, except those of a
    closed section; a header shows while one of its findings passes the filter. Changing the filter or
    opening a section re-checks rows, it never rebuilds the model."""

    def __init__(self, source: FindingsModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.findings = source
        self.setSourceModel(source)
        self._chosen = Selection()
        #: a canvas selection filters the rows (asked for each of 39,000 rows: a plain attribute, not
        #: Selection.__bool__)
        self.selecting = False
        self.severities: set[str] | None = None
        #: the text filter's words (folded): a finding shows when its row text or rule holds each of them
        self.words: tuple[str, ...] = ()
        self.collapsed: set[str] = set(COLLAPSED_AT_START)
        self._labels: dict[int, str] = {}
        for signal in (self.rowsInserted, self.rowsRemoved, self.dataChanged, self.modelReset, self.layoutChanged):
            signal.connect(self._labels.clear)
        #: the findings the selection concerns, by identity (None: not looked up yet for this selection and
        #: analysis); found through the index, never by asking each of 39,000 findings (tryout a15 item 12)
        self._accepted: dict[int, Finding] | None = None
        #: the findings filed by what they are about, and the analysis filed (None: filed when next needed)
        self._index: FindingsIndex | None = None
        self._indexed: Analysis | None = None
        #: while selecting: source row -> (section, header?) of the rows shown, ignoring closed sections (None:
        #: worked out when next asked); rows move when the model inserts or removes some, so those drop it
        self._rows: dict[int, tuple[str, bool]] | None = None
        #: without a selection, severity or words: per source row, 1 if it shows (b"" while those filter; None:
        #: worked out when next asked). The hand-over of 39,000 findings asks for every row: a byte each, not the
        #: section lookup and filters in Python (~75 ms of the UI thread at 10,000 entities)
        self._open_rows: bytearray | None = None
        for about in (
            source.rowsAboutToBeInserted,
            source.rowsAboutToBeRemoved,
            source.modelAboutToBeReset,
            source.layoutAboutToBeChanged,
        ):
            about.connect(self._rows_moving)
        #: the project maps, design and analysis the answers are for
        self._answered_for: tuple[Any, Any, Any] = (None, None, None)
        #: per section, [open, all] findings the filters accept (None: count again, see section_counts)
        self._counts: list[list[int]] | None = None

    def set_filter(
        self, selection: set[tuple[str, str]] | None, severities: set[str] | None, text: str | None = None
    ) -> None:
        """``selection``: ``(kind, id)`` pairs (None or empty: everything); ``severities``: None for all;
        ``text``: words each shown finding's row or rule holds (None: the words stay as they are)."""
        chosen = Selection(selection or ())
        words = self.words if text is None else tuple(text.casefold().split())
        if chosen == self._chosen and severities == self.severities and words == self.words:
            return
        self.beginFilterChange()
        self._chosen = chosen
        self.selecting = bool(chosen)
        self.words = words
        self._accepted = None
        self._rows = None
        self._open_rows = None
        self._counts = None
        self.severities = None if severities is None else set(severities)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        self._labels.clear()

    def set_collapsed(self, section: str, collapsed: bool) -> None:
        """Close or open a section (its header stays, with its count)."""
        if (section in self.collapsed) == collapsed:
            return
        self.beginFilterChange()
        self._open_rows = None
        if collapsed:
            self.collapsed.add(section)
        else:
            self.collapsed.discard(section)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        self._labels.clear()

    @property
    def filtering(self) -> bool:
        """Does a severity or the text hide some findings (the selection aside)?"""
        return self.severities is not None or bool(self.words)

    def passes(self, finding: Finding) -> bool:
        """Has ``finding`` a chosen severity and each of the words (the selection aside)?"""
        if self.severities is not None and finding.severity not in self.severities:
            return False
        return not self.words or self._matches(finding)

    def _matches(self, finding: Finding) -> bool:
        """Does the row's text (subject and first sentence) or the rule's name hold each word, in any case?"""
        text = self.findings.searched_text(finding)
        return all(word in text for word in self.words)

    def accepts(self, finding: Finding) -> bool:
        if not self.passes(finding):
            return False
        if not self.selecting:
            return True
        return self.findings.ids is not None and self._concerns(finding)

    def _concerns(self, finding: Finding) -> bool:
        return self._accepted_now().get(id(finding)) is finding  # the finding is held, so its id is not reused

    def _accepted_now(self) -> dict[int, Finding]:
        """The findings the selection concerns: those filed under what it holds, each asked (a few, not all)."""
        self._follow()
        if self._accepted is None:
            model = self.findings
            found = self._filed().concerning(self._chosen, model.ids, model.design) if model.ids is not None else ()
            self._accepted = {id(f): f for f in found}
        return self._accepted

    def _filed(self) -> FindingsIndex:
        """The index of the listed findings: carried over with an analysis' changes, else filed anew."""
        model = self.findings
        changes = model.changes
        if self._index is not None and self._indexed is not model.analysis:
            if changes is not None and changes.since is self._indexed:
                self._index.remove(changes.gone)
                self._index.add(changes.fresh)
            else:
                self._index = None
        if self._index is None:
            self._index = FindingsIndex(model.analysis.findings if model.analysis is not None else ())
        self._indexed = model.analysis
        return self._index

    def _follow(self) -> None:
        """After another analysis, keep the counts an edit cannot have changed, and look the selection's findings
        up again (through the index: proportional to the selection).

        Counting every section again after each edit held the UI thread while a severity filtered the list
        (issue 16); with a selection the counts come from its few findings.
        """
        model = self.findings
        if model.ids is self._answered_for[0] and model.design is self._answered_for[1]:
            return
        changes = model.changes
        if changes is not None and changes.since is not self._answered_for[2]:
            changes = None  # they lead from an analysis this filter never answered for
        self._answered_for = (model.ids, model.design, model.analysis)
        self._rows = None
        if self._accepted is None or changes is None or not self._carry(changes):
            self._accepted = None
        if self._index is not None and not self.selecting:
            self._filed()  # kept up to date with the changes while they lead from it (cheap), for the next click
        if (
            changes is None
            or self.selecting
            or (self.words and (changes.relabelled or changes.queries or changes.gone))
        ):
            # renamed subjects may match other words; a gone finding's text named what may be gone with it
            self._counts = None
            return
        counts = self._counts
        if counts is not None:
            for finding in changes.gone:
                if self.passes(finding):
                    _add(counts, finding, -1)
            for finding in changes.fresh:
                if self.accepts(finding):
                    _add(counts, finding, 1)

    def _carry(self, changes: Changes) -> bool:
        """Keep the selection's findings across an edit: drop those that left, ask only the new ones and those
        about a replaced collection, when they hang on what the selection holds. False: look them up afresh
        (a rename or a query edit may change what any finding names)."""
        if changes.relabelled or changes.queries or self._accepted is None:
            return False
        index, model = self._filed(), self.findings
        anchors = anchors_of(self._chosen, model.ids, model.design)
        accepted = self._accepted
        for finding in changes.gone:
            accepted.pop(id(finding), None)
        replaced = {("collection", name) for name in changes.collections}
        for key in [key for key, f in accepted.items() if anchor(f) in replaced]:
            del accepted[key]
        asked = {id(f): f for f in changes.fresh if anchor(f) in anchors}
        for key in replaced & anchors:
            asked.update((k, f) for k, f in index.by_anchor.get(key, {}).items() if k not in accepted)
        for finding in asked.values():
            if self._chosen.concerns(finding, model.ids, model.design):
                accepted[id(finding)] = finding
        return True

    def section_counts(self) -> list[list[int]]:
        """Per section, ``[open, all]`` findings the filters accept (closed sections too): counted once per
        filter, then kept up to date with each analysis' changes (see :meth:`_follow`)."""
        self._follow()
        if self._counts is None:
            counts = [[0, 0] for _ in SECTIONS]
            if self.selecting:  # the selection's few findings, not every row asked again
                listed = self._accepted_now().values() if self.findings.ids is not None else ()
                for finding in filter(self.passes, listed):
                    _add(counts, finding, 1)
            else:
                for group in self.findings.groups:
                    for finding in filter(self.accepts, group):
                        _add(counts, finding, 1)
            self._counts = counts
        return self._counts

    def _rows_moving(self, *_args: object) -> None:
        self._rows = None
        self._open_rows = None

    def _open_rows_now(self) -> bytearray:
        """Unfiltered: the source rows that show, from the sections' sizes alone (headers of sections with
        findings, and the rows of open sections); b"" while a severity or words filter."""
        shown = bytearray()
        if not self.filtering:
            for name, group in zip(SECTIONS, self.findings.groups, strict=True):
                shown.append(1 if group else 0)
                shown.extend(bytes(len(group)) if name in self.collapsed else b"\x01" * len(group))
        self._open_rows = shown
        return shown

    def _rows_now(self) -> dict[int, tuple[str, bool]]:
        """While selecting: the source rows of the selection's findings (of the chosen severities) and of their
        sections' headers, found by the model's row lookup (binary search), not by asking each row."""
        if self._rows is not None:
            return self._rows
        model = self.findings
        rows: dict[int, tuple[str, bool]] = {}
        accepted = self._accepted_now() if model.ids is not None else {}
        for finding in filter(self.passes, accepted.values()):
            row = model.row_of(finding)
            if row >= 0:
                section = section_of(finding)
                rows[row] = (section, False)
                rows[model.start(SECTIONS.index(section))] = (section, True)
        self._rows = rows
        return rows

    def filterAcceptsRow(self, source_row: int, source_parent: AnyIndex) -> bool:
        if self.selecting:  # one lookup per row: the rows were found once, by the selection's findings
            shown = (self._rows if self._rows is not None else self._rows_now()).get(source_row)
            return shown is not None and (shown[1] or shown[0] not in self.collapsed)
        open_rows = self._open_rows if self._open_rows is not None else self._open_rows_now()
        if open_rows:
            return open_rows[source_row] == 1
        g, i = self.findings.locate(source_row)
        group = self.findings.groups[g]
        if i >= 0:
            return SECTIONS[g] not in self.collapsed and self.accepts(group[i])
        return any(map(self.accepts, group)) if self.filtering else bool(group)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and index.isValid():
            label = self._labels.get(index.row())
            if label is None:
                g, i = self.findings.locate(self.mapToSource(index).row())
                if i >= 0:
                    return super().data(index, role)  # a finding's row: the model's text
                collapsed = SECTIONS[g] in self.collapsed
                if self.selecting or self.filtering:
                    label = counted_label(SECTIONS[g], *self.section_counts()[g], collapsed)
                else:
                    label = self.findings.section_label(g, collapsed)
                self._labels[index.row()] = label
            return label
        return super().data(index, role)

    def shown_findings(self, section: str | None = None) -> list[Finding]:
        """Every finding the filters select, in display order, a closed section's too (or one section's)."""
        return list(self.iter_shown(section))

    def iter_shown(self, section: str | None = None) -> Iterator[Finding]:
        """:meth:`shown_findings` one by one (a question about the first few need not filter them all)."""
        for g, name in enumerate(SECTIONS):
            if section in (None, name):
                yield from filter(self.accepts, self.findings.groups[g])

    def shown_count(self) -> int:
        return sum(total for _open, total in self.section_counts())


def _add(counts: list[list[int]], finding: Finding, step: int) -> None:
    """Count ``finding`` in (or, ``step`` -1, out of) its section's ``[open, all]``."""
    row = counts[SECTIONS.index(section_of(finding))]
    row[1] += step
    if not finding.overridden:
        row[0] += step


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """``[1, 2, 3, 7]`` -> ``[(1, 3), (7, 7)]``."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs
