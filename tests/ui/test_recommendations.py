"""Acting on advice from the panel: Apply is one undo entry; Override is saved and stays visible, marked."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl

from modeller.persistence import load_project
from modeller.ui.panels.finding_item import detail_html, reference_html, subject_label

from .live_helpers import SETTLE_MS, find, open_sample, shown


def test_apply_adds_the_index_and_one_undo_restores(make_window, qtbot) -> None:
    window = open_sample(make_window, "ecommerce")
    panel = window.recommendations
    before = window.document.project.model_copy(deep=True)
    finding = find(shown(window), "index-hot-queries", "query", "products_of_brand")
    panel.select_finding(finding)
    assert panel.apply_button.isEnabled()
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    product = window.document.entity("product")
    assert product is not None and [list(k) for k in product.indexes[-1].keys] == [["brand", 1]]
    assert window.document.undo_stack.count() == 1
    assert window.document.undo_stack.undoText().startswith("Apply: ")
    # the finding disappears from the panel after the re-analysis
    qtbot.waitUntil(lambda: not any(f.rule == "index-hot-queries" for f in panel.analysis.findings), timeout=SETTLE_MS)
    # (one finding per decision: the ESR index of active_orders_of_user is the reference rule's finding)
    # the status bar says what the panel's header says (not raw severities that call decisions "suggestions")
    assert window.findings_label.text() == panel.summary_text() == panel.header.text()
    assert window.findings_label.text().startswith("Nothing to do · ")
    window.document.undo_stack.undo()
    assert window.document.project == before


def test_apply_strategy_fix_on_a_relationship(make_window, qtbot) -> None:
    window = open_sample(make_window, "person-addresses")
    panel = window.recommendations
    finding = find(shown(window), "embed-one-to-few", "relationship", "person_addresses")
    panel.select_finding(finding)
    panel.apply_current()
    assert window.document.relationship("person_addresses").strategy == "embed"  # type: ignore[union-attr]
    qtbot.waitUntil(
        lambda: window.scene.relationship_items["person_addresses"].badge_text() == "embed", timeout=SETTLE_MS
    )
    window.document.undo_stack.undo()
    assert window.document.relationship("person_addresses").strategy == "auto"  # type: ignore[union-attr]


def test_override_is_marked_saved_and_survives_save_open(make_window, qtbot, tmp_path: Path) -> None:
    window = open_sample(make_window, "task-tracker")
    panel = window.recommendations
    asked: list[str] = []

    def answer(_parent: object, finding: object, current: str) -> str:
        asked.append(current)
        return "Reassignments are rare here; <b>two</b> writes are fine"

    panel.ask_note = answer
    finding = find(shown(window), "many-to-many-refs", "relationship", "person_tasks")
    open_before = panel.counts().get("suggestion", 0)
    panel.select_finding(finding)
    qtbot.mouseClick(panel.override_button, Qt.MouseButton.LeftButton)
    assert asked == [""]

    def marked() -> None:
        again = find(panel.analysis.findings, "many-to-many-refs", "relationship", "person_tasks")
        assert again.overridden and again.note and again.note.startswith("Reassignments are rare")

    qtbot.waitUntil(marked, timeout=SETTLE_MS)
    # still listed, marked, not counted as open
    item = panel.item_for(finding)
    assert item is not None and item.data().startswith("[overridden]")
    assert panel.counts().get("suggestion", 0) == open_before - 1
    panel.select_finding(finding)
    assert "Overridden:" in panel.details.toPlainText()
    assert panel.override_button.text() == "Remove override"

    path = tmp_path / "tracker.modeller.json"
    assert window.save_to(path)
    reopened = load_project(path)
    assert [(o.rule, o.subject.id) for o in reopened.overrides] == [("many-to-many-refs", "person_tasks")]
    assert reopened.relationships[0].decision is not None
    assert reopened.relationships[0].decision.note.startswith("Reassignments are rare")
    other = open_sample(make_window, "person-addresses")
    assert other.open_path(path, ask=False)
    other.analysis.run_now()
    assert find(other.recommendations.visible_findings(), "many-to-many-refs").overridden
    # Remove override: the advice counts again, one more undo entry
    panel.select_finding(finding)
    panel.override_current()
    qtbot.waitUntil(lambda: not find(panel.analysis.findings, "many-to-many-refs").overridden, timeout=SETTLE_MS)


def test_details_escape_hostile_text_and_link_sources(make_window) -> None:
    window = open_sample(make_window, "task-tracker")
    finding = find(shown(window), "many-to-many-refs")
    page = detail_html(finding, window.document.project)
    assert "href='rule:many-to-many-refs'" in page
    assert '<a href="https://www.mongodb.com/blog/post/6-rules-of-thumb' in page
    html = reference_html('[X] <script>alert("x")</script> <https://e.org/"onmouseover=1>; plain https://a.b/c?d=1&e=2')
    assert "<script>" not in html and "&amp;e=2" in html
    assert subject_label(window.document.project, finding.subject) == "Person → Task"


def test_reference_link_opens_the_rule_documentation(make_window, qtbot) -> None:
    window = open_sample(make_window, "task-tracker")
    panel = window.recommendations
    panel.select_finding(find(shown(window), "many-to-many-refs"))
    panel.details.anchorClicked.emit(QUrl("rule:many-to-many-refs"))
    dialog = window.rule_reference
    assert dialog.isVisible()
    assert dialog.list.currentItem().text().endswith("many-to-many-refs")
    assert "many-to-many-refs" in dialog.page.toPlainText()
    dialog.close()
