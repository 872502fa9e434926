"""The Recommendations panel's text filter: words of an entity, field or rule, next to the severity filter
(tryout a15 item 5: 39,000 findings at 10,000 entities had only a severity filter). It filters the rows the
model has; it never rebuilds the list."""

from __future__ import annotations

from collections import Counter

from PySide6.QtTest import QTest

from modeller.ui.commands.entity import rename_entity_command
from modeller.ui.main_window import MainWindow
from modeller.ui.panels.finding_item import Selection
from modeller.ui.panels.findings_order import sort_key

from .big_model import generate_project


def analysed(make_window) -> MainWindow:
    """A generated project of 80 entities: to-dos and decisions of many rules."""
    window = make_window(use_engine=True)
    window.document.reset(generate_project(80, 1.5, 0.5, seed=0))
    window.scene.finish_build()
    window.analysis.run_now()
    assert window.recommendations.counts()
    return window


def typed(window: MainWindow, text: str) -> None:
    box = window.recommendations.filter_box
    box.clear()
    QTest.keyClicks(box, text)
    window.recommendations._filter_timer.timeout.emit()  # what the pause after the last key does


def holding(window: MainWindow, findings, words: list[str]):
    """The findings whose row text or rule holds every word (any case), worked out apart from the filter."""
    model = window.recommendations.model
    return [
        f
        for f in findings
        if all(w.lower() in f"{model.text(f)} {f.rule} {f.rule.replace('-', ' ')}".lower() for w in words)
    ]


def test_words_of_a_rule_or_an_entity_keep_the_findings_holding_them(make_window) -> None:
    window = analysed(make_window)
    panel = window.recommendations
    findings = panel.analysis.findings
    rule = Counter(f.rule for f in findings).most_common(2)[-1][0]  # a rule with some findings, not all
    words = rule.split("-")[:2]
    typed(window, " ".join(w.upper() for w in words))  # any case; words apart match the rule's dashed name
    shown = panel.visible_findings()
    expected = holding(window, findings, words)
    assert shown and len(shown) < len(findings)
    assert sorted(map(sort_key, shown)) == sorted(map(sort_key, expected))
    assert panel.header.text().startswith(
        f"{len(shown)} of {len(findings)} findings match “{' '.join(w.upper() for w in words)}” · To do:"
    ) and panel.header.text().endswith(panel.summary_text())
    # an entity's name: its findings and those naming it
    entity = window.document.project.entities[0]
    typed(window, entity.name.lower())
    shown = panel.visible_findings()
    assert sorted(map(sort_key, shown)) == sorted(map(sort_key, holding(window, findings, entity.name.split())))
    assert shown
    # cleared: everything again, the header as before
    typed(window, "")
    assert len(panel.visible_findings()) == len(findings)
    assert panel.header.text() == panel.summary_text()


def test_the_words_and_the_selection_filter_together_and_follow_an_edit(make_window) -> None:
    window = analysed(make_window)
    panel = window.recommendations
    entity = window.document.project.entities[1]
    window.scene.select_only([entity.id])
    about = [
        f
        for f in panel.analysis.findings
        if Selection([("entity", entity.id)]).concerns(f, panel.model.ids, panel.model.design)
    ]
    word = about[0].rule.split("-")[0]
    typed(window, word)
    expected = holding(window, about, [word])
    assert sorted(map(sort_key, panel.visible_findings())) == sorted(map(sort_key, expected)) and expected
    assert f"concern the selection and match “{word}”" in panel.header.text() or (
        f"concerns the selection and matches “{word}”" in panel.header.text()
    )
    # a rename re-words the rows: the filter and its count follow the new analysis
    window.document.push(rename_entity_command(window.document, entity.id, "Quokka"))
    window.analysis.run_now()
    typed(window, "quokka")
    findings = panel.analysis.findings
    about = [f for f in findings if Selection([("entity", entity.id)]).concerns(f, panel.model.ids, panel.model.design)]
    shown = panel.visible_findings()
    assert sorted(map(sort_key, shown)) == sorted(map(sort_key, holding(window, about, ["quokka"])))
    assert shown and panel.header.text().startswith(f"{len(shown)} of ")


def test_words_nothing_holds_say_so_and_the_model_is_never_rebuilt(make_window) -> None:
    window = analysed(make_window)
    panel = window.recommendations
    resets: list[int] = []
    panel.model.modelReset.connect(lambda: resets.append(1))
    rows = panel.model.rowCount()
    typed(window, "no finding says this")
    assert panel.visible_findings() == []
    assert "no to-do listed matches “no finding says this”" in panel.details.toPlainText()
    assert resets == [] and panel.model.rowCount() == rows  # the proxy hides rows; the model keeps them


def test_the_selections_findings_follow_edits_through_the_index(make_window) -> None:
    """The index of the findings by subject is carried over with each analysis' changes: after edits that add
    and remove findings the list still shows exactly the findings about the selected card."""
    from modeller.ui.commands import EditRelationshipCommand

    window = analysed(make_window)
    panel = window.recommendations
    project = window.document.project
    rel = next(r for r in project.relationships if r.cardinality != "one-to-squillions" and r.one != r.many)
    window.scene.select_only([rel.one])
    assert panel.visible_findings()
    index = panel.proxy._index
    before = {id(f) for f in panel.analysis.findings}
    edited = rel.model_copy(
        update={"cardinality": "one-to-squillions", "max": None, "typical": None, "strategy": "embed"}
    )
    window.document.push(EditRelationshipCommand(window.document, edited))
    window.analysis.run_now()
    findings = panel.analysis.findings
    assert {id(f) for f in findings} != before, "the edit must change the findings, or this test proves nothing"
    about = [f for f in findings if Selection([("entity", rel.one)]).concerns(f, panel.model.ids, panel.model.design)]
    shown = panel.visible_findings()
    assert sorted(map(sort_key, shown)) == sorted(map(sort_key, about)) and shown
    assert panel.proxy._index is index  # updated with the changes, not filed anew
    assert panel.header.text().startswith(f"{len(shown)} of ")
    window.document.undo_stack.undo()
    window.analysis.run_now()
    findings = panel.analysis.findings
    about = [f for f in findings if Selection([("entity", rel.one)]).concerns(f, panel.model.ids, panel.model.design)]
    assert sorted(map(sort_key, panel.visible_findings())) == sorted(map(sort_key, about))
