"""``modeller rules``: the list, one rule's documentation, the markdown, unknown ids."""

from __future__ import annotations

import pytest

from modeller.cli.main import main
from modeller.rules.framework.docs import render_markdown
from modeller.rules.framework.registry import REGISTRY


def test_list_has_every_rule_with_severity_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # one line per registered rule, in registry order (adding a rule needs no edit here)
    assert [line.split()[1] for line in lines] == REGISTRY.ids() and len(lines) >= 32
    assert lines[0].split()[:3] == ["RS01", "embed-one-to-one", "info..suggestion"]
    assert any(line.split()[1:3] == ["unbounded-array", "info..error"] for line in lines)


@pytest.mark.parametrize("key", ["esr-compound-index", "IX31", "ix31"])
def test_one_rule_by_id_or_code(capsys: pytest.CaptureFixture[str], key: str) -> None:
    assert main(["rules", key]) == 0
    out = capsys.readouterr().out
    assert out.startswith("esr-compound-index (IX31, indexes): info, suggestion, warning")
    assert "*Anti-pattern*" in out and "*Best practice*" in out
    assert "MongoDB Manual, The ESR (Equality, Sort, Range) Guideline" in out


def test_unknown_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "no-such-rule"]) == 2
    assert "no rule 'no-such-rule'" in capsys.readouterr().err


def test_markdown_is_the_docs_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--markdown"]) == 0
    assert capsys.readouterr().out == render_markdown()
