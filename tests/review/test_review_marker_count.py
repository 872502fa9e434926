"""The marker of a migration step counts the documents it changed over all runs: a run killed inside a batch
(after some of the batch's writes, before its marker) is counted too (tryout item 7: "done (1500)" after 2,500)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from js_harness import run_scripts
from review_projects import BASE, edited, entity, project

from modeller.export.mongosh import mongosh_script
from modeller.export.samples import sample_documents
from modeller.review import diff_projects
from modeller.review.migration import MARKERS, migration_script

pytestmark = pytest.mark.node

PRODUCTS = 5


def _reviews_apart(d: dict[str, Any]) -> None:
    entity(d, "review")["collection"] = "reviews"
    d["relationships"][0]["strategy"] = "parent-ref"


def _markers(recording: dict[str, Any]) -> dict[str, dict[str, Any]]:
    docs = recording["documents"]["shop"][MARKERS]
    return {doc["_id"].rpartition(" ")[2]: doc for doc in json.loads(json.dumps(docs))}


def _count(marker: dict[str, Any]) -> int:
    value = marker["count"]
    return int(value["$numberInt"]) if isinstance(value, dict) else int(value)


def test_a_run_killed_inside_a_batch_is_counted_in_the_marker(tmp_path: Path) -> None:
    diff = diff_projects(project(edited(_reviews_apart)), project(BASE))
    setup = tmp_path / "setup.mongosh.js"
    setup.write_text(
        mongosh_script(diff.old_design, diff.old, samples=sample_documents(diff.old_design, diff.old, n=PRODUCTS))
    )
    migration = tmp_path / "migration.mongosh.js"
    # batches of 2 products: copyIn writes each product with its own updateOne, so a kill after one write is a
    # run that died in the middle of a batch, its marker not recorded
    migration.write_text(migration_script(diff).replace("const BATCH = 1000;", "const BATCH = 2;", 1))
    whole = run_scripts(migration, runs=1, seeds=(setup,))
    killed = run_scripts(migration, runs=2, seeds=(setup,), kill_after=1)
    assert killed["runs"][0].get("killed") is True
    (step,) = [s for s in _markers(whole) if "strategy-changed" in s]
    assert _count(_markers(whole)[step]) == PRODUCTS
    marker = _markers(killed)[step]
    assert marker["done"] is True and _count(marker) == PRODUCTS, marker
    assert f"done ({PRODUCTS} document(s))" in killed["runs"][1]["prints"][-1]
    assert "pending" not in marker
    strip = {k: v for k, v in killed["documents"]["shop"].items() if k != MARKERS}
    assert strip == {k: v for k, v in whole["documents"]["shop"].items() if k != MARKERS}
