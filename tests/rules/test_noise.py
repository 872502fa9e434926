"""The noise issue 10 found on a generated project, each case counted to zero.

The benchmarks' generator makes a large realistic project; on it the engine
used to ask for indexes its own design creates, give one relationship two
conflicting strategy fixes, report computed values with no field, explain a
reassignment on many-to-many relationships and suggest a single collection
for any non-zero update rate.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache

import pytest

from benchmarks.generate import generate_project
from modeller.rules import analyse
from modeller.rules.framework.analysis import Analysis
from modeller.rules.settings import DEFAULT_SETTINGS

pytestmark = pytest.mark.slow


@cache
def generated() -> tuple[Analysis, dict[str, str]]:
    project = generate_project(300, 1.5, 0.5)
    return analyse(project), {r.id: r.cardinality for r in project.relationships}


def test_a_reference_index_the_design_creates_has_no_fix() -> None:
    result, _ = generated()
    refs = [f for f in result.reported if f.rule == "index-reference-fields"]
    assert len(refs) > 50
    assert [f.message for f in refs if f.fix is not None] == []


def test_one_relationship_gets_at_most_one_strategy_fix() -> None:
    result, _ = generated()
    fixes: dict[str, set[str]] = defaultdict(set)
    for f in result.findings:
        for change in f.fix.changes if f.fix else ():
            if change.key == "strategy" and change.subject.kind == "relationship":
                fixes[change.subject.id].add(change.value)
    assert len(fixes) > 20
    assert {rel: values for rel, values in fixes.items() if len(values) > 1} == {}


def test_computed_values_name_their_fields() -> None:
    result, _ = generated()
    computed = [f for f in result.reported if f.rule == "computed-pattern"]
    assert computed
    assert [f.message for f in computed if not f.numbers["fields"] or "keep  in" in f.message] == []


def test_a_reassignment_is_explained_only_where_a_child_has_one_owner() -> None:
    result, cardinality = generated()
    said = [f for f in result.reported if "touches two documents" in f.message]
    assert said and all(cardinality[f.subject.id] != "many-to-many" for f in said)


def test_single_collection_needs_fields_too_volatile_to_copy() -> None:
    result, _ = generated()
    for f in result.reported:
        if f.rule == "single-collection-many-to-many":
            assert f.numbers["reads_per_sec"] > 0 and f.numbers["read_write_min"] == DEFAULT_SETTINGS.denorm_rw_min
