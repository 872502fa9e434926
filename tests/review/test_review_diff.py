"""``diff(old, new)``: every change kind, with its risk, from before/after pairs of a small project."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from review_projects import BASE, edited, entity, field, project

from modeller.review import diff_analyses, diff_projects
from modeller.review.changes import SCHEMA_KINDS
from modeller.rules import analyse


def _add_entity(d: dict[str, Any]) -> None:
    d["entities"].append(
        {"id": "order", "name": "Order", "collection": "orders", "fields": [{"name": "n", "type": "int"}]}
    )


def _move_city(d: dict[str, Any]) -> None:
    fields = entity(d, "shop")["fields"]
    city = field(d, "shop", "city")
    fields.remove(city)
    field(d, "shop", "address")["fields"].append(city)


def _remove(ident: str, name: str) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        entity(d, ident)["fields"].remove(field(d, ident, name))

    return edit


def _set(ident: str, field_name: str, **values: Any) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        field(d, ident, field_name).update(values)

    return edit


def _append(ident: str, new: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    return lambda d: entity(d, ident)["fields"].append(new)


def _entity(ident: str, **values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: entity(d, ident).update(values)


def _hot_query(d: dict[str, Any]) -> None:
    d["queries"] = [{"id": "by_city", "entity": "shop", "filter": {"city": "eq"}, "per_sec": 100, "hot": True}]


#: (edit, expected schema changes [(kind, collection, subject, breaking, risk fragment)], exact)
CASES: dict[str, tuple[Callable[[dict[str, Any]], None], list[tuple[str, str, str, bool, str]], bool]] = {
    "collection added": (_add_entity, [("collection-added", "orders", "orders", False, "starts empty")], True),
    "collection removed": (
        lambda d: d["entities"].remove(entity(d, "shop")),
        [("collection-removed", "shops", "shops", True, "queries on it break; its 1k documents stay")],
        True,
    ),
    "collection renamed": (
        _entity("shop", collection="stores"),
        [("collection-renamed", "stores", "stores", True, "renameCollection moves 1k documents")],
        True,
    ),
    "optional field added": (
        _append("shop", {"name": "phone", "type": "string"}),
        [("field-added", "shops", "phone", False, "none: existing documents may lack")],
        True,
    ),
    "required field added": (
        _append("product", {"name": "sku", "type": "string", "required": True}),
        [
            (
                "field-added",
                "products",
                "sku",
                True,
                "existing documents fail the new validator until they get a default (50k documents",
            )
        ],
        True,
    ),
    "field removed": (
        _remove("shop", "city"),
        [("field-removed", "shops", "city", True, "the values stay in 1k documents")],
        True,
    ),
    "field renamed": (
        _set("shop", "city", name="town"),
        [("field-renamed", "shops", "town", True, "until renamed ($rename on 1k documents)")],
        True,
    ),
    "field retyped": (
        _set("product", "price", type="decimal"),
        [("field-retyped", "products", "price", True, "until converted ($convert on 50k documents)")],
        True,
    ),
    "field moved into a sub-document": (
        _move_city,
        [("field-moved", "shops", "address.city", True, "until moved ($rename on 1k documents)")],
        True,
    ),
    "field now required": (
        _set("shop", "city", required=True),
        [("field-required", "shops", "city", True, 'without "city" fail the new validator')],
        True,
    ),
    "field now optional": (
        _set("shop", "name", required=False),
        [("field-optional", "shops", "name", False, "none: documents may now omit it")],
        True,
    ),
    "enum narrowed": (
        _set("shop", "rating", enum=[1, 2]),
        [("field-constraint", "shops", "rating", True, "outside the new bound fail the new validator")],
        True,
    ),
    "enum widened": (
        _set("shop", "rating", enum=[1, 2, 3, 4]),
        [("field-constraint", "shops", "rating", False, "none: the bound is looser")],
        True,
    ),
    "other types added": (
        _set("shop", "city", other_types=["int", "null"]),
        [("field-constraint", "shops", "city", False, "none: the bound is looser")],
        True,
    ),
    "index added": (
        _entity(
            "product",
            indexes=[{"keys": [["title", 1]], "name": "by_title"}, {"keys": [["price", -1]], "name": "by_price"}],
        ),
        [("index-added", "products", "by_price", False, "index build on 50k documents")],
        True,
    ),
    "unique index added": (
        _entity(
            "product",
            indexes=[
                {"keys": [["title", 1]], "name": "by_title"},
                {"keys": [["price", -1]], "name": "by_price", "unique": True},
            ],
        ),
        [("index-added", "products", "by_price", True, "existing duplicates make the build fail")],
        True,
    ),
    "index removed": (
        _entity("product", indexes=[]),
        [("index-removed", "products", "by_title", False, "hide it first, drop it later")],
        True,
    ),
    "index changed": (
        _entity("product", indexes=[{"keys": [["title", 1]], "name": "by_title", "unique": True}]),
        [("index-changed", "products", "by_title", True, "dropped and rebuilt: index build on 50k documents")],
        True,
    ),
    "strategy changed": (
        lambda d: d["relationships"][0].update(strategy="parent-ref"),
        [
            ("strategy-changed", "review", "Product -> reviews", True, "200k documents must be copied"),
            ("collection-added", "review", "review", False, "starts empty"),
            ("field-removed", "products", "reviews", True, "the values stay in 50k documents"),
        ],
        False,
    ),
    "hot query: an engine index": (
        _hot_query,
        [("index-added", "shops", "city_1", False, "index build on 1k documents")],
        True,
    ),
}


def _schema_changes(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str, str, bool, str]]:
    diff = diff_projects(project(old), project(new))
    return [(c.kind, c.collection, c.subject, c.breaking, c.risk) for c in diff.changes if c.kind in SCHEMA_KINDS]


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_each_change_kind_with_its_risk(case: str) -> None:
    edit, expected, exact = CASES[case]
    got = _schema_changes(BASE, edited(edit))
    for kind, collection, subject, breaking, risk in expected:
        match = [g for g in got if g[:3] == (kind, collection, subject)]
        assert match, f"{case}: no {kind} of {subject!r} in {collection!r}; got {got}"
        assert match[0][3] is breaking, f"{case}: {kind} breaking should be {breaking}: {match[0]}"
        assert risk in match[0][4], f"{case}: risk {match[0][4]!r} does not say {risk!r}"
    if exact:
        assert len(got) == len(expected), f"{case}: expected only {expected}, got {got}"


def test_other_types_removed_are_a_tighter_bound() -> None:
    """A type the validator no longer accepts refuses the documents holding it: breaking, and named."""
    wide = edited(_set("shop", "city", other_types=["int", "null"]))
    narrow = edited(_set("shop", "city", other_types=["null"]))
    (change,) = [c for c in diff_projects(project(wide), project(narrow)).changes if c.kind in SCHEMA_KINDS]
    assert (change.kind, change.subject, change.breaking) == ("field-constraint", "city", True)
    assert "other types [int, null] -> [null]" in change.summary


def test_reverse_of_an_edit_is_its_opposite() -> None:
    new = edited(_add_entity)
    kinds = [c.kind for c in diff_projects(project(new), project(BASE)).changes if c.kind in SCHEMA_KINDS]
    assert kinds == ["collection-removed"]


def test_findings_that_appear_and_disappear() -> None:
    with_query = edited(_hot_query)
    appeared = diff_projects(project(BASE), project(with_query)).changes
    found = [c for c in appeared if c.kind == "finding-appeared"]
    assert [(c.subject, c.collection) for c in found] == [("index-hot-queries", "")]
    assert (
        "hot-path query 1 on Shop by city (100/s)" in found[0].summary
        and "by_city" not in found[0].summary
        and found[0].breaking is False
    )
    gone = [c for c in diff_projects(project(with_query), project(BASE)).changes if c.kind.startswith("finding-")]
    assert [(c.kind, c.subject) for c in gone] == [("finding-disappeared", "index-hot-queries")]


def test_validator_level_change_without_shape_change() -> None:
    old, new = project(BASE), project(BASE)
    old_analysis, new_analysis = analyse(old), analyse(new)
    new_analysis.design.collections[0].validation_level = "moderate"
    diff = diff_analyses(old, old_analysis, new, new_analysis)
    assert [(c.kind, c.collection, c.breaking) for c in diff.changes] == [("validator-changed", "shops", False)]
    assert "level strict -> moderate" in diff.changes[0].summary
    back = diff_analyses(new, new_analysis, old, analyse(old))
    assert [(c.kind, c.breaking) for c in back.changes] == [("validator-changed", True)]
    assert "existing documents fail the new validator" in back.changes[0].risk


def test_same_project_has_no_changes() -> None:
    diff = diff_projects(project(BASE), project(BASE))
    assert diff.changes == [] and diff.breaking == []
    assert diff.to_json() == {"summary": "no changes to the resolved design", "breaking": 0, "changes": []}


def test_two_renames_in_one_parent_stay_removed_and_added() -> None:
    """Which old name became which new one is a guess when two same-typed fields change: say what is known."""

    def edit(d: dict[str, Any]) -> None:
        field(d, "shop", "city").update(name="town")
        entity(d, "shop")["fields"].append({"name": "region", "type": "string"})

    kinds = sorted(c.kind for c in diff_projects(project(BASE), project(edited(edit))).changes)
    assert kinds == ["field-added", "field-added", "field-removed"]
