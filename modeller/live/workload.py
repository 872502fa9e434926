"""The observed workload (``infer --workload``): profiler query shapes and index use as declared queries (pure).

Two sources, as the server returns them:

- ``system.profile`` (when the profiler is on): each ``find`` and each
  ``aggregate`` that starts with ``$match`` / ``$sort`` / ``$limit`` is reduced
  to its shape - the filter's fields with their kind of test (``eq``, ``in``,
  ``range``, ``regex``, ``geo``), the sort, the limit - and the shapes are
  counted; ``per_sec`` = count / the time the profile covers (first to last
  entry, at least one second);
- ``$indexStats``: an index used since the server started (``accesses.ops``,
  ``accesses.since``) whose fields no profiled shape covers becomes a query on
  its key fields, ``per_sec`` = ops / seconds since then.

Each query's ``name`` starts with ``observed:`` and says where its rate comes
from, so the user tells measured from declared workload at a glance.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from modeller.model.checks import check_project
from modeller.model.project import Project, Query
from modeller.model.text import shown
from modeller.model.unique_names import name_key

#: profile entries read at most (the newest)
PROFILE_LIMIT = 10_000
#: the ``comment`` on every command modeller sends while reading a database (its samples, its ``_id`` look-ups),
#: so a later ``infer --workload`` leaves them out of the observed queries (the profiler records the comment; a
#: server that does not record ``appName`` still does)
OWN_COMMENT = "modeller"
_RANGE = frozenset({"$gt", "$gte", "$lt", "$lte"})
_GEO = frozenset({"$near", "$nearSphere", "$geoWithin", "$geoIntersects"})


@dataclass
class ObservedQuery:
    """One query shape on one collection, how often it ran and over how long."""

    collection: str
    filter: dict[str, str]
    sort: tuple[tuple[str, int], ...] = ()
    limit: int | None = None
    count: int = 0
    millis: float = 0.0
    source: str = "profiler"  # or "indexStats"
    index: str | None = None
    per_sec: float = 0.0
    since: datetime.datetime | None = None

    def key(self) -> tuple[Any, ...]:
        return (self.collection, tuple(sorted(self.filter.items())), self.sort, self.limit)


@dataclass
class Workload:
    """What the server showed: the shapes found, and what it could not show (for the project's description)."""

    queries: list[ObservedQuery] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _when(value: Any) -> datetime.datetime | None:
    if isinstance(value, datetime.datetime):
        return value if value.tzinfo else value.replace(tzinfo=datetime.UTC)
    if isinstance(value, str):
        try:
            parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.UTC)
    return None


def filter_shape(query: Any, prefix: str = "") -> dict[str, str]:
    """``{path: op}`` of a MongoDB filter: what each field is tested with, not the values."""
    out: dict[str, str] = {}
    if not isinstance(query, Mapping):
        return out
    for key, value in query.items():
        if not isinstance(key, str):
            continue
        if key == "$and" and isinstance(value, list):
            for part in value:
                out.update(filter_shape(part, prefix))
            continue
        if key.startswith("$"):
            continue  # $or, $nor, $expr, $text: no one field's test
        path = prefix + key
        ops = {k for k in value if isinstance(k, str)} if isinstance(value, Mapping) else set()
        if ops and all(k.startswith("$") for k in ops):
            if ops & _GEO:
                out[path] = "geo"
            elif "$regex" in ops:
                out[path] = "regex"
            elif "$in" in ops:
                out[path] = "in"
            elif ops & _RANGE:
                out[path] = "range"
            elif ops & {"$eq"}:
                out[path] = "eq"
            elif "$elemMatch" in ops and isinstance(value.get("$elemMatch"), Mapping):
                out.update(filter_shape(value["$elemMatch"], path + "."))
        elif hasattr(value, "pattern") and hasattr(value, "flags"):  # a regex value
            out[path] = "regex"
        else:
            out[path] = "eq"
    return out


def _sort(value: Any) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, Mapping):
        return ()
    out = []
    for key, direction in value.items():
        if isinstance(key, str) and not key.startswith("$") and direction in (1, -1, 1.0, -1.0):
            out.append((key, int(direction)))
    return tuple(out)


def _shape(entry: Mapping[str, Any], database: str) -> ObservedQuery | None:
    """One profile entry as a query shape, or None (a write, a command we do not model, another database)."""
    command = entry.get("command")
    if not isinstance(command, Mapping) or _own(entry, command):
        return None  # not a query, or one of our own reads
    ns = str(entry.get("ns") or "")
    if isinstance(command.get("find"), str):
        coll = command["find"]
        shape = ObservedQuery(coll, filter_shape(command.get("filter")), _sort(command.get("sort")))
        limit = command.get("limit")
        shape.limit = int(limit) if isinstance(limit, int) and limit > 0 and not command.get("singleBatch") else None
    elif isinstance(command.get("aggregate"), str) and isinstance(command.get("pipeline"), list):
        coll = command["aggregate"]
        shape = ObservedQuery(coll, {})
        for stage in command["pipeline"]:
            if not isinstance(stage, Mapping) or len(stage) != 1:
                break
            ((name, body),) = stage.items()
            if name == "$match" and not shape.filter:
                shape.filter = filter_shape(body)
            elif name == "$sort" and not shape.sort:
                shape.sort = _sort(body)
            elif name == "$limit" and isinstance(body, int) and body > 0:
                shape.limit = body
                break
            else:
                break
    else:
        return None
    if ns and not (ns == f"{database}.{coll}" or ns.startswith(f"{database}.")):
        return None
    if not shape.filter and not shape.sort:
        return None  # a scan of everything says nothing about the access pattern
    millis = entry.get("millis")
    shape.millis = float(millis) if isinstance(millis, int | float) else 0.0
    return shape


def _own(entry: Mapping[str, Any], command: Mapping[str, Any]) -> bool:
    """Did modeller send it (its ``comment``, on the command or the one a ``getMore`` continues; its appName)?"""
    origin = entry.get("originatingCommand")
    origin_comment = origin.get("comment") if isinstance(origin, Mapping) else None
    return entry.get("appName") == "modeller" or OWN_COMMENT in (command.get("comment"), origin_comment)


def _extends(later: Mapping[str, Any], earlier: Mapping[str, Any]) -> bool:
    """``later``'s command holds all of ``earlier``'s and more, moments later: one operation logged twice."""
    a, b = earlier.get("command"), later.get("command")
    if not isinstance(a, Mapping) or not isinstance(b, Mapping) or len(b) <= len(a):
        return False
    return _close(earlier, later) and all(b.get(k) == v for k, v in a.items())


def _logged_twice(entry: Mapping[str, Any], after: Mapping[str, Any], database: str) -> bool:
    """Is ``entry`` a first, partial record of the operation ``after`` records?

    MongoDB logs one entry per operation. mongoeco logs each query twice: a ``query`` entry with the
    filter only, then the whole command (an aggregate also once without its cursor option).
    """
    if _extends(after, entry):
        return True
    if entry.get("op") != "query" or after.get("op") != "command":
        return False
    first, second = _shape(entry, database), _shape(after, database)
    return (
        first is not None
        and second is not None
        and (first.collection, first.filter) == (second.collection, second.filter)
        and _close(entry, after)
    )


def _close(earlier: Mapping[str, Any], later: Mapping[str, Any]) -> bool:
    first, second = _when(earlier.get("ts")), _when(later.get("ts"))
    return first is not None and second is not None and abs((second - first).total_seconds()) < 0.05


def from_profile(entries: Iterable[Mapping[str, Any]], database: str) -> list[ObservedQuery]:
    """The profiled query shapes, counted; ``per_sec`` over the time the entries span."""
    shapes: dict[tuple[Any, ...], ObservedQuery] = {}
    times: list[datetime.datetime] = []
    epoch = datetime.datetime.min.replace(tzinfo=datetime.UTC)
    ordered = sorted(entries, key=lambda e: _when(e.get("ts")) or epoch)
    for number, entry in enumerate(ordered):
        when = _when(entry.get("ts"))
        if when is not None:
            times.append(when)
        if number + 1 < len(ordered) and _logged_twice(entry, ordered[number + 1], database):
            continue
        shape = _shape(entry, database)
        if shape is None:
            continue
        seen = shapes.setdefault(shape.key(), shape)
        seen.count += 1
        if seen is not shape:
            seen.millis += shape.millis
    span = (max(times) - min(times)).total_seconds() if times else 0.0
    for shape in shapes.values():
        shape.per_sec = shape.count / max(span, 1.0)
    return list(shapes.values())


def from_index_stats(
    collection: str, stats: Iterable[Mapping[str, Any]], now: datetime.datetime
) -> list[ObservedQuery]:
    """Indexes used since the server started, each as a query on its key fields."""
    out = []
    for stat in stats:
        name = str(stat.get("name") or "")
        key = stat.get("key")
        accesses = stat.get("accesses") or {}
        ops = int(accesses.get("ops") or 0)
        since = _when(accesses.get("since"))
        if name == "_id_" or not isinstance(key, Mapping) or ops <= 0 or since is None:
            continue
        shape: dict[str, str] = {}
        for path, kind in key.items():
            if not isinstance(path, str) or path.startswith("_fts"):
                continue
            shape[path] = "geo" if kind in ("2dsphere", "2d") else "eq"
        if not shape:
            continue
        seconds = max((now - since).total_seconds(), 1.0)
        out.append(
            ObservedQuery(
                collection, shape, count=ops, source="indexStats", index=name, per_sec=ops / seconds, since=since
            )
        )
    return out


def merge(profiled: list[ObservedQuery], used: list[ObservedQuery]) -> list[ObservedQuery]:
    """The profiled shapes, then the used indexes whose fields no profiled shape on that collection covers."""
    covered = {(q.collection, frozenset(q.filter) | {k for k, _ in q.sort}) for q in profiled}
    out = list(profiled)
    for query in used:
        fields = frozenset(query.filter)
        if not any(coll == query.collection and fields <= seen for coll, seen in covered):
            out.append(query)
    return out


def _name(query: ObservedQuery) -> str:
    if query.source == "indexStats":
        since = query.since.strftime("%Y-%m-%d %H:%M") if query.since else "the server started"
        return shown(f"observed: index {query.index} used {query.count} times since {since}", 200)
    return shown(
        f"observed: {query.count} times in the profiler, {query.millis / max(query.count, 1):.1f} ms each", 200
    )


def add_queries(project: Project, workload: Workload) -> Project:
    """``project`` with the observed queries declared on the entities of their collections.

    A query naming a field the inferred entity does not have (it was never sampled) is left out and counted in
    the project's description.
    """
    entity_of = {e.collection: e.id for e in project.entities if e.collection}
    taken = {q.id for q in project.queries}
    names = {name_key(q.name) for q in project.queries if q.name}
    queries = list(project.queries)
    for number, observed in enumerate(workload.queries, start=1):
        entity = entity_of.get(observed.collection)
        if entity is None:
            continue
        query_id = f"observed_{number}"
        while query_id in taken:
            query_id += "_"
        taken.add(query_id)
        name = _name(observed)
        if name_key(name) in names:  # query names are unique (model/unique_names.py)
            name = f"{name[:190]} (shape {number})"
        names.add(name_key(name))
        queries.append(
            Query(
                id=query_id,
                entity=entity,
                name=name,
                filter=dict(observed.filter),
                sort=observed.sort,
                limit=observed.limit,
                per_sec=round(observed.per_sec, 6),
            )
        )
    candidate = project.model_copy(update={"queries": tuple(queries)})
    bad = {p.path.split("]", 1)[0] for p in check_project(candidate) if p.path.startswith("$.queries[")}
    kept = tuple(q for i, q in enumerate(queries) if f"$.queries[{i}" not in bad)
    notes = list(workload.notes)
    if len(kept) < len(queries):
        notes.append(f"{len(queries) - len(kept)} observed query shape(s) name fields no sampled document holds")
    head = (project.description or "").rstrip(". ") if notes else project.description or ""  # never ".;"
    description = "; ".join([head, *notes]).strip("; ")[:20_000] or None
    return project.model_copy(update={"queries": kept, "description": description})
