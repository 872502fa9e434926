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
    # the numbers show no "read together 1" the user never set
    (posts,) = [f for f in analysis.findings if f.subject.id == "author_posts"]
    assert "read_together" not in posts.numbers and posts.numbers["n_max"] == 5000


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


def _tags(queries: list[dict[str, Any]], **tags: Any) -> dict[str, Any]:
    """Post <-> Label many-to-many (5 typically, 20 at most per Post), 500,000 Posts among 2,000 Labels."""
    return {
        "entities": [
            {"id": "post", "name": "Post", "count": 500_000, "fields": [{"name": "published_at", "type": "date"}]},
            {"id": "label", "name": "Label", "count": 2000, "fields": [{"name": "name", "type": "string"}]},
        ],
        "relationships": [
            {
                "id": "post_labels",
                "one": "post",
                "many": "label",
                "cardinality": "many-to-many",
                "typical": 5,
                "max": 20,
                **tags,
            }
        ],
        "queries": queries,
    }


POSTS_BY_TAG = {
    "id": "post_query_3",
    "entity": "post",
    "name": "posts by tag",
    "scope": "post_labels",
    "sort": [["published_at", -1]],
    "per_sec": 200,
}


def test_a_many_to_many_read_one_way_keeps_the_array_on_the_queried_side_only() -> None:
    """RULES.md rule 6: "posts by tag" is the only read; the Label keeps no array of Post ids (1,250 typically)."""
    analysis = analyse(build(_tags([POSTS_BY_TAG])))
    rel = analysis.design.relationships[0]
    assert rel.strategy == "child-refs", rel
    label = analysis.design.collection("label")
    post = analysis.design.collection("post")
    assert label is not None and post is not None
    assert [n.name for n in label.shape] == ["_id", "name"]
    assert [n.name for n in post.shape if n.bson_type == "array"] == ["label_ids"]
    assert [ix.keys for ix in post.indexes] == [[("label_ids", 1), ("published_at", -1)]]
    (f,) = [f for f in analysis.reported if f.subject.id == "post_labels" and f.rule == "many-to-many-refs"]
    assert "no Label query reads its Posts" in f.message and "label_ids in post is indexed" in f.message
    assert "transaction" not in f.message and f.numbers["typical_ones_per_n"] == 1250  # 500,000 x 5 / 2,000


def test_a_label_side_with_too_many_posts_keeps_no_array_even_when_unread_both_ways() -> None:
    """No query yet: a Label would hold about 2,500 Post ids (1,000,000 x 5 / 2,000), more than 2,000."""
    data = _tags([])
    data["entities"][0]["count"] = 1_000_000
    rel = analyse(build(data)).design.relationships[0]
    assert rel.strategy == "child-refs", rel


def test_a_many_to_many_read_both_ways_stays_two_way() -> None:
    labels_of_post = {"id": "labels_of_post", "entity": "label", "scope": "post_labels"}
    rel = analyse(build(_tags([POSTS_BY_TAG, labels_of_post]))).design.relationships[0]
    assert rel.strategy == "two-way", rel


def test_a_refined_strategy_leads_with_what_the_design_does_under_a_one_to_many_rule() -> None:
    """Post -> Comment (2 typically, 2,000 at most, the latest 10 shown): the finding opens with the subset the
    design holds, in plural words, filed under a one-to-many rule; no outlier advice against the subset."""
    data = _few_comments(True)
    data["relationships"][0].update(cardinality="one-to-many", typical=2, max=2000, read_together=0.9, show_latest=10)
    analysis = analyse(build(data))
    assert analysis.design.relationships[0].strategy == "subset"
    (f,) = [f for f in analysis.findings if f.subject.id == "post_comments"]
    assert f.message.startswith("subset — the Post page shows only the latest 10 of up to 2,000 Comments: "), f.message
    assert (f.rule, f.also) == ("child-refs-one-to-many", ("subset-pattern",)), (f.rule, f.also)
    assert "array of Comment ids" not in f.message and "many-to-many" not in f.message
    assert f.tradeoff is not None and f.tradeoff.startswith("the Post renders with one read")


def test_the_outlier_line_says_what_the_design_does() -> None:
    """The outlier pattern keeps the strategy parent-ref but embeds the typical N: the line's label says so."""
    data = _few_comments(False)
    data["relationships"][0].update(cardinality="one-to-many", typical=12, max=50_000)
    (rel,) = analyse(build(data)).design.relationships
    assert (rel.strategy, rel.shown) == ("parent-ref", "embed up to 48 + overflow"), rel


def test_advice_words_carry_no_engine_jargon() -> None:
    """Tryout a14 item 11: no "engine 2,000" inside sentences and no rule id as a cross-reference."""
    analysis = analyse(build(_blog()))
    texts = [f"{f.message} {f.tradeoff}" for f in analysis.reported]
    assert not [t for t in texts if "engine 2,000" in t or "see computed-pattern" in t], texts
    assert any("more than the 2,000 ids an array should hold" in t for t in texts)


def test_a_many_to_many_read_only_from_the_other_side_keeps_the_array_there() -> None:
    labels_of_post = {"id": "labels_of_post", "entity": "label", "name": "labels of a post", "scope": "post_labels"}
    analysis = analyse(build(_tags([labels_of_post])))
    rel = analysis.design.relationships[0]
    assert rel.strategy == "parent-ref", rel
    post = analysis.design.collection("post")
    assert post is not None and not [n.name for n in post.shape if n.bson_type == "array"]
    assert "only Label queries go through it ('labels of a post')" in rel.why, rel.why
    (f,) = [f for f in analysis.reported if f.subject.id == "post_labels" and f.rule == "many-to-many-refs"]
    assert f.why is not None and "The array of Post ids in each Label" in f.why, f.why


def test_counted_nouns_are_plural() -> None:
    """Tryout a14 item 11: "2,000 Comments", "300 embedded Comments are more than ...", never a singular."""
    data = _few_comments(False)
    data["relationships"][0].update(cardinality="one-to-many", typical=20, max=300, strategy="embed")
    analysis = analyse(build(data))
    (warning,) = [f for f in analysis.reported if f.rule == "unbounded-array"]
    assert warning.message.startswith("up to 300 embedded Comments are more than"), warning.message
