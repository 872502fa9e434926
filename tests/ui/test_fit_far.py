"""Fit to Window on a diagram wider than 20 windows (tryout a15 item 5: at 10,000 entities the fit stopped at
5 % and silently showed part of it): it zooms out as far as the diagram needs, below the smallest wheel zoom."""

from __future__ import annotations

from modeller.model import Position
from modeller.ui.canvas.view import MIN_ZOOM
from modeller.ui.main_window import MainWindow

from .conftest import sample


def spread(window: MainWindow, distance: float) -> tuple[str, str]:
    """Open the blog sample with its first and last cards ``distance`` apart (the others at the origin)."""
    assert window.open_path(sample("blog"), ask=False)
    project = window.document.project
    first, last = project.entities[0].id, project.entities[-1].id
    layout = {e.id: Position(x=0, y=0) for e in project.entities} | {last: Position(x=distance, y=distance / 2)}
    window.document.reset(project.model_copy(update={"layout": layout}))
    window.scene.finish_build()
    return first, last


def in_sight(window: MainWindow, entity_id: str) -> bool:
    sight = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    return sight.contains(window.scene.entity_items[entity_id].sceneBoundingRect())


def test_fit_shows_a_diagram_that_needs_less_than_five_percent(window: MainWindow) -> None:
    first, last = spread(window, 40_000)  # about 2.5 % in a 1,300-pixel-wide window
    window.fit_action.trigger()
    assert MIN_ZOOM < window.view.zoom() < 0.05
    assert in_sight(window, first) and in_sight(window, last)
    assert window.zoom_label.text() == f"{round(window.view.zoom() * 100)} %"
