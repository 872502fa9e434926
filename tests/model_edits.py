"""Edits of immutable projects in tests: replace one object by a changed copy, the way the GUI does."""

from __future__ import annotations

from typing import Any

from modeller.model import Entity, Project, Query, Relationship

_LISTS = {Entity: "entities", Relationship: "relationships", Query: "queries"}


def changed(project: Project, obj: Entity | Relationship | Query, **update: Any) -> Project:
    """``project`` with ``obj`` (one of its entities, relationships or queries) replaced by a copy with ``update``."""
    name = _LISTS[type(obj)]
    items = getattr(project, name)
    index = next(i for i, item in enumerate(items) if item is obj)
    new = obj.model_copy(update=update)
    return project.model_copy(update={name: (*items[:index], new, *items[index + 1 :])})
