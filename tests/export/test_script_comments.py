"""Names in the comments of generated scripts: a newline cannot end the comment, and no control or bidi
character reaches the script (Trojan Source)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from hand_designs import tracker_design, tracker_findings, tracker_project
from js_harness import calls, node_check, run_scripts

from modeller.export import mongosh_script
from modeller.export.literals import comment, js_string

# after the newline comes code that would run if the comment ended there; the bidi override would hide it
ESCAPE = "people\nthrow new Error('comment escaped') // \u202e\u2066 \x1b[2J\x85\u2028x"
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def test_a_newline_in_a_name_stays_inside_its_comment(tmp_path: Path) -> None:
    design, project = tracker_design({"people": ESCAPE}), tracker_project({"people": ESCAPE})
    text = mongosh_script(design, project, findings=tracker_findings({"people": ESCAPE}))
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith('  // Collection "people'))
    assert lines[at].startswith("  // Collection \"people\\nthrow new Error('comment escaped') // \\u202e\\u2066 ")
    assert lines[at + 1].startswith("  // ")  # the collection's options note, still a comment
    assert lines[at + 2] == f"  ensureCollection({js_string(ESCAPE)}, {{"  # the code we expect, and nothing else
    assert "\\u202e" in lines[at + 2]  # inside the string literal too, the override is an escape (same value)
    assert not [c for c in text if c in BIDI or (unicodedata.category(c) == "Cc" and c != "\n")]
    assert "\u2028" not in text and "\x85" not in text
    script = tmp_path / "setup.mongosh.js"
    script.write_text(text, encoding="utf-8")
    node_check(script)
    recorded = run_scripts(script, runs=1)  # throws if any part of the name had become code
    assert calls(recorded, 0, "createCollection")[0]["collection"] == ESCAPE


def test_comment_escapes_every_line_terminator_and_bidi_control() -> None:
    assert comment("a\nb\rc\u2028d\u2029e\x85f") == "// a\\nb\\rc\\u2028d\\u2029e\\x85f"
    assert comment("x\u202ey\u2066z\x1b") == "// x\\u202ey\\u2066z\\x1b"
    assert js_string("a\u202eb\x9b") == '"a\\u202eb\\u009b"'
