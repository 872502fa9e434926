"""Pattern rules that change the design, not only the findings.

The tree model chosen from ``tree_ops`` gives each node its fields and index, the samples follow the parent
chain and tree queries need no $lookup; the outlier pattern embeds the typical N behind ``has_overflow``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from modeller.export import sample_documents
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse


def tree(ops: list[str], writes: float | None = None) -> Project:
    category: dict[str, Any] = {"id": "category", "name": "Category", "fields": [{"name": "name", "type": "string"}]}
    if writes is not None:
        category["writes_per_sec"] = writes
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "tree",
            "entities": [category],
            "relationships": [
                {"id": "tree", "one": "category", "many": "category", "cardinality": "one-to-many", "tree_ops": ops}
            ],
            "queries": [{"id": "subtree", "entity": "category", "filter": {"name": "eq"}, "joins": ["tree"]}],
        }
    )


@pytest.mark.parametrize(
    ("ops", "writes", "fields", "index", "strategy"),
    [
        (["children", "ancestors"], None, ["ancestors"], [["ancestors", 1]], "parent-ref"),
        (["subtree", "move"], None, ["ancestors"], [["ancestors", 1]], "parent-ref"),
        (["subtree"], None, ["path"], [["path", 1]], "parent-ref"),
        (["subtree"], 0, ["left", "right"], [["left", 1], ["right", 1]], "parent-ref"),
        (["children"], None, ["category_ids"], [["category_ids", 1]], "child-refs"),
    ],
)
def test_the_tree_model_gives_its_fields_and_index(
    ops: list[str], writes: float | None, fields: list[str], index: list[Any], strategy: str
) -> None:
    analysis = analyse(tree(ops, writes))
    coll = analysis.design.collections[0].to_json()
    names = [n["name"] for n in coll["shape"]]
    assert all(f in names for f in fields), names
    tree_index = next(ix for ix in coll["indexes"] if ix["keys"] == index)
    assert tree_index["rules"][0] == "tree-pattern"
    rel = analysis.design.relationships[0]
    assert (rel.strategy, rel.rules[0]) == (strategy, "tree-pattern")
    assert not [f for f in analysis.findings if f.rule == "excessive-lookup"]


def test_parent_references_add_nothing_and_keep_the_lookup() -> None:
    analysis = analyse(tree(["children", "parent"]))
    names = [n.name for n in analysis.design.collections[0].shape]
    assert names == ["_id", "name", "category_id"]
    assert [f.rule for f in analysis.findings if f.subject.id == "tree"] == ["tree-pattern"]


def test_without_tree_ops_the_plain_parent_reference_decides() -> None:
    analysis = analyse(tree([]))
    rel = analysis.design.relationships[0]
    # the tree pattern's plain model, filed under the tree pattern (not "one-to-squillions": tryout item 9)
    assert (rel.strategy, rel.rules) == ("parent-ref", ["tree-pattern"])
    assert [n.name for n in analysis.design.collections[0].shape] == ["_id", "name", "category_id"]


def _chain(by_id: dict[Any, dict[str, Any]], doc: dict[str, Any]) -> list[Any]:
    """The ids above ``doc``, root first, following the sample parent references."""
    out: list[Any] = []
    while doc["category_id"] is not None:
        out.insert(0, doc["category_id"])
        doc = by_id[doc["category_id"]]
    return out


def test_sample_ancestors_path_and_bounds_follow_the_parent_chain() -> None:
    for ops, writes in ((["ancestors"], None), (["subtree"], None), (["subtree"], 0)):
        analysis = analyse(tree(ops, writes))
        docs = sample_documents(analysis.design, tree(ops, writes), n=12, seed=3)["category"]
        by_id = {d["_id"]: d for d in docs}
        chain = partial(_chain, by_id)
        for doc in docs:
            if "ancestors" in doc:
                assert doc["ancestors"] == chain(doc)
            if "path" in doc:
                assert doc["path"] == "," + "".join(f"{x}," for x in chain(doc))
            if "left" in doc:
                for other in docs:
                    inside = doc["left"] < other["left"] and other["right"] < doc["right"]
                    assert inside == (doc["_id"] in chain(other))


def posts(typical: int, top: int, strategy: str = "auto") -> Project:
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
                    "strategy": strategy,
                }
            ],
            "queries": [{"id": "post_page", "entity": "post", "filter": {"_id": "eq"}, "joins": ["post_comments"]}],
        }
    )


def test_the_outlier_pattern_embeds_the_typical_comments_behind_a_flag() -> None:
    analysis = analyse(posts(12, 50_000))
    post = analysis.design.collection("post")
    assert post is not None
    nodes = {n.name: n for n in post.shape}
    assert nodes["comments"].max_items == 48  # 4 x typical ([Skills]: 4x outliers only raise the bound)
    assert [c.name for c in nodes["comments"].items.children] == ["_id", "text"]  # type: ignore[union-attr]
    assert nodes["has_overflow"].bson_type == "bool"
    assert post.validator["$jsonSchema"]["properties"]["comments"]["maxItems"] == 48
    overflow = next(c for c in analysis.design.companions if c.name == "post_overflow")
    assert [ix.keys for ix in overflow.indexes] == [[("post_id", 1)]]
    rel = analysis.design.relationships[0]
    assert (rel.strategy, rel.rules) == ("parent-ref", ["parent-ref-one-to-squillions", "outlier-pattern"])
    assert [q.round_trips for q in analysis.design.queries] == [1]  # typical posts: one read


def test_no_outliers_no_embedded_array() -> None:
    analysis = analyse(posts(1000, 5000))  # only 5x typical: plain references
    post = analysis.design.collection("post")
    assert post is not None and [n.name for n in post.shape] == ["_id", "title"]
    assert [q.round_trips for q in analysis.design.queries] == [2]


def test_the_users_own_parent_reference_is_kept_plain() -> None:
    analysis = analyse(posts(12, 50_000, strategy="parent-ref"))
    post = analysis.design.collection("post")
    assert post is not None and [n.name for n in post.shape] == ["_id", "title"]
    assert [f.rule for f in analysis.findings if f.subject.id == "post_comments"].count("outlier-pattern") == 1


def movies(extra_field: str | None = None) -> Project:
    countries = ["US", "France", "Italy", "Japan", "Brazil"]
    fields = [{"name": "title", "type": "string"}] + [{"name": f"release_{c}", "type": "date"} for c in countries]
    if extra_field:
        fields.append({"name": extra_field, "type": "string"})
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "movies",
            "entities": [{"id": "movie", "name": "Movie", "fields": fields}],
            "queries": [
                {"id": "us", "entity": "movie", "filter": {"release_US": "range"}},
                {"id": "fr", "entity": "movie", "filter": {"release_France": "eq"}},
            ],
        }
    )


def test_the_attribute_pattern_stores_pairs_with_one_index_and_elem_match() -> None:
    analysis = analyse(movies())
    movie = analysis.design.collections[0]
    assert [n.name for n in movie.shape] == ["_id", "title", "releases"]
    pairs = movie.validator["$jsonSchema"]["properties"]["releases"]
    assert pairs["items"]["properties"]["k"]["enum"] == ["US", "France", "Italy", "Japan", "Brazil"]
    assert pairs["items"]["properties"]["v"]["bsonType"] == "date"
    assert [(ix.keys, ix.rules[0], ix.queries) for ix in movie.indexes] == [
        ([("releases.k", 1), ("releases.v", 1)], "attribute-pattern", ["us", "fr"])
    ]
    filters = {q.id: q.steps[0].filter for q in analysis.design.queries}
    assert filters["fr"]["releases"]["$elemMatch"]["k"] == "France"
    assert set(filters["us"]["releases"]["$elemMatch"]["v"]) == {"$gte", "$lt"}


def test_a_field_already_named_like_the_array_keeps_the_fields() -> None:
    analysis = analyse(movies(extra_field="releases"))
    names = [n.name for n in analysis.design.collections[0].shape]
    assert "release_US" in names and names.count("releases") == 1
    finding = next(f for f in analysis.findings if f.rule == "attribute-pattern")
    assert "first rename the field releases" in finding.message


def test_a_hot_inexact_counter_is_written_every_100_events() -> None:
    from modeller.export.snippets import counter_snippet

    fields = [
        {"name": "popularity", "type": "long", "counter": True, "updates_per_sec": 5000},
        {"name": "stock", "type": "long", "counter": True, "exact": True, "updates_per_sec": 5000},
    ]
    project = Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "shop",
            "entities": [{"id": "product", "name": "Product", "fields": fields}],
        }
    )
    analysis = analyse(project)
    coll = analysis.design.collections[0]
    assert {n.name: n.write_every for n in coll.shape} == {"_id": None, "popularity": 100, "stock": None}
    finding = next(f for f in analysis.findings if f.rule == "approximation-pattern")
    assert (finding.numbers["writes_per_sec_after"], finding.numbers["write_reduction"]) == (50, 0.99)
    snippet = counter_snippet(coll)
    assert '$inc: { "popularity": 100 }' in snippet and "stock" not in snippet


def test_a_schema_change_adds_schema_version_and_a_warning_validator() -> None:
    project = Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "crm",
            "entities": [
                {
                    "id": "contact",
                    "name": "Contact",
                    "schema_change": True,
                    "fields": [{"name": "email", "type": "string"}],
                },
                {"id": "note", "name": "Note", "fields": [{"name": "text", "type": "string"}]},
            ],
        }
    )
    contact, note = analyse(project).design.collections
    version = next(n for n in contact.shape if n.name == "schema_version")
    assert (version.bson_type, version.enum, version.required) == ("int", [2], False)
    assert (contact.validation_level, contact.validation_action) == ("moderate", "warn")
    assert (note.validation_level, note.validation_action) == ("strict", "error")
    assert "schema_version" not in [n.name for n in note.shape]


def test_history_and_archive_add_companion_collections_with_their_indexes() -> None:
    from modeller.export import mongosh_script

    project = Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "insurance",
            "entities": [
                {"id": "policy", "name": "Policy", "history": True, "fields": [{"name": "number", "type": "string"}]},
                {
                    "id": "entry",
                    "name": "Audit entry",
                    "archive": {"age_field": "at", "cold_after_s": 86_400 * 365},
                    "fields": [{"name": "at", "type": "date"}],
                },
            ],
        }
    )
    design = analyse(project).design
    assert [c.name for c in design.collections] == ["policy", "audit_entry"]
    revisions, archive = design.companions
    assert (revisions.name, revisions.companion_of, archive.name, archive.companion_of) == (
        "policy_revisions",
        "policy",
        "audit_entry_archive",
        "audit_entry",
    )
    assert [n.name for n in revisions.shape] == ["_id", "policy_id", "number", "revision"]
    assert revisions.validator["$jsonSchema"]["required"] == ["_id", "policy_id", "revision"]
    index = revisions.indexes[0]
    assert (index.keys, index.unique, index.rules) == (
        [("policy_id", 1), ("revision", -1)],
        True,
        ["document-versioning"],
    )
    assert "revision" in [n.name for n in design.collections[0].shape]
    mover = next(ix for ix in design.collections[1].indexes if ix.keys == [("at", 1)])
    assert mover.rules == ["archive-pattern"]
    assert [ix.keys for ix in archive.indexes] == [[("at", 1)]]
    script = mongosh_script(design, project)
    assert 'ensureCollection("policy_revisions"' in script and 'ensureCollection("audit_entry_archive"' in script
    assert '{"name": "policy_id_1_revision_-1", "unique": true}' in script
    assert "companions" in design.to_json() and "companions" not in analyse(movies()).design.to_json()


def test_a_group_member_with_its_own_unique_index_keeps_the_group_as_fields() -> None:
    project = movies()
    movie = project.entities[0].model_copy(update={"indexes": [{"keys": [["release_US", 1]], "unique": True}]})
    design = analyse(project.model_copy(update={"entities": [movie]})).design
    assert "release_US" in [n.name for n in design.collections[0].shape]
    assert not any(n.attribute for n in design.collections[0].shape)
