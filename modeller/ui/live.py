"""Live advice: tie each analysis result to the recommendations and preview docks and the canvas.

:class:`LiveController` is the wiring between the analysis service, the canvas
and the two docks, so the main window only creates it. The analysis itself
runs in :mod:`modeller.ui.analysis` (off the UI thread when it is slow, see
:mod:`modeller.ui.analysis_worker`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QGraphicsView, QLabel, QWidget

from modeller.model import Project
from modeller.rules.framework.analysis import Analysis
from modeller.runtime.gc_pause import collector_paused
from modeller.ui.analysis_changes import Changes, Marks, changes_since, differing, marks
from modeller.ui.canvas.items.entity_item import EntityItem
from modeller.ui.canvas.items.relationship_item import RelationshipItem
from modeller.ui.canvas.scene import SLICE_S, SYNC_BUILD_MAX
from modeller.ui.panels import severity as sev
from modeller.ui.panels.preview import PreviewPanel
from modeller.ui.panels.recommendations import RecommendationsPanel, analysing_text


class LiveController(QObject):
    """Feeds every analysis to the docks and the status bar; links panel and canvas selection."""

    def __init__(
        self,
        analysis: Any,
        recommendations: RecommendationsPanel,
        preview: PreviewPanel,
        scene: Any,
        view: QGraphicsView | None = None,
        status: QLabel | None = None,
        open_rule: Callable[[str], None] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.service = analysis
        self.recommendations = recommendations
        self.preview = preview
        self.scene = scene
        self.view = view
        self.status = status
        self.open_rule = open_rule
        self.last_analysis: Analysis | None = None
        #: the project ``last_analysis`` was shown against (what the next analysis' changes are counted from)
        self.last_project: Project | None = None
        #: canvas items whose marker is out of date -> set_advice arguments (marked in slices, see update_markers)
        self._markers_due: dict[tuple[str, str], tuple[Any, ...]] = {}
        self._marker_timer = QTimer(self)
        self._marker_timer.setSingleShot(True)
        self._marker_timer.setInterval(0)
        self._marker_timer.timeout.connect(self._mark_slice)
        #: the marks of the last analysis shown, and that analysis and project; None: none yet
        self._marked: Marks | None = None
        self._marked_for: tuple[Analysis, Project] | None = None
        #: cards or lines were made since: the next analysis compares every item, not only the changed marks
        self._items_added = True
        document = recommendations.document
        for signal in (document.entity_added, document.relationship_added):
            signal.connect(self._item_added)
        document.project_reset.connect(self._item_added)
        analysis.analysed.connect(self.show_analysis)
        if hasattr(analysis, "failed"):
            analysis.failed.connect(self._failed)
        if hasattr(analysis, "running"):
            analysis.running.connect(self._running)
        # once per user action (Select All of thousands of cards is one change here, not one per card)
        getattr(scene, "selection_settled", scene.selectionChanged).connect(self._selection_changed)
        if hasattr(scene, "built"):
            scene.built.connect(self._scene_built)
        recommendations.subject_activated.connect(self.reveal)
        recommendations.counts_changed.connect(self._counts)
        if open_rule is not None:
            recommendations.rule_requested.connect(open_rule)
        if getattr(analysis, "latest", None) is not None:
            self.show_analysis(analysis.latest)

    def show_analysis(self, analysis: Analysis) -> None:
        project = self.recommendations.document.project
        # what the worker found changed since the analysis shown now (None: the docks compare in full)
        changes = changes_since(self.last_analysis, self.last_project, analysis, project)
        self.last_analysis, self.last_project = analysis, project
        with collector_paused():  # one bulk step over every finding and item (see gc_pause)
            self.recommendations.set_analysis(analysis, changes)
            self.preview.set_analysis(analysis, changes)
            self.update_markers(analysis, changes)
            self._selection_changed()

    def update_markers(self, analysis: Analysis, changes: Changes | None = None) -> None:
        """Severity markers (open warnings and errors only) and "in X" notes on the canvas items.

        Only items whose marker or note changes are touched (``changes``: those the worker found, when they
        lead from the marks shown now); on a large canvas those in sight first and the others in slices from
        the event loop (the first analysis of a 10,000-entity project marks thousands of items, and marking
        them all at once held the window 0.2-0.5 s, issue 16).
        """
        project = self.recommendations.document.project
        now = marks(analysis, project)
        entity_ids: Iterable[str] = self.scene.entity_items
        rel_ids: Iterable[str] = self.scene.relationship_items
        if self._marked is not None and not self._items_added and not getattr(self.scene, "building", False):
            # edit -> findings <= 200 ms at 10,000 entities: every item already shows the last marks, so only
            # those whose mark, host or line mark differs from the last analysis' can change
            marked_for = self._marked_for or (None, None)  # by identity: == would compare every finding
            if changes is not None and marked_for[0] is changes.since and marked_for[1] is changes.since_project:
                entity_ids, rel_ids = changes.entities_marked, changes.relationships_marked
            else:
                entity_ids = differing(self._marked.entities, now.entities) | differing(self._marked.hosts, now.hosts)
                rel_ids = differing(self._marked.relationships, now.relationships)
        self._marked, self._marked_for, self._items_added = now, (analysis, project), False
        due = {**self._markers_due}  # marks still due from the last analysis stay due (with the new value)
        for entity_id in entity_ids:
            item = self.scene.entity_items.get(entity_id)
            wanted: tuple[Any, ...] = (now.entities.get(entity_id), now.hosts.get(entity_id))
            if item is not None and wanted != (item.marker, item.embedded_in):
                due["entity", entity_id] = wanted
            else:
                due.pop(("entity", entity_id), None)
        for rel_id in rel_ids:
            line = self.scene.relationship_items.get(rel_id)
            wanted = (now.relationships.get(rel_id),)
            if line is not None and wanted != (line.marker,):
                due["relationship", rel_id] = wanted
            else:
                due.pop(("relationship", rel_id), None)
        self._markers_due = due
        if len(due) <= SYNC_BUILD_MAX:
            self._mark(None)
            return
        for item in self._in_sight():  # those in sight now, the rest from the event loop
            if isinstance(item, EntityItem):
                key = ("entity", item.entity_id)
            elif isinstance(item, RelationshipItem):
                key = ("relationship", item.rel_id)
            else:
                continue
            if key in due:
                item.set_advice(*due.pop(key))
        self._marker_timer.start()

    def _item_added(self, *_args: object) -> None:
        self._items_added = True

    def _in_sight(self) -> list[Any]:
        if self.view is None:
            return []
        area = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        return list(self.scene.items(area, Qt.ItemSelectionMode.IntersectsItemBoundingRect))

    def _mark(self, deadline: float | None) -> None:
        """Mark the items still due until ``deadline`` (None: all of them); the rest in the next slice."""
        due = self._markers_due
        with collector_paused():
            while due and (deadline is None or time.perf_counter() < deadline):
                (kind, ident), wanted = due.popitem()
                items = self.scene.entity_items if kind == "entity" else self.scene.relationship_items
                item = items.get(ident)
                if item is not None:  # an item removed since is not marked
                    item.set_advice(*wanted)
        if due:
            self._marker_timer.start()

    def _mark_slice(self) -> None:
        self._mark(time.perf_counter() + SLICE_S)

    @property
    def markers_pending(self) -> bool:
        """True while items out of sight still show the markers of an earlier analysis."""
        return bool(self._markers_due)

    def finish_markers(self) -> None:
        """Mark every item still due now (a test or a screenshot needs them all)."""
        self._marker_timer.stop()
        self._mark(None)

    def _scene_built(self) -> None:
        """A progressive canvas build ended: the cards that arrived after the findings get their markers too."""
        current = self.last_analysis is not None and getattr(self.service, "latest", None) is self.last_analysis
        if current and not getattr(self.service, "background", False):
            assert self.last_analysis is not None
            self._items_added = True  # the cards built since the findings arrived
            with collector_paused():
                self.update_markers(self.last_analysis)

    def reveal(self, kind: str, ident: str) -> None:
        """Select and center a finding's subject on the canvas."""
        if kind == "relationship":
            self.scene.select_only([], [ident])
            item = self.scene.relationship_items.get(ident)
        else:
            self.scene.select_only([ident], [])
            item = self.scene.entity_items.get(ident)
        if item is not None and self.view is not None:
            self.view.centerOn(item)

    def _selection_changed(self) -> None:
        try:
            # nothing selected (the usual case after an analysis) needs no pass over the project's entities
            selected = bool(self.scene.selectedItems())
            entities = list(self.scene.selected_entity_ids()) if selected else []
            rels = list(self.scene.selected_relationship_ids()) if selected else []
        except RuntimeError:  # the scene is being torn down with the window
            return
        self.recommendations.set_selection([("entity", e) for e in entities] + [("relationship", r) for r in rels])
        if entities:
            self.preview.show_entity(entities[0])

    def _counts(self, counts: dict[str, int]) -> None:
        if self.status is None:
            return
        self.status.setText(self.recommendations.summary_text())  # the panel's words, not raw severities
        worst = next((s for s in sev.ORDER if counts.get(s)), None)
        color = sev.COLORS[worst] if worst in ("error", "warning") else ""
        self.status.setStyleSheet(f"color: {color}; font-weight: 600;" if color else "")
        self.status.setToolTip("Open findings of the recommendation engine (View → Recommendations)")

    def _running(self, on: bool) -> None:
        """A background analysis (large project, e.g. just opened): say so until its findings arrive."""
        if self.status is None:
            return
        if on:  # the first analysis of a project says how much it reads (seconds at 10,000 entities)
            first = self.recommendations.analysis is None and self.recommendations.document.project.entities
            self.status.setText(analysing_text(self.recommendations.document.project) if first else "Analysing…")
            self.status.setStyleSheet("font-style: italic;")
            self.status.setToolTip("The recommendation engine is analysing the project in the background")
        elif self.status.text().startswith("Analysing"):
            self._counts(self.recommendations.counts())

    def _failed(self, message: str) -> None:
        if self.status is not None:
            self.status.setText(message)


def status_label(parent: QWidget | None = None) -> QLabel:
    """The status-bar label showing the findings counts."""
    label = QLabel("no analysis yet", parent)
    label.setObjectName("FindingsStatus")
    return label
