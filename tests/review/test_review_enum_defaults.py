"""A new required field with allowed values gets one of them, never a zero the new validator refuses; the diff
prints allowed numbers as numbers (a new user's tryout found ``""`` written into 52 documents, and ``["1", "2"]``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from bson_checker import LOAD_OPTIONS, errors
from js_harness import node_check, run_scripts
from review_projects import BASE, edited, entity, field, project

from modeller.export.mongosh import mongosh_script
from modeller.export.samples import sample_documents
from modeller.export.validators import validator_document
from modeller.review import diff_projects
from modeller.review.migration import default_value, migration_script
from modeller.review.render import diff_text


@pytest.mark.parametrize(
    ("bson_type", "example", "enum", "expected"),
    [
        ("string", None, ["books", "garden"], "books"),
        ("string", "garden", ["books", "garden"], "garden"),
        ("string", "EUR", None, "EUR"),
        ("string", None, None, ""),
        ("int", 7, [1, 2, 3], 1),
        ("int", 2, [1, 2, 3], 2),
    ],
)
def test_the_default_is_an_allowed_value(bson_type: str, example: Any, enum: list[Any] | None, expected: Any) -> None:
    assert default_value(bson_type, example, enum) == {"$literal": expected}


def _required_category(d: dict[str, Any]) -> None:
    entity(d, "product")["fields"].append(
        {"name": "category", "type": "string", "required": True, "enum": ["books", "garden", "tools"]}
    )
    field(d, "shop", "rating")["enum"] = [1, 2, 3, 4]


@pytest.mark.node
def test_the_migrated_documents_hold_an_allowed_value(tmp_path: Path) -> None:
    diff = diff_projects(project(BASE), project(edited(_required_category)))
    setup, migration = tmp_path / "setup.mongosh.js", tmp_path / "migration.mongosh.js"
    setup.write_text(
        mongosh_script(diff.old_design, diff.old, samples=sample_documents(diff.old_design, diff.old, n=4))
    )
    migration.write_text(migration_script(diff))
    node_check(migration)
    recording = run_scripts(migration, runs=1, seeds=(setup,))
    products = json_util.loads(json.dumps(recording["documents"]["shop"]["products"]), json_options=LOAD_OPTIONS)
    assert len(products) == 4 and {doc["category"] for doc in products} == {"books"}
    coll = next(c for c in diff.new_design.collections if c.name == "products")
    assert all(errors(validator_document(coll), doc) == [] for doc in products)


def test_allowed_numbers_read_as_numbers() -> None:
    diff = diff_projects(project(BASE), project(edited(_required_category)))
    text = diff_text(diff)
    assert "allowed values [1, 2, 3] -> [1, 2, 3, 4]" in text, text
