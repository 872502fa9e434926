"""The rule a finding is filed under says what the finding says (tryout item 9): a one-to-few kept as references
because its N are used on their own is rule 5's advice, not "embed-one-to-few"; a small tree is the tree pattern,
not "one-to-squillions"; a reference is a title, not a source file; a warning is never a settled decision."""

from __future__ import annotations

import re
from typing import Any

from test_cases import build

from modeller.rules import analyse
from modeller.rules.framework.findings import Finding, SubjectRef
from modeller.rules.framework.references import SOURCES
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.sections import section_of


def _shop() -> dict[str, Any]:
    return {
        "entities": [
            {"id": "customer", "name": "Customer", "fields": [{"name": "name", "type": "string"}]},
            {"id": "order", "name": "Order", "fields": [{"name": "total", "type": "int"}]},
            {"id": "category", "name": "Category", "fields": [{"name": "title", "type": "string"}]},
        ],
        "relationships": [
            {
                "id": "customer_orders",
                "one": "customer",
                "many": "order",
                "cardinality": "one-to-few",
                "max": 5,
                "many_standalone": True,
                "strategy": "parent-ref",
            },
            {"id": "tree", "one": "category", "many": "category", "cardinality": "one-to-few", "max": 2},
        ],
        "queries": [{"id": "my_orders", "entity": "order", "scope": "customer_orders", "per_sec": 20}],
    }


def _about(findings: list[Finding], rel_id: str) -> list[Finding]:
    return [f for f in findings if f.subject.kind == "relationship" and f.subject.id == rel_id]


def test_a_one_to_few_kept_as_references_is_filed_under_rule_5() -> None:
    found = _about(analyse(build(_shop())).findings, "customer_orders")
    advice = [f for f in found if "parent-ref is what the seeds recommend" in f.message]
    assert [f.rule for f in advice] == ["no-embed-independent-access"], [(f.rule, f.message) for f in found]
    assert all(not (f.rule == "embed-one-to-few" and "parent-ref" in f.message) for f in found)
    # its reference is rule 5's sources (Zola-3's "compelling reason not to embed"), not Zola-1's one-to-few
    assert "part 3" in advice[0].reference and "part 1" not in advice[0].reference


def test_a_small_tree_is_the_tree_pattern_not_one_to_squillions() -> None:
    analysis = analyse(build(_shop()))
    found = _about(analysis.findings, "tree")
    assert [f.rule for f in found if "refers to itself" in f.message] == ["tree-pattern"], [
        (f.rule, f.message) for f in found
    ]
    assert all(f.rule != "parent-ref-one-to-squillions" for f in found)
    rel = next(r for r in analysis.design.relationships if r.id == "tree")
    assert rel.rules == ["tree-pattern"]


def test_references_are_titles_not_source_files() -> None:
    for key, (title, url) in SOURCES.items():
        assert not re.search(r"\w\.(?:ts|tsx|js|py|go)\b", title), (key, title)
        assert url.startswith("https://"), (key, url)
    atlas_title, atlas_url = SOURCES["Atlas-PA"]
    assert "Atlas" in atlas_title and "performance-advisor" in atlas_url


def test_the_why_of_excessive_lookup_is_advice_not_a_developer_note() -> None:
    rule = REGISTRY.get("excessive-lookup")
    assert rule is not None
    why = rule.section("Why")
    assert "engine" not in why and "is the design" not in why, why


def test_a_warning_is_to_do_even_when_the_design_answers_it() -> None:
    def finding(severity: str, decided: bool) -> Finding:
        return Finding("index-reference-fields", severity, SubjectRef("entity", "e"), "m", "w", "t", "r", None, {},
                       decided=decided)  # fmt: skip

    assert section_of(finding("warning", True)) == "todo"
    assert section_of(finding("error", True)) == "todo"
    assert section_of(finding("suggestion", True)) == "decisions"
    assert section_of(finding("info", False)) == "decisions"
    assert section_of(finding("suggestion", False)) == "todo"
