"""Issue 16: the progressive build's look for the cards in sight is made of short steps (at 10,000 entities the
renumbering, the pass over every entity's place and the pass over every line held the UI thread 60-90 ms in one
step); in steps it finds the same cards, and builds them first."""

from __future__ import annotations

import pytest

from modeller.ui.canvas import scene as scene_module

from .big_model import generate_project


def test_the_cards_in_sight_are_found_in_steps_and_built_first(make_window, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scene_module, "SYNC_BUILD_MAX", 0)  # every canvas is built in slices
    window = make_window()
    project = generate_project(120, 1.5, 0.5, seed=2)
    window.document.reset(project)
    scene = window.scene
    window.view.resetTransform()
    window.view.centerOn(0, 0)  # the top-left corner: some cards in sight, not all

    monkeypatch.setattr(scene_module, "NEAR_VIEW_STEP", len(project.entities))
    whole = scene._near_view_steps(project)
    with pytest.raises(StopIteration) as one_pass:
        next(whole)  # one step: no yield
    near = one_pass.value.value
    assert near and len(near) < len(project.entities), "some cards, not all, must be in sight"

    monkeypatch.setattr(scene_module, "NEAR_VIEW_STEP", 7)
    stepped = scene._near_view_steps(project)
    steps = 0
    with pytest.raises(StopIteration) as end:
        while True:
            next(stepped)
            steps += 1
    assert end.value.value == near
    assert steps == -(-len(project.entities) // 7) - 1  # a step per 7 entities

    scene.rebuild()  # in slices: the steps above, then the cards in sight, then the others
    assert scene.building
    while not scene.in_view_done:
        next(scene._build_steps)
    assert near <= set(scene.entity_items) and len(scene.entity_items) < len(project.entities)
    scene.finish_build()
    assert set(scene.entity_items) == {e.id for e in project.entities}
