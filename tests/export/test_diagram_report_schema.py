"""Diagram source, DESIGN.md and JSON Schema: content, escaping, and agreement with the samples."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
from bson import json_util
from hand_designs import HOSTILE, tracker_design, tracker_findings, tracker_project

from modeller.export import design_report, dot_source, json_schema, sample_documents
from modeller.export.report import code, fenced


def test_dot_has_one_table_per_collection_and_labelled_reference_edges() -> None:
    design, project = tracker_design(), tracker_project()
    dot = dot_source(design, project)
    assert len(re.findall(r"^  c\d+ \[label=<<table", dot, re.M)) == len(design.collections)
    edges = re.findall(r"^  (c\d+):p\d+w?(?::w)? -> (c\d+):h(?::e)? \[label=<([^>]*)>", dot, re.M)
    ids = {f"c{i}": c.name for i, c in enumerate(design.collections)}
    labelled = {(ids[a], ids[b], label) for a, b, label in edges}
    assert ("people", "tasks", "1:N · two-way") in labelled
    assert ("tasks", "people", "") in labelled  # the way back of the same relationship: one label is enough
    assert ("sensor_data", "sensors", "1:squillions · bucket") in labelled
    assert ("measurements", "sensors", "1:squillions · parent-ref") in labelled
    assert not any("embed" in label for _a, _b, label in labelled)  # embedded: inside the node, no edge
    assert "embedded Address ≤ 3" in dot and "copy of Person.name" in dot and "= count()" in dot
    assert "addresses [ ]" in dot and "└ street" in dot


def test_dot_escapes_hostile_names() -> None:
    dot = dot_source(tracker_design(HOSTILE), tracker_project(HOSTILE))
    assert "</script>" not in dot and "\n*/" not in dot
    assert "pe&quot;ople\\&lt;/script&gt;&lt;!--" in dot
    assert "ta\\nsks */ ${x} `tick`" in dot
    for line in dot.splitlines():
        assert "\r" not in line and "\t" not in line


def test_report_covers_collections_relationships_sync_plan_and_findings() -> None:
    report = design_report(tracker_design(), tracker_project(), tracker_findings())
    sections = re.findall(r"^## (.+)$", report, re.M)
    assert sections == [
        "Summary",
        "Collections",
        "Relationships",
        "Sync plan for denormalized fields",
        "Access patterns",
        "Findings",
    ]
    assert "### `people`" in report and '| `email_1` | `{"email": 1}` | `{"unique": true}` |' in report
    assert "- **Strategy:** `two-way` (your choice; rules `many-to-many-refs`)." in report
    assert "- **Trade-off:** reassignment touches two documents" in report
    assert "session.withTransaction(" in report
    assert '$push: { "recent_tasks": { $each: [newElement], $sort: { "due_date": -1 }, $slice: 2 } }' in report
    assert (
        'db.getCollection("tasks").updateMany({ "owner._id": sourceId }, { $set: { "owner.name": newValue } });'
        in report
    )
    assert '.watch([{ $match: { operationType: "update", "updateDescription.updatedFields.name"' in report
    assert "point-in-time copy" in report
    assert '{ "sensor_id": seriesId, "count": { $lt: 60 } }' in report
    order = [
        report.index(f"### {title}") for title in ("Errors (1)", "Warnings (1)", "Suggestions (1)", "Information (1)")
    ]
    assert order == sorted(order)
    assert "*(overridden: accepted by the team)*" in report
    assert "Reference: \\[Manual-limits\\] https://www.mongodb.com/docs/manual/reference/limits/" in report


def test_report_neutralizes_hostile_text() -> None:
    report = design_report(tracker_design(HOSTILE), tracker_project(HOSTILE), tracker_findings(HOSTILE))
    outside_code = re.sub(r"(`+)(?:(?!\1).)*\1", "", re.sub(r"^```[^\n]*\n.*?^```$", "", report, flags=re.M | re.S))
    assert "<" not in outside_code  # raw HTML only ever appears inside code spans and fenced blocks
    # rendered, the title reads: Hostile "project" </script>\n*/ ${p}
    assert report.startswith('# Design report: Hostile "project" &lt;/script&gt;\\\\n\\*/ ${p}\n')
    assert code("a`b") == "``a`b``" and code("`x`") == "`` `x` ``"
    assert fenced("x ```` y")[0] == "`````"


def test_json_schema_accepts_every_sample_as_relaxed_extended_json() -> None:
    design, project = tracker_design(), tracker_project()
    docs = sample_documents(design, project, n=4, seed=2)
    for coll in design.collections:
        schema = json_schema(coll, design.database)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        checker = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
        for doc in docs[coll.name]:
            plain = json.loads(json_util.dumps(doc, json_options=json_util.RELAXED_JSON_OPTIONS))
            assert list(checker.iter_errors(plain)) == [], coll.name
    people = json_schema(design.collections[0])
    wrong = {"_id": "not-an-oid", "name": "x", "email": "y", "task_count": 1.5}
    messages = [e.message for e in jsonschema.Draft202012Validator(people).iter_errors(wrong)]
    assert any("is not of type 'object'" in m for m in messages)  # _id must be {"$oid": ...}
    assert any("is not of type 'integer'" in m for m in messages)


def test_report_access_patterns_name_each_query_with_its_index_roles_and_mongosh(samples_dir: Path) -> None:
    from modeller.export.query_plans import query_mongosh
    from modeller.persistence.load import load_project
    from modeller.rules.engine import analyse

    project = load_project(samples_dir / "ecommerce.modeller.json")
    analysis = analyse(project)
    report = design_report(analysis.design, project, analysis.findings)
    section = report.split("## Access patterns", 1)[1].split("## Findings", 1)[0]
    assert "### A user's recent active orders above an amount (the seed's ESR example)" in section
    assert (
        "index `user._id_1_status_1_created_at_-1_amount_1` (`user._id` Equality, `status` Equality, "
        "`created_at` Sort, `amount` Range)" in section
    )
    assert len(analysis.design.queries) == section.count("\n### ") + section.startswith("### ")
    for plan in analysis.design.queries:
        assert query_mongosh(plan) in section
