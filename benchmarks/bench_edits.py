"""The engine's share of one edit at 10,000 entities, per kind of edit, without Qt.

Target (DESIGN.md "Performance targets"): edit -> findings on screen <= 200 ms
at 10,000 entities; the analysis in the worker is the engine's part of it
(``bench_live`` measures the whole path through the GUI). Each kind of edit
the user makes is made the way the GUI makes it (``model_copy`` of the
edited object, every other object kept) and analysed by one
:class:`~modeller.rules.engine.Analyser` that analysed the model before, as
the GUI's worker does. ``edit.<kind>.cpu`` is the median CPU time of one
re-analysis (the collector held off as ``analyse`` does); ``.patched`` says
whether the analyser patched its last result (1) or walked the whole model
with its identity caches (0). ``MODELLER_BENCH_EDITS_SIZE`` picks another size.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.model.project import Query, Relationship
from modeller.rules.engine import Analyser
from modeller.rules.physical.naming import collection_name

#: edits per kind (each a different object, as a user editing here and there)
REPEAT = 5


def size() -> int:
    return int(os.environ.get("MODELLER_BENCH_EDITS_SIZE", "10000"))


def _put(items: tuple[Any, ...], i: int, new: Any) -> tuple[Any, ...]:
    return (*items[:i], new, *items[i + 1 :])


def _entity_edit(project: Project, i: int, change: Callable[[Any], Any]) -> Project:
    ents = project.entities
    at = i % len(ents)
    return project.model_copy(update={"entities": _put(ents, at, change(ents[at]))})


def _last_field(e: Any, **update: Any) -> Any:
    fields = e.fields
    return e.model_copy(update={"fields": _put(fields, len(fields) - 1, fields[-1].model_copy(update=update))})


def rename_field(project: Project, i: int) -> Project:
    return _entity_edit(project, i, lambda e: _last_field(e, name=f"{e.fields[-1].name}_{i}"))


def field_type(project: Project, i: int) -> Project:
    def retype(e: Any) -> Any:
        last = e.fields[-1]
        new = "string" if last.type != "string" else "int"
        return _last_field(e, type=new, enum=None, items=None, fields=None, max_items=None)

    return _entity_edit(project, i, retype)


def workload(project: Project, i: int) -> Project:
    return _entity_edit(
        project, i, lambda e: e.model_copy(update={"reads_per_sec": 50.0 + i, "writes_per_sec": 5.0 + i})
    )


def cardinality(project: Project, i: int) -> Project:
    rels = project.relationships
    at = i % len(rels)
    rel = rels[at]
    new = "one-to-many" if rel.cardinality != "one-to-many" else "one-to-few"
    update = {"cardinality": new, "max": None, "typical": None}
    return project.model_copy(update={"relationships": _put(rels, at, rel.model_copy(update=update))})


def change_query(project: Project, i: int) -> Project:
    queries = project.queries
    at = i % len(queries)
    q = queries[at]
    return project.model_copy(update={"queries": _put(queries, at, q.model_copy(update={"per_sec": 7.0 + i}))})


def add_query(project: Project, i: int) -> Project:
    e = project.entities[i % len(project.entities)]
    q = Query(id=f"bench_q_{i}_{len(project.queries)}", entity=e.id, filter={e.fields[0].name: "eq"}, hot=True)
    return project.model_copy(update={"queries": (*project.queries, q)})


def regroup(project: Project, i: int) -> Project:
    """Move an entity into another entity's collection (the properties panel's "Collection" field)."""
    ents = project.entities
    at = i % len(ents)
    other = ents[(at + 1) % len(ents)]
    return _entity_edit(project, at, lambda e: e.model_copy(update={"collection": collection_name(other)}))


def unembed(project: Project, i: int) -> Project:
    """A relationship drawn embedded set to keep its N apart (the properties panel's "Strategy" field): the N's
    documents move to a collection of their own. Those whose ends take no part in a relationship drawn single
    collection or bucket (those regroup further: the whole-model pass)."""
    rels = project.relationships
    far = {e for r in rels if r.strategy in ("single-collection", "bucket") for e in (r.one, r.many)}
    embedded = [j for j, r in enumerate(rels) if r.strategy == "embed" and not r.decision and not {r.one, r.many} & far]
    at = embedded[i % len(embedded)]
    return project.model_copy(
        update={"relationships": _put(rels, at, rels[at].model_copy(update={"strategy": "parent-ref"}))}
    )


def add_relationship(project: Project, i: int) -> Project:
    ents = project.entities
    one, many = ents[i % len(ents)], ents[(i + 3) % len(ents)]
    rel = Relationship(
        id=f"bench_r_{i}_{len(project.relationships)}", one=one.id, many=many.id, cardinality="one-to-many"
    )
    return project.model_copy(update={"relationships": (*project.relationships, rel)})


def remove_relationship(project: Project, i: int) -> Project:
    rels = project.relationships
    at = i % len(rels)
    return project.model_copy(update={"relationships": rels[:at] + rels[at + 1 :]})


EDITS: tuple[tuple[str, Callable[[Project, int], Project]], ...] = (
    ("rename_field", rename_field),
    ("field_type", field_type),
    ("cardinality", cardinality),
    ("workload", workload),
    ("change_query", change_query),
    ("add_query", add_query),
    ("regroup", regroup),
    ("unembed", unembed),
    ("add_relationship", add_relationship),
    ("remove_relationship", remove_relationship),
)


def measure(
    analyser: Analyser, project: Project, edit: Callable[[Project, int], Project], repeat: int = REPEAT
) -> tuple[Project, float, int]:
    """The project after ``repeat`` edits, the median CPU ms of one re-analysis by ``analyser`` (which analysed
    ``project`` last) and how many of the re-analyses were patched."""
    cpu, patched = [], 0
    for k in range(repeat):
        project = edit(project, k * 1009 + 17)
        started = time.process_time()
        analyser.analyse(project)
        cpu.append((time.process_time() - started) * 1000)
        patched += analyser.last_patched
    return project, statistics.median(cpu), patched


def _warm() -> tuple[Project, Analyser]:
    """The generated project and an analyser that analysed it once (the edits' starting point)."""
    project = generate_project(size(), 1.5, 0.5, seed=0)
    analyser = Analyser()
    analyser.analyse(project)
    return project, analyser


def run() -> list[dict[str, Any]]:
    n = size()
    project, analyser = _warm()
    rows: list[dict[str, Any]] = []
    for name, edit in EDITS:
        project, ms, patched = measure(analyser, project, edit)
        rows.append({"name": f"edit.{n}.{name}.cpu", "value": round(ms, 1), "unit": "ms", "target": None})
        rows.append({"name": f"edit.{n}.{name}.patched", "value": patched, "unit": f"of {REPEAT}", "target": None})
    return rows


if __name__ == "__main__":
    import sys

    only = set(sys.argv[1:])
    project, analyser = _warm()
    for name, edit in EDITS:
        if not only or name in only:
            project, ms, patched = measure(analyser, project, edit)
            print(f"{name:20} {ms:8.1f} ms CPU  patched {patched}/{REPEAT}", flush=True)
