"""Fresh ids and names for objects the app or the engine adds to a project (a card, a fix's new entity).

Entities, relationships and queries share one id space: an override names its subject by id alone.
"""

from __future__ import annotations

import re

from modeller.model.names import snake
from modeller.model.project import Project


def slug(text: str) -> str:
    """A legal id from free text, as the document generates them ("Log message" -> ``log_message``)."""
    stem = re.sub(r"[^A-Za-z0-9_\-]", "_", snake(text))[:90].strip("_") or "x"
    return stem if stem[0].isalpha() or stem[0] == "_" else "_" + stem


def used_ids(project: Project) -> set[str]:
    """Entities, relationships and queries share one id space (overrides name a subject by id alone)."""
    return {e.id for e in project.entities} | {r.id for r in project.relationships} | {q.id for q in project.queries}


def unique(stem: str, used: set[str]) -> str:
    """``stem``, or ``stem_2``, ``stem_3``... whichever is free first."""
    if stem not in used:
        return stem
    n = 2
    while f"{stem}_{n}" in used:
        n += 1
    return f"{stem}_{n}"
