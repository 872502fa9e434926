"""The migration script: valid JavaScript, brings documents of the OLD design to the NEW validator, changes nothing
when run again, and completes when re-run after being killed between two batches (Node stand-in of ``db``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from bson_checker import LOAD_OPTIONS, errors
from js_harness import calls, node_check, run_scripts
from review_projects import BASE, edited, entity, field, project

from modeller.export.mongosh import mongosh_script
from modeller.export.samples import sample_documents
from modeller.export.validators import validator_document
from modeller.review import SchemaDiff, diff_projects
from modeller.review.migration import MARKERS, migration_script

pytestmark = pytest.mark.node

HOSTILE = 'ci"ty</script>\u2028${x}'


def _many_changes(d: dict[str, Any]) -> None:
    shop = entity(d, "shop")
    shop["collection"] = "stores"
    city = field(d, "shop", "city")
    shop["fields"].remove(city)
    field(d, "shop", "address")["fields"].append(city)  # moved into a sub-document
    field(d, "shop", "name")["name"] = HOSTILE  # renamed to a hostile name
    product = entity(d, "product")
    field(d, "product", "price")["type"] = "long"  # retyped
    product["fields"].append({"name": "sku", "type": "string", "required": True, "example": "SKU-1"})
    product["fields"].append({"name": "stock", "type": "int", "required": True})
    product["indexes"] = [{"keys": [["price", -1]], "name": "by_price"}]  # by_title removed, by_price added
    d["entities"].append(
        {"id": "order", "name": "Order", "collection": "orders", "fields": [{"name": "n", "type": "int"}]}
    )


@pytest.fixture(scope="module")
def diff() -> SchemaDiff:
    return diff_projects(project(BASE), project(edited(_many_changes)))


@pytest.fixture(scope="module")
def scripts(diff: SchemaDiff, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("migration")
    setup = folder / "setup.mongosh.js"
    setup.write_text(
        mongosh_script(diff.old_design, diff.old, samples=sample_documents(diff.old_design, diff.old, n=5))
    )
    migration = folder / "migration.mongosh.js"
    migration.write_text(migration_script(diff))
    return setup, migration


def _docs(recording: dict[str, Any], collection: str) -> list[dict[str, Any]]:
    text = json.dumps(recording["documents"]["shop"].get(collection, []))
    return json_util.loads(text, json_options=LOAD_OPTIONS)


def test_the_script_is_valid_javascript_and_quotes_every_name(scripts: tuple[Path, Path]) -> None:
    node_check(scripts[1])
    text = scripts[1].read_text()
    assert HOSTILE not in text and "</script>" not in text and "\u2028" not in text
    assert json.dumps(HOSTILE).replace("</", "<\\/").replace("\u2028", "\\u2028") in text


def test_documents_of_the_old_design_validate_against_the_new_one(diff: SchemaDiff, scripts: tuple[Path, Path]) -> None:
    setup, migration = scripts
    recording = run_scripts(migration, runs=1, seeds=(setup,))
    assert "shops" not in recording["documents"]["shop"], "the collection was renamed"
    for coll in diff.new_design.collections:
        docs = _docs(recording, coll.name)
        if coll.name == "orders":
            assert docs == []
            continue
        assert len(docs) == 5, coll.name
        for doc in docs:
            assert errors(validator_document(coll), doc) == [], (coll.name, doc)
    stores = _docs(recording, "stores")
    assert all("city" not in doc and HOSTILE in doc and "name" not in doc for doc in stores)
    products = _docs(recording, "products")
    assert {doc["sku"] for doc in products} == {"SKU-1"} and {doc["stock"] for doc in products} == {0}
    assert all(type(doc["price"]).__name__ == "Int64" for doc in products)
    options = recording["state"]["databases"]["shop"]["collections"]["products"]["options"]
    assert (options["validationLevel"], options["validationAction"]) == ("moderate", "warn")
    hidden = [c for c in calls(recording, 0, "hideIndex")]
    assert [(c["collection"], c["name"]) for c in hidden] == [("products", "by_title")]
    assert calls(recording, 0, "dropIndex") == [], "dropping an index is a commented step"


def test_a_second_run_changes_nothing(scripts: tuple[Path, Path]) -> None:
    setup, migration = scripts
    once = run_scripts(migration, runs=1, seeds=(setup,))
    twice = run_scripts(migration, runs=2, seeds=(setup,))
    assert twice["documents"] == once["documents"]
    for op in ("updateMany", "createCollection", "renameCollection", "hideIndex", "dropIndex"):
        assert calls(twice, 1, op) == [], op
    assert any("done in an earlier run" in line for line in twice["runs"][1]["prints"])


def test_a_run_killed_between_batches_completes_when_run_again(scripts: tuple[Path, Path], tmp_path: Path) -> None:
    setup, migration = scripts
    small = tmp_path / "migration.mongosh.js"
    small.write_text(migration.read_text().replace("const BATCH = 1000;", "const BATCH = 2;", 1))
    whole = run_scripts(small, runs=1, seeds=(setup,))
    killed = run_scripts(small, runs=2, seeds=(setup,), kill_after=4)
    assert killed["runs"][0].get("killed") is True
    assert len(calls(killed, 0, "updateMany")) == 4
    resumed = calls(killed, 1, "updateMany")
    assert len(resumed) == len(calls(whole, 0, "updateMany")) - 4, "the re-run continues, it does not start over"
    strip = {k: v for k, v in killed["documents"]["shop"].items() if k != MARKERS}
    assert strip == {k: v for k, v in whole["documents"]["shop"].items() if k != MARKERS}


def test_removed_fields_are_left_to_the_dba_while_a_strategy_change_is_copied() -> None:
    def edit(d: dict[str, Any]) -> None:
        entity(d, "shop")["fields"].remove(field(d, "shop", "city"))
        d["relationships"][0]["strategy"] = "single-collection"

    text = migration_script(diff_projects(project(BASE), project(edited(edit))))
    for name in ("city", "reviews"):  # a removed field, and the embedded copies the strategy change leaves
        unset = [line for line in text.splitlines() if f'"$unset": {{"{name}": ""}}' in line]
        assert unset and all(line.lstrip().startswith("//") for line in unset), name
    assert "NOT MIGRATED" not in text
    calls_made = [line.strip() for line in text.splitlines() if line.startswith("  ") and not line.startswith("   ")]
    assert [line.split("(")[0] for line in calls_made if line.startswith(("shareEmbedded(", "migrate("))] == [
        "shareEmbedded",
        "migrate",
    ]


def test_a_removed_collection_is_dropped_only_by_hand() -> None:
    text = migration_script(diff_projects(project(BASE), project(edited(lambda d: d["entities"].pop(0)))))
    drops = [line.strip() for line in text.splitlines() if ".drop()" in line]
    assert drops == ['// target.getCollection("shops").drop();']


def test_embedded_documents_are_copied_out_once(tmp_path: Path) -> None:
    """embed -> parent-ref: every embedded review becomes a review document pointing at its product."""
    diff = diff_projects(project(BASE), project(edited(lambda d: d["relationships"][0].update(strategy="parent-ref"))))
    setup = tmp_path / "setup.mongosh.js"
    setup.write_text(
        mongosh_script(diff.old_design, diff.old, samples=sample_documents(diff.old_design, diff.old, n=4))
    )
    migration = tmp_path / "migration.mongosh.js"
    migration.write_text(migration_script(diff))
    node_check(migration)
    recording = run_scripts(migration, runs=2, seeds=(setup,))
    products = _docs(recording, "products")
    reviews = _docs(recording, "review")
    embedded = [(p["_id"], r["text"]) for p in products for r in p.get("reviews", [])]
    assert embedded, "the samples embed reviews"
    child = diff.new_design.collection("review")
    assert child is not None
    ref = next(n.name for n in child.shape if n.role == "parent-ref")
    assert sorted((r[ref], r["text"]) for r in reviews) == sorted(embedded)
    for doc in reviews:
        assert errors(validator_document(child), doc) == [], doc
    assert calls(recording, 1, "insertMany") == [], "the second run copies nothing"
