"""What 10,000 cards do not each hold: tooltip text (the scene makes it when the pointer rests on an item)
and their own copy of a field line that other cards show too."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from benchmarks.generate import generate_project
from modeller.ui.commands.entity import rename_entity_command
from modeller.ui.main_window import MainWindow

from .conftest import sample
from .test_analysis_badge import fake_engine


def _hover_tip(window: MainWindow, scene_point: QPointF) -> str:
    """Send the tooltip request a resting pointer makes at ``scene_point``; the text shown ("" if none)."""
    viewport = window.view.viewport()
    pos = window.view.mapFromScene(scene_point)
    event = QHelpEvent(QEvent.Type.ToolTip, pos, viewport.mapToGlobal(pos))
    QApplication.sendEvent(viewport, event)
    return QToolTip.text() if event.isAccepted() and QToolTip.isVisible() else ""


def test_card_and_line_tooltips_are_made_from_the_model(make_window, qtbot) -> None:
    window: MainWindow = make_window(analyse=fake_engine("parent-ref"))
    window.show()
    assert window.open_path(sample("task-tracker"), ask=False)
    with qtbot.waitSignal(window.analysis.analysed, timeout=2000):
        pass
    rel = window.document.project.relationships[0]
    one = window.document.entity(rel.one)
    assert one is not None
    card = window.scene.entity_items[one.id]
    window.view.centerOn(card)
    tip = _hover_tip(window, card.mapToScene(card.title_rect().center()))
    assert tip.startswith(one.name) and "F2 renames" in tip

    # renamed: the next tooltip says the new name (nothing stale is kept on the card)
    command = rename_entity_command(window.document, one.id, "Renamed Owner")
    assert command is not None
    window.document.push(command)
    assert _hover_tip(window, card.mapToScene(card.title_rect().center())).startswith("Renamed Owner")

    line = window.scene.relationship_items[rel.id]
    badge = line._badge_rect().center()
    window.view.centerOn(badge)
    tip = _hover_tip(window, badge)
    assert "Renamed Owner →" in tip and "strategy: auto → parent-ref" in tip and "because" in tip

    # empty canvas: no tooltip at all
    far = window.scene.content_rect().bottomRight() + QPointF(400, 400)
    window.view.centerOn(far)
    assert _hover_tip(window, far) == ""


def test_cards_showing_the_same_field_line_share_it(make_window) -> None:
    window: MainWindow = make_window()
    window.document.reset(generate_project(60, 1.5, 0.5, seed=3))  # field names repeat across entities
    cards = list(window.scene.entity_items.values())
    lines: dict[tuple[object, ...], object] = {}
    shared = 0
    for card in cards:
        for row in card._rows:
            key = (row.level, row.name, row.type_text, row.required, row.unique, row.kind)
            if key in lines:
                assert lines[key] is row  # equal line, same object
                shared += 1
            lines.setdefault(key, row)
    assert shared > 60  # at least the "created" line every generated entity starts with
