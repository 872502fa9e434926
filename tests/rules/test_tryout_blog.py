"""Advice a new user's tryout (a14) found wrong on a blog drawn from scratch, reduced to what matters: a page-view
log (one-to-squillions, 100,000 per post typically) and posts without a query were embedded with the outlier
pattern, nesting whole Posts and their PageViews in Author (22.9 MB), and the size error blamed a 315-byte array."""

from __future__ import annotations

from typing import Any

from test_cases import build

from modeller.rules import analyse


def _blog(queries: list[dict[str, Any]] | None = None, **views: Any) -> dict[str, Any]:
    """Author -> Post (50 typically, 5,000 at most) and Post -> PageView (a log written 2,000 times a second)."""
    page_views: dict[str, Any] = {
        "id": "post_views",
        "one": "post",
        "many": "view",
        "cardinality": "one-to-squillions",
        "typical": 100_000,
        "max": 50_000_000,
        "read_together": 1,
        "reads_per_sec": 500,
        "writes_per_sec": 2000,
        **views,
    }
    return {
        "entities": [
            {"id": "author", "name": "Author", "fields": [{"name": "name", "type": "string"}]},
            {
                "id": "post",
                "name": "Post",
                "count": 500_000,
                "reads_per_sec": 500,
                "fields": [{"name": "title", "type": "string"}, {"name": "body", "type": "string"}],
            },
            {
                "id": "view",
                "name": "PageView",
                "append_only": True,
                "fields": [{"name": "at", "type": "date"}, {"name": "ip", "type": "string"}],
            },
            {"id": "label", "name": "Label", "fields": [{"name": "name", "type": "string"}]},
        ],
        "relationships": [
            {
                "id": "author_posts",
                "one": "author",
                "many": "post",
                "cardinality": "one-to-many",
                "typical": 50,
                "max": 5000,
            },
            page_views,
            {
                "id": "post_labels",
                "one": "post",
                "many": "label",
                "cardinality": "many-to-many",
                "typical": 5,
                "max": 20,
            },
        ],
        "queries": queries or [],
    }


def test_before_any_query_nothing_nests_in_author_and_the_log_has_its_own_collection() -> None:
    analysis = analyse(build(_blog()))
    design = analysis.design
    holders = {c.name: c.entities for c in design.collections}
    assert holders["author"] == ["author"] and holders["post"] == ["post"] and holders["page_view"] == ["view"], holders
    assert not design.companions, [c.name for c in design.companions]
    rels = {r.id: r for r in design.relationships}
    for rid in ("author_posts", "post_views"):
        assert rels[rid].strategy == "parent-ref" and "outlier-pattern" not in rels[rid].rules, rels[rid]
        assert "has_overflow" not in rels[rid].why
    assert not [f for f in analysis.reported if f.severity == "error"], [f.message for f in analysis.reported]


def test_a_log_read_with_its_post_is_still_not_embedded() -> None:
    """A query of the Post that joins the views does not make a one-to-squillions embeddable (rule 4)."""
    page = {"id": "post_page", "entity": "post", "name": "post page", "filter": {"_id": "eq"}, "joins": ["post_views"]}
    design = analyse(build(_blog([page]))).design
    rel = next(r for r in design.relationships if r.id == "post_views")
    assert (rel.strategy, rel.rules) == ("parent-ref", ["parent-ref-one-to-squillions"]), rel
    assert [c.entities for c in design.collections if c.name == "post"] == [["post"]]


def test_the_size_error_blames_the_array_that_is_large() -> None:
    """The user embeds the log (up to 1,000,000): the error is on the views' array, never on the 20 label ids
    that share the 16 MiB document."""
    analysis = analyse(build(_blog(cardinality="one-to-many", typical=500, max=1_000_000, strategy="embed")))
    errors = [
        (f.rule, f.subject.id) for f in analysis.reported if f.severity == "error" and f.rule == "unbounded-array"
    ]
    assert errors == [("unbounded-array", "post_views")], [f.message for f in analysis.reported]


def _few_comments(query: bool) -> dict[str, Any]:
    """Post -> Comment one-to-few (3 typically, 10 at most) read with the Post, with or without the query
    "comments of a post" (For one: Post, newest first) — probe-few-withq / probe-few-noq reduced."""
    queries = [
        {
            "id": "comment_query",
            "entity": "comment",
            "name": "comments of a post",
            "scope": "post_comments",
            "sort": [["created_at", -1]],
            "per_sec": 200,
        }
    ]
    return {
        "entities": [
            {"id": "post", "name": "Post", "fields": [{"name": "title", "type": "string"}]},
            {"id": "comment", "name": "Comment", "fields": [{"name": "created_at", "type": "date"}]},
        ],
        "relationships": [
            {
                "id": "post_comments",
                "one": "post",
                "many": "comment",
                "cardinality": "one-to-few",
                "typical": 3,
                "max": 10,
                "read_together": 1,
            }
        ],
        "queries": queries if query else [],
    }


def test_comments_of_a_post_is_not_reading_comments_on_their_own() -> None:
    """Seed 002 (CN): a blog post's few comments are embedded; "comments of a post" is what embedding serves."""
    for query in (False, True):
        analysis = analyse(build(_few_comments(query)))
        rel = analysis.design.relationships[0]
        assert (rel.strategy, rel.rules) == ("embed", ["embed-one-to-few"]), (query, rel)
        texts = " ".join(f"{f.message} {f.why}" for f in analysis.reported)
        assert "comment_query" not in texts and "on its own" not in texts, texts


def test_a_query_of_its_own_is_named_by_its_name_and_no_back_read_is_claimed() -> None:
    """A query on Comments not through their Post makes them stand alone: the message names it by its name, and
    since no query reads the Post of one Comment, it keeps a reference in each Comment (one-way, rule 6)."""
    data = _few_comments(True)
    data["queries"].append(
        {"id": "comment_query_2", "entity": "comment", "name": "latest comments", "sort": [["created_at", -1]]}
    )
    analysis = analyse(build(data))
    assert analysis.design.relationships[0].strategy == "parent-ref"
    (f,) = [f for f in analysis.reported if f.subject.id == "post_comments"]
    assert "query 'latest comments' reads Comment on its own" in f.message, f.message
    assert "comment_query" not in f.message and "'the Post of one Comment'" not in f.message, f.message
    assert "no query reads the Post of one Comment" in f.message
