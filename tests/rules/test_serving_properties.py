"""Property tests on generated projects: the design serves every declared query within the server's limits."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modeller.model import Project
from modeller.rules import Analysis, analyse
from modeller.rules.physical.design import CollectionDesign, IndexDesign
from modeller.rules.settings import DEFAULT_SETTINGS
from tests.rules.test_properties import projects


@st.composite
def workloads(draw: Any) -> Project:
    """A generated project whose queries declare a rate (some zero) and sometimes a page size."""
    project = draw(projects())
    queries = tuple(
        q.model_copy(
            update={
                "per_sec": draw(st.sampled_from([None, 0.0, 0.5, 20.0, 500.0])),
                "limit": draw(st.sampled_from([None, 10, 100, 5000])),
            }
        )
        for q in project.queries
    )
    return project.model_copy(update={"queries": queries})


def _used(a: Analysis) -> set[tuple[str, str]]:
    """(collection, index name) of every index a query plan's read or a write plan uses."""
    used = {(s.collection, s.index.name) for p in a.design.queries for s in p.steps if s.index is not None}
    used |= {(w.collection, w.index.name) for w in a.design.writes if w.index is not None}
    return used


def _declared_or_pattern(coll: CollectionDesign, index: IndexDesign) -> bool:
    """Indexes the model declares (the user's, a unique field, an expiry) or a pattern's own upsert/lookup reads
    (the bucket's series index, the single collection's links), which no query plan lists."""
    if index.origin == "user" or index.unique or index.expire_after_s is not None:
        return True
    first = index.keys[0][0]
    return (coll.bucket is not None and first == coll.bucket.series_field) or first == "links.target"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(workloads())
def test_the_design_serves_every_query_uses_every_index_and_keeps_the_server_limits(project: Project) -> None:
    a = analyse(project)
    s = DEFAULT_SETTINGS
    not_served = {f.subject.id for f in a.findings if f.rule == "query-not-served"}
    for plan in a.design.queries:
        if (plan.per_sec or 0) > 0:
            assert not plan.collection_scan or plan.id in not_served, plan.to_json()
    if project.queries:  # without any query the references are indexed by convention (no workload to read)
        used = _used(a)
        for coll in a.design.collections:
            for index in coll.indexes:
                assert (coll.name, index.name) in used or _declared_or_pattern(coll, index), (coll.name, index)
    for coll in a.design.collections:
        assert len(coll.indexes) + 1 <= s.max_indexes
        assert sum(1 for i in coll.indexes if any(v == "text" for _, v in i.keys)) <= 1, coll.indexes
        assert all(len(i.keys) <= s.max_compound_fields for i in coll.indexes)
    assert [f.message for f in a.findings if f.rule == "index-hard-limits"] == []
