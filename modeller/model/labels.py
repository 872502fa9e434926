"""How text a user reads names an entity, a relationship, a query: by the user's words, never by an id.

Ids are machine keys (generated ones read like words: ``entity_2``, ``entity_entity_2``, ``user_query``),
so every message, report and panel names things through these functions instead:

- an entity by its name: ``Author``;
- a relationship by its ends: ``Author → Post``;
- a query by its name, quoted: ``'posts of an author'``; an unnamed query by its place in the project's list
  of queries and what it reads: ``2 on Post by author_id`` (so "query 2 on Post by author_id" reads as words,
  and two unnamed queries on the same fields still read apart).
"""

from __future__ import annotations

from modeller.model.project import Entity, Project, Query, Relationship

#: the arrow between a relationship's ends, as the canvas and the undo history show it
ARROW = "→"


def relationship_words(one: str, many: str) -> str:
    """``Author → Post``: a relationship named by the names of its ends."""
    return f"{one} {ARROW} {many}"


def query_words(query: Query, entity_name: str, number: int | None = None) -> str:
    """``'posts of an author'``, or for unnamed query ``number`` (its 1-based place in the project's queries)
    ``2 on Post by author_id, published_at``; without a number only what it reads."""
    if query.name and query.name.strip():
        return repr(query.name)
    keys = list(dict.fromkeys([*query.filter, *(key for key, _ in query.sort)]))
    by = f" by {', '.join(keys[:3])}{', …' if len(keys) > 3 else ''}" if keys else ""
    return f"{'' if number is None else f'{number} '}on {entity_name}{by}"


def query_numbers(project: Project) -> dict[str, int]:
    """Query id -> its 1-based place in the project's list of queries (the number an unnamed query is called by)."""
    return {q.id: i for i, q in enumerate(project.queries, 1)}


class Labels:
    """Id -> words maps of one project, built once (findings of a 1,000-entity project ask thousands of times)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.entities: dict[str, Entity] = {e.id: e for e in project.entities}
        self.rels: dict[str, Relationship] = {r.id: r for r in project.relationships}
        self.queries: dict[str, Query] = {q.id: q for q in project.queries}
        self.query_numbers = query_numbers(project)

    def entity(self, entity_id: str) -> str:
        entity = self.entities.get(entity_id)
        return entity.name if entity is not None else entity_id

    def relationship(self, rel_id: str) -> str:
        rel = self.rels.get(rel_id)
        return relationship_words(self.entity(rel.one), self.entity(rel.many)) if rel is not None else rel_id

    def query(self, query_id: str) -> str:
        """The query's words without the word "query": ``'post page'`` or ``2 on Post by _id``."""
        query = self.queries.get(query_id)
        if query is None:
            return query_id
        return query_words(query, self.entity(query.entity), self.query_numbers.get(query_id))

    def subject(self, kind: str, ident: str) -> str:
        """A finding's subject: ``Author``, ``Author → Post``, ``Post.title``, ``query 'post page'``."""
        if kind == "entity":
            return self.entity(ident)
        if kind == "relationship":
            return self.relationship(ident)
        if kind == "field":
            entity_id, _, path = ident.partition(".")
            return f"{self.entity(entity_id)}.{path}" if path else ident
        if kind == "query":
            return f"query {self.query(ident)}"
        return f"{kind} {ident}"
