"""Help → Rule reference: every registered rule, documented, searchable."""

from __future__ import annotations

from modeller.rules.framework.registry import REGISTRY
from modeller.ui.dialogs.rule_reference import all_rule_docs, rule_html

from .live_helpers import open_sample


def test_every_rule_is_listed_with_its_documentation(make_window) -> None:
    window = open_sample(make_window, "blog")
    window.rule_reference_action.trigger()
    dialog = window.rule_reference
    assert dialog.isVisible() and not dialog.isModal()
    ids = REGISTRY.ids()
    assert len(ids) >= 20
    assert dialog.visible_ids() == ids
    assert dialog.count.text() == f"{len(ids)} of {len(ids)} rules"
    for doc in all_rule_docs():
        assert doc.summary, doc.id
        page = rule_html(doc)
        assert doc.id in page and "<h3>Why</h3>" in page, doc.id
    dialog.close()


def test_search_filters_and_show_rule_selects(make_window) -> None:
    window = open_sample(make_window, "blog")
    dialog = window.show_rule_reference("parent-ref-one-to-squillions")
    assert dialog.list.currentItem().text().endswith("parent-ref-one-to-squillions")
    assert "squillions" in dialog.page.toPlainText().lower()
    dialog.search.setText("squillions")
    visible = dialog.visible_ids()
    assert "parent-ref-one-to-squillions" in visible
    assert 0 < len(visible) < len(REGISTRY)
    dialog.search.setText("esr index")
    assert "esr-compound-index" in dialog.visible_ids()
    dialog.search.setText("no-such-words-anywhere")
    assert dialog.visible_ids() == []
    assert "No rule matches" in dialog.page.toPlainText()
    assert not dialog.show_rule("not-a-rule")
    assert dialog.show_rule("esr-compound-index")  # clears the search to reveal it
    assert dialog.search.text() == ""
    dialog.close()
