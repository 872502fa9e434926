"""Issue 16: on a large canvas the preview's background sample starts once every card is drawn (a sample
thread competing for the interpreter with the card slices lengthened the open's UI gaps by 64-106 ms)."""

from __future__ import annotations

import pytest

from modeller.ui.canvas import scene as scene_module
from modeller.ui.panels import preview as preview_module
from modeller.ui.panels.preview import preview_sample, relaxed_json

from .big_model import generate_project


def test_a_sample_asked_for_while_cards_are_built_starts_after_them(
    make_window, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scene_module, "SYNC_BUILD_MAX", 0)  # every canvas is built in slices
    monkeypatch.setattr(preview_module, "SAMPLE_IN_BACKGROUND_ENTITIES", 0)  # every sample in the background
    window = make_window(use_engine=True)
    project = generate_project(60, 1.5, 0.5, seed=0)
    window.document.reset(project)
    assert window.scene.building, "the canvas must still be building, or this test proves nothing"
    window.analysis.run_now()
    started: list[object] = []
    monkeypatch.setattr(
        window.preview._sampler, "submit", lambda *a, _s=window.preview._sampler.submit: started.append(a) or _s(*a)
    )
    entity = project.entities[0].id
    window.show_in_preview(entity)
    window.preview.show_tab("Document")
    preview = window.preview
    assert window.scene.building and preview.sampling and not started  # held, not started
    assert preview.sample_view.toPlainText() == "// a sample is generated once every card is drawn…"

    window.scene.finish_build()  # the last card: the held sample starts
    assert len(started) == 1
    qtbot.waitUntil(lambda: not preview.sampling, timeout=60_000)
    name = preview.collection_box.currentText()
    assert preview.sample_view.toPlainText() == relaxed_json(
        preview_sample(window.analysis.latest.design, window.document.project, name)
    )


def test_a_sample_asked_for_with_every_card_drawn_starts_at_once(
    make_window, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preview_module, "SAMPLE_IN_BACKGROUND_ENTITIES", 0)
    window = make_window(use_engine=True)
    project = generate_project(30, 1.5, 0.5, seed=1)
    window.document.reset(project)
    window.scene.finish_build()
    window.analysis.run_now()
    window.show_in_preview(project.entities[0].id)
    window.preview.show_tab("Document")
    qtbot.waitUntil(lambda: not window.preview.sampling, timeout=60_000)
    assert window.preview.sample_view.toPlainText().startswith("{")
