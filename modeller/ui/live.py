"""Live advice: tie each analysis result to the recommendations and preview docks and the canvas.

:class:`LiveController` is the wiring between the analysis service, the canvas
and the two docks, so the main window only creates it. The analysis itself
runs in :mod:`modeller.ui.analysis` (off the UI thread when it is slow, see
:mod:`modeller.ui.analysis_worker`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QGraphicsView, QLabel, QWidget

from modeller.model import Project
from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.findings import SEVERITY_RANK
from modeller.ui.gc_pause import collector_paused
from modeller.ui.panels import severity as sev
from modeller.ui.panels.design_index import design_index
from modeller.ui.panels.finding_item import Lookup, lookup, related_entities
from modeller.ui.panels.preview import PreviewPanel
from modeller.ui.panels.recommendations import RecommendationsPanel


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
        analysis.analysed.connect(self.show_analysis)
        if hasattr(analysis, "failed"):
            analysis.failed.connect(self._failed)
        if hasattr(analysis, "running"):
            analysis.running.connect(self._running)
        scene.selectionChanged.connect(self._selection_changed)
        if hasattr(scene, "built"):
            scene.built.connect(self._scene_built)
        recommendations.subject_activated.connect(self.reveal)
        recommendations.counts_changed.connect(self._counts)
        if open_rule is not None:
            recommendations.rule_requested.connect(open_rule)
        if getattr(analysis, "latest", None) is not None:
            self.show_analysis(analysis.latest)

    def show_analysis(self, analysis: Analysis) -> None:
        self.last_analysis = analysis
        with collector_paused():  # one bulk step over every finding and item (see gc_pause)
            self.recommendations.set_analysis(analysis)
            self.preview.set_analysis(analysis)
            self.update_markers(analysis)
            self._selection_changed()

    def update_markers(self, analysis: Analysis) -> None:
        """Severity markers (open warnings and errors only) and "in X" notes on the canvas items."""
        ids = lookup(self.recommendations.document.project)
        entity_marks, rel_marks = canvas_markers(analysis, ids)
        design = analysis.design
        index = design_index(design)
        for entity_id, item in self.scene.entity_items.items():
            placement = design.embedded.get(entity_id)
            host = None
            if placement is not None:
                coll = index.collection(placement.collection)
                host = ids.name(coll.root) if coll is not None and coll.entities else placement.collection
            item.set_advice(entity_marks.get(entity_id), host)
        for rel_id, item in self.scene.relationship_items.items():
            item.set_advice(rel_marks.get(rel_id))

    def _scene_built(self) -> None:
        """A progressive canvas build ended: the cards that arrived after the findings get their markers too."""
        current = self.last_analysis is not None and getattr(self.service, "latest", None) is self.last_analysis
        if current and not getattr(self.service, "background", False):
            assert self.last_analysis is not None
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
            entities = list(self.scene.selected_entity_ids())
            rels = list(self.scene.selected_relationship_ids())
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
        if on:
            self.status.setText("Analysing…")
            self.status.setStyleSheet("font-style: italic;")
            self.status.setToolTip("The recommendation engine is analysing the project in the background")
        elif self.status.text() == "Analysing…":
            self._counts(self.recommendations.counts())

    def _failed(self, message: str) -> None:
        if self.status is not None:
            self.status.setText(message)


MARKED = ("warning", "error")


def canvas_markers(analysis: Analysis, project: Project | Lookup) -> tuple[dict[str, str], dict[str, str]]:
    """Worst open warning/error per entity and per relationship (suggestions keep the canvas calm)."""
    entities: dict[str, str] = {}
    rels: dict[str, str] = {}
    ids = lookup(project)
    for finding in analysis.findings:
        if finding.overridden or finding.severity not in MARKED:
            continue
        if finding.subject.kind == "relationship":
            targets, store = [finding.subject.id], rels
        else:
            targets, store = related_entities(finding, ids, analysis.design), entities
        for target in targets:
            if SEVERITY_RANK[finding.severity] > SEVERITY_RANK.get(store.get(target, ""), -1):
                store[target] = finding.severity
    return entities, rels


def status_label(parent: QWidget | None = None) -> QLabel:
    """The status-bar label showing the findings counts."""
    label = QLabel("no analysis yet", parent)
    label.setObjectName("FindingsStatus")
    return label
