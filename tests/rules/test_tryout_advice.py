"""Advice a new user's tryout found wrong, on an inferred shop: order line items (4 typically, 296 at most) get the
outlier pattern, not an id array; a reference held by an embedded N gets its multikey index."""

from __future__ import annotations

from typing import Any

from test_cases import build

from modeller.rules import analyse


def _shop(strategy: str | None = None, reviews: str | None = None) -> dict[str, Any]:
    items: dict[str, Any] = {
        "id": "order_items",
        "one": "order",
        "many": "item",
        "name": "items",
        "cardinality": "one-to-many",
        "typical": 4,
        "max": 296,
        "read_together": 1,  # an order is read with its items (not set, no reason to size the order for them)
    }
    if strategy:
        items["strategy"] = strategy
    product_reviews: dict[str, Any] = {
        "id": "product_reviews",
        "one": "product",
        "many": "review",
        "name": "reviews",
        "cardinality": "one-to-few",
        "max": 40,
    }
    if reviews:
        product_reviews["strategy"] = reviews
    return {
        "entities": [
            {
                "id": "order",
                "name": "Order",
                "collection": "orders",
                "count": 2500,
                "fields": [{"name": "total", "type": "int"}],
            },
            {"id": "item", "name": "Item", "fields": [{"name": "sku", "type": "string"}]},
            {
                "id": "product",
                "name": "Product",
                "collection": "products",
                "fields": [{"name": "sku", "type": "string"}],
            },
            {"id": "review", "name": "Review", "fields": [{"name": "rating", "type": "int"}]},
            {
                "id": "customer",
                "name": "Customer",
                "collection": "customers",
                "fields": [{"name": "name", "type": "string"}],
            },
        ],
        "relationships": [
            items,
            product_reviews,
            {
                "id": "customer_reviews",
                "one": "customer",
                "many": "review",
                "cardinality": "one-to-many",
                "typical": 3,
                "max": 9,
                "strategy": "parent-ref",
            },
        ],
    }


def test_line_items_get_the_outlier_pattern_not_an_id_array() -> None:
    analysis = analyse(build(_shop()))
    rel = next(r for r in analysis.design.relationships if r.id == "order_items")
    assert rel.strategy == "parent-ref" and "outlier-pattern" in rel.rules, rel
    assert "embed up to 16 in the Order" in rel.why, rel.why
    orders = analysis.design.collection("orders")
    assert orders is not None and [n.max_items for n in orders.shape if n.name == "items"] == [16]


def test_embedding_them_all_is_warned_with_the_outlier_pattern_as_the_way_out() -> None:
    analysis = analyse(build(_shop(strategy="embed")))
    (warning,) = [f for f in analysis.reported if f.rule == "unbounded-array"]
    assert warning.message.endswith(
        "keep up to 16 embedded and move the rest of the few large ones out (outlier pattern)"
    ), warning.message
    assert "reference them instead" not in warning.message


def test_a_reference_held_by_an_embedded_n_is_indexed_multikey() -> None:
    analysis = analyse(build(_shop(reviews="embed")))
    products = analysis.design.collection("products")
    assert products is not None
    assert [index.keys for index in products.indexes] == [[("reviews.customer_id", 1)]]
    assert "Reviews of one Customer" in products.indexes[0].why
