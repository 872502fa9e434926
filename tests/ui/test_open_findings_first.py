"""Issue 16: an open's findings come before the cards out of sight, and a card scrolled to is built at once.

On a generated 2,000-entity project opened from its file: the cards in sight are built, then the findings
arrive, and only then are the other cards built (they wait for the analysis: both share one interpreter).
While they wait, a part of the diagram scrolled into sight is built at once. Order of events, not time.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from modeller.model import Project
from modeller.persistence import save_project
from modeller.ui.analysis import engine_analyse
from modeller.ui.canvas.items.relationship_item import RelationshipItem

from .big_model import ENTITIES, big_project

pytestmark = pytest.mark.slow


@pytest.fixture
def big_file(tmp_path: Path) -> Path:
    path = tmp_path / "big.modeller.json"
    save_project(big_project(), path)
    return path


def test_the_findings_arrive_before_the_cards_out_of_sight_are_built(make_window, qtbot, big_file) -> None:
    window = make_window(analyse=engine_analyse())
    window.resize(1600, 1000)
    window.show()
    scene = window.scene
    events: list[tuple[str, int]] = []  # each step, with the number of cards in the scene then
    scene.in_view_built.connect(lambda: events.append(("in view", len(scene.entity_items))))
    window.analysis.analysed.connect(lambda _a: events.append(("findings", len(scene.entity_items))))
    scene.built.connect(lambda: events.append(("built", len(scene.entity_items))))
    checked: list[bool] = []
    window.open_finished.connect(lambda ok: (checked.append(ok), events.append(("checked", len(scene.entity_items)))))

    assert window.open_path(big_file, ask=False)
    qtbot.waitUntil(lambda: bool(checked) and not scene.building, timeout=180_000)

    assert checked == [True]
    steps = [step for step, _cards in events]
    # (a view moved later, by a resize or the status bar, reports its cards in sight again: "in view" may repeat)
    assert steps[0] == "in view" and steps.index("findings") < steps.index("built"), events
    assert steps.count("findings") == steps.count("built") == steps.count("checked") == 1, events
    in_view_cards, findings_cards = events[0][1], events[steps.index("findings")][1]
    # the findings found only the cards in sight (and the ends of their lines) built: the rest came after
    assert 0 < in_view_cards == findings_cards < ENTITIES // 2, events
    assert events[-1][1] == ENTITIES
    assert len(scene.relationship_items) == len(big_project().relationships)
    assert all(item.scene() is scene for item in scene.relationship_items.values())
    assert window.recommendations.visible_findings()


def test_a_card_scrolled_to_while_the_findings_are_awaited_is_built_at_once(make_window, qtbot) -> None:
    release = threading.Event()
    real = engine_analyse()

    def held_back(project: Project):
        assert release.wait(60), "the test never released the analysis"
        return real(project)

    window = make_window(analyse=held_back)
    window.resize(1600, 1000)
    window.show()
    scene, view = window.scene, window.view
    window.document.reset(big_project())
    view.fit_on_open()  # the top-left corner, at a readable zoom
    qtbot.waitUntil(lambda: scene.in_view_done and window.analysis.background, timeout=60_000)
    qtbot.wait(50)  # turns of the event loop: the cards out of sight wait for the findings
    built_before = set(scene.entity_items)
    assert scene.building and len(built_before) < ENTITIES // 2
    layout = window.document.project.layout
    far = next(e.id for e in reversed(big_project().entities) if e.id not in built_before)

    view.centerOn(layout[far].x, layout[far].y)  # scrolled there (as a drag of the scroll bars or the overview)
    qtbot.waitUntil(lambda: scene.in_view_done, timeout=30_000)

    # built at once, with its lines, while the analysis still runs and the others still wait
    assert far in scene.entity_items and scene.entity_items[far].scene() is scene
    assert window.analysis.background and scene.building and len(scene.entity_items) < ENTITIES
    touching = [r.id for r in big_project().relationships if far in (r.one, r.many)]
    assert touching and all(scene.relationship_items[key].scene() is scene for key in touching)
    assert all(scene.relationship_items[key].isVisible() for key in touching)
    sight = view.mapToScene(view.viewport().rect()).boundingRect()
    in_sight = [e.id for e in big_project().entities if sight.contains(layout[e.id].x, layout[e.id].y)]
    assert all(key in scene.entity_items for key in in_sight)

    release.set()
    qtbot.waitUntil(lambda: not scene.building, timeout=120_000)
    assert len(scene.entity_items) == ENTITIES
    assert len(scene.relationship_items) == len(big_project().relationships)
    # each line was made once (a line built twice would leave its first item in the scene), and is shown
    lines = [item for item in scene.items() if isinstance(item, RelationshipItem)]
    assert len(lines) == len(big_project().relationships)
    assert all(item.isVisible() for item in lines)
