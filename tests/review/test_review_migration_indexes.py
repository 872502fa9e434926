"""The migration's indexes: every index NEW needs stands before an old one is hidden, whatever the database got.

Tryout a13 item 3: an inferred OLD "has" the engine's advised indexes, which the database never got (only
``apply`` or a setup script creates them); NEW dropped the inferred ``{product_id: 1}`` for the advised
``{product_id: 1, at: -1}``, so the diff saw no new index and the script hid the only one the product page had.
Run in the Node stand-in of ``db`` (tests/export/js), seeded with the database as inference found it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from js_harness import calls, node_check, run_scripts
from review_projects import BASE, edited, entity, project

from modeller.export.mongosh import mongosh_script
from modeller.model.project import Project
from modeller.review import diff_projects
from modeller.review.migration import migration_script

pytestmark = pytest.mark.node

#: the database as ``infer`` found it: reviews with their one index, none of the engine's
OLD: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 2,
    "name": "Shop",
    "database": "shop",
    "entities": [
        {
            "id": "product",
            "name": "Product",
            "collection": "products",
            "count": 600,
            "fields": [{"name": "title", "type": "string", "required": True}],
        },
        {
            "id": "review",
            "name": "Review",
            "collection": "reviews",
            "count": 2000,
            "fields": [{"name": "at", "type": "date", "required": True}, {"name": "text", "type": "string"}],
            "indexes": [{"keys": [["product_id", 1]], "name": "product_id_1"}],
        },
    ],
    "relationships": [
        {
            "id": "product_reviews",
            "one": "product",
            "many": "review",
            "inverse": "product",
            "cardinality": "one-to-many",
            "max": 500,
            "many_standalone": True,
            "strategy": "parent-ref",
        }
    ],
    "queries": [
        {
            "id": "page",
            "name": "product page",
            "entity": "review",
            "scope": "product_reviews",
            "sort": [["at", -1]],
            "limit": 10,
            "per_sec": 500,
        }
    ],
}


def _new(indexes: list[dict[str, Any]]) -> dict[str, Any]:
    new = copy.deepcopy(OLD)
    new["entities"][1]["indexes"] = indexes
    return new


def _seed(tmp_path: Path, indexes: list[tuple[dict[str, int], dict[str, Any]]]) -> Path:
    """A script leaving the database as inference found it: the collections, and only ``indexes`` on reviews."""
    lines = ['  const target = db.getSiblingDB("shop");']
    lines += [f"  target.createCollection({json.dumps(n)});" for n in ("products", "reviews")]
    lines += [
        f'  target.getCollection("reviews").createIndex({json.dumps(keys)}, {json.dumps(options)});'
        for keys, options in indexes
    ]
    seed = tmp_path / "seed.js"
    seed.write_text("(function () {\n" + "\n".join(lines) + "\n})();\n")
    return seed


def _migration(tmp_path: Path, new: dict[str, Any]) -> tuple[Path, str]:
    script = migration_script(diff_projects(Project.model_validate(OLD), Project.model_validate(new)))
    path = tmp_path / "migration.mongosh.js"
    path.write_text(script)
    node_check(path)
    return path, script


def _indexes(recording: dict[str, Any]) -> dict[str, tuple[list[Any], bool]]:
    found = recording["state"]["databases"]["shop"]["collections"]["reviews"]["indexes"]
    return {ix["name"]: (ix["key"], bool(ix["options"].get("hidden"))) for ix in found}


def test_the_index_new_needs_is_created_before_the_old_one_is_hidden(tmp_path: Path) -> None:
    migration, script = _migration(tmp_path, _new([]))
    assert script.index('needIndex("reviews", {"product_id": 1, "at": -1}') < script.index(
        'hideIndex("reviews", "product_id_1")'
    )
    seed = _seed(tmp_path, [({"product_id": 1}, {"name": "product_id_1"})])
    recording = run_scripts(migration, runs=2, seeds=(seed,))
    first = [
        (c["op"], c["name"] if c["op"] == "hideIndex" else c["options"]["name"])
        for c in calls(recording, 0)
        if c["op"] in ("createIndex", "hideIndex")
    ]
    assert first == [("createIndex", "product_id_1_at_-1"), ("hideIndex", "product_id_1")]
    assert _indexes(recording) == {
        "product_id_1": ([["product_id", 1]], True),
        "product_id_1_at_-1": ([["product_id", 1], ["at", -1]], False),
    }
    assert 'created index "product_id_1_at_-1" on "reviews"' in recording["runs"][0]["prints"]
    # a second run finds everything in place: it creates, hides and claims nothing
    for op in ("createIndex", "hideIndex", "unhideIndex"):
        assert calls(recording, 1, op) == [], op
    assert not any("created" in line or "hid " in line for line in recording["runs"][1]["prints"])


def test_an_index_new_needs_that_the_database_holds_hidden_is_unhidden(tmp_path: Path) -> None:
    migration, _ = _migration(tmp_path, _new([]))
    seed = _seed(
        tmp_path,
        [
            ({"product_id": 1}, {"name": "product_id_1"}),
            ({"product_id": 1, "at": -1}, {"name": "product_id_1_at_-1", "hidden": True}),
        ],
    )
    recording = run_scripts(migration, runs=1, seeds=(seed,))
    assert [c["name"] for c in calls(recording, 0, "unhideIndex")] == ["product_id_1_at_-1"]
    assert calls(recording, 0, "createIndex") == []
    assert _indexes(recording)["product_id_1_at_-1"] == ([["product_id", 1], ["at", -1]], False)


def test_an_index_new_names_otherwise_is_not_hidden_under_its_old_name(tmp_path: Path) -> None:
    """NEW declares the advised index as ``by_product``: the database's index of those keys serves it and stays."""
    migration, script = _migration(tmp_path, _new([{"keys": [["product_id", 1], ["at", -1]], "name": "by_product"}]))
    assert 'hideIndex("reviews", "product_id_1_at_-1")' not in script
    assert 'index "product_id_1_at_-1" stays: it has the keys of NEW\'s index "by_product"' in script
    seed = _seed(
        tmp_path,
        [
            ({"product_id": 1}, {"name": "product_id_1"}),
            ({"product_id": 1, "at": -1}, {"name": "product_id_1_at_-1"}),
        ],
    )
    recording = run_scripts(migration, runs=1, seeds=(seed,))
    assert calls(recording, 0, "createIndex") == []  # the keys are indexed: no second index, no conflict
    assert [c["name"] for c in calls(recording, 0, "hideIndex")] == ["product_id_1"]
    assert _indexes(recording)["product_id_1_at_-1"] == ([["product_id", 1], ["at", -1]], False)


def test_a_second_run_claims_nothing_it_did_not_do(tmp_path: Path) -> None:
    """Tryout a13 item 11: a no-op re-run still printed ``index ... on ...`` and ``options updated with collMod``."""

    def change(d: dict[str, Any]) -> None:
        entity(d, "product")["fields"].append({"name": "sku", "type": "string", "required": True, "example": "S-1"})
        entity(d, "product")["indexes"].append({"keys": [["sku", 1]], "name": "by_sku"})
        d["entities"].append(
            {"id": "order", "name": "Order", "collection": "orders", "fields": [{"name": "n", "type": "int"}]}
        )

    old, new = project(BASE), project(edited(change))
    diff = diff_projects(old, new)
    setup = tmp_path / "setup.mongosh.js"
    setup.write_text(mongosh_script(diff.old_design, old))
    migration = tmp_path / "migration.mongosh.js"
    migration.write_text(migration_script(diff))
    node_check(migration)
    recording = run_scripts(migration, runs=2, seeds=(setup,))
    first, second = (recording["runs"][n]["prints"] for n in (0, 1))
    assert 'created collection "orders"' in first and 'created index "by_sku" on "products"' in first
    assert any("options updated with collMod" in line for line in first)  # the rollout of the new validator
    assert not [line for line in second if "created" in line or "updated" in line or line.startswith("hid ")]
    assert 'collection "orders" already has these options' in second
    assert 'collection "products" already has these options' in second
    for op in ("createCollection", "createIndex", "collMod", "hideIndex"):
        assert calls(recording, 1, op) == [], op
