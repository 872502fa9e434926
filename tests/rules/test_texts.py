"""What people read: findings are plain sentences, without reST markup or broken plurals."""

from __future__ import annotations

from pathlib import Path

import pytest

from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.physical.naming import plural_label

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def sample_paths() -> list[Path]:
    return sorted(SAMPLES.glob("*.modeller.json"))


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Order item", "Order items"), ("Person", "People"), ("Address", "Addresses"), ("Category", "Categories"),
     ("log message", "log messages"), ("日志", "日志")],
)  # fmt: skip
def test_plural_label(name: str, expected: str) -> None:
    assert plural_label(name) == expected


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.name.split(".")[0])
def test_findings_are_plain_text(path) -> None:
    findings = analyse(load_project(path)).findings
    assert findings
    for finding in findings:
        for text in (finding.message, finding.why, finding.tradeoff):
            assert "``" not in text, (finding.rule, text)
            assert " a Order" not in text and " a Order item" not in text


def test_one_to_few_message_counts_in_the_plural() -> None:
    project = load_project(next(p for p in sample_paths() if p.name.startswith("ecommerce")))
    embed = next(f for f in analyse(project).findings if f.rule == "embed-one-to-few")
    assert "each Order has at most 50 Order items" in embed.message
