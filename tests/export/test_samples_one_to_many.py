"""Sample documents keep the one-to-many they illustrate (tryout item 4): a One that lists its N by id (child-refs)
lists each N alone — no N sits in two Ones' arrays — and an N's copy of its One names the One that lists it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from modeller.export import sample_documents
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.persistence import load_project
from modeller.rules import analyse

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _listed(docs: list[dict[str, Any]], array: str) -> Counter[Any]:
    return Counter(e["id"] if isinstance(e, dict) else e for d in docs for e in d.get(array) or [])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_part_is_listed_by_one_product_whose_name_it_copies(seed: int) -> None:
    project = load_project(SAMPLES / "product-parts.modeller.json")
    docs = sample_documents(analyse(project).design, project, n=10, seed=seed)
    listed = _listed(docs["products"], "parts")
    assert listed and max(listed.values()) == 1, f"parts listed by several products: {listed}"
    owner = {e["id"]: p["name"] for p in docs["products"] for e in p["parts"]}
    for part in docs["parts"]:
        if part["_id"] in owner:
            assert part["product_name"] == owner[part["_id"]]


def test_a_customers_addresses_by_id_are_each_listed_once() -> None:
    project = Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "shop",
            "entities": [
                {"id": "customer", "name": "Customer", "fields": [{"name": "name", "type": "string"}]},
                {"id": "address", "name": "Address", "fields": [{"name": "city", "type": "string"}]},
            ],
            "relationships": [
                {
                    "id": "addresses",
                    "one": "customer",
                    "many": "address",
                    "cardinality": "one-to-few",
                    "typical": 2,
                    "max": 5,
                    "strategy": "child-refs",
                }
            ],
        }
    )
    design = analyse(project).design
    docs = sample_documents(design, project, n=5)
    array = next(n.name for c in design.collections for n in c.shape if n.role == "child-refs")
    listed = _listed(docs["customer"], array)
    assert listed and max(listed.values()) == 1, f"addresses listed by several customers: {listed}"
