"""The tryout's contradictions: the details said "Nothing to do" while the header counted a to-do (the text of an
earlier analysis stayed), and Apply was offered on a decision the design already takes (as if something were left to do): such a finding
offers "Pin in the model" instead, which writes the engine's choice into the model."""

from __future__ import annotations

from modeller.rules.engine import analyse
from modeller.ui.main_window import MainWindow

from .test_advice_sections import open_with_to_dos


def test_the_details_follow_each_new_analysis_and_never_contradict_the_header(make_window, tmp_path) -> None:
    window: MainWindow = open_with_to_dos(make_window, tmp_path)
    panel = window.recommendations
    project = window.document.project
    panel.set_analysis(analyse(project.model_copy(update={"relationships": (), "queries": ()})))
    assert panel.header.text().startswith("Nothing to do · ")
    assert "Nothing to do: your design follows every recommendation." in panel.details.toPlainText()
    panel.set_analysis(analyse(project))  # the to-dos come back; no finding is chosen
    assert panel.header.text().startswith("To do: ")
    assert panel._current is None and "Nothing to do" not in panel.details.toPlainText()
    # a filter that hides every to-do says that they are elsewhere, not that there is nothing to do
    panel.severity_box.setCurrentIndex(2)  # errors only: the forced design has warnings and suggestions
    assert panel.visible_findings("todo") == []
    text = panel.details.toPlainText()
    assert "Nothing to do here: 5 to-dos of the design concern other parts or severities" in text
    assert "your design follows every recommendation" not in text
    panel.severity_box.setCurrentIndex(0)
    assert "Nothing to do" not in panel.details.toPlainText()


def test_a_decision_the_design_already_takes_is_pinned_not_applied(make_window) -> None:
    from .live_helpers import open_sample, shown

    window = open_sample(make_window, "task-tracker")
    panel = window.recommendations
    decided = [f for f in shown(window) if f.decided and f.fix is not None and f.fix.changes]
    assert decided, "the sample should hold a decision with a fix"
    panel.select_finding(decided[0])
    assert panel.apply_button.isEnabled() and panel.apply_button.text() == "Pin in the model"
    assert panel.apply_button.toolTip().startswith("The design already does this; pinning writes it into the model (")


def test_apply_stays_on_for_a_to_do_with_a_fix(make_window, tmp_path) -> None:
    window = open_with_to_dos(make_window, tmp_path)
    panel = window.recommendations
    todo = [f for f in panel.analysis.findings if not f.decided and f.fix is not None and f.fix.changes]
    assert todo
    panel.select_finding(todo[0])
    assert panel.apply_button.isEnabled() and panel.apply_button.text() == "Apply"


def test_a_row_names_its_query_or_relationship_once(make_window, tmp_path) -> None:
    window = open_with_to_dos(make_window, tmp_path)
    panel = window.recommendations
    lookup = next(f for f in panel.analysis.findings if f.rule == "excessive-lookup" and f.subject.id == "tasks_due")
    row = panel.model.text(lookup)
    name = window.document.query("tasks_due").name
    assert row.startswith(f"query {name!r} still needs") and row.count(name) == 1
    strategy = next(
        f for f in panel.analysis.findings if f.subject.kind == "relationship" and f.rule == "many-to-many-refs"
    )
    row = panel.model.text(strategy)
    assert row.startswith("Person → Task is stored as child-refs") and row.count("Person → Task") == 1
