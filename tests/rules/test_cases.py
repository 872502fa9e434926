"""Rule tests as data: ``tests/rules/cases/<rule-id>.yml`` (sqlfluff's std_rule_cases style).

Each case is a small project and the exact findings of that rule it must
produce (severity and subject); ``expect: []`` means the rule must not fire.
Entities may omit ``name`` (defaults to the id) and ``fields`` (empty); the
file header keys are added here. A case may lower thresholds with
``settings: {name: value}`` (e.g. a count limit of 10,000).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project, check_project
from modeller.rules import analyse
from modeller.rules.settings import DEFAULT_SETTINGS

CASES_DIR = Path(__file__).parent / "cases"


def build(data: dict[str, Any]) -> Project:
    project = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "name": "case", **data}
    project["entities"] = [{"name": e["id"], "fields": [], **e} for e in data.get("entities", [])]
    built = Project.model_validate(project)
    problems = check_project(built)
    assert not problems, f"the case itself is not a valid project: {problems}"
    return built


def _cases() -> list[Any]:
    out = []
    for path in sorted(CASES_DIR.glob("*.yml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert doc["rule"] == path.stem, f"{path.name} declares rule {doc['rule']!r}"
        for case in doc["cases"]:
            out.append(pytest.param(doc["rule"], case, id=f"{path.stem}: {case['name']}"))
    return out


@pytest.mark.parametrize(("rule", "case"), _cases())
def test_rule_case(rule: str, case: dict[str, Any]) -> None:
    settings = DEFAULT_SETTINGS.with_values(**case.get("settings", {}))
    # each rule on its own: before the engine folds the findings of one decision into one
    findings = [f for f in analyse(build(case["project"]), settings).reported if f.rule == rule]
    got = sorted((f.severity, f.subject.kind, f.subject.id) for f in findings)
    want = sorted((e["severity"], e["subject"]["kind"], e["subject"]["id"]) for e in case["expect"])
    assert got == want, "\n".join(f"{f.severity} {f.subject.id}: {f.message}" for f in findings)
    for f in findings:
        assert f.message and f.why and "<https://" in f.reference  # titles with addresses
