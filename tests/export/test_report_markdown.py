"""DESIGN.md shows user text as text: no link, image, HTML, heading or auto-link comes from a description,
and no control or bidi character reaches the report."""

from __future__ import annotations

import re
import unicodedata

from hand_designs import tracker_design, tracker_findings, tracker_project
from markdown_it import MarkdownIt

from modeller.export import design_report
from modeller.export.report import prose, reference
from modeller.rules.framework.findings import Finding, SubjectRef

ATTACK = (
    "Tracks ![x](http://evil/img.png) and [a](javascript:alert(1)) <img src=x onerror=alert(1)> "
    "<script>alert(2)</script> see https://evil.example/p?q=1 or www.evil.example and mail a@evil.example "
    "[ref]: javascript:steal() **bold** _it_ `tick` ~~gone~~ \x1b[2J\u202eRTL\u202c end"
)
RENDER = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def visible_text(html: str) -> str:
    """What a reader sees: the rendered HTML without its tags, entities decoded."""
    import html as html_lib

    return html_lib.unescape(re.sub(r"<[^>]+>", "", html))


def test_a_hostile_description_renders_inert() -> None:
    project = tracker_project().model_copy(update={"description": ATTACK})
    report = design_report(tracker_design(), project, tracker_findings())
    line = report.splitlines()[report.splitlines().index("") + 3]  # the description paragraph
    html = RENDER.render(line)
    assert "<img" not in html and "<a " not in html and "<script" not in html and "<strong" not in html
    assert "<em" not in html and "<s>" not in html and "<del" not in html
    seen = visible_text(html)
    assert "![x](http://evil/img.png) and [a](javascript:alert(1))" in seen
    assert "<img src=x onerror=alert(1)> <script>alert(2)</script>" in seen
    assert "**bold** _it_ `tick` ~~gone~~" in seen and "\\x1b[2J\\u202eRTL\\u202c end" in seen
    # bare URLs and addresses sit in code spans, which no renderer (GitHub included) auto-links
    for url in ("http://evil/img.png)", "https://evil.example/p?q=1", "www.evil.example", "a@evil.example"):
        assert f"<code>{url}</code>" in html
    assert "javascript:alert(1))</code>" in html and "<code>javascript:steal()</code>" in html
    assert not [c for c in report if unicodedata.category(c) == "Cc" and c != "\n"]
    assert "\u202e" not in report and "\u202c" not in report


def test_a_line_of_user_text_never_becomes_a_block() -> None:
    for text, shown in [
        ("# Heading", "# Heading"),
        ("- item", "- item"),
        ("+ item", "+ item"),
        ("1. first", "1. first"),
        ("12) twelfth", "12) twelfth"),
        ("---", "---"),
        ("    indented code", "indented code"),
        ("> quote", "> quote"),
        ("| a | b |", "| a | b |"),
        ("[x]: http://evil", "[x]: http://evil"),
    ]:
        html = RENDER.render(prose(text) + "\n\n[x]\n")
        assert html.startswith("<p>") and "<a " not in html, text
        assert visible_text(html).startswith(shown), text


def test_snake_case_stays_readable_and_engine_references_stay_links() -> None:
    assert prose("index author_id first") == "index author_id first"
    assert prose("_id and __dunder__") == "\\_id and \\_\\_dunder\\_\\_"
    ref = reference("[Manual-limits] https://www.mongodb.com/docs/manual/reference/limits/.")
    # the URL stays bare and unescaped, so GitHub's autolinker turns it into a link
    assert ref == "\\[Manual-limits\\] https://www.mongodb.com/docs/manual/reference/limits/."
    assert visible_text(RENDER.render(ref)).startswith("[Manual-limits] https://www.mongodb.com/docs/")


def test_names_in_findings_cannot_inject_markdown() -> None:
    evil = Finding(
        "unbounded-array",
        "warning",
        SubjectRef("entity", "e\n# not a heading"),
        "Entity ![pic](http://evil/p.png) grows [click](javascript:x)",
        "why <b>",
        "",
        "[Zola-1] https://www.mongodb.com/blog/post/6-rules-of-thumb-for-mongodb-schema-design",
    )
    report = design_report(tracker_design(), tracker_project(), [evil])
    section = report[report.index("## Findings") :]
    html = RENDER.render(section)
    assert "<img" not in html and "javascript:" not in re.sub(r"<code>.*?</code>", "", html)
    assert "<b>" not in html and html.count("<h") == 2  # "Findings" and "Warnings (1)" only
    assert (
        "Reference: \\[Zola-1\\] https://www.mongodb.com/blog/post/6-rules-of-thumb-for-mongodb-schema-design"
        in section
    )


def test_a_citation_link_stays_a_markdown_autolink_not_escaped_brackets() -> None:
    """Tryout a15 item 14: DESIGN.md wrote ``&lt;https://…&gt;``; the raw Markdown must read as the link it is."""
    ref = reference(
        "MongoDB Manual, Time Series <https://www.mongodb.com/docs/manual/core/timeseries/>; "
        "W. Zola, 6 Rules <https://www.mongodb.com/blog/post/6-rules>"
    )
    assert "&lt;" not in ref and "&gt;" not in ref
    assert ref == (
        "MongoDB Manual, Time Series <https://www.mongodb.com/docs/manual/core/timeseries/>; "
        "W. Zola, 6 Rules <https://www.mongodb.com/blog/post/6-rules>"
    )
    html = RENDER.render(ref)
    assert '<a href="https://www.mongodb.com/docs/manual/core/timeseries/">' in html
    assert '<a href="https://www.mongodb.com/blog/post/6-rules">' in html
    # a lone bracket is still text, never markup
    assert reference("a < b <https://x.example/>") == "a &lt; b <https://x.example/>"
    assert reference("<script>") == "&lt;script&gt;"
