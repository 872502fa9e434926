"""The details pane says the message, then only what the why adds (tryout a14 item 11: "the same text twice")."""

from __future__ import annotations

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules.framework.findings import Finding, SubjectRef
from modeller.ui.panels.finding_item import detail_html, why_beyond

MESSAGE = (
    "parent-ref — the number of Posts per Author is up to 5,000: an array of that many ObjectIds is more than the "
    "2,000 ids an array should hold (Zola's 6 Rules of Thumb, part 3: 'more than a few thousand'); store a reference "
    "to the Author in each Post"
)
WHY = (
    "the Posts of one Author are more than an array of ids in the Author should hold (Zola's 6 Rules of Thumb, part "
    "3: 'more than a few thousand'): the reference belongs in each Post and the Author stays fixed-size; the reads "
    "that find the Posts of one Author need an index on it."
)


def test_the_why_keeps_only_what_the_message_has_not_said() -> None:
    assert why_beyond(MESSAGE, WHY) == (
        "the reference belongs in each Post and the Author stays fixed-size; the reads that find the Posts of one "
        "Author need an index on it."
    )
    assert why_beyond(MESSAGE, MESSAGE) == ""  # all said: no Why paragraph at all
    fresh = "Equality keys first narrow the scan; the sort key next returns documents already ordered."
    assert why_beyond(MESSAGE, fresh) == fresh
    assert why_beyond("x", "A movie with a, b, ... needs one index per field.") == (
        "A movie with a, b, ... needs one index per field."
    )
    # a citation in parentheses is no news; a repeat after a new clause ends the sentence there
    assert why_beyond("keep the Post with its Comments", "new words here; keep the Post with its Comments (X, Y).") == (
        "new words here."
    )


def test_the_details_pane_does_not_repeat_the_message() -> None:
    project = Project.model_validate({"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "name": "p"})
    finding = Finding(
        "parent-ref-one-to-squillions", "suggestion", SubjectRef("relationship", "r"), MESSAGE, WHY, "", ""
    )
    page = detail_html(finding, project)
    assert "<b>Why.</b> the reference belongs in each Post" in page
    assert page.count("more than a few thousand") == 1
    same = Finding(
        "parent-ref-one-to-squillions", "suggestion", SubjectRef("relationship", "r"), MESSAGE, MESSAGE, "", ""
    )
    assert "<b>Why.</b>" not in detail_html(same, project)
