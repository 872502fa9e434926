"""The outlier pattern's overflow collection: ``<collection>_overflow`` beside the One, keyed by the parent.

Typical documents embed up to the bound and are read in one round trip; the plan reads the overflow only for the
documents flagged ``has_overflow``; the setup script creates the overflow collection with its validator and index
and fills it with samples that pass the validator and point at flagged parents.
"""

from __future__ import annotations

from pathlib import Path

from bson_checker import errors
from js_harness import calls, node_check, run_scripts

from modeller.export import export_project, sample_documents
from modeller.export.query_plans import query_mongosh
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse


def blog(typical: int = 12, top: int = 50_000) -> Project:
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "blog",
            "entities": [
                {"id": "post", "name": "Post", "fields": [{"name": "title", "type": "string"}]},
                {"id": "comment", "name": "Comment", "fields": [{"name": "text", "type": "string"}]},
            ],
            "relationships": [
                {
                    "id": "post_comments",
                    "one": "post",
                    "many": "comment",
                    "cardinality": "one-to-many",
                    "typical": typical,
                    "max": top,
                }
            ],
            "queries": [{"id": "post_page", "entity": "post", "filter": {"_id": "eq"}, "joins": ["post_comments"]}],
        }
    )


def test_the_overflow_collection_is_keyed_by_the_parent_and_holds_the_bounded_array() -> None:
    design = analyse(blog()).design
    [overflow] = design.companions
    assert (overflow.name, overflow.companion_of) == ("post_overflow", "post")
    assert [(n.name, n.role, n.required) for n in overflow.shape] == [
        ("_id", "id", True),
        ("post_id", "parent-ref", True),
        ("comments", "embedded", False),
    ]
    assert overflow.shape[1].ref_collection == "post"
    assert overflow.shape[2].max_items == 48  # the same bound as the embedded array of the post
    [index] = overflow.indexes
    assert (index.keys, index.rules, index.unique) == ([("post_id", 1)], ["outlier-pattern"], False)
    schema = overflow.validator["$jsonSchema"]
    assert schema["required"] == ["_id", "post_id"]
    assert schema["properties"]["comments"]["maxItems"] == 48


def test_no_outlier_no_overflow_collection() -> None:
    assert analyse(blog(1000, 5000)).design.companions == []


def test_the_plan_reads_the_overflow_only_for_flagged_posts(tmp_path: Path) -> None:
    [plan] = analyse(blog()).design.queries
    assert plan.round_trips == 1  # typical posts: one read
    [extra] = plan.on_overflow
    assert (extra.collection, extra.foreign_field) == ("post_overflow", "post_id")
    assert extra.index is not None and extra.index.name == "post_id_1"
    assert plan.to_json()["on_overflow"][0]["collection"] == "post_overflow"
    text = query_mongosh(plan)
    assert 'r1.some(d => d["has_overflow"] === true) ? db.getCollection("post_overflow")' in text
    assert 'r1.filter(d => d["has_overflow"] === true).flatMap(d => d["_id"] ?? [])' in text
    script = tmp_path / "plan.js"
    script.write_text("function plan(db, params) {\n" + text + "\n}\n", encoding="utf-8")
    node_check(script)


def test_no_overflow_read_without_the_outlier() -> None:
    [plan] = analyse(blog(1000, 5000)).design.queries
    assert plan.on_overflow == [] and "on_overflow" not in plan.to_json()


def test_overflow_samples_pass_their_validator_and_flag_their_parents() -> None:
    project = blog()
    design = analyse(project).design
    docs = sample_documents(design, project, n=5, seed=3)
    [overflow] = design.companions
    assert len(docs["post_overflow"]) == 5
    for doc in docs["post_overflow"]:
        assert errors(overflow.validator, doc) == [], doc
        assert 1 <= len(doc["comments"]) <= 48
    post = design.collections[0]
    for doc in docs["post"]:
        assert errors(post.validator, doc) == [], doc
    pointed = {doc["post_id"] for doc in docs["post_overflow"]}
    assert pointed <= {doc["_id"] for doc in docs["post"]}
    assert {doc["_id"] for doc in docs["post"] if doc["has_overflow"]} == pointed


def test_the_setup_script_creates_indexes_and_fills_the_overflow_idempotently(tmp_path: Path) -> None:
    project = blog()
    analysis = analyse(project)
    export_project(project, analysis, tmp_path, kinds="setup,validators,samples", with_samples=True)
    node_check(tmp_path / "setup.mongosh.js")
    assert (tmp_path / "validators" / "post_overflow.json").is_file()
    assert (tmp_path / "samples" / "post_overflow.json").is_file()
    recording = run_scripts(tmp_path / "setup.mongosh.js", runs=2)
    created = {c["collection"] for c in calls(recording, 0, "createCollection")}
    assert "post_overflow" in created
    indexes = [(c["collection"], c["options"]["name"]) for c in calls(recording, 0, "createIndex")]
    assert ("post_overflow", "post_id_1") in indexes
    assert {c["collection"] for c in calls(recording, 0, "insertOne")} >= {"post", "post_overflow"}
    assert calls(recording, 1, "createCollection") == [] and calls(recording, 1, "insertOne") == []


def test_the_outlier_n_has_no_collection_of_its_own(tmp_path: Path) -> None:
    """Comments live embedded in their post and in posts' overflow only: nothing creates, indexes or fills a
    ``comment`` collection that would stay empty."""
    project = blog()
    analysis = analyse(project)
    design = analysis.design
    assert [c.name for c in design.collections] == ["post"]
    assert design.collections[0].entities == ["post", "comment"]
    assert design.embedded["comment"].collection == "post" and design.embedded["comment"].path == "comments"
    assert [c.name for c in design.companions] == ["post_overflow"]
    every = [*design.collections, *design.companions]
    assert [(c.name, i.name) for c in every for i in c.indexes] == [("post_overflow", "post_id_1")]
    assert not any(f.subject.id.startswith("comment#") or "comment.post_id" in f.message for f in analysis.findings)

    export_project(project, analysis, tmp_path, kinds="setup,validators,samples,report", with_samples=True)
    script = (tmp_path / "setup.mongosh.js").read_text(encoding="utf-8")
    assert 'ensureCollection("comment"' not in script and 'ensureCollection("post_overflow"' in script
    assert sorted(p.name for p in (tmp_path / "validators").iterdir()) == ["post.json", "post_overflow.json"]
    assert sorted(p.name for p in (tmp_path / "samples").iterdir()) == ["post.json", "post_overflow.json"]
    report = (tmp_path / "DESIGN.md").read_text(encoding="utf-8")
    assert "### `post`" in report and "### `comment`" not in report
    recording = run_scripts(tmp_path / "setup.mongosh.js", runs=1)
    assert {c["collection"] for c in calls(recording, 0, "createCollection")} == {"post", "post_overflow"}


def test_a_many_side_with_queries_of_its_own_keeps_its_collection_and_no_outlier() -> None:
    """Comments listed on their own (a query of their own) are not embedded: the outlier pattern needs them to
    live with the post, so the plain parent reference stays, with the index on it."""
    data = blog().model_dump(mode="json", exclude_defaults=True)
    data["queries"].append({"id": "latest", "entity": "comment", "filter": {"text": "eq"}})
    design = analyse(Project.model_validate(data)).design
    assert [c.name for c in design.collections] == ["post", "comment"]
    assert design.companions == [] and "comment" not in design.embedded
    assert not any(n.name == "has_overflow" for n in design.collections[0].shape)
