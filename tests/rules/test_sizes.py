"""The one size model against real BSON: ``bson.encode`` of documents of the shapes the design describes."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import bson
import pytest
from bson import Int64, ObjectId

from benchmarks.generate import generate_project
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.catalog import load_rules
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.physical.facts import build_context
from modeller.rules.physical.resolver import resolve
from modeller.rules.physical.sizes import DOC_OVERHEAD, array_bytes, element_overhead, elements_within, megabytes
from modeller.rules.settings import DEFAULT_SETTINGS
from tests.rules.test_cases import build

AT = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
SAMPLES = Path(__file__).parents[2] / "samples"


def encoded_array(values: list[object]) -> int:
    """Bytes of the array's value alone: the document {a: values} minus its own overhead and the name "a"."""
    return len(bson.encode({"a": values})) - DOC_OVERHEAD - element_overhead("a")


@pytest.mark.parametrize("n", [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 10_001])
@pytest.mark.parametrize(
    ("value", "bytes_"),
    [(ObjectId("65a1b2c3d4e5f60718293a4b"), 12), (7, 4), (Int64(7), 8), ("abcdefgh", 13), ({"x": 1}, 12)],
)
def test_an_array_of_n_elements_is_its_bson_size(n: int, value: object, bytes_: int) -> None:
    assert array_bytes(n, bytes_) == encoded_array([value] * n)
    assert elements_within(array_bytes(n, bytes_), bytes_) == n
    assert elements_within(array_bytes(n, bytes_) - 1, bytes_) == max(n - 1, 0)


def test_a_million_object_ids_are_19_9_megabytes() -> None:
    # keys "0" .. "999999" are 1 to 6 digits: not a fixed 3 bytes (which gave 16.0 or 21 MB)
    assert array_bytes(1_000_000, 12) == 19_888_895
    assert megabytes(array_bytes(1_000_000, 12)) == "19.9 MB"
    assert megabytes(array_bytes(3_000, 12)) == "0.05 MB" and megabytes(array_bytes(50_000, 12)) == "0.94 MB"
    assert elements_within(16 * 1024 * 1024, 12) == 844_416


def test_the_design_s_largest_document_is_its_bson_size() -> None:
    project = build(
        {
            "entities": [
                {
                    "id": "product",
                    "fields": [
                        {"name": "name", "type": "string", "bytes": 20},
                        {"name": "price", "type": "double"},
                        {"name": "stock", "type": "int"},
                        {"name": "dims", "type": "object", "fields": [{"name": "w", "type": "long"}, {"name": "on", "type": "bool"}]},
                        {"name": "tags", "type": "array", "items": {"type": "string", "bytes": 8}, "max_items": 12},
                    ],
                },
                {"id": "part", "fields": [{"name": "sku", "type": "string", "bytes": 10}]},
                {"id": "note", "fields": [{"name": "text", "type": "string", "bytes": 30}, {"name": "at", "type": "date"}]},
            ],
            "relationships": [
                {"id": "product_parts", "one": "product", "many": "part", "cardinality": "one-to-many", "max": 1500,
                 "strategy": "child-refs", "many_standalone": True},
                {"id": "product_notes", "one": "product", "many": "note", "cardinality": "one-to-few", "max": 150,
                 "strategy": "embed"},
            ],
        }
    )  # fmt: skip
    design = analyse(project).design
    product = next(c for c in design.collections if c.name == "product")
    assert [n.name for n in product.shape] == ["_id", "name", "price", "stock", "dims", "tags", "part_ids", "notes"]
    largest = {
        "_id": ObjectId(),
        "name": "n" * 20,
        "price": 1.5,
        "stock": 3,
        "dims": {"w": Int64(2), "on": True},
        "tags": ["t" * 8] * 12,
        "part_ids": [ObjectId() for _ in range(1500)],
        "notes": [{"text": "x" * 30, "at": AT}] * 150,
    }
    assert product.max_bytes == len(bson.encode(largest))
    part = next(c for c in design.collections if c.name == "part")
    assert part.max_bytes == len(bson.encode({"_id": ObjectId(), "sku": "s" * 10}))


def _orders(strategy: str = "embed") -> dict[str, object]:
    """Orders and their line items (typical 4, at most 296), the line items embedded by the user: the tryout's shop."""
    return {
        "entities": [
            {
                "id": "order",
                "fields": [
                    {"name": "status", "type": "string", "bytes": 10},
                    {"name": "placed_at", "type": "date"},
                    {"name": "total", "type": "decimal"},
                ],
            },
            {
                "id": "line",
                "fields": [
                    {"name": "sku", "type": "string", "bytes": 12},
                    {"name": "qty", "type": "int"},
                    {"name": "tags", "type": "array", "items": {"type": "string", "bytes": 6}, "max_items": 5},
                ],
            },
        ],
        "relationships": [
            {
                "id": "order_lines",
                "one": "order",
                "many": "line",
                "name": "lines",
                "cardinality": "one-to-many",
                "typical": 4,
                "max": 296,
                "strategy": strategy,
            }
        ],
    }


def test_one_array_size_in_the_design_the_warning_and_the_finding() -> None:
    """The array's size is one figure: the document's largest size adds it up, the design's warning and the
    unbounded-array finding quote it (they said 38,079 bytes for an array in a document of at most 33,187)."""
    a = analyse(build(_orders()))
    order = a.design.collection("order")
    assert order is not None
    # a line item as embedded: no _id of its own; sku 12+5, qty 4, tags 5 strings of 6+5 (each named "0".."4")
    line = DOC_OVERHEAD + element_overhead("sku") + 17 + element_overhead("qty") + 4
    line += element_overhead("tags") + array_bytes(5, 11)
    array = array_bytes(296, line)
    own = DOC_OVERHEAD + element_overhead("_id") + 12
    own += element_overhead("status") + 15 + element_overhead("placed_at") + 8 + element_overhead("total") + 16
    assert order.max_bytes == own + element_overhead("lines") + array
    (warning,) = [w for r in a.design.relationships if r.id == "order_lines" for w in r.warnings if "reaches" in w]
    assert f"the array reaches about {array:,} bytes" in warning
    (finding,) = [f for f in a.findings if f.rule == "unbounded-array"]
    assert finding.numbers["array_bytes"] == array and finding.numbers["element_bytes"] == line
    assert finding.numbers["document_max_bytes"] == order.max_bytes


def test_an_optional_field_counts_on_average_as_often_as_documents_hold_it() -> None:
    """Average sizes weigh an optional field by its presence (Settings.optional_presence, half by default); the
    largest document holds every field."""
    project = build(
        {
            "entities": [
                {
                    "id": "person",
                    "fields": [
                        {"name": "name", "type": "string", "bytes": 10, "required": True},
                        {"name": "nickname", "type": "string", "bytes": 30},
                        {"name": "birth", "type": "date"},
                    ],
                },
            ],
        }
    )
    a = analyse(project)
    person = a.design.collection("person")
    assert person is not None
    required = DOC_OVERHEAD + element_overhead("_id") + 12 + element_overhead("name") + 15
    nickname, birth = element_overhead("nickname") + 35, element_overhead("birth") + 8
    assert person.max_bytes == required + nickname + birth
    assert person.avg_bytes == required + round(nickname * 0.5) + round(birth * 0.5)
    every = analyse(project, DEFAULT_SETTINGS.with_values(optional_presence=1.0)).design.collection("person")
    assert every is not None and every.avg_bytes == person.max_bytes


@pytest.mark.parametrize("source", ["samples", "generated"])
def test_every_array_of_a_relationship_in_a_document_is_sized_by_the_resolver(source: str) -> None:
    """The document-size finding names the array that is most of a document from the resolver's own figure for
    it (``Resolution.array_bytes``): every top-level array of embedded N or of their ids has one, so no guess
    (an array of ``n_max`` ObjectIds) is ever needed in its place."""
    projects = (
        [load_project(path) for path in sorted(SAMPLES.glob("*.modeller.json"))]
        if source == "samples"
        else [generate_project(300, 1.5, 0.5)]
    )
    load_rules()
    arrays = 0
    for project in projects:
        design, res = resolve(build_context(project, DEFAULT_SETTINGS), REGISTRY.deciders())
        for coll in design.collections:
            for node in coll.shape:
                if node.bson_type == "array" and node.relationship and node.role in ("embedded", "child-refs"):
                    arrays += 1
                    element, whole = res.array_bytes[node.relationship]
                    assert 0 < element < whole, (coll.name, node.name)
    assert arrays >= (6 if source == "samples" else 100)
