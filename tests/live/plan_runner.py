"""Run a design's query plans as the exported mongosh, and read back the logical records each run found.

The text of each plan is the one ``modeller.export.query_plans.query_mongosh`` writes (so a run also proves the
exported plans execute); this module only wraps it: ``params`` are filled from canonical Extended JSON, every
step's documents (``r1``, ``r2``, ...) come back as one printed line. The same script runs in the real mongosh
against the live server and in the recording ``db`` stand-in (tests/export/js/harness.js).

A query's *records* are the logical documents of its entity, wherever the design keeps them: whole documents of a
collection (only those of the entity's type in a single collection), the elements of an embedded array, or the
items of bucket documents. The elements of a document the read returns are kept when they match the query's own
filter on them, as the application would pick them.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bson import json_util

from modeller.export.literals import js_string
from modeller.export.query_plans import query_mongosh
from modeller.model.project import Project
from modeller.rules.physical.design import Design
from modeller.rules.physical.planner import Param, QueryPlan

#: printed before each run's result, so other output of the shell is not mistaken for one
MARK = "plan-run "
LOAD = json_util.CANONICAL_JSON_OPTIONS.with_options(tz_aware=True, tzinfo=dt.UTC)
#: the most parameter sets a document's array values give one plan (keeps a run bounded)
MAX_SETS = 50


@dataclass(frozen=True)
class Home:
    """Where a design keeps one entity's records: a collection, the path of its elements or bucket items (None:
    the documents themselves) and, in a single collection, the discriminator value of its documents."""

    collection: str
    path: str | None = None
    discriminator: str | None = None
    kind: str | None = None


def home(design: Design, entity: str) -> Home | None:
    """The entity's records in ``design`` (None: it has none of its own, e.g. only copies)."""
    placement = design.embedded.get(entity)
    if placement is not None:
        return Home(placement.collection, placement.path)
    for coll in design.collections:
        if entity not in coll.entities:
            continue
        if coll.discriminator is not None and len(coll.entities) > 1 and entity in coll.variants:
            return Home(coll.name, None, coll.discriminator, entity)
        if coll.root == entity:
            return Home(coll.name, coll.bucket.items_field if coll.bucket is not None else None)
    return None


def pick(doc: Any, path: str) -> Any:
    """The value at a dotted path (None when missing); through an array of documents on the way, the list of the
    values its elements hold (``links.target`` of ``links: [{target}]``), as the server reads a dotted path."""
    for part in path.split("."):
        if isinstance(doc, list):
            doc = [v for d in doc if isinstance(d, dict) and (v := d.get(part)) is not None]
        else:
            doc = doc.get(part) if isinstance(doc, dict) else None
    return doc


def records(design: Design, entity: str, collection: str, docs: list[dict[str, Any]]) -> Iterator[tuple[dict, dict]]:
    """(document, record) for each record of ``entity`` that ``docs`` (read from ``collection``) hold."""
    where = home(design, entity)
    if where is None or where.collection != collection:
        return
    for doc in docs:
        if where.discriminator is not None and doc.get(where.discriminator) != where.kind:
            continue
        if where.path is None:
            yield doc, doc
            continue
        value = pick(doc, where.path)
        for item in value if isinstance(value, list) else [value] if isinstance(value, dict) else []:
            yield doc, item


def _params_in(value: Any, path: str, out: list[tuple[str, str, str | None]]) -> None:
    """(path, param name, operator) of every ``Param`` of a filter (``$in`` takes a list)."""
    if isinstance(value, Param):
        out.append((path, value.name, None))
    elif isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(inner, Param) and key.startswith("$"):
                out.append((path, inner.name, key))
            elif not key.startswith("$") or key in ("$and", "$or"):
                _params_in(inner, key if not key.startswith("$") else path, out)


def filter_params(plan: QueryPlan) -> list[tuple[str, str, str | None]]:
    """The first read's placeholders: (collection path, param name, operator or None for an equality)."""
    out: list[tuple[str, str, str | None]] = []
    _params_in(plan.steps[0].filter, "", out)
    return out


def _value(doc: dict[str, Any], item: dict[str, Any], prefix: str | None, path: str) -> Any:
    if prefix is not None and path.startswith(prefix + "."):
        return pick(item, path[len(prefix) + 1 :])
    return pick(doc, path)


def param_sets(design: Design, plan: QueryPlan, entity: str, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parameter values from the stored documents: per record of the first read's entity, the values of the fields
    its filter holds (an array gives one set per element); a list for ``$in``."""
    where = home(design, entity)
    wanted = filter_params(plan)
    if where is None or not wanted:
        return [{}]
    out: list[dict[str, Any]] = []
    for doc, item in records(design, entity, plan.steps[0].collection, docs):
        choices: list[list[Any]] = []
        for path, _name, op in wanted:
            value = _value(doc, item, where.path, path)
            values = value if isinstance(value, list) else [value]
            choices.append([[v] if op == "$in" else v for v in values if v is not None])
        for combo in itertools.product(*choices):
            params = {name: v for (_, name, _), v in zip(wanted, combo, strict=True)}
            if params not in out:
                out.append(params)
    return out[:MAX_SETS]


def script(database: str, runs: list[tuple[QueryPlan, dict[str, Any]]]) -> str:
    """A mongosh script that runs each plan with its parameters and prints every step's documents."""
    lines = ["(function (db) {"]
    for plan, params in runs:
        body = query_mongosh(plan)
        if len(plan.steps) == 1 and not plan.on_overflow:
            body = f"const r1 = {body}.toArray();"
        steps = ", ".join(f"r{i}" for i in range(1, len(plan.steps) + 1))
        text = js_string(json_util.dumps(params, json_options=json_util.CANONICAL_JSON_OPTIONS))
        lines += [
            "  print(" + js_string(MARK) + " + EJSON.stringify((function (params) {",
            *(f"    {line}" for line in body.splitlines()),
            f"    return [{steps}];",
            f"  }})(EJSON.parse({text}, {{relaxed: false}})), {{relaxed: false}}));",
        ]
    lines.append(f"}})(db.getSiblingDB({js_string(database)}));")
    return "\n".join(lines) + "\n"


def results(printed: list[str]) -> list[list[list[dict[str, Any]]]]:
    """Per run, per step, the documents read (from the lines the script printed)."""
    return [json_util.loads(line[len(MARK) :], json_options=LOAD) for line in printed if line.startswith(MARK)]


@dataclass(frozen=True)
class Found:
    """What one run of a plan found, as logical records: the query's own, and those its joins read."""

    own: frozenset[Any]
    joined: frozenset[tuple[str, Any]]


def found(
    design: Design,
    project: Project,
    plan: QueryPlan,
    params: dict[str, Any],
    steps: list[list[dict[str, Any]]],
    key: dict[str, str],
) -> Found:
    """The records ``steps`` (one run's documents) hold, each named by ``key[entity]`` (a path of the record).

    The query's own records are those of its main read (elements kept when they match the query's filter on
    them); the joined records are those of the other side of each joined relationship, in the main read (embedded)
    or in the reads after it."""
    main = plan.main
    where = home(design, plan.entity)
    prefix = where.path if where is not None else None
    conditions = [(p, params[name], op) for p, name, op in filter_params(plan)] if main == 0 else []
    own: set[Any] = set()
    for doc, item in records(design, plan.entity, plan.steps[main].collection, steps[main]):
        if prefix is not None and not all(
            _matches(_value(doc, item, prefix, p), v, op) for p, v, op in conditions if p.startswith(prefix + ".")
        ):
            continue
        own.add(_key(pick(item, key[plan.entity])))
    joined: set[tuple[str, Any]] = set()
    query = next(q for q in project.queries if q.id == plan.id)
    for rel_id in query.joins:
        rel = next(r for r in project.relationships if r.id == rel_id)
        other = rel.many if rel.one == plan.entity else rel.one
        for step, docs in zip(plan.steps[main:], steps[main:], strict=True):
            for _doc, item in records(design, other, step.collection, docs):
                joined.add((rel_id, _key(pick(item, key[other]))))
        for item in subset_copies(design, rel_id, plan.steps[main].collection, steps[main]):
            joined.add((rel_id, _key(pick(item, key[other]))))
    return Found(frozenset(own), frozenset(joined))


def in_sort_order(design: Design, plan: QueryPlan, steps: list[list[dict[str, Any]]]) -> bool:
    """The main read's documents come in the plan's sort order (checked where they are the query's records)."""
    step, docs = plan.steps[plan.main], steps[plan.main]
    where = home(design, plan.entity)
    if not step.sort or where is None or where.path is not None:
        return True
    keys = [[(pick(d, path), direction) for path, direction in step.sort] for d in docs]
    return all(_not_after(a, b) for a, b in itertools.pairwise(keys))


def _not_after(a: list[tuple[Any, int]], b: list[tuple[Any, int]]) -> bool:
    for (x, direction), (y, _) in zip(a, b, strict=True):
        if x != y:
            return (x < y) == (direction == 1)
    return True


def subset_copies(design: Design, rel_id: str, collection: str, docs: list[dict[str, Any]]) -> Iterator[dict]:
    """The copies of the latest N a subset keeps in each One document (what a join that reads the One serves)."""
    coll = design.collection(collection)
    arrays = [n.name for n in coll.shape if n.role == "subset" and n.relationship == rel_id] if coll else []
    for doc in docs:
        for name in arrays:
            yield from (item for item in doc.get(name) or [] if isinstance(item, dict))


def _matches(value: Any, wanted: Any, op: str | None) -> bool:
    if op == "$in":
        return value in wanted
    if op is None:
        return value == wanted or (isinstance(value, list) and wanted in value)
    raise AssertionError(f"the executor does not compare {op}")


def _key(value: Any) -> Any:
    """A hashable record name (an ObjectId, a string)."""
    assert value is not None, "a record without its key"
    return value
