"""The NEW design's query plans, run in the recording ``db`` stand-in (tests/export/js/harness.js) over the documents
the migration script left there, find exactly the records they should; the OLD design's plans over the OLD samples
find the same ones. The plans are the exported mongosh (``modeller.export.query_plans``), run as text."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from bson import json_util
from plan_checks import compare, link, run_and_check, with_queries
from plan_runner import LOAD

from modeller.export.literals import js_string
from modeller.export.mongosh import mongosh_script
from modeller.export.samples import sample_documents
from modeller.model.project import Project
from modeller.review import diff_projects
from modeller.review.migration import MARKERS, migration_script

EXPORT_TESTS = str(Path(__file__).resolve().parents[1] / "export")
if EXPORT_TESTS not in sys.path:
    sys.path.insert(0, EXPORT_TESTS)

from js_harness import node_check, run_scripts  # noqa: E402

pytestmark = [pytest.mark.node, pytest.mark.slow]

DATABASE = "shop"
PAIRS = [
    ("embed", "parent-ref"),
    ("parent-ref", "embed"),
    ("embed", "child-refs"),
    ("child-refs", "embed"),
    ("parent-ref", "child-refs"),
    ("child-refs", "parent-ref"),
    ("parent-ref", "extended-ref"),
    ("extended-ref", "parent-ref"),
    ("parent-ref", "subset"),
    ("parent-ref", "bucket"),
    ("bucket", "parent-ref"),
    ("parent-ref", "single-collection"),
    ("single-collection", "embed"),
]


def _seed(folder: Path, documents: dict[str, list[Any]]) -> Path:
    """A script that puts ``documents`` (canonical Extended JSON) back into a fresh stand-in."""
    lines = [f"const target = db.getSiblingDB({js_string(DATABASE)});"]
    for coll, docs in documents.items():
        text = js_string(json.dumps(docs))
        lines.append(f"target.getCollection({js_string(coll)}).insertMany(EJSON.parse({text}, {{relaxed: false}}));")
    seed = folder / "migrated.mongosh.js"
    seed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return seed


def _runner(folder: Path, name: str, seed: Path) -> Any:
    def run(text: str) -> list[str]:
        queries = folder / f"{name}.queries.mongosh.js"
        queries.write_text(text, encoding="utf-8")
        node_check(queries)
        return run_scripts(queries, runs=1, seeds=(seed,))["runs"][0]["prints"]

    return run


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=lambda v: str(v))
def test_the_new_designs_queries_find_the_migrated_records(old: str, new: str, tmp_path: Path) -> None:
    diff = diff_projects(
        Project.model_validate(with_queries(old, DATABASE)), Project.model_validate(with_queries(new, DATABASE))
    )
    samples = sample_documents(diff.old_design, diff.old, n=12, seed=5)
    want = link(diff.old_design, diff.old, samples)
    setup = tmp_path / "setup.mongosh.js"
    setup.write_text(mongosh_script(diff.old_design, diff.old, samples=samples), encoding="utf-8")
    before = run_and_check(diff.old_design, diff.old, samples, _runner(tmp_path, "old", setup), want)

    migration = tmp_path / "migration.mongosh.js"
    migration.write_text(migration_script(diff), encoding="utf-8")
    migrated = run_scripts(migration, runs=1, seeds=(setup,))["documents"][DATABASE]
    migrated = {c: docs for c, docs in migrated.items() if c != MARKERS}
    documents = {c: json_util.loads(json.dumps(docs), json_options=LOAD) for c, docs in migrated.items()}
    after = run_and_check(
        diff.new_design, diff.new, documents, _runner(tmp_path, "new", _seed(tmp_path, migrated)), want
    )
    assert after, "the NEW design serves some query"
    compare(before, after)
