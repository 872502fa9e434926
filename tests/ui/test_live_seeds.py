"""The seeds' advice appears live in the recommendations panel while the model is edited through the UI."""

from __future__ import annotations

from modeller.ui.commands.relationship import EditRelationshipCommand
from modeller.ui.main_window import MainWindow

from .live_helpers import SETTLE_MS, find, open_sample, rules_about, shown


def _set_cardinality(window: MainWindow, rel_id: str, value: str) -> None:
    """Select the relationship on the canvas and pick the cardinality in the Properties panel."""
    window.scene.select_only([], [rel_id])
    combo = window.properties.relationship_editor.cardinality.combo
    index = combo.findData(value)
    assert index >= 0, value
    combo.setCurrentIndex(index)


def test_task_tracker_shows_two_way_advice_with_atomicity_tradeoff(make_window) -> None:
    window = open_sample(make_window, "task-tracker")
    advice = find(shown(window), "many-to-many-refs", "relationship", "person_tasks")
    assert "two-way" in advice.message
    assert "atomic" in advice.tradeoff.lower() and "transaction" in advice.tradeoff.lower()
    # the details pane shows why, the trade-off and the source when the finding is selected
    window.recommendations.select_finding(advice)
    details = window.recommendations.details.toPlainText()
    assert "Why." in details and "Trade-off." in details and advice.tradeoff[:40] in details
    assert "Zola" in details
    # the canvas badge shows the engine's strategy
    assert window.scene.relationship_items["person_tasks"].badge_text() == "auto → two-way"


def test_person_addresses_squillions_switches_embed_to_parent_ref(make_window, qtbot) -> None:
    window = open_sample(make_window, "person-addresses")
    assert "embed-one-to-few" in rules_about(shown(window), "relationship", "person_addresses")
    _set_cardinality(window, "person_addresses", "one-to-squillions")
    assert window.document.relationship("person_addresses").cardinality == "one-to-squillions"  # type: ignore[union-attr]

    def switched() -> None:
        everything = window.recommendations.analysis.findings  # type: ignore[union-attr]
        rules = rules_about(everything, "relationship", "person_addresses")
        assert "embed-one-to-few" not in rules
        assert "parent-ref-one-to-squillions" in rules

    qtbot.waitUntil(switched, timeout=SETTLE_MS)
    # the canvas badge and the preview follow: Address now has its own collection
    assert window.scene.relationship_items["person_addresses"].badge_text() == "auto → parent-ref"
    design = window.recommendations.analysis.design  # type: ignore[union-attr]
    assert "address" not in design.embedded
    # one undo brings the embed advice back
    window.document.undo_stack.undo()
    qtbot.waitUntil(
        lambda: (
            "embed-one-to-few"
            in rules_about(window.recommendations.analysis.findings, "relationship", "person_addresses")
        ),  # type: ignore[union-attr]
        timeout=SETTLE_MS,
    )


def test_host_logs_squillions_and_product_parts_child_refs(make_window) -> None:
    logs = open_sample(make_window, "host-logs")
    assert {"parent-ref-one-to-squillions", "denorm-into-squillions-immutable"} <= rules_about(
        shown(logs), "relationship", "host_logmsgs"
    )
    parts = open_sample(make_window, "product-parts")
    assert "child-refs-one-to-many" in rules_about(shown(parts), "relationship", "product_parts")


def test_selecting_an_entity_filters_and_clicking_a_finding_reveals_it(make_window, qtbot) -> None:
    window = open_sample(make_window, "ecommerce")
    panel = window.recommendations
    everything = shown(window)
    window.scene.select_only(["review"], [])
    filtered = shown(window)
    assert 0 < len(filtered) < len(everything)
    assert all(
        f.subject.id in ("review", "product_reviews")
        or f.subject.id.startswith("review")
        or f.subject.kind in ("query", "index", "collection")
        for f in filtered
    )
    assert "concern the selection" in panel.header.text()
    window.scene.select_only([], [])
    assert len(shown(window)) == len(everything)
    # clicking a finding selects its subject on the canvas
    finding = find(everything, "index-hot-queries", "query", "products_of_brand")
    item = panel.item_for(finding)
    assert item is not None
    panel.tree.clicked.emit(item)
    assert window.scene.selected_entity_ids() == ["product"]
    # storing reviews as an array of ids in each product is an unbounded array: the status bar
    # counts the warning and the canvas marks the relationship
    reviews = window.document.relationship("product_reviews")
    assert reviews is not None
    window.document.push(
        EditRelationshipCommand(window.document, reviews.model_copy(update={"strategy": "child-refs"}))
    )
    qtbot.waitUntil(lambda: window.findings_label.text().startswith("To do: 1 warning"), timeout=SETTLE_MS)
    assert window.scene.relationship_items["product_reviews"].marker == "warning"
    assert window.scene.entity_items["order_item"].embedded_in == "Order"
