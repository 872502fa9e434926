"""Strategy changes in the migration script: documents of the OLD design, run through it on the stand-in of ``db``,
validate against the NEW validators and keep who belongs to whom; a second run changes nothing; a run killed
between batches completes when run again; schema_version is bumped once when the project versions its schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from bson_checker import LOAD_OPTIONS, errors
from js_harness import calls, node_check, run_scripts
from review_projects import BASE, edited, entity, project

from modeller.export.mongosh import mongosh_script
from modeller.export.samples import sample_documents
from modeller.export.validators import validator_document
from modeller.review import SchemaDiff, diff_projects
from modeller.review.migration import MARKERS, migration_script
from modeller.review.strategy_copies import Storage, storage

pytestmark = pytest.mark.node

#: the extended reference copies the product's title into each review
COPY = [{"field": "title", "direction": "one-to-many", "staleness": "days"}]


#: a query on the reviews of one product: it reads the reference (product_id, or product._id in an extended reference)
REVIEWS_OF_PRODUCT = {"id": "reviews_of_product", "entity": "review", "scope": "product_reviews", "per_sec": 10}


def _with(strategy: str, copies: bool = False, queried: bool = False) -> dict[str, Any]:
    def edit(d: dict[str, Any]) -> None:
        d["relationships"][0]["strategy"] = strategy
        if copies:
            d["relationships"][0]["denormalize"] = COPY
        if queried:
            d["queries"] = [REVIEWS_OF_PRODUCT]

    return edited(edit)


def _docs(recording: dict[str, Any], collection: str) -> list[dict[str, Any]]:
    text = json.dumps(recording["documents"]["shop"].get(collection, []))
    return json_util.loads(text, json_options=LOAD_OPTIONS)


def _pick(doc: Any, path: str) -> Any:
    for part in path.split("."):
        doc = doc.get(part) if isinstance(doc, dict) else None
    return doc


def _pairs(recording: dict[str, Any], where: Storage) -> set[tuple[str, str]]:
    """(product _id, review text) for every review the design links to a product."""
    assert where.parent is not None
    products = _docs(recording, where.parent)
    reviews = {str(r["_id"]): r for r in _docs(recording, where.child)} if where.child else {}
    out: set[tuple[str, str]] = set()
    for product in products:
        if where.embed is not None:
            value = product.get(where.embed)
            for item in value if isinstance(value, list) else [value] if value else []:
                out.add((str(product["_id"]), item.get("text")))
        elif where.refs is not None:
            for ref in product.get(where.refs) or []:
                if str(ref) in reviews:
                    out.add((str(product["_id"]), reviews[str(ref)].get("text")))
    if where.embed is None and where.refs is None and where.ref is not None:
        out.update((str(_pick(r, where.ref)), r.get("text")) for r in reviews.values() if _pick(r, where.ref))
    return out


def _run(diff: SchemaDiff, folder: Path, runs: int = 1, batch: int | None = None, **kw: Any) -> dict[str, Any]:
    setup = folder / "setup.mongosh.js"
    samples = sample_documents(diff.old_design, diff.old, n=6, seed=5)
    setup.write_text(mongosh_script(diff.old_design, diff.old, samples=samples), encoding="utf-8")
    migration = folder / "migration.mongosh.js"
    text = migration_script(diff)
    if batch is not None:
        text = text.replace("const BATCH = 1000;", f"const BATCH = {batch};", 1)
    migration.write_text(text, encoding="utf-8")
    node_check(migration)
    return run_scripts(migration, runs=runs, seeds=(setup,), **kw)


TRANSITIONS = [
    ("embed", "parent-ref", False, False),
    ("embed", "child-refs", False, False),
    ("embed", "extended-ref", True, False),
    ("parent-ref", "embed", False, False),
    ("child-refs", "embed", False, False),
    ("parent-ref", "child-refs", False, False),
    ("child-refs", "parent-ref", False, False),
    ("parent-ref", "extended-ref", True, False),
    ("extended-ref", "parent-ref", True, False),
    ("extended-ref", "embed", True, False),
    ("child-refs", "extended-ref", True, False),
    # with a query on the reference: the extended reference still holds the product's id once, as product._id
    # (no product_id beside it), and the query reads it there
    ("parent-ref", "extended-ref", True, True),
    ("extended-ref", "parent-ref", True, True),
    ("extended-ref", "embed", True, True),
    ("embed", "extended-ref", True, True),
]


@pytest.mark.parametrize(("old", "new", "copies", "queried"), TRANSITIONS, ids=lambda v: str(v))
def test_a_strategy_change_moves_every_link_into_the_new_shape(
    old: str, new: str, copies: bool, queried: bool, tmp_path: Path
) -> None:
    diff = diff_projects(project(_with(old, copies, queried)), project(_with(new, copies, queried)))
    kinds = [(c.details["old"], c.details["new"]) for c in diff.changes if c.kind == "strategy-changed"]
    assert kinds == [(old, new)]
    before_where = storage(diff.old_design, diff.old, "product_reviews")
    after_where = storage(diff.new_design, diff.new, "product_reviews")
    assert before_where is not None and after_where is not None
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text
    twice = _run(diff, tmp_path, runs=2)
    # who belongs to whom: the links the OLD samples hold, read from the NEW shape after the migration
    setup_only = run_scripts(tmp_path / "setup.mongosh.js", runs=1)
    before = _pairs(setup_only, before_where)
    assert before, "the samples link reviews to products"
    after = _pairs(twice, after_where)
    if old == "child-refs" and new in ("parent-ref", "extended-ref"):
        # random samples list a review under several products; one reference keeps one of them
        assert after <= before and {text for _, text in after} == {text for _, text in before}
    else:
        assert after == before
    if queried and new == "extended-ref":  # the id once, in product {_id, title}; the query's index is built on it
        review = diff.new_design.collection("review")
        assert review is not None and [n.name for n in review.shape] == ["_id", "text", "product"]
        assert [("product._id", 1)] in [list(i.keys) for i in review.indexes] and '{"product._id": 1}' in text
    for coll in diff.new_design.collections:
        for doc in _docs(twice, coll.name):
            if coll.root == "review" and after_where.ref is not None and _pick(doc, after_where.ref) is None:
                continue  # a review no product listed (random child-refs samples) has no product to point at
            assert errors(validator_document(coll), doc) == [], (coll.name, doc)
    for op in ("insertMany", "updateOne", "updateMany"):  # the second run finds every step done
        assert [c for c in calls(twice, 1, op) if c["collection"] != MARKERS] == [], op


@pytest.mark.parametrize(("old", "new"), [("embed", "child-refs"), ("parent-ref", "embed")])
def test_a_strategy_copy_killed_between_batches_completes_when_run_again(old: str, new: str, tmp_path: Path) -> None:
    diff = diff_projects(project(_with(old)), project(_with(new)))
    (tmp_path / "whole").mkdir()
    (tmp_path / "killed").mkdir()
    whole = _run(diff, tmp_path / "whole", runs=1, batch=2)
    killed = _run(diff, tmp_path / "killed", runs=2, batch=2, kill_after=1)
    assert killed["runs"][0].get("killed") is True

    def data(rec: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in rec["documents"]["shop"].items() if k != MARKERS}

    assert _pairs(killed, storage(diff.new_design, diff.new, "product_reviews")) == _pairs(  # type: ignore[arg-type]
        whole,
        storage(diff.new_design, diff.new, "product_reviews"),  # type: ignore[arg-type]
    )
    assert data(killed).keys() == data(whole).keys()


def test_schema_version_is_bumped_once_in_a_versioned_collection(tmp_path: Path) -> None:
    def versioned(d: dict[str, Any], version: int) -> None:
        product = entity(d, "product")
        product["schema_change"] = True
        product["fields"].append({"name": "schema_version", "type": "int", "example": version})

    def old_edit(d: dict[str, Any]) -> None:
        versioned(d, 3)

    def new_edit(d: dict[str, Any]) -> None:
        versioned(d, 3)
        entity(d, "product")["fields"].append({"name": "sku", "type": "string", "required": True, "example": "S"})

    diff = diff_projects(project(edited(old_edit)), project(edited(new_edit)))
    recording = _run(diff, tmp_path, runs=2)
    products = _docs(recording, "products")
    seeded = {
        doc["_id"]: doc.get("schema_version")
        for doc in _docs(run_scripts(tmp_path / "setup.mongosh.js", runs=1), "products")
    }
    assert products and any(v is None or v < 4 for v in seeded.values()), "some documents are older than version 4"
    for doc in products:  # OLD's 3 + 1, once over two runs; a document already newer keeps its version
        old_version = seeded[doc["_id"]]
        assert doc["schema_version"] == (4 if old_version is None or old_version < 4 else old_version)
    assert {doc["sku"] for doc in products} == {"S"}
    coll = diff.new_design.collection("products")
    assert coll is not None and all(errors(validator_document(coll), doc) == [] for doc in products)
    shops = _docs(recording, "shops")
    assert all("schema_version" not in doc for doc in shops), "an unversioned collection is left alone"
    text = migration_script(diff)
    assert text.count('"schema_version"') >= 2 and '"$lt": 4' in text


def test_an_unversioned_project_gets_no_schema_version() -> None:
    diff = diff_projects(project(BASE), project(_with("parent-ref")))
    assert "schema_version" not in migration_script(diff)
