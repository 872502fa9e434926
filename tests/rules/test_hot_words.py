"""Two meanings of "hot": the engine treats a query run 10 times a second like one whose Hot path box is
ticked, but its message must not call a query "hot" whose box is unticked (the tryout's 'room_query')."""

from __future__ import annotations

from typing import Any

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse


def message(**query: Any) -> str:
    project = Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "chat",
            "entities": [{"id": "room_x", "name": "Room", "fields": [{"name": "title", "type": "string"}]}],
            "queries": [{"id": "room_query", "entity": "room_x", "filter": {"title": "eq"}, **query}],
        }
    )
    (found,) = [f for f in analyse(project).findings if f.rule == "index-hot-queries"]
    return found.message


def test_an_unticked_frequent_query_is_called_frequent_by_its_name() -> None:
    text = message(name="members of a room", per_sec=100)
    assert text.startswith("frequent query 'members of a room' (100/s) needs {title: 1} on room:")
    assert "hot" not in text and "room_query" not in text


def test_a_ticked_query_is_called_hot_path() -> None:
    assert message(name="members of a room", hot=True).startswith("hot-path query 'members of a room' needs")
    assert message(hot=True, per_sec=20).startswith("hot-path query 1 on Room by title (20/s) needs")
