"""The findings as a Qt item model: four severity groups, their findings sorted beneath.

A 10,000-entity project has tens of thousands of findings: the view paints only
the rows on screen, and a new analysis is merged into the rows already there
(rows inserted, removed or changed, in runs), so an edit that changes two
findings emits signals for two rows, not a reset of the whole list. Filtering
by the canvas selection and by severity is :class:`FindingsFilter`, a proxy.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QFont, QGuiApplication

from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.findings import Finding
from modeller.rules.physical.design import Design
from modeller.ui.panels import severity as sev
from modeller.ui.panels.finding_item import Lookup, related_entities, subject_label

FINDING_ROLE = Qt.ItemDataRole.UserRole + 1
SEVERITY_ROLE = Qt.ItemDataRole.UserRole + 2

#: the internal id of a group row; a finding row stores its group's number + 1
_GROUP = 0
AnyIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()


def sort_key(finding: Finding) -> tuple[bool, str, str, str, str]:
    """Open findings first, then by rule and subject: the order rows keep across analyses."""
    return (finding.overridden, finding.rule, finding.subject.id, finding.subject.kind, finding.message)


def group_label(severity: str, findings: list[Finding]) -> str:
    open_n = sum(1 for f in findings if not f.overridden)
    label = f"{sev.PLURAL[severity]} ({open_n})"
    if open_n != len(findings):
        label += f" + {len(findings) - open_n} overridden"
    return label


class FindingsModel(QAbstractItemModel):
    """Severity groups (always four rows) with their findings as children."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.groups: list[list[Finding]] = [[] for _ in sev.ORDER]
        self._keys: list[list[tuple[bool, str, str, str, str]]] = [[] for _ in sev.ORDER]
        self._labels = [group_label(s, []) for s in sev.ORDER]
        self.ids: Lookup | None = None
        self.design: Design | None = None
        self._italic = QFont()
        self._italic.setItalic(True)
        self._bold = QFont()
        self._bold.setBold(True)

    # ------------------------------------------------------------ updating
    def set_analysis(self, analysis: Analysis | None, ids: Lookup) -> None:
        """Merge a new analysis into the rows: only findings that appeared, left or changed emit signals."""
        self.design = analysis.design if analysis is not None else None
        names_changed = self.ids is None or self.ids.names != ids.names or _ends(self.ids) != _ends(ids)
        self.ids = ids
        buckets: dict[str, list[Finding]] = {s: [] for s in sev.ORDER}
        for finding in analysis.findings if analysis is not None else ():
            buckets.setdefault(finding.severity, []).append(finding)
        for g, severity in enumerate(sev.ORDER):
            new = sorted(buckets[severity], key=sort_key)
            self._merge(g, new, [sort_key(f) for f in new])
            group = self.index(g, 0)
            label = group_label(severity, new)
            if label != self._labels[g]:
                self._labels[g] = label
                self.dataChanged.emit(group, group)
            if names_changed and self.groups[g]:
                # a renamed entity changes the subject labels of its rows, not the rows themselves
                self.dataChanged.emit(self.index(0, 0, group), self.index(len(self.groups[g]) - 1, 0, group))

    def _merge(self, g: int, new: list[Finding], new_keys: list[tuple[bool, str, str, str, str]]) -> None:
        """Walk the old and the new sorted rows together, emitting one signal per run of rows."""
        rows, keys = self.groups[g], self._keys[g]
        parent = self.index(g, 0)
        row = j = 0
        changed: list[int] = []
        while row < len(rows) or j < len(new):
            if j == len(new) or (row < len(rows) and keys[row] < new_keys[j]):
                end = row
                while end < len(rows) and (j == len(new) or keys[end] < new_keys[j]):
                    end += 1
                self.beginRemoveRows(parent, row, end - 1)
                del rows[row:end]
                del keys[row:end]
                self.endRemoveRows()
            elif row == len(rows) or new_keys[j] < keys[row]:
                end = j
                while end < len(new) and (row == len(rows) or new_keys[end] < keys[row]):
                    end += 1
                self.beginInsertRows(parent, row, row + end - j - 1)
                rows[row:row] = new[j:end]
                keys[row:row] = new_keys[j:end]
                self.endInsertRows()
                row += end - j
                j = end
            else:
                if rows[row] is not new[j] and rows[row] != new[j]:
                    rows[row] = new[j]
                    changed.append(row)
                row += 1
                j += 1
        for first, last in _runs(changed):
            self.dataChanged.emit(self.index(first, 0, parent), self.index(last, 0, parent))

    # ------------------------------------------------------------ reading
    def finding(self, index: AnyIndex) -> Finding | None:
        if not index.isValid() or index.internalId() == _GROUP:
            return None
        return self.groups[index.internalId() - 1][index.row()]

    def group_of(self, index: AnyIndex) -> int:
        """The group number of a group row or of a finding row."""
        return index.row() if index.internalId() == _GROUP else index.internalId() - 1

    def text(self, finding: Finding) -> str:
        label = subject_label(self.ids, finding.subject) if self.ids is not None else finding.subject.id
        text = f"{label}: {finding.message}"
        return "[overridden] " + text if finding.overridden else text

    # ------------------------------------------------------------ QAbstractItemModel
    def index(self, row: int, column: int, parent: AnyIndex = _ROOT) -> QModelIndex:
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, _GROUP) if row < len(self.groups) else QModelIndex()
        if parent.internalId() != _GROUP or row >= len(self.groups[parent.row()]):
            return QModelIndex()
        return self.createIndex(row, 0, parent.row() + 1)

    def parent(self, index: AnyIndex = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or index.internalId() == _GROUP:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, _GROUP)

    def rowCount(self, parent: AnyIndex = _ROOT) -> int:
        if not parent.isValid():
            return len(self.groups)
        if parent.internalId() == _GROUP:
            return len(self.groups[parent.row()])
        return 0

    def columnCount(self, parent: AnyIndex = _ROOT) -> int:
        return 1

    def hasChildren(self, parent: AnyIndex = _ROOT) -> bool:
        return self.rowCount(parent) > 0

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if index.internalId() == _GROUP:
            return Qt.ItemFlag.ItemIsEnabled
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if index.internalId() == _GROUP:
            severity = sev.ORDER[index.row()]
            if role == Qt.ItemDataRole.DisplayRole:
                return self._labels[index.row()]
            if role == Qt.ItemDataRole.DecorationRole:
                return sev.icon(severity)
            if role == Qt.ItemDataRole.FontRole:
                return self._bold
            if role == SEVERITY_ROLE:
                return severity
            return None
        finding = self.groups[index.internalId() - 1][index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(finding)
        if role == FINDING_ROLE:
            return finding
        if role == SEVERITY_ROLE:
            return finding.severity
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
    """Shows the findings that concern the canvas selection and have a chosen severity; groups without
    any shown finding disappear. Changing the filter re-checks rows, it never rebuilds the model."""

    def __init__(self, source: FindingsModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.findings = source
        self.setSourceModel(source)
        self.setRecursiveFilteringEnabled(True)
        self._chosen: set[tuple[str, str]] = set()
        self._chosen_entities: set[str] = set()
        self.severities: set[str] | None = None
        self._labels: dict[int, str] = {}
        for signal in (self.rowsInserted, self.rowsRemoved, self.dataChanged, self.modelReset, self.layoutChanged):
            signal.connect(self._labels.clear)

    @property
    def selecting(self) -> bool:
        return bool(self._chosen)

    def set_filter(self, selection: set[tuple[str, str]] | None, severities: set[str] | None) -> None:
        """``selection``: ``(kind, id)`` pairs (None or empty: everything); ``severities``: None for all."""
        chosen = set(selection or ())
        if chosen == self._chosen and severities == self.severities:
            return
        self.beginFilterChange()
        self._chosen = chosen
        self._chosen_entities = {ident for kind, ident in chosen if kind == "entity"}
        self.severities = None if severities is None else set(severities)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        self._labels.clear()

    def filterAcceptsRow(self, source_row: int, source_parent: AnyIndex) -> bool:
        if not source_parent.isValid():
            return False  # a group shows when one of its findings does (recursive filtering)
        finding = self.findings.groups[source_parent.row()][source_row]
        if self.severities is not None and finding.severity not in self.severities:
            return False
        if not self._chosen:
            return True
        if (finding.subject.kind, finding.subject.id) in self._chosen:
            return True
        if not self._chosen_entities or self.findings.ids is None:
            return False
        return any(
            e in self._chosen_entities for e in related_entities(finding, self.findings.ids, self.findings.design)
        )

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and index.isValid() and not index.parent().isValid() and self._chosen:
            label = self._labels.get(index.row())
            if label is None:
                severity = self.mapToSource(index).data(SEVERITY_ROLE)
                shown = [self.index(r, 0, index).data(FINDING_ROLE) for r in range(self.rowCount(index))]
                label = self._labels[index.row()] = group_label(severity, shown)
            return label
        return super().data(index, role)

    def shown_count(self) -> int:
        return sum(self.rowCount(self.index(g, 0)) for g in range(self.rowCount()))

    def shown_findings(self) -> list[Finding]:
        """Every finding the view lists, in display order."""
        out: list[Finding] = []
        for g in range(self.rowCount()):
            group = self.index(g, 0)
            out.extend(self.index(r, 0, group).data(FINDING_ROLE) for r in range(self.rowCount(group)))
        return out


def _ends(ids: Lookup) -> dict[str, tuple[str, str]]:
    return {key: (rel.one, rel.many) for key, rel in ids.rels.items()}


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """``[1, 2, 3, 7]`` -> ``[(1, 3), (7, 7)]``."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs
