"""What a rule sees: the indexed project, the plans and the resolved design, walked subject by subject."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from modeller.model.project import Project, Query
from modeller.rules.physical.design import CollectionDesign, Design, RelationshipDesign
from modeller.rules.physical.facts import Context, RelFacts
from modeller.rules.physical.plans import RelPlan
from modeller.rules.physical.resolver import Resolution
from modeller.rules.settings import Settings


@dataclass(slots=True)
class RuleContext:
    """What a rule sees: the indexed project, the plans and the resolved design."""

    facts: Context
    design: Design
    res: Resolution
    #: entity id -> (physical -> logical path read so far, the (physical, logical) pairs not read yet)
    _inverse: dict[str, tuple[dict[str, str], Iterator[tuple[str, str]]]] = field(default_factory=dict)
    _collections: dict[str, CollectionDesign] = field(default_factory=dict)
    _rel_designs: dict[str, RelationshipDesign] = field(default_factory=dict)
    #: what ``each_*`` iterate: (position in the whole list, subject); None = everything
    only_rels: list[tuple[int, RelFacts]] | None = None
    only_collections: list[tuple[int, CollectionDesign]] | None = None
    only_queries: list[tuple[int, Query]] | None = None
    #: the subject the running rule is looking at: (kind, id, position); findings are filed under it
    current: tuple[str, str, int] = ("", "", 0)
    #: per query position, a unique name for it (a half-edited model may repeat a query id)
    query_producers: list[str] = field(default_factory=list)
    #: rule id -> what a global rule keeps between the analyses of one Analyser (to reuse unchanged findings)
    memo: dict[str, Any] = field(default_factory=dict)
    #: (current, subject) of every relationship / collection / query, built by the first full walk
    _rel_items: list[tuple[tuple[str, str, int], RelFacts]] | None = None
    _coll_items: list[tuple[tuple[str, str, int], CollectionDesign]] | None = None
    _query_items: list[tuple[tuple[str, str, int], Query]] | None = None
    #: "r"/"c"/"q" -> (the ``only_*`` list, its length, its (current, subject) items): every rule walks the
    #: same dirty subjects, so their items are built once per analysis, not once per rule
    _only_items: dict[str, tuple[list[Any], int, list[Any]]] = field(default_factory=dict)
    #: what rules compute once per analysis and share (e.g. a collection's indexes by name); checked against
    #: the objects it was computed from, so it is right for the subset of subjects an incremental run re-checks
    scratch: dict[str, Any] = field(default_factory=dict)
    #: key function -> (the items it grouped, key value -> items): see ``each_rel_where``
    _rel_groups: dict[Any, tuple[list[Any], dict[Hashable, list[Any]]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self._collections:
            self._collections = {c.name: c for c in self.design.collections}
        if not self._rel_designs:
            self._rel_designs = {r.id: r for r in self.design.relationships}

    # ----- what rules iterate (an incremental analysis re-checks only the subjects whose inputs changed) -----
    def _only(self, kind: str, only: list[tuple[int, Any]], item: Callable[[int, Any], Any]) -> list[Any]:
        """The (current, subject) items of a dirty-subject list, built once per list (every rule walks it)."""
        cached = self._only_items.get(kind)
        if cached is not None and cached[0] is only and cached[1] == len(only):
            return cached[2]
        items = [item(i, subject) for i, subject in only]
        self._only_items[kind] = (only, len(only), items)
        return items

    def rel_items(self) -> list[tuple[tuple[str, str, int], RelFacts]]:
        """(current, facts) of the relationships ``each_rel`` walks, built once per ``only_rels`` list."""
        if self.only_rels is not None:
            return self._only("r", self.only_rels, _rel_item)
        if self._rel_items is None:
            self._rel_items = [_rel_item(i, f) for i, f in enumerate(self.facts.rels)]
        return self._rel_items

    def coll_items(self) -> list[tuple[tuple[str, str, int], CollectionDesign]]:
        """(current, collection) of the collections ``each_collection`` walks."""
        if self.only_collections is not None:
            return self._only("c", self.only_collections, _coll_item)
        if self._coll_items is None:
            self._coll_items = [_coll_item(i, c) for i, c in enumerate(self.design.collections)]
        return self._coll_items

    def query_items(self) -> list[tuple[tuple[str, str, int], Query]]:
        """(current, query) of the queries ``each_query`` walks (named by ``query_producers`` when set)."""
        names = self.query_producers

        def item(i: int, q: Query) -> tuple[tuple[str, str, int], Query]:
            return ("q", names[i] if names else q.id, i), q

        if self.only_queries is not None:
            return self._only("q", self.only_queries, item)
        if self._query_items is None:
            self._query_items = [item(i, q) for i, q in enumerate(self.facts.queries)]
        return self._query_items

    def each_rel_where(self, key: Callable[[RuleContext, RelFacts], Hashable], value: Hashable) -> Iterator[RelFacts]:
        """``each_rel`` restricted to the relationships with ``key(self, facts) == value``, in the same order.

        Most rules look at one strategy or recommendation only: the relationships are grouped by ``key``
        once per analysis (per ``only_rels`` list) instead of every such rule walking all of them.
        """
        items = self.rel_items()
        groups = self._rel_groups.get(key)
        if groups is None or groups[0] is not items:
            by: dict[Hashable, list[tuple[tuple[str, str, int], RelFacts]]] = {}
            for item in items:
                group = by.get(k := key(self, item[1]))
                if group is None:
                    by[k] = [item]
                else:
                    group.append(item)
            groups = self._rel_groups[key] = (items, by)
        selected = groups[1].get(value, ())
        for self.current, facts in selected:
            yield facts

    def each_rel(self) -> Iterator[RelFacts]:
        items = self.rel_items()
        for self.current, facts in items:
            yield facts

    def each_collection(self) -> Iterator[CollectionDesign]:
        items = self.coll_items()
        for self.current, coll in items:
            yield coll

    def each_query(self) -> Iterator[Query]:
        items = self.query_items()
        for self.current, q in items:
            yield q

    def collection(self, name: str) -> CollectionDesign | None:
        return self._collections.get(name)

    def rel_design(self, rel_id: str) -> RelationshipDesign:
        return self._rel_designs[rel_id]

    @property
    def project(self) -> Project:
        return self.facts.project

    @property
    def settings(self) -> Settings:
        return self.facts.settings

    def plan(self, rel_id: str) -> RelPlan:
        return self.res.plans[rel_id]

    def logical_keys(self, entity_id: str, keys: list[tuple[str, object]]) -> list[tuple[str, object]] | None:
        """Index keys in the model's own paths (for a fix), or None when a key has no model path."""
        found = self._inverse.get(entity_id)
        if found is None:
            found = self._inverse[entity_id] = (self._route_inverse(entity_id), self._field_pairs(entity_id))
        inverse, pairs = found
        out: list[tuple[str, object]] = []
        for key, value in keys:
            logical = inverse.get(key)
            if logical is None:
                # the first pair naming a physical path wins: read the declared paths only as far as this key needs
                for physical, path in pairs:
                    inverse.setdefault(physical, path)
                    if physical == key:
                        logical = inverse[key]
                        break
                else:
                    return None
            out.append((logical, value))
        return out

    def _route_inverse(self, entity_id: str) -> dict[str, str]:
        """Physical -> logical name of an entity's routes (the first wins): the pairs read before any field."""
        inverse: dict[str, str] = {}
        for name, route in self.res.builder.routes.get(entity_id, {}).items():
            if route.only is not None:
                for sub, phys in route.only.items():
                    if phys not in inverse:
                        inverse[phys] = f"{name}.{sub}"
            elif route.entity is None and route.path not in inverse:
                inverse[route.path] = name
        return inverse

    def _field_pairs(self, entity_id: str) -> Iterator[tuple[str, str]]:
        """(physical path, logical path) of an entity's declared paths, in declaration order (after the routes)."""
        resolve_path = self.res.resolve_path
        for path in self.facts.fields_of.get(entity_id, {}):
            physical = resolve_path(entity_id, path)
            if physical is not None:
                yield physical, path

    def collection_of(self, entity_id: str) -> CollectionDesign | None:
        loc = self.res.location.get(entity_id)
        return None if loc is None else self._collections.get(loc[0])


def _rel_item(i: int, facts: RelFacts) -> tuple[tuple[str, str, int], RelFacts]:
    return ("r", facts.rel.id, i), facts


def _coll_item(i: int, coll: CollectionDesign) -> tuple[tuple[str, str, int], CollectionDesign]:
    return ("c", coll.name, i), coll
