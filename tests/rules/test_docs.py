"""``docs/rules.md`` is generated from the rule classes and must not go stale.

Regenerate with ``modeller rules --markdown > docs/rules.md``.
"""

from __future__ import annotations

from pathlib import Path

from modeller.rules import load_rules
from modeller.rules.framework.docs import render_markdown
from modeller.rules.framework.references import plain
from modeller.rules.framework.registry import REGISTRY

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_rules_md_is_up_to_date() -> None:
    load_rules()
    assert DOC.read_text(encoding="utf-8") == render_markdown(), (
        "docs/rules.md is stale: run `modeller rules --markdown > docs/rules.md`"
    )


def test_rules_md_documents_every_rule_and_the_naming_convention() -> None:
    load_rules()
    text = render_markdown()
    for rule in REGISTRY:
        assert f"### `{rule.id}` ({rule.code})" in text
        # the docstring's words, with reST ``code`` written as Markdown `code` and sources by name
        assert plain(rule.section("Anti-pattern").splitlines()[0]).replace("``", "`") in text
    assert "recent_<name or plural(snake(many))>" in text and "| `refarray_max` | 2000 | E |" in text
