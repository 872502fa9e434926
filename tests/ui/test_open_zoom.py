"""Zoom on open: the model fits the window, but never below 90 % (text stays readable); the user may zoom out."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect

from modeller.ui.canvas.view import OPEN_ZOOM_FLOOR

from .conftest import SAMPLES


def _window(make_window, qtbot, width: int, height: int):
    window = make_window()
    window.resize(width, height)
    window.show()
    qtbot.waitExposed(window)
    return window


def _cards_in_view(window) -> dict[str, bool]:
    view = window.view
    port = QRect(view.viewport().rect())
    return {
        key: port.contains(view.mapFromScene(item.sceneBoundingRect()).boundingRect())
        for key, item in window.scene.entity_items.items()
    }


def test_the_ecommerce_sample_opens_at_no_less_than_90_percent(make_window, qtbot) -> None:
    window = _window(make_window, qtbot, 1280, 800)
    assert window.open_path(SAMPLES / "ecommerce.modeller.json", ask=False)
    view = window.view
    assert view.zoom() == pytest.approx(OPEN_ZOOM_FLOOR)
    assert window.zoom_label.text() == "90 %"
    # the card nearest the top-left corner (where the layout starts) is shown whole
    cards = window.scene.entity_items
    first = min(cards, key=lambda key: (cards[key].sceneBoundingRect().top(), cards[key].sceneBoundingRect().left()))
    assert _cards_in_view(window)[first]
    # Fit to Window, asked for, still shows everything: at this size that is below the floor
    view.fit_to_window()
    assert view.zoom() < OPEN_ZOOM_FLOOR
    assert all(_cards_in_view(window).values())
    # the floor is for opening only: the user zooms out below it
    window.open_path(SAMPLES / "ecommerce.modeller.json", ask=False)
    view.zoom_out()
    assert view.zoom() == pytest.approx(OPEN_ZOOM_FLOOR / 1.25)


def test_a_model_that_fits_at_90_percent_opens_whole(make_window, qtbot) -> None:
    window = _window(make_window, qtbot, 1600, 1000)
    assert window.open_path(SAMPLES / "person-addresses.modeller.json", ask=False)
    assert window.view.zoom() >= OPEN_ZOOM_FLOOR
    assert all(_cards_in_view(window).values())


def test_an_open_that_shows_part_of_the_model_says_how_to_see_it_all(make_window, qtbot) -> None:
    """Tryout item 9: at 90 % a card lay cut off at the window's edge, and nothing said the diagram goes on."""
    window = _window(make_window, qtbot, 1280, 800)
    assert window.open_path(SAMPLES / "ecommerce.modeller.json", ask=False)
    assert not all(_cards_in_view(window).values())
    assert window.statusBar().currentMessage() == (
        "Part of the diagram lies outside the view: View ▸ Fit to Window (Ctrl+9) shows all of it"
    )
    window.statusBar().clearMessage()
    small = _window(make_window, qtbot, 1600, 1000)
    assert small.open_path(SAMPLES / "person-addresses.modeller.json", ask=False)
    assert all(_cards_in_view(small).values())
    assert "outside the view" not in small.statusBar().currentMessage()
