"""The sync of a copy held by an N embedded in an array (the tryout's ecommerce ``orders.items.name``): found by the
embedded reference, written with ``arrayFilters``, and the write plan uses the index the design creates for it."""

from __future__ import annotations

from pathlib import Path

from modeller.persistence import load_project
from modeller.rules import analyse

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_a_copy_in_embedded_items_is_synced_through_the_embedded_reference() -> None:
    design = analyse(load_project(SAMPLES / "ecommerce.modeller.json")).design
    copy = next(c for r in design.relationships for c in r.denormalized if c.path == "items.name")
    up = copy.update
    assert up is not None
    assert (up.collection, up.filter_path, up.set_path, up.array_filter) == (
        "orders",
        "items.product_id",
        "items.$[e].name",
        "e.product_id",
    )
    assert up.ids_from is None  # the Product keeps no ids of the orders (parent-ref)
    assert "whose items.product_id is the Product's id" in copy.sync_advice
    assert "by arrayFilters" in copy.sync_advice and "listed in" not in copy.sync_advice
    orders = next(c for c in design.collections if c.name == "orders")
    index = next(i for i in orders.indexes if i.keys == [("items.product_id", 1)])
    write = next(w for w in design.writes if w.collection == "orders" and w.entity == "product")
    assert write.filter_path == "items.product_id" and write.index is not None and write.index.name == index.name
    assert write.docs_examined == write.docs_per_write
