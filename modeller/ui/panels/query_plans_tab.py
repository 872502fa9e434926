"""The preview's Queries tab: how the resolved design serves each declared query.

Each query is listed by its name (the user's words); its plan shows the
collection(s) read, the index with the ESR role of each key, whether the sort
is served by the index or is a blocking sort (its bytes against the server's
100 MB), the documents examined and returned (and what those estimates
assume), the round trips, and the mongosh (``modeller.export.query_plans``)
with a Copy button. The planner is the engine's
(``modeller.rules.physical.planner``): this tab only shows it.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from modeller.model import Project
from modeller.model.labels import Labels
from modeller.rules.physical.design import Design
from modeller.rules.physical.planner import QueryPlan, Step
from modeller.rules.settings import DEFAULT_SETTINGS
from modeller.ui.widgets.code_view import code_view

_MB = 1024 * 1024


def _mb(n: int) -> str:
    return f"{n / _MB:,.1f} MB" if n >= _MB / 10 else f"{n:,} bytes"


def _index_cell(step: Step) -> str:
    from modeller.export.report import key_roles  # the report's words for the same plan

    esc = html.escape
    if step.index is None:
        return "<b style='color:#c0392b'>none: a collection scan</b>"
    if step.index.special is not None:
        keys = ", ".join(f"<code>{esc(k)}</code> {esc(str(v))}" for k, v in step.index.keys)
        return f"<code>{esc(step.index.name)}</code> ({keys}; the {esc(step.index.special)} index the search needs)"
    roles = ", ".join(f"<code>{esc(path)}</code> <i>{esc(role)}</i>" for path, role in key_roles(step))
    return f"<code>{esc(step.index.name)}</code> ({roles})"


def plan_html(plan: QueryPlan, project: Project) -> str:
    """One query's plan in the user's words: what is read, by which index, what it costs."""
    esc = html.escape
    query = next((q for q in project.queries if q.id == plan.id), None)
    names = {e.id: e.name for e in project.entities}
    title = query.name if query is not None and query.name else f"Query {Labels(project).query(plan.id)}"
    parts = [f"<h3>{esc(title)}</h3>"]
    what = f"Reads {esc(names.get(plan.entity, plan.entity))} documents"
    if plan.scope is not None:
        what += f": {esc(plan.scope.label)}"
    parts.append(f"<p>{what}.</p>")
    rows = []
    for n, step in enumerate(plan.steps, start=1):
        if n - 1 < plan.main:
            role = "first, the reference the scope needs"
        elif n - 1 == plan.main:
            role = "the query"
        else:
            role = "join"
        rows.append(
            f"<tr><td>{n}.</td><td>{role}</td><td><code>{esc(step.collection)}</code></td>"
            f"<td>{_index_cell(step)}</td><td align='right'>{step.docs_examined:,}</td>"
            f"<td align='right'>{step.docs_returned:,}</td></tr>"
        )
    parts.append(
        "<table cellspacing='0' cellpadding='3'><tr><th></th><th align='left'>read</th>"
        "<th align='left'>collection</th><th align='left'>index (ESR role of each key)</th>"
        "<th align='right'>examined</th><th align='right'>returned</th></tr>" + "".join(rows) + "</table>"
    )
    limit = DEFAULT_SETTINGS.blocking_sort_max_bytes
    if plan.blocking_sort:
        over = plan.sort_over_limit
        colour = "#c0392b" if over else "#b9770e"
        sort = (
            f"<b style='color:{colour}'>blocking sort in memory</b>: about {_mb(plan.sort_bytes)} "
            f"of the server's {_mb(limit)}{' — over the limit: the query fails' if over else ''}"
        )
    elif any(s.sort for s in plan.steps):
        sort = "the index returns the documents in order (no blocking sort)"
    else:
        sort = "no sort"
    trips = f"{plan.round_trips} round trip{'s' if plan.round_trips != 1 else ''}"
    if plan.lookups:
        trips += f" ({len(plan.lookups)} join{'s' if len(plan.lookups) != 1 else ''})"
    parts.append(
        f"<p>Sort: {sort}.<br>Documents: about {plan.docs_examined:,} examined, {plan.docs_returned:,} returned; "
        f"{trips}.</p>"
    )
    if plan.assumptions:  # the figures above rest on them, as the CLI's "assuming ..." and the report say
        parts.append(f"<p>The estimates assume {esc(', '.join(plan.assumptions))}.</p>")
    if plan.unresolved:
        parts.append(
            "<p>Not served by this collection: " + ", ".join(esc(u) for u in plan.unresolved) + " (needs a join).</p>"
        )
    return "\n".join(parts)


class QueryPlansTab(QWidget):
    """A list of the queries (by name) beside the selected one's plan and mongosh."""

    #: a query was chosen here (its id) or the choice was cleared (None)
    query_selected = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plans: dict[str, QueryPlan] = {}
        self.project: Project | None = None
        #: the query to show: kept while the tab is hidden and its list not filled yet (filled when visible)
        self.selected_id: str | None = None
        self.list = QListWidget()
        self.list.setObjectName("QueryPlanList")
        self.list.setToolTip("The declared queries; select one to see how the design serves it")
        self.list.currentItemChanged.connect(lambda *_: self._selected())
        self.plan_view = QTextBrowser()
        self.plan_view.setObjectName("QueryPlanView")
        self.mongosh_view = code_view("js")
        self.mongosh_view.setObjectName("QueryMongosh")
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy this query's mongosh to the clipboard")
        self.copy_button.clicked.connect(self.copy_mongosh)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.plan_view, 3)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("mongosh (params[...] are the values the application supplies)"), 1)
        bar.addWidget(self.copy_button)
        right_layout.addLayout(bar)
        right_layout.addWidget(self.mongosh_view, 2)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.list)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split)

    def show_plans(self, design: Design | None, project: Project) -> None:
        """Fill the list from the latest design, keeping the selected query when it still exists."""
        current = self.selected_id
        self.project = project
        self.plans = {p.id: p for p in design.queries} if design is not None else {}
        words = Labels(project)
        labels = {q.id: q.name or f"query {words.query(q.id)}" for q in project.queries}
        self.list.blockSignals(True)
        self.list.clear()
        for plan in self.plans.values():
            item = QListWidgetItem(labels.get(plan.id, plan.id))
            item.setData(Qt.ItemDataRole.UserRole, plan.id)
            item.setToolTip(labels.get(plan.id, plan.id))
            self.list.addItem(item)
            if plan.id == current:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self._show(self.current_query())

    def current_query(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def select(self, query_id: str | None) -> None:
        """Follow a selection made elsewhere (the Queries dock) without echoing it back."""
        self.selected_id = query_id
        self.list.blockSignals(True)
        if query_id is None:
            self.list.setCurrentItem(None)  # type: ignore[arg-type]
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == query_id:
                self.list.setCurrentRow(i)
        self.list.blockSignals(False)
        self._show(self.current_query())

    def copy_mongosh(self) -> None:
        QGuiApplication.clipboard().setText(self.mongosh_view.toPlainText())

    def _selected(self) -> None:
        query_id = self.selected_id = self.current_query()
        self._show(query_id)
        self.query_selected.emit(query_id)

    def _show(self, query_id: str | None) -> None:
        from modeller.export.query_plans import query_mongosh

        plan = self.plans.get(query_id or "")
        if plan is None or self.project is None:
            empty = "No declared queries yet: add one in the Queries dock." if not self.plans else "Select a query."
            self.plan_view.setHtml(f"<p>{html.escape(empty)}</p>")
            self.mongosh_view.setPlainText("")
            self.copy_button.setEnabled(False)
            return
        self.plan_view.setHtml(plan_html(plan, self.project))
        self.mongosh_view.setPlainText(query_mongosh(plan))
        self.copy_button.setEnabled(True)
