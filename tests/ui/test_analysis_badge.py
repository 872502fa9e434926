"""Strategy badges: the user's explicit strategy, or the engine's resolved one for ``auto``."""

from __future__ import annotations

import modeller.rules
from modeller.rules.framework.analysis import Analysis
from modeller.rules.physical.design import Design, RelationshipDesign
from modeller.ui.analysis import engine_analyse
from modeller.ui.commands import EditRelationshipCommand
from modeller.ui.main_window import MainWindow

from .conftest import sample


def fake_engine(strategy: str):
    """An analyse() that resolves every relationship to ``strategy`` (the contract's RelationshipDesign)."""

    def analyse(project):
        rels = [RelationshipDesign(r.id, strategy, "engine", [], [], "because") for r in project.relationships]
        return Analysis(findings=[], design=Design(database="test", collections=[], relationships=rels))

    return analyse


def test_badge_shows_user_choice_or_engine_resolution(make_window, qtbot) -> None:
    window: MainWindow = make_window(analyse=fake_engine("parent-ref"))
    assert window.open_path(sample("task-tracker"), ask=False)
    rel = window.document.project.relationships[0]
    item = window.scene.relationship_items[rel.id]
    with qtbot.waitSignal(window.analysis.analysed, timeout=2000):
        pass  # debounced: runs ~150 ms after the change, not on every keystroke
    assert rel.strategy == "auto"
    assert item.badge_text() == "auto → parent-ref"
    assert "because" in item.toolTip()
    window.scene.select_only(rel_ids=[rel.id])
    assert window.properties.relationship_editor.strategy.combo.itemText(0) == "Auto (engine: parent-ref)"
    window.document.push(EditRelationshipCommand(window.document, rel.model_copy(update={"strategy": "embed"})))
    assert item.badge_text() == "embed"


def test_engine_failure_is_a_status_message(make_window, qtbot) -> None:
    def broken(project):
        raise RuntimeError("boom")

    window: MainWindow = make_window(analyse=broken)
    with qtbot.waitSignal(window.analysis.failed, timeout=2000) as blocker:
        assert window.open_path(sample("blog"), ask=False)
    assert "boom" in blocker.args[0]
    assert all(i.badge_text() == "auto" or "→" not in i.badge_text() for i in window.scene.relationship_items.values())


def test_real_engine_is_used_when_the_rules_package_provides_it(make_window) -> None:
    found = engine_analyse()
    assert (found is not None) == callable(getattr(modeller.rules, "analyse", None))
    window: MainWindow = make_window(use_engine=True)
    assert window.analysis.available == (found is not None)
    assert window.open_path(sample("task-tracker"), ask=False)
    window.analysis.run_now()
    rel = window.document.project.relationships[0]
    badge = window.scene.relationship_items[rel.id].badge_text()
    if found is None:
        assert badge == rel.strategy
    else:
        resolved = next(r for r in window.analysis.latest.design.relationships if r.id == rel.id)
        assert badge == (rel.strategy if rel.strategy != "auto" else f"auto → {resolved.strategy}")
