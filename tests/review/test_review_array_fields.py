"""Field changes inside array elements in the migration script: rename, new required field with its default,
retype and move inside the element, in an array of the document and in an array inside its elements. Documents of the
OLD design, run through the script on the stand-in of ``db``, validate against the NEW validator and keep their
values; a second run changes nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bson import Int64, ObjectId, json_util
from bson_checker import LOAD_OPTIONS, errors
from js_harness import calls, node_check, run_scripts
from review_projects import edited, entity, project

from modeller.export.mongosh import mongosh_script
from modeller.export.samples import sample_documents
from modeller.export.validators import validator_document
from modeller.review import SchemaDiff, diff_projects
from modeller.review.migration import MARKERS, migration_script

pytestmark = pytest.mark.node


def _review(d: dict[str, Any]) -> list[dict[str, Any]]:
    """The embedded review's fields (BASE embeds reviews in products), with a rating, a city, a sub-document and
    an array of tags (an array inside each array element)."""
    fields: list[dict[str, Any]] = entity(d, "review")["fields"]
    return fields


def _old(d: dict[str, Any]) -> None:
    _review(d).extend(
        [
            {"name": "stars", "type": "int", "required": True},
            {"name": "city", "type": "string", "required": True},
            {"name": "meta", "type": "object", "fields": [{"name": "source", "type": "string"}]},
            {
                "name": "tags",
                "type": "array",
                "items": {"type": "object", "fields": [{"name": "name", "type": "string", "required": True}]},
            },
        ]
    )
    next(f for f in _review(d) if f["name"] == "text")["required"] = True


def _field(d: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in _review(d) if f["name"] == name)


def _rename(d: dict[str, Any]) -> None:
    _field(d, "text")["name"] = "body"


def _add(d: dict[str, Any]) -> None:
    _review(d).append({"name": "lang", "type": "string", "required": True, "example": "en"})


def _retype(d: dict[str, Any]) -> None:
    _field(d, "stars")["type"] = "long"


def _move(d: dict[str, Any]) -> None:
    city = _field(d, "city")
    _review(d).remove(city)
    _field(d, "meta")["fields"] = [*_field(d, "meta")["fields"], city]


def _rename_nested(d: dict[str, Any]) -> None:
    _field(d, "tags")["items"]["fields"][0]["name"] = "label"


def _add_nested(d: dict[str, Any]) -> None:
    _field(d, "tags")["items"]["fields"].append({"name": "weight", "type": "int", "required": True, "example": 1})


def _diff(edit: Callable[[dict[str, Any]], None]) -> SchemaDiff:
    def new(d: dict[str, Any]) -> None:
        _old(d)
        edit(d)

    return diff_projects(project(edited(_old)), project(edited(new)))


def _run(diff: SchemaDiff, folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The seeded OLD documents, and the recording of the migration run twice on them."""
    setup = folder / "setup.mongosh.js"
    setup.write_text(
        mongosh_script(diff.old_design, diff.old, samples=sample_documents(diff.old_design, diff.old, n=5))
    )
    migration = folder / "migration.mongosh.js"
    migration.write_text(migration_script(diff))
    node_check(migration)
    return run_scripts(setup, runs=1), run_scripts(migration, runs=2, seeds=(setup,))


def _products(recording: dict[str, Any]) -> list[dict[str, Any]]:
    text = json.dumps(recording["documents"]["shop"]["products"])
    return json_util.loads(text, json_options=LOAD_OPTIONS)


def _elements(products: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [review for p in products for review in p.get("reviews", [])]


CASES: list[tuple[str, Callable[[dict[str, Any]], None], str, Callable[[dict[str, Any], dict[str, Any]], bool]]] = [
    ("rename", _rename, "field-renamed", lambda o, n: n["body"] == o["text"] and "text" not in n),
    ("add", _add, "field-added", lambda o, n: n["lang"] == "en" and n["text"] == o["text"]),
    (
        "retype",
        _retype,
        "field-retyped",
        lambda o, n: isinstance(n["stars"], Int64) and n["stars"] == o["stars"],
    ),
    ("move", _move, "field-moved", lambda o, n: n["meta"]["city"] == o["city"] and "city" not in n),
    (
        "rename-nested",
        _rename_nested,
        "field-renamed",
        lambda o, n: (
            [t["label"] for t in n["tags"]] == [t["name"] for t in o["tags"]]
            and all("name" not in t for t in n["tags"])
        ),
    ),
    (
        "add-nested",
        _add_nested,
        "field-added",
        lambda o, n: [t["weight"] for t in n["tags"]] == [1] * len(o["tags"]),
    ),
]


@pytest.mark.parametrize(("name", "edit", "kind", "kept"), CASES, ids=[c[0] for c in CASES])
def test_a_field_inside_array_elements_is_migrated_in_each_element(
    name: str,
    edit: Callable[[dict[str, Any]], None],
    kind: str,
    kept: Callable[[dict[str, Any], dict[str, Any]], bool],
    tmp_path: Path,
) -> None:
    diff = _diff(edit)
    changes = [c for c in diff.changes if c.kind.startswith("field-")]
    assert [(c.kind, c.details["in_array"]) for c in changes] == [(kind, True)]
    assert kind == "field-added" or "($map over the array elements on" in changes[0].risk
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text and '"$map"' in text and '"$elemMatch"' in text
    seeded, twice = _run(diff, tmp_path)
    before = {p["_id"]: p for p in _products(seeded)}
    after = _products(twice)
    assert _elements(after), "the samples embed reviews"
    coll = diff.new_design.collection("products")
    assert coll is not None
    for product in after:
        assert errors(validator_document(coll), product) == [], product
        old_reviews = before[product["_id"]].get("reviews", [])
        assert len(product.get("reviews", [])) == len(old_reviews)
        assert all(kept(o, n) for o, n in zip(old_reviews, product.get("reviews", []), strict=True)), product
    # the OLD documents fail the NEW validator: the step is what makes them pass
    assert any(errors(validator_document(coll), p) for p in before.values())
    updates = calls(twice, 0, "updateMany")
    assert updates and all(u["modified"] > 0 for u in updates if u["collection"] == "products")
    assert [c for c in calls(twice, 1, "updateMany") if c["collection"] != MARKERS] == []
    assert (
        twice["documents"]["shop"]["products"]
        == run_scripts(tmp_path / "migration.mongosh.js", runs=1, seeds=(tmp_path / "setup.mongosh.js",))["documents"][
            "shop"
        ]["products"]
    )


def _edited_after_insert(d: dict[str, Any]) -> None:
    _field(d, "text")["updates_per_sec"] = 0.1  # a review's text is edited: one element is updated by its _id


def test_elements_edited_after_insert_each_get_an_id_of_their_own(tmp_path: Path) -> None:
    """Documents written while reviews had no _id (write-once elements) get one ObjectId per element, not one
    default for all; the other fields stay, the NEW validator takes them, and a second run changes nothing."""
    diff = _diff(_edited_after_insert)
    changes = [c for c in diff.changes if c.kind.startswith("field-")]
    assert [(c.kind, c.details["path"], c.details["in_array"]) for c in changes] == [
        ("field-added", "reviews._id", True)
    ]
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text and 'idElements("' in text
    seeded, twice = _run(diff, tmp_path)
    before = {p["_id"]: p for p in _products(seeded)}
    after = _products(twice)
    ids = [review["_id"] for review in _elements(after)]
    assert ids and len(set(ids)) == len(ids) and all(isinstance(i, ObjectId) for i in ids)
    coll = diff.new_design.collection("products")
    assert coll is not None
    for product in after:
        assert errors(validator_document(coll), product) == [], product
        kept = [{k: v for k, v in review.items() if k != "_id"} for review in product.get("reviews", [])]
        assert kept == before[product["_id"]].get("reviews", [])
    assert any(errors(validator_document(coll), p) for p in before.values())
    assert [c for c in calls(twice, 1, "updateOne") if c["collection"] != MARKERS] == []


def _moved_out(d: dict[str, Any]) -> None:
    city = _field(d, "city")
    _review(d).remove(city)
    entity(d, "product")["fields"].append(city)


def _run_with(diff: SchemaDiff, folder: Path, edit: Callable[[dict[str, list[dict[str, Any]]]], None]) -> Any:
    """The OLD samples changed by ``edit``, and the recording of the migration run twice on them."""
    samples = sample_documents(diff.old_design, diff.old, n=6, seed=3)
    edit(samples)
    setup = folder / "setup.mongosh.js"
    setup.write_text(mongosh_script(diff.old_design, diff.old, samples=samples))
    migration = folder / "migration.mongosh.js"
    migration.write_text(migration_script(diff))
    node_check(migration)
    return samples, run_scripts(migration, runs=2, seeds=(setup,))


def _cities(samples: dict[str, list[dict[str, Any]]]) -> None:
    """Every product's reviews share one city (its name), but the first product's reviews disagree."""
    products = [p for p in samples["products"] if len(p.get("reviews") or []) >= 2]
    assert len(products) >= 2, "the samples embed two reviews or more in some products"
    for product in samples["products"]:
        for i, review in enumerate(product.get("reviews") or []):
            review["city"] = f"city {i}" if product is products[0] else f"city of {product['title']}"


def test_a_field_moved_out_of_array_elements_takes_the_value_they_share(tmp_path: Path) -> None:
    diff = _diff(_moved_out)
    moved = [c for c in diff.changes if c.kind == "field-moved"]
    assert [(c.details["old"], c.details["new"]) for c in moved] == [("reviews.city", "city")]
    text = migration_script(diff)
    [line] = [line for line in text.splitlines() if "NOT MIGRATED" in line]
    assert line.lstrip().startswith("//") and "where the elements disagree" in line
    assert (
        'find({"$and": [{"city": {"$exists": false}}, {"reviews": {"$elemMatch": {"city": {"$exists": true}}}}]})'
        in line
    )
    samples, twice = _run_with(diff, tmp_path, _cities)
    coll = diff.new_design.collection("products")
    assert coll is not None
    after = {str(p["_id"]): p for p in _products(twice)}
    mixed = [p for p in samples["products"] if len({r["city"] for r in p.get("reviews") or []}) > 1]
    assert len(mixed) == 1
    for product in samples["products"]:
        now = after[str(product["_id"])]
        cities = {r["city"] for r in product.get("reviews") or []}
        if len(cities) == 1:
            assert now["city"] == cities.pop()
            assert errors(validator_document(coll), now) == [], now
        else:  # left as it is, and the run says how many
            assert "city" not in now and now["reviews"] == json.loads(json_util.dumps(product["reviews"]))
    assert any(
        "1 document(s) whose elements hold different values left as they are" in p for p in twice["runs"][0]["prints"]
    )
    assert [c for c in calls(twice, 1, "updateOne") if c["collection"] != MARKERS] == []


def test_a_field_moved_into_array_elements_copies_the_documents_value_into_each(tmp_path: Path) -> None:
    def into(d: dict[str, Any]) -> None:
        brand = next(f for f in entity(d, "product")["fields"] if f["name"] == "brand")
        entity(d, "product")["fields"].remove(brand)
        _review(d).append(brand)

    def old(d: dict[str, Any]) -> None:
        _old(d)
        entity(d, "product")["fields"].append({"name": "brand", "type": "string", "required": True})

    def new(d: dict[str, Any]) -> None:
        old(d)
        into(d)

    diff = diff_projects(project(edited(old)), project(edited(new)))
    moved = [c for c in diff.changes if c.kind == "field-moved"]
    assert [(c.details["old"], c.details["new"]) for c in moved] == [("brand", "reviews.brand")]
    text = migration_script(diff)
    assert "NOT MIGRATED" not in text
    samples, twice = _run_with(diff, tmp_path, lambda s: None)
    coll = diff.new_design.collection("products")
    assert coll is not None
    after = {str(p["_id"]): p for p in _products(twice)}
    assert _elements(list(after.values())), "the samples embed reviews"
    for product in samples["products"]:
        now = after[str(product["_id"])]
        assert [r["brand"] for r in now.get("reviews") or []] == [product["brand"]] * len(product.get("reviews") or [])
        assert errors(validator_document(coll), now) == [], now
    assert [c for c in calls(twice, 1, "updateMany") if c["collection"] != MARKERS] == []


def test_a_hostile_field_name_inside_array_elements_stays_a_string_literal(tmp_path: Path) -> None:
    hostile = 'bo"dy</script>\u2028${z}'

    def edit(d: dict[str, Any]) -> None:
        _field(d, "text")["name"] = hostile

    diff = _diff(edit)
    text = migration_script(diff)
    assert hostile not in text and json.dumps(hostile).replace("</", "<\\/").replace("\u2028", "\\u2028") in text
    seeded, twice = _run(diff, tmp_path)
    before = {p["_id"]: p for p in _products(seeded)}
    for product in _products(twice):
        old = before[product["_id"]].get("reviews", [])
        assert [r[hostile] for r in product.get("reviews", [])] == [r["text"] for r in old]
    assert _elements(_products(twice)), "the samples embed reviews"
