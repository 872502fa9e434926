"""Counts in the window say "1 entity", "2 entities": the status bar and the advice header."""

from __future__ import annotations

from modeller.ui.panels.severity import summary

from .live_helpers import open_sample


def test_status_bar_counts_in_the_singular_and_the_plural(make_window) -> None:
    window = open_sample(make_window, "ecommerce")
    assert window.counts_label.text() == "5 entities · 4 relationships · 5 queries"
    window.document.reset(
        window.document.project.model_copy(update={"entities": (), "relationships": (), "queries": ()})
    )
    window.view.add_template("entity")
    assert window.counts_label.text() == "1 entity · 0 relationships · 0 queries"


def test_advice_header_counts() -> None:
    assert summary({"error": 1, "warning": 2, "suggestion": 1234}) == "1 error · 2 warnings · 1,234 suggestions"
    assert summary({"info": 1}) == "1 note"
    assert summary({}) == "no findings"
