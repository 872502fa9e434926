"""Live advice: run the engine off the UI thread when it is slow, and tie its results to the panels.

:class:`AnalysisWorker` analyses a snapshot of the project in one worker
thread; the document replaces model objects instead of mutating them (see
``edits.py``), so copying the top-level lists is a consistent snapshot.
Results carry the generation they were started for, and the
``AnalysisService`` drops any that a newer edit has made stale.

:class:`LiveController` is the wiring between the analysis, the canvas and
the two docks (recommendations, preview), so the main window only creates it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QGraphicsView, QLabel, QWidget

from modeller.model import Project
from modeller.rules.design import Analysis
from modeller.ui.panels import severity as sev
from modeller.ui.panels.preview import PreviewPanel
from modeller.ui.panels.recommendations import RecommendationsPanel

#: one frame at 60 Hz: an analysis slower than this moves to the worker thread
FRAME_S = 0.016


def snapshot(project: Project) -> Project:
    """A project sharing the (never mutated) objects but owning its lists: safe to read in a thread."""
    return project.model_copy(
        update={
            "entities": list(project.entities),
            "relationships": list(project.relationships),
            "queries": list(project.queries),
            "overrides": list(project.overrides),
            "layout": dict(project.layout),
        }
    )


class AnalysisWorker(QObject):
    """Runs ``analyse`` on snapshots in a single background thread, newest request wins."""

    #: generation, Analysis (or the exception raised), seconds the analysis took
    finished = Signal(int, object, float)

    def __init__(self, analyse: Callable[[Project], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._analyse = analyse
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="modeller-analysis")
        self._pending: tuple[int, Project] | None = None
        self._running = False
        # queued: runs on the UI thread once each result has been delivered
        self.finished.connect(self._after_result)

    @property
    def busy(self) -> bool:
        return self._running or self._pending is not None

    def submit(self, generation: int, project: Project) -> None:
        """Analyse ``project`` as it is now; a request still waiting is replaced, not queued."""
        self._pending = (generation, snapshot(project))
        if not self._running:
            self._start_next()

    def shutdown(self) -> None:
        self._pending = None
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _start_next(self) -> None:
        if self._pending is None:
            self._running = False
            return
        generation, project = self._pending
        self._pending = None
        self._running = True
        self._executor.submit(self._run, generation, project)

    def _run(self, generation: int, project: Project) -> None:
        started = time.perf_counter()
        try:
            result: Any = self._analyse(project)
        except Exception as err:  # reported on the UI thread, never raised in the worker
            result = err
        self._done_in_thread(generation, result, time.perf_counter() - started)

    def _done_in_thread(self, generation: int, result: Any, seconds: float) -> None:
        # emitted from the worker thread; this object lives on the UI thread, so delivery is queued
        self.finished.emit(generation, result, seconds)

    def _after_result(self, _generation: int, _result: Any, _seconds: float) -> None:
        self._start_next()


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
        scene.selectionChanged.connect(self._selection_changed)
        recommendations.subject_activated.connect(self.reveal)
        recommendations.counts_changed.connect(self._counts)
        if open_rule is not None:
            recommendations.rule_requested.connect(open_rule)
        if getattr(analysis, "latest", None) is not None:
            self.show_analysis(analysis.latest)

    def show_analysis(self, analysis: Analysis) -> None:
        self.last_analysis = analysis
        self.recommendations.set_analysis(analysis)
        self.preview.set_analysis(analysis)
        self._selection_changed()

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
        self.status.setText(sev.summary(counts))
        worst = next((s for s in sev.ORDER if counts.get(s)), None)
        color = sev.COLORS[worst] if worst in ("error", "warning") else ""
        self.status.setStyleSheet(f"color: {color}; font-weight: 600;" if color else "")
        self.status.setToolTip("Open findings of the recommendation engine (View → Recommendations)")

    def _failed(self, message: str) -> None:
        if self.status is not None:
            self.status.setText(message)


def status_label(parent: QWidget | None = None) -> QLabel:
    """The status-bar label showing the findings counts."""
    label = QLabel("no analysis yet", parent)
    label.setObjectName("FindingsStatus")
    return label
