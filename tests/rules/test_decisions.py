"""Strategy rules own their decisions: the resolver applies the rules' votes and names no rule itself."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules.catalog import load_rules
from modeller.rules.catalog.denormalization import SquillionsToOneLastN
from modeller.rules.catalog.patterns import BucketPattern
from modeller.rules.catalog.shape import EmbedOneToFew, IndexReferenceFields, ManyToManyRefs
from modeller.rules.engine import analyse
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.rule import Rule
from modeller.rules.physical import index_reasons
from modeller.rules.physical.facts import ContextCache, build_context
from modeller.rules.physical.plans import RelPlan
from modeller.rules.physical.resolver import resolve
from modeller.rules.physical.strategy import Deciders, NoDecisionError
from modeller.rules.settings import DEFAULT_SETTINGS

load_rules()
PHYSICAL = Path(__file__).resolve().parents[2] / "modeller" / "rules" / "physical"


def _project(*relationships: dict[str, object]) -> Project:
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "decisions",
            "entities": [
                {"id": "person", "name": "Person", "fields": [{"name": "name", "type": "string"}]},
                {"id": "address", "name": "Address", "fields": [{"name": "city", "type": "string"}]},
            ],
            "relationships": list(relationships),
        }
    )


FEW = {"id": "r", "one": "person", "many": "address", "cardinality": "one-to-few", "max": 3}


def _plan(project: Project, deciders: Deciders) -> RelPlan:
    _, res = resolve(build_context(project, DEFAULT_SETTINGS, ContextCache()), deciders)
    return res.plans["r"]


def test_physical_names_no_rule() -> None:
    """No registered rule id is a string literal anywhere in the physical design (the resolver's room)."""
    ids = set(REGISTRY.ids())
    found = []
    for path in sorted(PHYSICAL.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in ids:
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    assert len(list(PHYSICAL.glob("*.py"))) > 10
    assert not found, "rule ids in physical/ (let the rule decide, or claim an index reason):\n" + "\n".join(found)


def test_every_deciding_rule_implements_decide() -> None:
    deciders = REGISTRY.deciders()
    assert {"embed-one-to-one", "child-refs-one-to-many", "parent-ref-one-to-squillions"} <= {
        r.id for r in deciders.base
    }
    assert {"bucket-pattern", "subset-pattern", "extended-reference"} <= {r.id for r in deciders.refinements}
    # asked highest precedence first
    for stage in (deciders.base, deciders.refinements):
        assert [r.precedence for r in stage] == sorted((r.precedence for r in stage), reverse=True)
    for rule in (*deciders.base, *deciders.refinements):
        assert isinstance(rule, Rule)
        assert type(rule).decide is not Rule.decide, f"{rule.id} decides but does not implement decide"
    for cls in REGISTRY:
        if not cls.decides:
            assert cls.decide is Rule.decide, f"{cls.id} implements decide but does not set decides"


def test_the_rule_owns_its_decision() -> None:
    """Without embed-one-to-few's vote a one-to-few is no longer embedded: the choice is the rule's, not the resolver's."""
    deciders = REGISTRY.deciders()
    plan = _plan(_project(FEW), deciders)
    assert (plan.strategy, plan.rec.base_rule, plan.rules) == ("embed", EmbedOneToFew.id, [EmbedOneToFew.id])
    without = replace(deciders, base=tuple(d for d in deciders.base if not isinstance(d, EmbedOneToFew)))
    plan = _plan(_project(FEW), without)
    assert (plan.strategy, plan.rec.base_rule) == ("child-refs", "child-refs-one-to-many")
    assert "array of their ids (at most 3)" in plan.rec.reason


def test_the_highest_precedence_wins() -> None:
    """A many-to-many (precedence 90) outranks the one-to-N rules that also vote for it (e.g. child refs, 30)."""
    rel = {**FEW, "cardinality": "many-to-many", "max": 50}
    plan = _plan(_project(rel), REGISTRY.deciders())
    assert (plan.strategy, plan.rec.base_rule) == ("two-way", ManyToManyRefs.id)
    rel = {**FEW, "cardinality": "one-to-many", "max": 500, "inverse": "owner", "many_standalone": True}
    plan = _plan(_project(rel), REGISTRY.deciders())
    assert plan.rules == [ManyToManyRefs.id, "child-refs-one-to-many"]


def test_refinement_keeps_the_base_rule_first() -> None:
    rel = {**FEW, "cardinality": "one-to-squillions", "show_latest": 10}
    plan = analyse(_project(rel)).design.relationships[0]
    assert plan.strategy == "subset"
    assert plan.rules == ["parent-ref-one-to-squillions", SquillionsToOneLastN.id, "subset-pattern"]


def test_without_strategy_rules_the_resolver_says_so() -> None:
    with pytest.raises(NoDecisionError, match="'r'"):
        _plan(_project(FEW), Deciders())


def test_index_reasons_list_their_rules_by_rank() -> None:
    rules = REGISTRY.deciders().index_rules
    assert rules[index_reasons.BUCKET_SERIES] == (BucketPattern.id, IndexReferenceFields.id)
    assert rules[index_reasons.REFERENCE] == (IndexReferenceFields.id,)
    reasons = {v for k, v in vars(index_reasons).items() if k.isupper()}
    assert reasons == set(rules), "every index reason needs a rule that claims it"
