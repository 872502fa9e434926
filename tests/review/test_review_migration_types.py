"""Removing a field's other types (what ``mixed-types`` asks) converts the values of those types, as a retype does.

Tryout a13 item 5: NEW dropped ``other_types`` of ``products.price`` and the migration had no data step, so
the string prices stayed and ``apply`` later said only that documents fail the validator. Run in the Node
stand-in of ``db`` (tests/export/js): what converts is converted, what cannot ("n/a") is kept, counted and
found with the query the script prints; a second run changes nothing.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from js_harness import calls, node_check, run_scripts

from modeller.model.project import Project
from modeller.review import diff_projects
from modeller.review.migration import migration_script

pytestmark = pytest.mark.node

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
            "fields": [
                {"name": "title", "type": "string", "required": True},
                {"name": "price", "type": "double", "other_types": ["string", "int"], "required": True},
                {
                    "name": "sizes",
                    "type": "array",
                    "items": {
                        "type": "object",
                        "fields": [{"name": "grams", "type": "int", "other_types": ["string"]}],
                    },
                },
            ],
        }
    ],
}
SEED = """(function () {
  const target = db.getSiblingDB("shop");
  target.createCollection("products");
  target.getCollection("products").insertMany([
    { _id: 1, title: "a", price: 9.5, sizes: [{ grams: 5 }] },
    { _id: 2, title: "b", price: "12.50", sizes: [{ grams: "250" }, { grams: 7 }] },
    { _id: 3, title: "c", price: 3, sizes: [{ grams: "heavy" }] },
    { _id: 4, title: "d", price: "n/a" },
  ]);
})();
"""


def _without_other_types() -> dict[str, Any]:
    new = copy.deepcopy(OLD)
    fields = new["entities"][0]["fields"]
    del fields[1]["other_types"]
    del fields[2]["items"]["fields"][0]["other_types"]
    return new


def test_removed_other_types_are_converted_and_what_cannot_be_is_counted(tmp_path: Path) -> None:
    diff = diff_projects(Project.model_validate(OLD), Project.model_validate(_without_other_types()))
    constraint = [c for c in diff.changes if c.kind == "field-constraint"]
    assert {c.subject: c.details["dropped_types"] for c in constraint} == {
        "price": ["int", "string"],
        "sizes.grams": ["string"],
    }
    script = migration_script(diff)
    assert script.count("$convert") >= 2
    assert 'target.getCollection("products").find({"price": {"$type": ["int", "string"]}})' in script
    migration = tmp_path / "migration.mongosh.js"
    migration.write_text(script)
    node_check(migration)
    seed = tmp_path / "seed.js"
    seed.write_text(SEED)
    recording = run_scripts(migration, runs=2, seeds=(seed,))
    docs = {d["_id"]["$numberInt"]: d for d in recording["documents"]["shop"]["products"]}
    assert {k: d["price"] for k, d in docs.items()} == {
        "1": {"$numberDouble": "9.5"},
        "2": {"$numberDouble": "12.5"},
        "3": {"$numberDouble": "3.0"},
        "4": "n/a",  # $convert cannot: kept, counted, found by the printed query
    }
    assert [[e["grams"] for e in d.get("sizes", [])] for d in docs.values()] == [
        [{"$numberInt": "5"}],
        [{"$numberInt": "250"}, {"$numberInt": "7"}],
        ["heavy"],
        [],
    ]
    prints = recording["runs"][0]["prints"]
    assert (
        'products: "price": 1 document(s) hold a value $convert cannot change; fix them by hand: '
        'target.getCollection("products").find({"price":{"$type":["int","string"]}})'
    ) in prints
    assert (
        'products: "sizes.grams": 1 document(s) hold a value $convert cannot change; fix them by hand: '
        'target.getCollection("products").find({"sizes":{"$elemMatch":{"grams":{"$type":["string"]}}}})'
    ) in prints
    # a second run converts nothing more
    assert calls(recording, 1, "updateMany") == []
    assert any("done in an earlier run" in line for line in recording["runs"][1]["prints"])
