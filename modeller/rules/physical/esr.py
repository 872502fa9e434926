"""The ESR guideline: order a query's index keys Equality, Sort, Range (Manual-ESR, CN seed).

``$in`` counts as equality (the Manual merges lists of fewer than 200 values
in index order), ``regex`` and ``range`` as range; a field that is both
sorted and range-filtered sits in the sort position, where it serves both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from modeller.model.project import Query

Resolve = Callable[[str], "str | None"]


@dataclass(slots=True)
class EsrPlan:
    """The index a query wants, with one reason per key."""

    eq: list[str] = field(default_factory=list)
    sort: list[tuple[str, int]] = field(default_factory=list)
    range: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)
    geo: list[str] = field(default_factory=list)
    collation: dict[str, Any] | None = None
    #: logical paths that need a join (no copy in this collection)
    unresolved: list[str] = field(default_factory=list)

    @property
    def keys(self) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = [(k, 1) for k in self.eq]
        out += list(self.sort)
        out += [(k, 1) for k in self.range]
        return out

    @property
    def components(self) -> int:
        return sum(1 for part in (self.eq, self.sort, self.range) if part)

    @property
    def only_id(self) -> bool:
        return self.eq == ["_id"] and not self.sort and not self.range


def plan_query(
    query: Query,
    resolve: Resolve,
    in_max: int,
    scope: tuple[str, str] | None = None,
    keyed: Resolve | None = None,
) -> EsrPlan:
    """ESR keys for ``query`` on its collection; paths go through ``resolve`` (logical -> physical).

    ``scope`` is the physical form of ``query.scope`` (``modeller.rules.physical.scopes.esr_scope``): the path
    of its equality and the reason, the leading equality key. A scope read by ``_id`` (the One's own document,
    or ``_id: {$in}`` over an array of references) is served by the ``_id`` index alone: it reads a handful of
    documents, so the filter and sort need no index of their own.

    ``keyed`` gives the ``k`` path of a field stored as a ``{k, v}`` pair (attribute pattern): the query then
    matches that key by equality first, so one ``{k: 1, v: 1}`` index serves every key of the group.
    """
    plan = EsrPlan()
    if scope is not None:
        plan.eq.append(scope[0])
        plan.reasons[scope[0]] = scope[1]
        if scope[0] == "_id":
            return plan
    if keyed is not None:
        for logical in [*query.filter, *(name for name, _ in query.sort)]:
            k_path = keyed(logical)
            if k_path is not None and k_path not in plan.eq:
                plan.eq.append(k_path)
                plan.reasons[k_path] = f"Equality: {logical} is the pair with k = its key (attribute pattern)"
    sort_fields: dict[str, Any] = {}
    for logical, direction in query.sort:
        path = resolve(logical)
        if path is None:
            plan.unresolved.append(logical)
            continue
        sort_fields.setdefault(path, direction)
    for logical, op in query.filter.items():
        path = resolve(logical)
        if path is None:
            plan.unresolved.append(logical)
            continue
        if op in ("eq", "in", "ci"):
            if path in plan.eq:
                continue
            plan.eq.append(path)
            sort_fields.pop(path, None)
            if op == "eq":
                plan.reasons[path] = f"Equality: the query filters {logical} = value"
            elif op == "in":
                plan.reasons[path] = (
                    f"Equality: {logical} $in [...] is merged in index order like an equality while "
                    f"the list has fewer than {in_max} values (MongoDB Manual, the ESR guideline)"
                )
            else:
                plan.reasons[path] = (
                    f"Equality: case-insensitive match on {logical}, served by an index with a strength-2 collation"
                )
                plan.collation = {"locale": "en", "strength": 2}
        elif op in ("range", "regex"):
            if path in sort_fields:
                plan.reasons.setdefault(path, f"Sort + Range: sorted by {logical}, which the range also filters")
                continue
            if path not in plan.range:
                plan.range.append(path)
                plan.reasons[path] = (
                    f"Range: {logical} {'$regex' if op == 'regex' else '$gt/$lt'} goes after "
                    "equality and sort keys so the index still delivers the sort order"
                )
        elif op == "text":
            plan.text.append(path)
        elif op == "geo":
            plan.geo.append(path)
    for path, direction in sort_fields.items():
        plan.sort.append((path, direction))
        plan.reasons.setdefault(
            path,
            f"Sort: the query sorts by {path} {direction}; after the equality keys the "
            "index returns documents already in order (no blocking sort)",
        )
    return plan


def serves(index_keys: list[tuple[str, Any]], plan: EsrPlan) -> bool:
    """Can an index with ``index_keys`` serve the query's filter and sort without a blocking sort?"""
    keys = list(index_keys)
    n_eq, n_sort, n_range = len(plan.eq), len(plan.sort), len(plan.range)
    wanted = n_eq + n_sort + n_range
    if len(keys) < wanted or any(v not in (1, -1) for _, v in keys[:wanted]):
        return False
    if {k for k, _ in keys[:n_eq]} != set(plan.eq):
        return False
    sort_part = keys[n_eq : n_eq + n_sort]
    if [k for k, _ in sort_part] != [k for k, _ in plan.sort]:
        return False
    if plan.sort:
        same = all(d == qd for (_, d), (_, qd) in zip(sort_part, plan.sort, strict=True))
        inverted = all(d == -qd for (_, d), (_, qd) in zip(sort_part, plan.sort, strict=True))
        if not (same or inverted):
            return False
    rest = keys[n_eq + n_sort : wanted]
    return {k for k, _ in rest} == set(plan.range)


def covers_fields(index_keys: list[tuple[str, Any]], plan: EsrPlan) -> bool:
    """The index holds all the query's key fields (maybe in the wrong order)."""
    return {k for k, _ in index_keys} >= {k for k, _ in plan.keys} and bool(plan.keys)


def default_name(keys: list[tuple[str, Any]]) -> str:
    """MongoDB's default index name: ``field_1_other_-1``."""
    if len(keys) == 1:  # most indexes
        k, v = keys[0]
        return f"{k}_{v}"
    return "_".join([f"{k}_{v}" for k, v in keys])
