"""A copy whose staleness is not set (the tryout's inferred ``orders.items.price``) is not advised to be synced as if
that were settled: the advice names both kinds of copy — a point-in-time snapshot (staleness forever, never synced;
RULES.md 16, SD11's "下单时的价格(快照)") or a display copy kept in sync — and the setting that chooses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from modeller.persistence import dumps_project, load_project, loads_project
from modeller.rules import analyse
from modeller.rules.framework.findings import Finding

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _ecommerce(price_staleness: str | None) -> dict[str, Any]:
    """SD11's sample with the staleness of the line items' price copy set to ``price_staleness`` (None: left out)."""
    data = json.loads((SAMPLES / "ecommerce.modeller.json").read_text(encoding="utf-8"))
    rel = next(r for r in data["relationships"] if r["id"] == "product_order_items")
    copy = next(c for c in rel["denormalize"] if c["field"] == "price")
    copy.pop("staleness")
    if price_staleness is not None:
        copy["staleness"] = price_staleness
    return data


def _price_findings(data: dict[str, Any]) -> list[Finding]:
    project = loads_project(json.dumps(data))
    return [f for f in analyse(project).findings if "Product.price" in f.message or "price: " in f.message]


def test_an_unset_staleness_names_the_snapshot_and_the_synced_copy() -> None:
    findings = _price_findings(_ecommerce(None))
    copy_rules = ("denorm-one-to-many-into-children", "denorm-into-squillions-immutable", "extended-reference")
    advice = [f for f in findings if f.rule in copy_rules]
    assert advice, [f.message for f in findings]
    text = " ".join(f.message for f in advice)
    assert "staleness is not set" in text
    assert "set its staleness to forever" in text and "never synced" in text
    assert "order line's price" in text  # the seed's example, so the user recognises the case
    assert "keep it in sync" in text  # the other choice, with its updateMany
    # the engine does not tell the user to rewrite the orders' history as if the choice were made
    assert "Keep it in sync:" not in text and "so keep the copies in sync" not in text
    assert all(f.rule != "point-in-time-snapshot" for f in findings)


def test_a_chosen_staleness_gets_the_advice_of_its_choice() -> None:
    synced = " ".join(f.message for f in _price_findings(_ecommerce("hours")))
    assert "so keep the copies in sync:" in synced and "staleness is not set" not in synced
    snapshot = _price_findings(_ecommerce("forever"))
    assert [f.rule for f in snapshot] == ["point-in-time-snapshot"]
    assert "copy it at insert and never sync it" in snapshot[0].message


def test_sd11_sample_keeps_the_line_price_as_a_snapshot() -> None:
    """RULES.md SD11: rule 15 for the user's display fields, rule 16 for the item price (never synced)."""
    analysis = analyse(load_project(SAMPLES / "ecommerce.modeller.json"))
    price = next(c for r in analysis.design.relationships for c in r.denormalized if c.path == "items.price")
    assert (price.staleness, price.sync, price.update) == ("forever", "none", None)
    rules = {f.rule for f in analysis.findings if f.subject.id == "product_order_items"}
    assert "point-in-time-snapshot" in rules
    user = next(r for r in analysis.design.relationships if r.id == "user_orders")
    assert user.strategy == "extended-ref" and {c.sync for c in user.denormalized} == {"scheduled"}


def test_a_chosen_hours_survives_a_save_and_an_unset_one_stays_unset() -> None:
    """``hours`` is a choice the file keeps (it is no longer the default a save drops)."""
    chosen = loads_project(json.dumps(_ecommerce("hours")))
    again = loads_project(dumps_project(chosen))
    rel = next(r for r in again.relationships if r.id == "product_order_items")
    assert next(c for c in rel.denormalize if c.field == "price").staleness == "hours"
    unset = loads_project(dumps_project(loads_project(json.dumps(_ecommerce(None)))))
    rel = next(r for r in unset.relationships if r.id == "product_order_items")
    assert next(c for c in rel.denormalize if c.field == "price").staleness is None


def test_the_exported_sync_of_an_unset_copy_says_a_snapshot_is_never_synced() -> None:
    from modeller.export.snippets import sync_snippet

    design = analyse(loads_project(json.dumps(_ecommerce(None)))).design
    copy = next(c for r in design.relationships for c in r.denormalized if c.path == "items.price")
    text = sync_snippet(design, copy)
    first, *rest = text.splitlines()
    assert first.startswith("// staleness not set: if") and "set the copy's staleness to forever" in first
    assert any("updateMany" in line for line in rest)
    chosen = analyse(loads_project(json.dumps(_ecommerce("hours")))).design
    copy = next(c for r in chosen.relationships for c in r.denormalized if c.path == "items.price")
    assert "staleness not set" not in sync_snippet(chosen, copy)
