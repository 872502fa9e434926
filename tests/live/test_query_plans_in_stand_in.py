"""The NEW design's query plans, run in the recording ``db`` stand-in (tests/export/js/harness.js) over the documents
the migration script left there, find exactly the records they should; the OLD design's plans over the OLD samples
find the same ones. The plans are the exported mongosh (``modeller.export.query_plans``), run as text."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from js_harness import node_check, run_scripts
from plan_checks import (
    MN_QUERIES,
    Found,
    Truth,
    chat,
    chat_truth,
    compare,
    link,
    rename_city,
    run_and_check,
    with_queries,
)
from plan_runner import LOAD

from modeller.export.literals import js_string
from modeller.export.mongosh import mongosh_script
from modeller.export.samples import sample_documents
from modeller.model.project import Project
from modeller.review import SchemaDiff, diff_projects
from modeller.review.migration import MARKERS, migration_script
from modeller.rules.physical.design import Design

pytestmark = [pytest.mark.node, pytest.mark.slow]

DATABASE = "shop"
#: the strategy changes of tests/review that keep both sides at the top level, and the other patterns
PAIRS = [
    ("embed", "parent-ref"),
    ("parent-ref", "embed"),
    ("embed", "child-refs"),
    ("child-refs", "embed"),
    ("parent-ref", "child-refs"),
    ("child-refs", "parent-ref"),
    ("embed", "extended-ref"),
    ("parent-ref", "extended-ref"),
    ("extended-ref", "parent-ref"),
    ("extended-ref", "embed"),
    ("child-refs", "extended-ref"),
    ("parent-ref", "subset"),
    ("parent-ref", "bucket"),
    ("bucket", "parent-ref"),
    ("parent-ref", "single-collection"),
    ("embed", "single-collection"),
    ("single-collection", "embed"),
]
#: the field and index edits of tests/live/test_mongosh_migration.py (reviews embedded on both sides)
EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "field-rename": lambda d: rename_city(d, "town"),
    "field-rename-to-a-hostile-name": lambda d: rename_city(d, 'to"wn</script>\u2028${x}'),
    "new-required-field-with-default": lambda d: next(e for e in d["entities"] if e["id"] == "product")[
        "fields"
    ].append({"name": "currency", "type": "string", "required": True, "example": "EUR"}),
}


def _seed(folder: Path, documents: dict[str, list[Any]], database: str) -> Path:
    """A script that puts ``documents`` (canonical Extended JSON) into a fresh stand-in."""
    lines = [f"const target = db.getSiblingDB({js_string(database)});"]
    for coll, docs in documents.items():
        text = js_string(json.dumps(docs))
        lines.append(f"target.getCollection({js_string(coll)}).insertMany(EJSON.parse({text}, {{relaxed: false}}));")
    seed = folder / "seed.mongosh.js"
    seed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return seed


def _runner(folder: Path, name: str, seed: Path) -> Callable[[str], list[str]]:
    def run(text: str) -> list[str]:
        queries = folder / f"{name}.queries.mongosh.js"
        queries.write_text(text, encoding="utf-8")
        node_check(queries)
        return run_scripts(queries, runs=1, seeds=(seed,))["runs"][0]["prints"]

    return run


#: names every record of the OLD samples (and links them): returns the truth
Prepare = Callable[[Design, Project, dict[str, list[dict[str, Any]]]], Truth]


@dataclass
class Migrated:
    """A migration run in the stand-in over linked OLD samples, and what the OLD plans found before it."""

    diff: SchemaDiff
    truth: Truth
    before: dict[str, set[Found]]
    documents: dict[str, list[dict[str, Any]]]


def _migrated(
    old_data: dict[str, Any],
    new_data: dict[str, Any],
    folder: Path,
    prepare: Prepare = link,
    kill_after: int | None = None,
) -> Migrated:
    """OLD samples named and linked, the OLD plans checked over them, then the migration run in the stand-in (with
    ``kill_after``: in batches of 2, killed before its (N+1)th write, and run again)."""
    diff = diff_projects(Project.model_validate(old_data), Project.model_validate(new_data))
    samples = sample_documents(diff.old_design, diff.old, n=12, seed=5)
    truth = prepare(diff.old_design, diff.old, samples)
    setup = folder / "setup.mongosh.js"
    setup.write_text(mongosh_script(diff.old_design, diff.old, samples=samples), encoding="utf-8")
    before = run_and_check(diff.old_design, diff.old, samples, _runner(folder, "old", setup), truth)
    migration = folder / "migration.mongosh.js"
    text = migration_script(diff)
    if kill_after is not None:
        text = text.replace("const BATCH = 1000;", "const BATCH = 2;", 1)
    migration.write_text(text, encoding="utf-8")
    recording = run_scripts(migration, runs=1 if kill_after is None else 2, seeds=(setup,), kill_after=kill_after)
    assert kill_after is None or recording["runs"][0].get("killed") is True, "the first run was cut"
    migrated = recording["documents"][diff.new_design.database]
    documents = {
        c: json_util.loads(json.dumps(docs), json_options=LOAD) for c, docs in migrated.items() if c != MARKERS
    }
    return Migrated(diff, truth, before, documents)


def _after(m: Migrated, folder: Path) -> dict[str, set[Found]]:
    """The NEW plans over ``m.documents`` (put into a fresh stand-in), checked against the truth."""
    canonical = json.loads(json_util.dumps(m.documents, json_options=json_util.CANONICAL_JSON_OPTIONS))
    runner = _runner(folder, "new", _seed(folder, canonical, m.diff.new_design.database))
    return run_and_check(m.diff.new_design, m.diff.new, m.documents, runner, m.truth, old=m.diff.old)


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=lambda v: str(v))
def test_the_new_designs_queries_find_the_migrated_records(old: str, new: str, tmp_path: Path) -> None:
    m = _migrated(with_queries(old, DATABASE), with_queries(new, DATABASE), tmp_path)
    after = _after(m, tmp_path)
    assert after, "the NEW design serves some query"
    compare(m.before, after)


#: the many-to-many changes of tests/review/test_review_many_to_many_copies.py
MN_PAIRS = [
    ("parent-ref", "two-way"),
    ("child-refs", "two-way"),
    ("parent-ref", "child-refs"),
    ("child-refs", "parent-ref"),
    ("two-way", "parent-ref"),
    ("two-way", "child-refs"),
]


@pytest.mark.parametrize(("old", "new"), MN_PAIRS, ids=lambda v: str(v))
def test_after_a_many_to_many_change_the_new_designs_queries_find_every_member(
    old: str, new: str, tmp_path: Path
) -> None:
    m = _migrated(chat(old, "chat"), chat(new, "chat"), tmp_path, chat_truth)
    assert m.truth.links, "the samples hold memberships"
    after = _after(m, tmp_path)
    assert set(after) == {q["id"] for q in MN_QUERIES}, "every query runs"
    compare(m.before, after)


@pytest.mark.parametrize(("old", "new"), [("embed", "child-refs"), ("parent-ref", "embed")])
def test_after_a_migration_killed_between_batches_and_run_again_the_queries_find_every_record(
    old: str, new: str, tmp_path: Path
) -> None:
    m = _migrated(with_queries(old, DATABASE), with_queries(new, DATABASE), tmp_path, kill_after=1)
    compare(m.before, _after(m, tmp_path))


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_after_a_field_edit_the_new_designs_queries_find_the_same_records(edit: str, tmp_path: Path) -> None:
    new = with_queries("embed", DATABASE)
    EDITS[edit](new)
    m = _migrated(with_queries("embed", DATABASE), new, tmp_path)
    after = _after(m, tmp_path)
    assert set(after) == {"shops_in_city", "product_by_title", "reviews_of_product", "reviews_by_stars"}
    compare(m.before, after)


def _drop_a_review(documents: dict[str, list[dict[str, Any]]]) -> None:
    documents["reviews"].pop()


def _move_a_review(documents: dict[str, list[dict[str, Any]]]) -> None:
    reviews = documents["reviews"]
    other = next(r["product_id"] for r in reviews if r["product_id"] != reviews[0]["product_id"])
    reviews[0]["product_id"] = other


def _drop_an_embedded_review(documents: dict[str, list[dict[str, Any]]]) -> None:
    next(p for p in documents["products"] if p.get("reviews"))["reviews"].pop()


def _move_an_embedded_review(documents: dict[str, list[dict[str, Any]]]) -> None:
    products = [p for p in documents["products"] if p.get("reviews")]
    products[1]["reviews"].append(products[0]["reviews"].pop())


SABOTAGE = {
    "parent-ref, a review dropped": ("embed", "parent-ref", _drop_a_review),
    "parent-ref, a review under another product": ("embed", "parent-ref", _move_a_review),
    "embed, a review dropped": ("parent-ref", "embed", _drop_an_embedded_review),
    "embed, a review under another product": ("parent-ref", "embed", _move_an_embedded_review),
}


@pytest.mark.parametrize("case", sorted(SABOTAGE))
def test_the_check_fails_when_the_migration_drops_or_misplaces_a_record(case: str, tmp_path: Path) -> None:
    """What a broken migration would leave: the NEW plans then find other records than the truth says."""
    old, new, sabotage = SABOTAGE[case]
    m = _migrated(with_queries(old, DATABASE), with_queries(new, DATABASE), tmp_path)
    whole = tmp_path / "as-migrated"
    whole.mkdir()
    _after(m, whole)  # as the migration left them: the check passes
    sabotage(m.documents)
    with pytest.raises(AssertionError, match=r"reviews_of_product|reviews_by_stars|product_by_title"):
        _after(m, tmp_path)


#: the queries that read across the relationship, and the strategies whose plans run over their own samples (a
#: subset cannot be relinked: see plan_checks.link). The planner once dropped the join of "a Product with its
#: Reviews" for extended-ref, bucket and single collection, read product_id where a single collection keeps
#: links[].target, and cut a page of 50 bucketed reviews to one bucket document.
ACROSS = {"product_by_title", "reviews_of_product", "product_of_review"}
OWN = ["parent-ref", "child-refs", "extended-ref", "bucket", "single-collection"]


@pytest.mark.parametrize("strategy", OWN)
def test_each_strategys_plans_find_the_records_across_the_relationship(strategy: str, tmp_path: Path) -> None:
    """Without a migration: the plans of one design over its own linked samples find exactly what the truth says,
    the joined Reviews of a Product and the Reviews (or the Product) of one side included."""
    project = Project.model_validate(with_queries(strategy, DATABASE))
    design = diff_projects(project, project).old_design
    samples = sample_documents(design, project, n=12, seed=5)
    truth = link(design, project, samples)
    setup = tmp_path / "setup.mongosh.js"
    setup.write_text(mongosh_script(design, project, samples=samples), encoding="utf-8")
    found = run_and_check(design, project, samples, _runner(tmp_path, "own", setup), truth, only=ACROSS)
    assert set(found) == ACROSS, "every query across the relationship runs"
    with_reviews = {f for f in found["product_by_title"] if f.joined}
    assert with_reviews, "some Product is found with its Reviews"
