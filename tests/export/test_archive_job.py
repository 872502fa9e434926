"""The archive pattern's mover job: batched, idempotent, resumable, with every name quoted.

The job DESIGN.md shows for ``audit_log_archive`` runs in the recording ``db`` stand-in: old documents end up in
the archive exactly once and leave the main collection, recent ones stay, a run killed between a copy and its
delete is finished by the next run, and a second run moves nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from js_harness import calls, node_check, run_scripts

from modeller.export.report import design_report
from modeller.export.snippets import ARCHIVE_BATCH, archive_snippet
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.persistence import load_project
from modeller.rules import analyse

ROOT = Path(__file__).resolve().parents[2]
OLD = [f"2015-0{month}-01T00:00:00Z" for month in range(1, 6)]  # far past five years
NEW = ["2999-01-01T00:00:00Z", "2999-02-01T00:00:00Z"]  # never past the cut-off


def audit_job() -> str:
    project = load_project(ROOT / "samples" / "insurance-audit.modeller.json")
    design = analyse(project).design
    archive = next(c for c in design.companions if c.name == "audit_log_archive")
    return archive_snippet(archive, project)


def seed(path: Path, collection: str = "audit_log") -> Path:
    docs = [
        f'{{ _id: ObjectId("{i:024x}"), at: ISODate("{when}"), action: "update" }}'
        for i, when in enumerate([*OLD, *NEW], start=1)
    ]
    path.write_text(f"db.getCollection({json.dumps(collection)}).insertMany([{', '.join(docs)}]);\n", encoding="utf-8")
    return path


def ids(recording: dict[str, Any], collection: str) -> list[str]:
    return sorted(doc["_id"]["$oid"] for doc in recording["documents"]["test"].get(collection, []))


def expected(times: list[str]) -> list[str]:
    order = [*OLD, *NEW]
    return sorted(f"{order.index(t) + 1:024x}" for t in times)


def test_the_job_names_its_collections_and_index_field_through_the_quoting_function() -> None:
    job = audit_job()
    assert 'db.getCollection("audit_log")' in job and 'db.getCollection("audit_log_archive")' in job
    assert '.find({ "at": { $lt: cutoff } }).sort({ "at": 1, _id: 1 })' in job
    assert "Date.now() - 157680000 * 1000" in job
    assert job.rstrip().endswith(f"}})(db, {ARCHIVE_BATCH});")


def test_design_md_shows_the_job_under_the_archive_collection() -> None:
    project = load_project(ROOT / "samples" / "insurance-audit.modeller.json")
    analysis = analyse(project)
    report = design_report(analysis.design, project, analysis.findings)
    section = report.split("### `audit_log_archive`", 1)[1].split("### ", 1)[0]
    assert "Moving old documents (archive pattern):" in section
    assert "archive.insertMany(missing" in section and "source.deleteMany({ _id: { $in: ids } })" in section


def test_the_job_moves_old_documents_once_and_leaves_recent_ones(tmp_path: Path) -> None:
    job = tmp_path / "archive-job.js"
    job.write_text(audit_job().replace(f"(db, {ARCHIVE_BATCH});", "(db, 2);"), encoding="utf-8")  # 3 batches
    node_check(job)
    recording = run_scripts(job, runs=2, seeds=(seed(tmp_path / "seed.js"),))
    assert ids(recording, "audit_log") == expected(NEW)
    assert ids(recording, "audit_log_archive") == expected(OLD)
    assert [c["deleted"] for c in calls(recording, 0, "deleteMany")] == [2, 2, 1]
    assert calls(recording, 1, "deleteMany") == [] and calls(recording, 1, "insertMany") == []  # nothing left


def test_a_killed_run_is_finished_by_the_next_without_copying_twice(tmp_path: Path) -> None:
    job = tmp_path / "archive-job.js"
    job.write_text(audit_job().replace(f"(db, {ARCHIVE_BATCH});", "(db, 2);"), encoding="utf-8")
    # the first run copies batch 1, deletes it, copies batch 2 and dies before deleting it
    recording = run_scripts(job, runs=2, seeds=(seed(tmp_path / "seed.js"),), kill_after=1)
    assert recording["runs"][0].get("killed") is True
    assert [c["n"] for c in calls(recording, 0, "insertMany")] == [2, 2]
    assert [c["n"] for c in calls(recording, 1, "insertMany")] == [1]  # batch 2 was already copied: only batch 3
    assert ids(recording, "audit_log") == expected(NEW)
    assert ids(recording, "audit_log_archive") == expected(OLD)


def test_a_hostile_collection_name_stays_a_string_literal(tmp_path: Path) -> None:
    name = 'log"); db.dropDatabase(); ("'
    project = Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "hostile",
            "entities": [
                {
                    "id": "entry",
                    "name": "Entry",
                    "collection": name,
                    "archive": {"age_field": "at", "cold_after_s": 86_400},
                    "fields": [{"name": "at", "type": "date", "required": True}],
                }
            ],
        }
    )
    design = analyse(project).design
    [archive] = [c for c in design.companions if c.name.endswith("_archive")]
    job = tmp_path / "archive-job.js"
    job.write_text(archive_snippet(archive, project), encoding="utf-8")
    node_check(job)
    recording = run_scripts(job, runs=1, seeds=(seed(tmp_path / "seed.js", name),))
    assert "dropDatabase" not in json.dumps([c["op"] for c in calls(recording, 0)])
    assert ids(recording, name) == expected(NEW)
    assert ids(recording, f"{name}_archive") == expected(OLD)
