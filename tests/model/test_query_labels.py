"""An unnamed query is called by its place in the project's queries and what it reads, so two unnamed queries on
the same fields read apart in every text; a named query by its name."""

from __future__ import annotations

from modeller.model import Project
from modeller.model.labels import Labels, query_words


def shop() -> Project:
    query = {"entity": "order", "filter": {"status": "eq"}, "sort": [["created", -1]]}
    return Project.model_validate(
        {
            "format": "mongo-schema-modeller",
            "format_version": 2,
            "name": "Shop",
            "entities": [
                {
                    "id": "order",
                    "name": "Orders",
                    "fields": [{"name": "status", "type": "string"}, {"name": "created", "type": "date"}],
                }
            ],
            "queries": [
                {**query, "id": "recent", "name": "recent orders"},
                {**query, "id": "q_a"},
                {**query, "id": "q_b"},
            ],
        }
    )


def test_two_unnamed_queries_on_the_same_fields_read_apart() -> None:
    labels = Labels(shop())
    assert labels.query("q_a") == "2 on Orders by status, created"
    assert labels.query("q_b") == "3 on Orders by status, created"
    assert labels.subject("query", "q_b") == "query 3 on Orders by status, created"
    assert labels.query("recent") == "'recent orders'"


def test_without_a_number_an_unnamed_query_reads_by_its_fields() -> None:
    query = shop().queries[1]
    assert query_words(query, "Orders") == "on Orders by status, created"
    assert query_words(query, "Orders", 7) == "7 on Orders by status, created"
