"""The Queries dock: the declared access patterns and an editor for each.

Filters (field + eq/in/range/regex/ci/text/geo), sort, projection, joins and
frequency feed the engine's index and embedding advice. "For one:" is the
query's scope in the user's words: the entity at the other end of one of the
query entity's relationships (the Tasks of one Person); how it is served is
the engine's business. The projection offers the fields of related entities
(``owner.name``) as well as the entity's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from modeller.model import Query, Relationship
from modeller.model.conventions import embed_field, extended_ref_field
from modeller.model.labels import query_numbers, query_words
from modeller.model.paths import iter_paths
from modeller.model.unique_names import name_refused
from modeller.model.vocabulary import FILTER_OPS
from modeller.ui.commands import AddQueryCommand, EditQueryCommand, delete_command
from modeller.ui.commands.composite import new_query
from modeller.ui.commands.relationship import describe
from modeller.ui.document import ProjectDocument
from modeller.ui.edits import EditRefused, PathStep, updated
from modeller.ui.panels.entity_choices import EntityChoices
from modeller.ui.panels.form import ComboDelegate, ModelForm, error_label
from modeller.ui.panels.properties_panel import scrolled

OP_HELP = {
    "eq": "equality",
    "in": "one of several values",
    "range": "range (<, >, between)",
    "regex": "regular expression",
    "ci": "case-insensitive equality",
    "text": "full-text search",
    "geo": "geospatial",
}


def scope_choices(document: ProjectDocument, entity_id: str) -> list[tuple[str, str | None]]:
    """ "For one:" choices of a query on ``entity_id``: the other end's name and the relationship's label, never ids.

    On the N side the choice reads "the Tasks of one *Person (owner)*"; on the
    One side "the Person of one *Task (tasks)*".
    """
    out: list[tuple[str, str | None]] = [("(all documents)", None)]
    for rel in document.relationships_of(entity_id):
        on_many = rel.many == entity_id
        other = document.entity(rel.one if on_many else rel.many)
        name = other.name if other is not None else "?"
        role = (rel.inverse or rel.name) if on_many else (rel.name or rel.inverse)
        out.append((f"{name} ({role})" if role else name, rel.id))
    return out


def related_fields(document: ProjectDocument, entity_id: str) -> list[tuple[str, str]]:
    """(menu text, projection path) of the fields a query on ``entity_id`` can show through its relationships.

    The path goes through the name the related entity has on this side (``owner.name``, ``tasks.due_date``),
    the same names the project checks accept (``modeller.model.conventions``).
    """
    out: list[tuple[str, str]] = []
    for rel in document.relationships_of(entity_id):
        for via, other_id in _sides(rel, entity_id):
            other = document.entity(other_id)
            if other is None:
                continue
            head = extended_ref_field(rel, other) if via == "many" else embed_field(rel, other)
            out.extend((f"{other.name} ({head}) → {path}", f"{head}.{path}") for path, _f in iter_paths(other.fields))
    return out


def _sides(rel: Relationship, entity_id: str) -> list[tuple[str, str]]:
    """(which side ``entity_id`` is on, the other end) for each side it is on (a self-relationship: both)."""
    sides = []
    if rel.many == entity_id:
        sides.append(("many", rel.one))
    if rel.one == entity_id:
        sides.append(("one", rel.many))
    return sides


def query_label(document: ProjectDocument, query: Query, number: int | None = None) -> str:
    """A row of the list: name (an unnamed query: ``number``, its place in the list, and what it reads)."""
    entity = document.entity(query.entity)
    freq = f" · {query.per_sec:g}/s" if query.per_sec is not None else ""
    name = query.name or query_words(query, entity.name if entity else query.entity, number)
    return f"{name}  ({entity.name if entity else query.entity}){freq}"


class PairTable(QTableWidget):
    """Two-column table of (field, choice) rows: filters and sort keys."""

    def __init__(self, headers: tuple[str, str], choices: Sequence[str], tip: str) -> None:
        super().__init__(0, 2)
        self.setHorizontalHeaderLabels(list(headers))
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.setItemDelegateForColumn(1, ComboDelegate(choices, self))
        self.setToolTip(tip)
        self.setMaximumHeight(130)

    def rows(self) -> list[tuple[str, str]]:
        out = []
        for row in range(self.rowCount()):
            a, b = self.item(row, 0), self.item(row, 1)
            out.append((a.text() if a else "", b.text() if b else ""))
        return out

    def set_rows(self, rows: Sequence[tuple[str, str]]) -> None:
        self.blockSignals(True)
        self.setRowCount(len(rows))
        for i, (a, b) in enumerate(rows):
            self.setItem(i, 0, QTableWidgetItem(a))
            self.setItem(i, 1, QTableWidgetItem(b))
        self.blockSignals(False)


class QueryEditor(QWidget):
    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.query_id: str | None = None
        self.form = ModelForm(self.apply)
        f = self.form
        f.name(["name"], "Name", 'What the application does with this query ("tasks due tomorrow")')
        self.entity = f.choice(["entity"], "Entity", "The entity the query reads", [])
        self.entity.use_model(EntityChoices(document, lambda e: e.name, self))
        self.scope = f.choice(
            ["scope"],
            "For one",
            "Read the documents that belong to one of these (the Tasks of one Person), or the one this belongs to;\n"
            "the engine decides how: a reference with an index, the ids in an array, or the embedded array",
            [("(all documents)", None)],
        )
        f.number(["per_sec"], "Per second", "How often the query runs")
        f.number(["limit"], "Limit", "Page size", integer=True)
        f.check(["hot"], "Hot path (latency matters)", "The query is on a latency-critical path")
        self.projection = f.names(
            ["projection"], "Projection", "Fields returned, comma-separated (empty: whole document)"
        )
        self.add_field = QPushButton("Add field ▾")
        self.add_field.setToolTip("Add a field to the projection: the entity's own, or a related entity's")
        self.add_field_menu = QMenu(self.add_field)
        self.add_field_menu.aboutToShow.connect(self._fill_field_menu)
        self.add_field.setMenu(self.add_field_menu)
        f.row("", self.add_field)
        self.filters = PairTable(
            ("Filter field", "Operator"),
            FILTER_OPS,
            "Fields the query filters on and how:\n" + "\n".join(f"{k}: {v}" for k, v in OP_HELP.items()),
        )
        self.filters.itemChanged.connect(lambda _i: self._commit_filters())
        self.sort = PairTable(("Sort field", "Direction"), ("1", "-1"), "Sort keys: 1 ascending, -1 descending")
        self.sort.itemChanged.connect(lambda _i: self._commit_sort())
        self.joins = QListWidget()
        self.joins.setToolTip("Relationships this query traverses: it needs the related documents too")
        self.joins.setMaximumHeight(90)
        self.joins.itemChanged.connect(lambda _i: self._commit_joins())
        self.error = error_label()
        layout = QVBoxLayout(self)
        layout.addWidget(self.form)
        layout.addWidget(self.filters)
        layout.addLayout(self._buttons(self.filters, self._add_filter, "filter"))
        layout.addWidget(self.sort)
        layout.addLayout(self._buttons(self.sort, self._add_sort, "sort key"))
        layout.addWidget(QLabel("Joins"))
        layout.addWidget(self.joins)
        layout.addWidget(self.error)
        layout.addStretch(1)
        document.query_changed.connect(lambda key: self.reload() if key == self.query_id else None)
        # the entity choices follow the document by themselves (EntityChoices); the rest of the form names entities
        for signal in (document.entity_added, document.entity_removed, document.entity_changed):
            signal.connect(lambda _id: self._entities_changed())
        document.project_reset.connect(self._entities_changed)

    def _buttons(self, table: PairTable, add: Any, what: str) -> QHBoxLayout:
        row = QHBoxLayout()
        add_button = QPushButton(f"Add {what}")
        add_button.setToolTip(f"Add a {what} row")
        add_button.clicked.connect(add)
        remove_button = QPushButton("Remove")
        remove_button.setToolTip(f"Remove the selected {what}")
        remove_button.clicked.connect(lambda: self._remove_row(table))
        row.addWidget(add_button)
        row.addWidget(remove_button)
        row.addStretch(1)
        return row

    def _entities_changed(self) -> None:
        if self.query_id:
            self.reload()

    def query(self) -> Query | None:
        return self.document.query(self.query_id) if self.query_id else None

    def show_query(self, query_id: str | None) -> None:
        self.query_id = query_id
        self.setEnabled(query_id is not None)
        self.reload()

    def reload(self) -> None:
        query = self.query()
        if query is None:
            return
        self.scope.set_choices(scope_choices(self.document, query.entity))
        self.form.load(query)
        self.filters.set_rows(list(query.filter.items()))
        self.sort.set_rows([(f, str(d)) for f, d in query.sort])
        self.joins.blockSignals(True)
        self.joins.clear()
        for rel in self.document.relationships_of(query.entity):
            item = QListWidgetItem(describe(self.document, rel) + (f" ({rel.name})" if rel.name else ""))
            item.setData(Qt.ItemDataRole.UserRole, rel.id)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if rel.id in query.joins else Qt.CheckState.Unchecked)
            self.joins.addItem(item)
        self.joins.blockSignals(False)
        self.error.setVisible(False)

    def apply(self, path: Sequence[PathStep], value: Any, text: str | None = None, merge: bool = True) -> str | None:
        query = self.query()
        if query is None:
            return "no query selected"
        try:
            new = updated(query, path, value)
        except EditRefused as err:
            return str(err)
        if new == query:
            return None
        clash = name_refused(self.document.project, new) if new.name != query.name else None
        if clash is not None:
            return clash
        if list(path) == ["entity"] and new.scope is not None:
            rel = self.document.relationship(new.scope)
            if rel is None or new.entity not in (rel.one, rel.many):
                new = new.model_copy(update={"scope": None})  # the scope belonged to the other entity
        if list(path) in (["scope"], ["entity"]):
            merge = False  # a choice is one gesture: one undo entry each
        key = ("query", query.id, "/".join(str(p) for p in path)) if merge else None
        self.document.push(
            EditQueryCommand(
                self.document,
                new,
                text or f"Edit query {self._words(query)}: {self.form.label_of(path)}",
                key,
            )
        )
        return None

    def _words(self, query: Query) -> str:
        """The query's name, or for an unnamed one its number and what it reads (as in the list)."""
        number = query_numbers(self.document.project).get(query.id)
        return query.name or query_words(query, self._entity_name(query), number)

    def _entity_name(self, query: Query) -> str:
        entity = self.document.entity(query.entity)
        return entity.name if entity is not None else query.entity

    def _show(self, problem: str | None) -> None:
        self.error.setText(f"Not applied: {problem}" if problem else "")
        self.error.setVisible(problem is not None)
        if problem:
            self.reload()
            self.error.setText(f"Not applied: {problem}")
            self.error.setVisible(True)

    def _commit_filters(self, rows: list[tuple[str, str]] | None = None) -> None:
        rows = self.filters.rows() if rows is None else rows
        self._show(self.apply(["filter"], dict(rows), merge=False))

    def _commit_sort(self, rows: list[tuple[str, str]] | None = None) -> None:
        rows = self.sort.rows() if rows is None else rows
        try:
            value = [[f, int(d)] for f, d in rows]
        except ValueError:
            self._show("sort direction must be 1 or -1")
            return
        self._show(self.apply(["sort"], value, merge=False))

    def _fill_field_menu(self) -> None:
        """The entity's own fields, then each related entity's, as one menu (filled when opened)."""
        menu = self.add_field_menu
        menu.clear()
        query = self.query()
        entity = self.document.entity(query.entity) if query else None
        if query is None or entity is None:
            return
        for path, _field in iter_paths(entity.fields):
            menu.addAction(path).triggered.connect(lambda _c=False, p=path: self.add_projection(p))
        related = related_fields(self.document, entity.id)
        if related:
            menu.addSection("Related (through a relationship)")
        for text, path in related:
            menu.addAction(text).triggered.connect(lambda _c=False, p=path: self.add_projection(p))

    def add_projection(self, path: str) -> None:
        """Append ``path`` to the projection: one undoable edit."""
        query = self.query()
        if query is None or path in query.projection:
            return
        self._show(self.apply(["projection"], [*query.projection, path], f"Show {path} in the query", merge=False))

    def _commit_joins(self) -> None:
        joins = [
            str(self.joins.item(i).data(Qt.ItemDataRole.UserRole))
            for i in range(self.joins.count())
            if self.joins.item(i).checkState() == Qt.CheckState.Checked
        ]
        self._show(self.apply(["joins"], joins, merge=False))

    def _unused_field(self, taken: set[str]) -> str:
        query = self.query()
        entity = self.document.entity(query.entity) if query else None
        for path, _field in iter_paths(entity.fields if entity else []):
            if path not in taken:
                return path
        return "_id"

    def _add_filter(self) -> None:
        rows = self.filters.rows()
        rows.append((self._unused_field({f for f, _ in rows}), "eq"))
        self._commit_filters(rows)

    def _add_sort(self) -> None:
        rows = self.sort.rows()
        rows.append((self._unused_field({f for f, _ in rows}), "1"))
        self._commit_sort(rows)

    def _remove_row(self, table: PairTable) -> None:
        rows = table.rows()
        row = table.currentRow()
        if not 0 <= row < len(rows):
            return
        del rows[row]
        if table is self.filters:
            self._commit_filters(rows)
        else:
            self._commit_sort(rows)


class QueryList(QAbstractListModel):
    """The project's queries as list rows; a row's text is worked out when the view shows it.

    A 10,000-entity project declares thousands of queries: the list filled item by item held the window
    0.2-0.5 s on every open and on every entity edit (the texts name entities), issue 16. Now an edit
    that keeps the queries and their order re-reads the texts in one signal, and only the rows on screen.
    """

    def __init__(self, document: ProjectDocument, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self._queries: tuple[Query, ...] = ()
        self._rows: dict[str, int] = {}

    def refresh(self) -> None:
        queries = self.document.project.queries
        if queries is self._queries:
            if queries:  # the same queries: an entity's name in their texts may have changed
                self.dataChanged.emit(self.index(0), self.index(len(queries) - 1))
            return
        if [q.id for q in queries] == [q.id for q in self._queries]:
            self._queries = queries
            self.dataChanged.emit(self.index(0), self.index(len(queries) - 1))
            return
        self.beginResetModel()
        self._queries = queries
        self._rows = {q.id: row for row, q in enumerate(queries)}
        self.endResetModel()

    def row_of(self, query_id: str | None) -> int:
        return self._rows.get(query_id, -1) if query_id is not None else -1

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._queries)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._queries):
            return None
        query = self._queries[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return query_label(self.document, query, index.row() + 1)
        if role == Qt.ItemDataRole.UserRole:
            return query.id
        return None


class QueriesPanel(QWidget):
    """List of queries (add/remove) above the editor of the selected one."""

    #: the selected query changed (its id, or None when nothing is selected): the canvas highlights what it touches
    query_selected = Signal(object)

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.current_entity: str | None = None
        self.rows = QueryList(document, self)
        self.list = QListView()
        self.list.setToolTip("Declared queries; select one to edit it")
        self.list.setUniformItemSizes(True)
        self.list.setModel(self.rows)
        self.list.selectionModel().currentChanged.connect(lambda *_: self._selected())
        self.add_button = QPushButton("Add query")
        self.add_button.setToolTip("Declare a query on the selected entity (or the first one)")
        self.add_button.clicked.connect(self.add_query)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected query")
        self.remove_button.clicked.connect(self.remove_query)
        self.editor = QueryEditor(document)
        self.editor.setEnabled(False)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.list)
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        top_layout.addLayout(buttons)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(scrolled(self.editor))
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        for signal in (document.query_added, document.query_removed, document.query_changed):
            signal.connect(lambda _id: self.refresh())
        document.entity_changed.connect(lambda _id: self.refresh())
        document.project_reset.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        current = self.editor.query_id
        selection = self.list.selectionModel()
        selection.blockSignals(True)
        self.rows.refresh()
        row = self.rows.row_of(current)
        selection.setCurrentIndex(
            self.rows.index(row) if row >= 0 else QModelIndex(), QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        selection.blockSignals(False)
        self.list.viewport().update()
        if current is not None and self.document.query(current) is None:
            self.editor.show_query(None)
            self.query_selected.emit(None)
        self.add_button.setEnabled(bool(self.document.project.entities))

    def _selected(self) -> None:
        index = self.list.currentIndex()
        query_id = str(index.data(Qt.ItemDataRole.UserRole)) if index.isValid() else None
        self.editor.show_query(query_id)
        self.query_selected.emit(query_id)

    def select(self, query_id: str) -> None:
        row = self.rows.row_of(query_id)
        if row >= 0:
            self.list.setCurrentIndex(self.rows.index(row))

    def add_query(self) -> None:
        entities = self.document.project.entities
        if not entities:
            return
        entity_id = self.current_entity if self.document.entity(self.current_entity or "") else entities[0].id
        query = new_query(self.document, entity_id)
        self.document.push(AddQueryCommand(self.document, query))
        self.select(query.id)

    def remove_query(self) -> None:
        if self.editor.query_id:
            command = delete_command(self.document, query_ids=[self.editor.query_id])
            if command is not None:
                self.document.push(command)
