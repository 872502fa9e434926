"""Every registered rule documents itself and has a case file; the registry refuses duplicates."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from modeller.rules import load_rules
from modeller.rules.framework.references import SOURCES
from modeller.rules.framework.registry import REGISTRY, DuplicateRuleError, Registry
from modeller.rules.framework.rule import SECTIONS, Rule

load_rules()
RULES = list(REGISTRY)
CASES_DIR = Path(__file__).parent / "cases"
RULES_MD = Path("/work/shared/RULES.md")
#: rules the engine adds beyond RULES.md §1 (numbered after its 45), with their numbers
BEYOND_CATALOG = {"query-not-served": 46, "mixed-types": 47}  # issue 10: queries served; tryout: mixed types


def test_rules_are_registered_in_catalog_order() -> None:
    """The number in a rule's code is its RULES.md number: families and rules follow the catalog."""
    numbers = [int(r.code[2:]) for r in RULES]
    assert numbers == sorted(set(numbers)), [r.code for r in RULES]
    assert len(RULES) >= 32  # every family registered (a lost import would silently drop its rules)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_is_documented(rule: type[Rule]) -> None:
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.id)
    assert re.fullmatch(r"(RS|DN|PT|IX|AP|SH)\d\d", rule.code)
    assert rule.summary() and rule.summary().endswith(".")
    for name in SECTIONS:
        assert len(rule.section(name)) > 20, f"{rule.id} lacks a *{name}* section"
    assert rule.sources and all(key in SOURCES for key in rule.sources)
    assert rule.severities and rule.family and rule.tradeoff


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_has_a_case_file_with_firing_and_silent_cases(rule: type[Rule]) -> None:
    text = (CASES_DIR / f"{rule.id}.yml").read_text(encoding="utf-8")
    assert "expect: []" in text, f"{rule.id}: no case where the rule must stay silent"
    assert "severity:" in text, f"{rule.id}: no case where the rule fires"


@pytest.mark.skipif(
    not RULES_MD.exists() and not os.environ.get("CI"), reason="shared RULES.md not present in this checkout"
)
def test_ids_match_the_catalog() -> None:
    catalog = {
        rule_id: int(number)
        for number, rule_id in re.findall(r"^#### (\d+)\. `([a-z0-9-]+)`", RULES_MD.read_text(encoding="utf-8"), re.M)
    }
    assert not set(BEYOND_CATALOG) & set(catalog) and min(BEYOND_CATALOG.values()) > max(catalog.values())
    catalog.update(BEYOND_CATALOG)
    assert {r.id for r in RULES} <= set(catalog)
    assert {r.id: int(r.code[2:]) for r in RULES} == {r.id: catalog[r.id] for r in RULES}


def test_registry_refuses_duplicate_ids_and_codes() -> None:
    registry = Registry()
    registry.register(RULES[0])
    with pytest.raises(DuplicateRuleError):
        registry.register(RULES[0])

    class SameCode(Rule):
        id = "another-rule"
        code = RULES[0].code

    with pytest.raises(DuplicateRuleError):
        registry.register(SameCode)


def test_strategy_rules_state_the_cardinality_they_advise_on() -> None:
    """``refinement_rule`` files a refined decision by the base rule's ``cardinality``, not by its id's words."""
    from modeller.model.vocabulary import CARDINALITIES
    from modeller.rules.catalog.shape import _StrategyRule

    stated = {rule.id: rule.cardinality for rule in REGISTRY if issubclass(rule, _StrategyRule)}
    assert stated == {
        "embed-one-to-one": "one-to-one",
        "embed-one-to-few": "one-to-few",
        "child-refs-one-to-many": "one-to-many",
        "parent-ref-one-to-squillions": "one-to-squillions",
        "no-embed-independent-access": None,
        "many-to-many-refs": "many-to-many",
    }
    assert {c for c in stated.values() if c is not None} <= set(CARDINALITIES)
