"""Shared test data for the project-file tests (a uniquely named module, so imports never pick another conftest)."""

from __future__ import annotations

import json
from typing import Any

TINY: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 1,
    "name": "Task tracker",
    "database": "tracker",
    "entities": [
        {
            "id": "person",
            "name": "Person",
            "count": 10000,
            "fields": [
                {"name": "name", "type": "string", "required": True},
                {"name": "address", "type": "object", "fields": [{"name": "city", "type": "string"}]},
            ],
        },
        {"id": "task", "name": "Task", "fields": [{"name": "due_date", "type": "date"}]},
    ],
    "relationships": [
        {"id": "person_tasks", "one": "person", "many": "task", "cardinality": "one-to-many", "max": 500}
    ],
    "queries": [{"id": "due", "entity": "task", "filter": {"due_date": "range"}, "sort": [["due_date", 1]]}],
    "layout": {"person": {"x": 40, "y": 60}, "task": {"x": 340, "y": 60}},
}


def pretty(data: Any) -> str:
    """Data as an indented file text, so errors land on distinct lines."""
    return json.dumps(data, indent=2) + "\n"
