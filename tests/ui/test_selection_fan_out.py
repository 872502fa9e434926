"""Tryout item 1: Select All on a few hundred cards took minutes, since every card joining the selection ran
every panel's selection handler again. A selection change now reaches each listener once per user action."""

from __future__ import annotations

import sys
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.ui.panels.finding_item import Selection
from modeller.ui.panels.findings_model import sort_key

from .helpers import body_point

ENTITIES = 300


@cache
def project() -> Project:
    return generate_project(ENTITIES, 1.5, 0.5, seed=0)


def counted(window, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count the calls of every panel a selection change fans out to (and keep their work)."""
    calls: Counter[str] = Counter()
    for name, owner, attr in (
        ("properties.show_many", window.properties, "show_many"),
        ("properties.show_project", window.properties, "show_project"),
        ("recommendations.set_selection", window.recommendations, "set_selection"),
        ("preview.show_entity", window.preview, "show_entity"),
    ):
        real = getattr(owner, attr)

        def call(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(owner, attr, call)
    return calls


def test_select_all_fans_out_once_to_each_listener(make_window, qtbot, monkeypatch) -> None:
    window = make_window()
    window.document.reset(project())
    window.scene.finish_build()
    qtbot.wait(1)  # the build's own selection noise (none expected) is behind us
    calls = counted(window, monkeypatch)
    window.select_all()
    qtbot.wait(1)  # anything left for the event loop runs too
    entities = len(window.document.project.entities)
    rels = len(window.document.project.relationships)
    assert entities == ENTITIES and rels > ENTITIES
    # each listener once (show_many starts from the project page, hence its one show_project)
    assert calls == Counter(
        {
            "properties.show_many": 1,
            "properties.show_project": 1,
            "recommendations.set_selection": 1,
            "preview.show_entity": 1,
        }
    ), calls
    # and the one call saw the whole selection
    assert len(window.scene.selected_entity_ids()) == entities
    assert len(window.scene.selected_relationship_ids()) == rels
    assert window.properties.multiple.text() == f"{entities + rels} items selected"
    assert len(window.recommendations._selection) == entities + rels


def test_deleting_many_selected_cards_fans_out_once(make_window, qtbot, monkeypatch) -> None:
    window = make_window()
    window.document.reset(project())
    window.scene.finish_build()
    window.select_all()
    calls = counted(window, monkeypatch)
    window.delete_selection()  # every removed card leaves the selection: Qt signals each one
    qtbot.waitUntil(lambda: calls["recommendations.set_selection"] > 0)
    qtbot.wait(1)
    assert not window.document.project.entities
    assert calls == Counter({"properties.show_project": 1, "recommendations.set_selection": 1}), calls
    assert window.recommendations._selection == []


def test_a_click_asks_each_finding_once_whether_it_concerns_the_card(make_window, qtbot, monkeypatch) -> None:
    """Tryout item 7: a click on a card filtered every finding several times over (rows, section headers,
    the header's count twice), 2.5 s at 10,000 entities."""
    window = make_window(use_engine=True)
    window.document.reset(project())
    window.scene.finish_build()
    window.analysis.run_now()
    qtbot.waitUntil(lambda: window.recommendations.analysis is not None)
    panel = window.recommendations
    findings = panel.analysis.findings
    asked: Counter[int] = Counter()
    refills: Counter[str] = Counter()
    real_concerns = Selection.concerns
    real_set_filter = panel.proxy.set_filter

    def concerns(self, finding, *args):
        asked[id(finding)] += 1
        return real_concerns(self, finding, *args)

    def set_filter(*args) -> None:
        refills["filter"] += 1
        real_set_filter(*args)

    monkeypatch.setattr(Selection, "concerns", concerns)
    monkeypatch.setattr(panel.proxy, "set_filter", set_filter)

    def clickable(entity_id: str) -> bool:  # no other card lies over the point the click goes to
        point = window.view.mapToScene(body_point(window, entity_id))
        return window.scene.entity_item_at(point) is window.scene.entity_items[entity_id]

    ranked = sorted(window.document.project.entities, key=lambda e: -len(window.document.relationships_of(e.id)))
    busy = next(e.id for e in ranked if clickable(e.id))
    window.view.centerOn(window.scene.entity_items[busy])
    QTest.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton, pos=body_point(window, busy))
    assert window.scene.selected_entity_ids() == [busy]
    panel.tree.viewport().repaint()  # the list sizes and paints its rows (and section headers) now
    assert refills["filter"] == 1  # the panel refills once per click
    assert asked and max(asked.values()) == 1, asked.most_common(3)
    assert len(asked) <= len(findings)
    # and the panel lists exactly the findings about the card, its lines and what it holds
    shown = panel.visible_findings()
    expected = [f for f in findings if Selection([("entity", busy)]).concerns(f, panel.model.ids, panel.model.design)]
    assert shown and sorted(map(sort_key, shown)) == sorted(map(sort_key, expected))
    verb = "concerns" if len(shown) == 1 else "concern"
    assert panel.header.text().startswith(f"{len(shown)} of {len(findings):,} findings {verb} the selection")
