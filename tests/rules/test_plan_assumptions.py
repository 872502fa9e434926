"""Query plan estimates say what they rest on, and use the relationship's typical N when the N entity has no count
(tryout item 8: 'customer by email' said 1,000 of 100,000 customers with no word why; 'orders of a customer' said
1 document although the relationship says 5,000 typical)."""

from __future__ import annotations

from typing import Any

from modeller.cli.cmd_design import query_line
from modeller.export.report import design_report
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse


def _shop(distinct: int | None = None, order_count: int | None = None) -> Project:
    email: dict[str, Any] = {"name": "email", "type": "string"}
    if distinct is not None:
        email["distinct"] = distinct
    order: dict[str, Any] = {"id": "order", "name": "Order", "fields": [{"name": "total", "type": "int"}]}
    if order_count is not None:
        order["count"] = order_count
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "shop",
            "entities": [{"id": "customer", "name": "Customer", "count": 100_000, "fields": [email]}, order],
            "relationships": [
                {
                    "id": "orders",
                    "one": "customer",
                    "many": "order",
                    "cardinality": "one-to-many",
                    "typical": 5000,
                    "max": 100_000,
                }
            ],
            "queries": [
                {"id": "by_email", "entity": "customer", "name": "customer by email", "filter": {"email": "eq"}},
                {"id": "orders_of", "entity": "order", "name": "orders of a customer", "scope": "orders"},
            ],
        }
    )


def _plans(project: Project) -> dict[str, Any]:
    return {p.id: p for p in analyse(project).design.queries}


def test_an_equality_without_a_distinct_count_says_it_assumes_one_percent() -> None:
    plan = _plans(_shop())["by_email"]
    assert plan.docs_returned == 1000
    assert plan.assumptions == ["email: 1 % of the Customers match one value (no distinct count set for email)"]
    assert "assuming email: 1 % of the Customers match one value (no distinct count set for email)" in query_line(plan)
    known = _plans(_shop(distinct=100_000))["by_email"]
    assert known.docs_returned == 1 and known.assumptions == []


def test_the_n_of_one_one_come_from_the_typical_n_when_the_n_has_no_count() -> None:
    project = _shop()
    plan = _plans(project)["orders_of"]
    assert plan.docs_returned == 5000
    assert plan.assumptions == [
        "10,000 documents in order (no count set for Order)",
        "5,000 Orders per Customer (the relationship's typical N)",
    ]
    report = design_report(analyse(project).design, project)
    assert "The estimates assume 10,000 documents in order (no count set for Order)" in report
    counted = _plans(_shop(order_count=50_000_000))["orders_of"]
    assert counted.docs_returned == 500 and counted.assumptions == []
