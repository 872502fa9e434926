"""What a rule sees: the indexed project, the plans and the resolved design, read-only.

The engine walks the subjects and hands each to the rule's hooks
(``Rule.check_relationship`` and its siblings), so the engine, not the view,
knows which subject produced a finding; the view holds no cursor and no
bookkeeping of the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from modeller.model.labels import query_numbers, query_words, relationship_words
from modeller.model.project import Project, Query
from modeller.rules.physical.design import CollectionDesign, Design, RelationshipDesign
from modeller.rules.physical.facts import Context
from modeller.rules.physical.planner import QueryPlan
from modeller.rules.physical.plans import RelPlan
from modeller.rules.physical.resolver import Resolution
from modeller.rules.settings import Settings


@dataclass(frozen=True, slots=True)
class RuleView:
    """What a rule sees: the indexed project (``facts``), the resolution (``res``: plans, routes, query plans),
    the resolved design and lookups by id. Frozen: a rule reads it and yields findings."""

    facts: Context
    design: Design
    res: Resolution
    collections: Mapping[str, CollectionDesign]
    rel_designs: Mapping[str, RelationshipDesign]
    #: entity id -> physical -> logical path, filled on demand by ``logical_keys`` (only index fixes ask): the
    #: routes first, the declared paths (each resolved: the costly part) only once a key is not among the routes
    _inverse: dict[str, dict[str, str]] = field(default_factory=dict)
    _inverse_declared: set[str] = field(default_factory=set)
    #: query id -> its plan, and the (collection, index name) pairs any plan or write uses: built on first use,
    #: so a rule asking per query or per index looks up instead of scanning every plan (quadratic at 10,000)
    _plans: dict[str, QueryPlan] = field(default_factory=dict)
    _used_indexes: list[frozenset[tuple[str, str]]] = field(default_factory=list)
    #: query id -> its place in the project's queries (an unnamed query's label), built on first use
    _query_numbers: dict[str, int] = field(default_factory=dict)
    #: query id -> the first query with that id, built on first use (a rule naming queries by id looked each up
    #: by scanning every query: edit -> findings <= 200 ms at 10,000 entities)
    _queries_by_id: dict[str, Query] = field(default_factory=dict)

    @classmethod
    def of(cls, facts: Context, design: Design, res: Resolution) -> RuleView:
        """The view of a freshly resolved design (its lookups built from the design)."""
        return cls(facts, design, res, {c.name: c for c in design.collections}, {r.id: r for r in design.relationships})

    @property
    def project(self) -> Project:
        return self.facts.project

    @property
    def settings(self) -> Settings:
        return self.facts.settings

    def query_words(self, query: Query | str) -> str:
        """``query 'post page'`` (an unnamed one: ``query on Post by _id``): how a message names a query."""
        if isinstance(query, str):
            if not self._queries_by_id:
                for q in self.facts.queries:
                    self._queries_by_id.setdefault(q.id, q)
            found = self._queries_by_id.get(query)
            if found is None:
                return f"query {query}"
            query = found
        entity = self.facts.entities.get(query.entity)
        if not self._query_numbers and not query.name:
            self._query_numbers.update(query_numbers(self.project))
        number = self._query_numbers.get(query.id)
        return "query " + query_words(query, entity.name if entity is not None else query.entity, number)

    def busy_query_words(self, query: Query) -> str:
        """``hot-path query 'x' (50/s)`` when its Hot path box is ticked, else ``frequent query 'x' (100/s)``.

        The engine treats both alike (``is_hot``), but a message must not call a query "hot" whose box the
        user left unticked.
        """
        words = self.query_words(query).removeprefix("query ")
        rate = f" ({query.per_sec:g}/s)" if query.per_sec else ""
        return f"hot-path query {words}{rate}" if query.hot else f"frequent query {words}{rate}"

    def rel_words(self, rel_id: str) -> str:
        """``Author → Post``: how a message names a relationship (never by its id)."""
        facts = self.facts.rel_by_id.get(rel_id)
        return relationship_words(facts.one.name, facts.many.name) if facts is not None else rel_id

    def collection(self, name: str) -> CollectionDesign | None:
        return self.collections.get(name)

    def collection_of(self, entity_id: str) -> CollectionDesign | None:
        loc = self.res.location.get(entity_id)
        return None if loc is None else self.collections.get(loc[0])

    def rel_design(self, rel_id: str) -> RelationshipDesign:
        return self.rel_designs[rel_id]

    def plan(self, rel_id: str) -> RelPlan:
        return self.res.plans[rel_id]

    def query_plan(self, query_id: str) -> QueryPlan | None:
        """How the design serves the declared query ``query_id`` (None: no plan for it)."""
        if not self._plans:
            for plan in self.design.queries:
                self._plans.setdefault(plan.id, plan)
        return self._plans.get(query_id)

    def index_used(self, collection: str, name: str) -> bool:
        """A plan's read (a join included) or a write of the design uses the index ``name`` of ``collection``."""
        if not self._used_indexes:
            used = {(s.collection, s.index.name) for p in self.design.queries for s in p.steps if s.index is not None}
            used.update((w.collection, w.index.name) for w in self.design.writes if w.index is not None)
            self._used_indexes.append(frozenset(used))
        return (collection, name) in self._used_indexes[0]

    def logical_keys(self, entity_id: str, keys: list[tuple[str, object]]) -> list[tuple[str, object]] | None:
        """Index keys in the model's own paths (for a fix), or None when a key has no model path."""
        inverse = self._inverse.get(entity_id)
        if inverse is None:
            inverse = self._inverse[entity_id] = self._routes_to_logical(entity_id)
        if not all(key in inverse for key, _ in keys) and entity_id not in self._inverse_declared:
            self._inverse_declared.add(entity_id)
            self._add_declared(entity_id, inverse)
        if not all(key in inverse for key, _ in keys):
            return None
        return [(inverse[key], value) for key, value in keys]

    def _routes_to_logical(self, entity_id: str) -> dict[str, str]:
        """Physical -> logical path of an entity's routes (the first wins): a top-level key is found here."""
        inverse: dict[str, str] = {}
        for name, route in self.res.builder.routes.get(entity_id, {}).items():
            if route.only is not None:
                for sub, phys in route.only.items():
                    inverse.setdefault(phys, f"{name}.{sub}")
            elif route.entity is None:
                inverse.setdefault(route.path, name)
        return inverse

    def _add_declared(self, entity_id: str, inverse: dict[str, str]) -> None:
        """Add the entity's declared paths after its routes (a route's path wins over a declared one)."""
        for path in self.facts.fields_of.get(entity_id, {}):
            physical = self.res.resolve_path(entity_id, path)
            if physical is not None:
                inverse.setdefault(physical, path)
