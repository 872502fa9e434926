"""A strategy change moves an entity's fields with it (reviews embedded into products, or taken out): a bound, a
type or a required flag tightened on such a field in the same edit is listed as its own change, under its NEW
path, naming where it was (tryout item 6: the rating enum [1..5] on embedded reviews went unmentioned)."""

from __future__ import annotations

from typing import Any

from review_projects import BASE, edited, entity, field, project

from modeller.review import diff_projects
from modeller.review.changes import Change


def _reviews_apart(d: dict[str, Any]) -> None:
    """Reviews in their own collection, each naming its product (the tryout's v1)."""
    entity(d, "review")["collection"] = "reviews"
    entity(d, "review")["fields"].append({"name": "rating", "type": "int", "required": True})
    d["relationships"][0]["strategy"] = "parent-ref"


def _reviews_embedded_and_tightened(d: dict[str, Any]) -> None:
    """The tryout's v2: reviews embedded into products, their rating limited to 1..5 and the text required."""
    _reviews_apart(d)
    d["relationships"][0]["strategy"] = "embed"
    del entity(d, "review")["collection"]
    field(d, "review", "rating")["enum"] = [1, 2, 3, 4, 5]
    field(d, "review", "text")["required"] = True


def _moved(changes: list[Change]) -> dict[tuple[str, str], Change]:
    return {(c.kind, c.subject): c for c in changes if "(was " in c.summary}


def test_a_tightened_enum_on_a_field_embedded_with_its_entity_is_listed() -> None:
    diff = diff_projects(project(edited(_reviews_apart)), project(edited(_reviews_embedded_and_tightened)))
    moved = _moved(diff.changes)
    enum = moved[("field-constraint", "reviews.rating")]
    assert enum.collection == "products" and enum.breaking
    assert enum.summary == '"reviews.rating" (was "rating" in "reviews"): allowed values any -> [1, 2, 3, 4, 5]'
    assert enum.risk.startswith("existing documents outside the new bound fail the new validator (200k documents")
    required = moved[("field-required", "reviews.text")]
    assert required.breaking and required.summary == '"reviews.text" (was "text" in "reviews") is now required'
    assert required.details["in_array"] is True
    assert set(moved) == {("field-constraint", "reviews.rating"), ("field-required", "reviews.text")}, "only these"


def test_a_field_taken_out_with_its_entity_is_compared_too() -> None:
    def tightened_apart(d: dict[str, Any]) -> None:
        _reviews_apart(d)
        field(d, "review", "rating")["enum"] = [1, 2, 3]

    def embedded(d: dict[str, Any]) -> None:
        _reviews_apart(d)
        d["relationships"][0]["strategy"] = "embed"
        del entity(d, "review")["collection"]

    diff = diff_projects(project(edited(embedded)), project(edited(tightened_apart)))
    (change,) = _moved(diff.changes).values()
    assert change.kind == "field-constraint" and change.collection == "reviews" and change.subject == "rating"
    assert change.summary == '"rating" (was "reviews.rating" in "products"): allowed values any -> [1, 2, 3]'


def test_an_unchanged_field_that_moves_with_its_entity_adds_nothing() -> None:
    def embedded(d: dict[str, Any]) -> None:
        _reviews_apart(d)
        d["relationships"][0]["strategy"] = "embed"
        del entity(d, "review")["collection"]

    diff = diff_projects(project(edited(_reviews_apart)), project(edited(embedded)))
    assert _moved(diff.changes) == {}
    assert [c.kind for c in diff.changes if c.kind.startswith("strategy")] == ["strategy-changed"]
    assert BASE["relationships"][0]["strategy"] == "embed", "the shared project is not edited"


def test_embedding_says_the_copies_keep_no_id_and_the_old_collection_stays() -> None:
    diff = diff_projects(project(edited(_reviews_apart)), project(BASE))
    (change,) = [c for c in diff.changes if c.kind == "strategy-changed"]
    assert change.risk.endswith(
        "; each embedded Review keeps no _id (the design gives embedded documents none), so nothing outside can "
        'point at one any more; the documents of "reviews" stay until you drop that collection'
    )
    back = diff_projects(project(BASE), project(edited(_reviews_apart)))
    (out,) = [c for c in back.changes if c.kind == "strategy-changed"]
    assert "_id" not in out.risk, "copying out loses nothing"
