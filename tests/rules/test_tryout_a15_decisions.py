"""Tryout a15 item 10: one finding per decision. The outlier pattern and the base rule it refines are one
decision; one copied field's two warnings (squillions of copies, never stale) are one decision with one fix."""

from __future__ import annotations

from typing import Any

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse
from modeller.rules.framework.findings import Finding


def _project(entities: list[dict[str, Any]], relationships: list[dict[str, Any]], **more: Any) -> Project:
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "t",
            "entities": entities,
            "relationships": relationships,
            **more,
        }
    )


def reviews(n_max: int) -> Project:
    """Product -> Review (one-to-many), 10 typically, ``n_max`` at most, read with the product: the tryout's probe."""
    return _project(
        [
            {
                "id": "product",
                "name": "Product",
                "count": 1_000_000,
                "reads_per_sec": 3000,
                "writes_per_sec": 10,
                "fields": [{"name": "name", "type": "string"}, {"name": "sku", "type": "string"}],
            },
            {
                "id": "review",
                "name": "Review",
                "count": 20_000_000,
                "writes_per_sec": 30,
                "fields": [{"name": "stars", "type": "int"}, {"name": "text", "type": "string"}],
            },
        ],
        [
            {
                "id": "product_reviews",
                "one": "product",
                "many": "review",
                "cardinality": "one-to-many",
                "typical": 10,
                "max": n_max,
                "read_together": 0.95,
                "reads_per_sec": 3000,
                "writes_per_sec": 30,
            }
        ],
        queries=[{"id": "page", "entity": "product", "name": "product page", "filter": {"sku": "eq"}, "per_sec": 3000}],
    )


def _about(findings: list[Finding], rel: str) -> list[Finding]:
    return [f for f in findings if f.subject.kind == "relationship" and f.subject.id == rel]


def test_the_outlier_pattern_and_the_rule_it_refines_are_one_finding() -> None:
    result = analyse(reviews(2_000))
    shown = _about(result.findings, "product_reviews")
    base = "child-refs-one-to-many"
    assert [(f.rule, f.also) for f in shown] == [(base, ("outlier-pattern",))], [f.message for f in shown]
    assert shown[0].message.startswith("embed up to 40 + overflow — ")
    # both rules still reported it: the fold lost nothing
    assert {f.rule for f in _about(result.reported, "product_reviews")} == {base, "outlier-pattern"}


def test_an_outlier_on_a_one_to_many_is_not_filed_under_a_one_to_squillions_rule() -> None:
    """Tryout a15 item 10: up to 200,000 Reviews of a one-to-many are decided by the squillions rule (more ids
    than an array holds), but the finding goes under the outlier rule the design applies, one finding, with the
    rule it refines in its words; Auto is what applies the pattern, so there is nothing to pin."""
    result = analyse(reviews(200_000))
    (shown,) = _about(result.findings, "product_reviews")
    assert (shown.rule, shown.also) == ("outlier-pattern", ())
    assert shown.message.startswith("embed up to 40 + overflow — ") and "(refining parent-ref: " in shown.message
    assert shown.fix is None
    assert [f.rule for f in _about(result.reported, "product_reviews")] == ["outlier-pattern"]


def test_an_outlier_under_a_hand_set_strategy_is_fixed_by_auto() -> None:
    """Only Auto applies the outlier pattern: a Review kept as parent-ref by hand is not told it has it, and the
    fix sets Auto, in words, not "set the strategy to parent-ref" (which would keep it as it is)."""
    project = reviews(200_000)
    (rel,) = project.relationships
    project = project.model_copy(update={"relationships": (rel.model_copy(update={"strategy": "parent-ref"}),)})
    result = analyse(project)
    outlier = [f for f in _about(result.reported, "product_reviews") if f.rule == "outlier-pattern"]
    assert outlier and not any(f.decided for f in outlier)
    fixes = {f.fix.description for f in outlier if f.fix is not None}
    assert fixes == {
        "set the strategy to Auto: embed up to 40 Reviews in each Product and move the rest of the few large ones "
        "to an overflow collection"
    }
    (change,) = next(f.fix for f in outlier if f.fix is not None).changes
    assert change.value == "auto"


def logs(**copy: Any) -> Project:
    """Host -> Log message (one-to-squillions) with Host.status copied into each message, never stale."""
    return _project(
        [
            {
                "id": "host",
                "name": "Host",
                "fields": [{"name": "status", "type": "string", "reads_per_sec": 1, "updates_per_sec": 1}],
            },
            {"id": "logmsg", "name": "Log message", "fields": [{"name": "text", "type": "string"}]},
        ],
        [
            {
                "id": "host_logs",
                "one": "host",
                "many": "logmsg",
                "cardinality": "one-to-squillions",
                "denormalize": [{"field": "status", "direction": "one-to-many", "staleness": "none", **copy}],
            }
        ],
    )


def test_one_copied_field_gets_one_warning_with_its_reasons_and_one_fix() -> None:
    result = analyse(logs())
    reported = [f for f in _about(result.reported, "host_logs") if f.severity == "warning"]
    assert sorted(f.rule for f in reported) == ["denorm-into-squillions-immutable", "no-denorm-volatile"]
    shown = [f for f in _about(result.findings, "host_logs") if f.severity == "warning"]
    assert [(f.rule, f.also) for f in shown] == [("denorm-into-squillions-immutable", ("no-denorm-volatile",))]
    (warning,) = shown
    assert "Host.status changes and must never be stale, but it is copied into squillions of Log message" in (
        warning.message
    )
    # the one fix: remove the copy (the two rules used to give two different ones)
    assert warning.fix is not None
    assert warning.fix.description == "remove the copy of status from Host → Log message"
    (change,) = warning.fix.changes
    assert (change.op, change.key, change.value) == ("set", "denormalize", [])
