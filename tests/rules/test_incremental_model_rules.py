"""Model rules that keep their last findings across edits: an incremental analysis still equals a cold one.

``massive-number-of-collections`` reads every collection's name, root and root entity; an edit that keeps all
of them (a cardinality) gets its last findings back without the families being found again, and an edit that
changes one (a field of a family member, a collection's name) finds them again.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.model.project import Entity
from modeller.rules import analyse
from modeller.rules.catalog import antipatterns
from modeller.rules.engine import Analyser
from tests.rules.test_incremental import _replace, dump, edit

RULE = "massive-number-of-collections"
FIELDS = [
    {"name": "tenant_id", "type": "string"},
    {"name": "day", "type": "date"},
    {"name": "payload", "type": "string"},
]


def _with_families() -> Project:
    """A generated model plus ``logs_<tenant>`` (a family by words) and ``readings_<date>`` (a date series)."""
    project = generate_project(40, 1.5, 0.6, seed=11)
    names = [f"logs_{t}" for t in ("acme", "globex", "initech")] + [f"readings_2024_05_{d}" for d in (10, 11)]
    added = [Entity.model_validate({"id": n, "name": n, "collection": n, "fields": FIELDS}) for n in names]
    return project.model_copy(update={"entities": (*project.entities, *added)})


def _massive(findings: list[Any]) -> list[Any]:
    return [f for f in findings if f.rule == RULE]


def _entity_edit(project: Project, entity_id: str, **update: Any) -> Project:
    ents = project.entities
    at = next(i for i, e in enumerate(ents) if e.id == entity_id)
    return project.model_copy(update={"entities": _replace(ents, at, ents[at].model_copy(update=update))})


@pytest.fixture
def family_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the rule's searches for families of collection names."""
    calls: list[int] = []
    found = antipatterns.families

    def counting(*args: Any) -> Any:
        calls.append(1)
        return found(*args)

    monkeypatch.setattr(antipatterns, "families", counting)
    return calls


def test_a_cardinality_edit_keeps_the_collection_families_and_equals_a_cold_analysis(family_calls: list[int]) -> None:
    project = _with_families()
    analyser = Analyser()
    before = _massive(analyser.analyse(project).findings)
    assert sorted(f.subject.id for f in before) == ["logs_acme", "readings_2024_05_10"]
    for k in range(4):
        family_calls.clear()
        project = edit(project, "cardinality", k * 7 + 1, k + 1)
        result = analyser.analyse(project)
        assert analyser.last_patched, k
        assert family_calls == [], "an edit that keeps every collection's name and root found the families again"
        after = _massive(result.findings)
        assert len(after) == len(before) and all(a is b for a, b in zip(after, before, strict=True))
        assert dump(project, result) == dump(project, analyse(project)), k


def test_edits_a_family_reads_find_the_families_again_and_equal_a_cold_analysis(family_calls: list[int]) -> None:
    project = _with_families()
    analyser = Analyser()
    analyser.analyse(project)
    # a family member's fields: logs_globex no longer holds the same fields, so the logs family is gone
    globex = next(e for e in project.entities if e.id == "logs_globex")
    renamed = (globex.fields[0].model_copy(update={"name": "customer"}), *globex.fields[1:])
    project = _entity_edit(project, "logs_globex", fields=renamed)
    family_calls.clear()
    result = analyser.analyse(project)
    assert family_calls == [1]
    assert [f.subject.id for f in _massive(result.findings)] == ["readings_2024_05_10"]
    assert dump(project, result) == dump(project, analyse(project))
    # the same fields again: the family is back; then another collection name joins the date series
    project = _entity_edit(project, "logs_globex", fields=globex.fields)
    result = analyser.analyse(project)
    assert sorted(f.subject.id for f in _massive(result.findings)) == ["logs_acme", "readings_2024_05_10"]
    assert dump(project, result) == dump(project, analyse(project))
    project = _entity_edit(project, "logs_initech", collection="readings_2024_05_12", name="readings_2024_05_12")
    result = analyser.analyse(project)
    (series,) = _massive(result.findings)  # (named by its first collection in design order: the moved entity's)
    assert series.subject.id == "logs_initech"
    assert series.numbers["collections"] == ["readings_2024_05_12", "readings_2024_05_10", "readings_2024_05_11"]
    assert dump(project, result) == dump(project, analyse(project))


def test_bloated_documents_name_their_details_from_names_gathered_once_until_the_companions_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``bloated-document`` gathers the names a details entity must not take once (``Taken.of`` walked every
    entity again after each edit: 13 ms at 10,000 entities), and again when the companions change."""
    from modeller.rules.catalog.split_fix import Taken

    calls: list[int] = []
    gather = Taken.of.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Taken], *args: Any) -> Taken:
        calls.append(1)
        return gather(cls, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(Taken, "of", classmethod(counting))
    project = generate_project(200, 1.5, 0.6, seed=3)
    analyser = Analyser()
    before = [f for f in analyser.analyse(project).findings if f.rule == "bloated-document"]
    assert before and calls == [1]
    for k in range(3):
        project = edit(project, "cardinality", k * 13 + 2, k + 1)
        calls.clear()  # (the cold analysis below gathers them for its own rule object)
        result = analyser.analyse(project)
        assert analyser.last_patched, k
        assert calls == [], "a cardinality edit gathered the taken names again"
        after = [f for f in result.findings if f.rule == "bloated-document"]
        assert len(after) == len(before) and all(a is b for a, b in zip(after, before, strict=True))
        assert dump(project, result) == dump(project, analyse(project)), k
    # an entity that keeps its revisions adds a companion collection: the names are gathered again
    plain = next(e for e in project.entities if not e.history and e.timeseries is None)
    companions = len(result.design.companions)
    project = _entity_edit(project, plain.id, history=True)
    calls.clear()
    result = analyser.analyse(project)
    assert analyser.last_patched
    assert calls == [1]
    assert len(result.design.companions) == companions + 1
    assert dump(project, result) == dump(project, analyse(project))


def _with_products() -> Project:
    """A generated model plus phone, laptop and headphone: one thing kept in a collection per type."""
    project = generate_project(40, 1.5, 0.6, seed=12)
    shared = [
        {"name": "name", "type": "string"},
        {"name": "brand", "type": "string"},
        {"name": "price", "type": "double"},
    ]
    own = {"phone": ["camera", "ram"], "laptop": ["cpu", "battery"], "headphone": ["driver_size"]}
    added = [
        Entity.model_validate({"id": e, "name": e, "fields": [*shared, *({"name": n, "type": "int"} for n in extra)]})
        for e, extra in own.items()
    ]
    return project.model_copy(update={"entities": (*project.entities, *added)})


def test_polymorphic_groups_read_again_only_the_collections_an_edit_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """``polymorphic-pattern`` finds the replaced collections and entities by identity and reads only their roots
    (it read every collection's root after each edit: 12 ms at 10,000 entities); the result equals a cold one."""
    from modeller.rules.catalog.patterns import PolymorphicPattern
    from modeller.rules.physical.design import CollectionDesign

    reads = {"in_rule": False, "roots": 0}
    root = CollectionDesign.root

    def counted_root(self: CollectionDesign) -> str:
        reads["roots"] += reads["in_rule"]
        return root.fget(self)  # type: ignore[attr-defined,no-any-return]

    check = PolymorphicPattern.check_model

    def check_model(self: PolymorphicPattern, view: Any) -> list[Any]:
        reads["in_rule"] = True
        try:
            return list(check(self, view))
        finally:
            reads["in_rule"] = False

    monkeypatch.setattr(CollectionDesign, "root", property(counted_root))
    monkeypatch.setattr(PolymorphicPattern, "check_model", check_model)
    project = _with_products()
    analyser = Analyser()
    first = analyser.analyse(project)
    (group,) = [f for f in first.findings if f.rule == "polymorphic-pattern" and f.subject.id == "phone"]
    assert group.numbers["entities"] == ["phone", "laptop", "headphone"]
    collections = len(first.design.collections)
    for k in range(3):
        project = edit(project, "cardinality", k * 5 + 1, k + 1)
        reads["roots"] = 0
        result = analyser.analyse(project)
        assert analyser.last_patched, k
        assert reads["roots"] < collections // 4, reads
        assert group in result.findings, "an unchanged group was worded again"
        assert dump(project, result) == dump(project, analyse(project)), k
    # laptop's shared fields renamed: the group is phone and headphone only
    laptop = next(e for e in project.entities if e.id == "laptop")
    fields = tuple(f.model_copy(update={"name": f"laptop_{f.name}"}) for f in laptop.fields)
    project = _entity_edit(project, "laptop", fields=fields)
    result = analyser.analyse(project)
    assert analyser.last_patched
    (group,) = [f for f in result.findings if f.rule == "polymorphic-pattern" and f.subject.id == "phone"]
    assert group.numbers["entities"] == ["phone", "headphone"]
    assert dump(project, result) == dump(project, analyse(project))
    project = _entity_edit(project, "laptop", fields=laptop.fields)
    result = analyser.analyse(project)
    (group,) = [f for f in result.findings if f.rule == "polymorphic-pattern" and f.subject.id == "phone"]
    assert group.numbers["entities"] == ["phone", "laptop", "headphone"]
    assert dump(project, result) == dump(project, analyse(project))
