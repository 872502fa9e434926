"""Hostile names in a diff: Markdown shows them as text (no HTML, no heading), the terminal sees no ESC."""

from __future__ import annotations

from review_projects import BASE, edited, field, project

from modeller.review import diff_projects
from modeller.review.render import diff_markdown, diff_text

HOSTILE = "<img src=x onerror=alert(1)>\n# head **b** \x1b]0;title\x07"


def test_hostile_field_name_is_inert() -> None:
    new = edited(lambda d: field(d, "shop", "city").update(name=HOSTILE))
    diff = diff_projects(project(BASE), project(new))
    assert [c.kind for c in diff.changes] == ["field-renamed"]
    markdown = diff_markdown(diff)
    assert "<img" not in markdown and "&lt;img" in markdown
    assert "\n# head" not in markdown and "\x1b" not in markdown and "\\*\\*b\\*\\*" in markdown
    text = diff_text(diff)
    assert "\x1b" not in text and "\x07" not in text and "\n# head" not in text
