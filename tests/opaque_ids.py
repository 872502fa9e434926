"""Projects whose ids are opaque tokens (``zq001x``): any token in text a user reads is a leaked id.

Generated ids (``entity_2``, ``entity_entity_2``, ``user_query``) look like words, so a leak of one reads
almost right; an opaque token does not, and a test can find it.
"""

from __future__ import annotations

import re

from modeller.model import Project

TOKEN = re.compile(r"zq\d{3}x")


def opaque(project: Project) -> tuple[Project, dict[str, str]]:
    """``project`` with every entity, relationship and query id renamed to a token, every reference following."""
    ids = [e.id for e in project.entities] + [r.id for r in project.relationships] + [q.id for q in project.queries]
    new = {old: f"zq{n:03d}x" for n, old in enumerate(dict.fromkeys(ids), start=1)}
    entities = tuple(e.model_copy(update={"id": new[e.id]}) for e in project.entities)
    rels = tuple(
        r.model_copy(update={"id": new[r.id], "one": new[r.one], "many": new[r.many]}) for r in project.relationships
    )
    queries = tuple(
        q.model_copy(
            update={
                "id": new[q.id],
                "entity": new[q.entity],
                "joins": tuple(new[j] for j in q.joins),
                "scope": new[q.scope] if q.scope is not None else None,
            }
        )
        for q in project.queries
    )
    overrides = []
    for override in project.overrides:
        subject = override.subject
        head, dot, rest = subject.id.partition(".")
        ident = new[head] + dot + rest if subject.kind == "field" and head in new else new.get(subject.id, subject.id)
        overrides.append(override.model_copy(update={"subject": subject.model_copy(update={"id": ident})}))
    layout = {new.get(key, key): value for key, value in project.layout.items()}
    changed = project.model_copy(
        update={
            "entities": entities,
            "relationships": rels,
            "queries": queries,
            "overrides": tuple(overrides),
            "layout": layout,
        }
    )
    return Project.model_validate(changed.model_dump()), new
