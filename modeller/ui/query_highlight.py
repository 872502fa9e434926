"""Selecting a query (in the Queries dock or the preview's Queries tab) marks on the canvas what it touches.

What a query touches: its own entity, the relationship of its scope, its
declared joins and the joins its plan needs (a related field in the
projection), and the entities at their ends. Clearing the selection clears
the marks. The two lists follow each other, so the dock and the tab always
show the same query. Selecting on the canvas something the query does not
touch ends the query's selection, so two highlights never show at once.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QObject

from modeller.model import Project
from modeller.ui.canvas.scene import CanvasScene
from modeller.ui.document import ProjectDocument
from modeller.ui.panels.preview import PreviewPanel
from modeller.ui.panels.queries_panel import QueriesPanel


def query_touches(project: Project, query_id: str | None, design: Any = None) -> tuple[set[str], set[str]]:
    """(entity ids, relationship ids) the query reads: its entity, scope, joins (declared and planned), their ends."""
    query = next((q for q in project.queries if q.id == query_id), None) if query_id else None
    if query is None:
        return set(), set()
    rels = set(query.joins)
    if query.scope is not None:
        rels.add(query.scope)
    plan = next((p for p in getattr(design, "queries", ()) if p.id == query.id), None)
    if plan is not None:
        rels.update(step.relationship for step in plan.steps if step.relationship)
    entities = {query.entity}
    for rel in project.relationships:
        if rel.id in rels:
            entities.update((rel.one, rel.many))
    known = {rel.id for rel in project.relationships}
    return entities, rels & known


class QueryHighlight(QObject):
    """Keeps the canvas marks, the Queries dock and the preview's Queries tab on the same selected query."""

    def __init__(
        self,
        document: ProjectDocument,
        scene: CanvasScene,
        queries: QueriesPanel,
        preview: PreviewPanel,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.document, self.scene, self.queries, self.preview = document, scene, queries, preview
        self.query_id: str | None = None
        queries.query_selected.connect(self._from_dock)
        preview.queries_tab.query_selected.connect(self._from_tab)
        for signal in (document.query_changed, document.query_removed):
            signal.connect(lambda _id: self.refresh())
        document.project_reset.connect(lambda: self.show(None))
        scene.selection_settled.connect(self._from_canvas)

    def show(self, query_id: str | None) -> None:
        """Mark what ``query_id`` touches (None: clear the marks)."""
        self.query_id = query_id if query_id and self.document.query(query_id) is not None else None
        self.refresh()

    def refresh(self, analysis: Any = None) -> None:
        """Mark again from the latest model and plan (after an edit or a new analysis)."""
        if self.query_id is not None and self.document.query(self.query_id) is None:
            self.query_id = None
        analysis = analysis if analysis is not None else self.preview.analysis
        design = getattr(analysis, "design", None)
        self.scene.highlight_query(*query_touches(self.document.project, self.query_id, design))

    def _from_dock(self, query_id: str | None) -> None:
        self.show(query_id)
        self.preview.queries_tab.select(self.query_id)

    def _from_tab(self, query_id: str | None) -> None:
        self.show(query_id)
        if query_id is not None:
            self.queries.select(query_id)

    def _from_canvas(self) -> None:
        """A card or line outside the query selected: the query is no longer what the user looks at."""
        if self.query_id is None:
            return
        entities, rels = self.scene.query_highlighted()
        picked_entities, picked_rels = (
            set(self.scene.selected_entity_ids()),
            set(self.scene.selected_relationship_ids()),
        )
        if (picked_entities or picked_rels) and not (picked_entities <= entities and picked_rels <= rels):
            self.queries.list.setCurrentIndex(QModelIndex())  # the dock clears, the tab and the marks follow
