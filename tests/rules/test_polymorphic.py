"""Rule 25 on the split form: entities kept in one collection per type that share most of their fields."""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import yaml

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse
from modeller.rules.catalog.overlap import OverlapIndex, overlap_groups
from modeller.rules.engine import Analyser
from modeller.rules.settings import DEFAULT_SETTINGS, describe

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "polymorphic-pattern.yml").read_text(encoding="utf-8"))


def build(name: str) -> Project:
    """The project of the YAML case whose name starts with ``name`` (the case file is the single source)."""
    data: dict[str, Any] = next(c["project"] for c in CASES["cases"] if c["name"].startswith(name))
    entities = [{"name": e["id"], **e} for e in data["entities"]]
    return Project.model_validate(
        {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "name": "case", "entities": entities}
    )


def test_three_product_types_get_one_finding_with_the_shared_fields() -> None:
    (f,) = [f for f in analyse(build("one collection per product type")).findings if f.rule == "polymorphic-pattern"]
    assert f.subject.id == "phone" and f.severity == "suggestion"
    # headphone: 3 of its 4 fields are shared, phone and laptop 3 of 5 -> the smallest share is 60 %
    assert f.numbers == {
        "shared_share": 0.6,
        "shared_fields": ["brand", "name", "price"],
        "entities": ["phone", "laptop", "headphone"],
    }
    assert "phone, laptop and headphone are kept in 3 collections (phone, laptop, headphone)" in f.message
    assert "share brand, name, price (60 % or more" in f.message and "discriminator" in f.message
    assert "oneOf" in f.message
    assert "The Polymorphic Pattern" in f.reference and "Inheritance Schema Pattern" in f.reference
    assert f.tradeoff.startswith("one query and one set of indexes") and f.why.startswith(
        "phone, laptop and headphone: kinds of one thing"
    )


def test_the_threshold_is_an_engine_default_and_can_be_raised() -> None:
    info = {t.name: t for t in describe()}
    assert info["polymorphic_share"].value == 0.5 and info["polymorphic_share"].kind == "E"
    assert info["polymorphic_share"].source.startswith("engine default")
    assert info["polymorphic_min_fields"].value == 3 and info["polymorphic_min_fields"].kind == "E"
    strict = DEFAULT_SETTINGS.with_values(polymorphic_share=0.7)
    found = [f for f in analyse(build("one collection per product type"), strict).findings]
    assert [f for f in found if f.rule == "polymorphic-pattern"] == []


def _fields(*names: str) -> frozenset[tuple[str, str]]:
    return frozenset((n, "string") for n in names)


def test_groups_are_keyed_by_the_shared_fields_and_nested_groups_dropped() -> None:
    a = _fields("name", "brand", "price", "cpu", "battery")
    b = _fields("name", "brand", "price", "cpu", "battery", "ram")
    c = _fields("name", "brand", "price", "driver")
    lone = _fields("title", "isbn", "pages")
    groups = overlap_groups({"a": a, "b": b, "lone": lone, "c": c}, 0.5, 3)
    # a and b share five fields, but both are in the three-member group sharing name/brand/price
    assert [(g.members, sorted(n for n, _ in g.common), g.share) for g in groups] == [
        (("a", "b", "c"), ["brand", "name", "price"], 0.5),
    ]
    assert overlap_groups({"a": a, "b": b, "lone": lone}, 0.5, 3)[0].common == a  # without c: a and b
    assert overlap_groups({"a": a, "lone": lone}, 0.5, 3) == []


def test_the_index_updated_entity_by_entity_equals_a_fresh_one() -> None:
    """Edits (change, remove, re-add) leave the same pairs as building the index from scratch."""
    sets = {f"e{i}": _fields("name", "brand", "price", f"own{i}", f"x{i % 3}") for i in range(12)}
    index = OverlapIndex(0.5, 3)
    for key, fields in sets.items():
        index.update(key, fields)
    index.update("e3", _fields("title", "isbn", "pages"))
    index.update("e5", None)
    index.update("e5", sets["e5"])
    index.update("e7", _fields("name", "brand", "price", "own7", "x0", "extra"))
    final = dict(
        sets, e3=_fields("title", "isbn", "pages"), e7=_fields("name", "brand", "price", "own7", "x0", "extra")
    )
    fresh = OverlapIndex(0.5, 3)
    for key, fields in final.items():
        fresh.update(key, fields)
    assert {k: index.partners_of(k) for k in final} == {k: fresh.partners_of(k) for k in final}
    assert "e3" not in index.partners_of("e0") and "e1" in index.partners_of("e0")
    position = {key: i for i, key in enumerate(final)}
    assert index.groups(position) == fresh.groups(position)
    # e1/e4/e10 also share x1, e0/e6/e9 share x0 with e7, ... but all are in the 11-member name/brand/price group
    (group,) = index.groups(position)
    assert len(group.members) == 11 and "e3" not in group.members


def test_identical_entities_form_one_group() -> None:
    same = {f"e{i}": _fields("x", "y", "z") for i in range(200)}
    (group,) = overlap_groups(same, 0.5, 3)
    assert group.members == tuple(same) and group.share == 1.0


def test_the_incremental_analyser_follows_edits_of_the_variants() -> None:
    """Each edit (rename a shared field, declare subtypes, drop and re-add an entity) equals a fresh analysis."""
    analyser = Analyser()
    p = build("one collection per product type")
    steps: list[list[list[str]]] = []

    def entities_of(project: Project) -> list[list[str]]:
        mine = [f for f in analyser.analyse(project).findings if f.rule == "polymorphic-pattern"]
        fresh = [f for f in analyse(project).findings if f.rule == "polymorphic-pattern"]
        assert [f.to_json() for f in mine] == [f.to_json() for f in fresh]
        return [f.numbers.get("entities", []) for f in mine]

    steps.append(entities_of(p))
    phone, laptop, headphone = p.entities
    renamed = [f.model_copy(update={"name": "label"}) if f.name == "brand" else f for f in laptop.fields]
    p = p.model_copy(update={"entities": [phone, laptop.model_copy(update={"fields": renamed}), headphone]})
    steps.append(entities_of(p))
    p = p.model_copy(update={"entities": [phone, headphone]})
    steps.append(entities_of(p))
    p = p.model_copy(update={"entities": [phone, headphone, laptop]})
    steps.append(entities_of(p))
    assert steps == [
        [["phone", "laptop", "headphone"]],
        [["phone", "headphone"]],  # laptop no longer shares brand: only 2 of its 5 fields
        [["phone", "headphone"]],
        [["phone", "headphone", "laptop"]],  # re-added last: the members follow the model order
    ]


def _crowded_sets(n: int) -> dict[str, frozenset[tuple[str, str]]]:
    """``n`` entities that each hold one field of their own and the same five common ones."""
    return {f"e{i}": _fields(f"own{i}", "title", "status", "label", "code", "notes") for i in range(n)}


def test_fields_every_entity_holds_are_a_crowd_not_a_quadratic_group() -> None:
    sets = _crowded_sets(120)
    index = OverlapIndex(0.5, 3, max_shared=50)
    for key, fields in sets.items():
        index.update(key, fields)
    position = {key: i for i, key in enumerate(sets)}
    assert index.groups(position) == []
    (crowd,) = index.crowds(position)
    assert crowd.members == tuple(sets) and {n for n, _ in crowd.fields} <= {
        "title",
        "status",
        "label",
        "code",
        "notes",
    }
    # without the cap the same model is one 120-member group (what a small model still gets)
    (group,) = overlap_groups(sets, 0.5, 3)
    assert len(group.members) == 120


def test_crowding_follows_edits_and_equals_a_fresh_index() -> None:
    """A pair becomes crowded and uncrowded again as entities come and go; partners always equal a fresh build."""
    sets = _crowded_sets(6)
    index = OverlapIndex(0.5, 3, max_shared=4)
    for key, fields in sets.items():
        index.update(key, fields)
    for key in ("e0", "e1", "e2"):
        index.update(key, None)  # three left: no longer crowded
        del sets[key]

        fresh = OverlapIndex(0.5, 3, max_shared=4)
        for k, fields in sets.items():
            fresh.update(k, fields)
        position = {k: i for i, k in enumerate(sets)}
        assert index.groups(position) == fresh.groups(position)
        assert index.crowds(position) == fresh.crowds(position)
    position = {k: i for i, k in enumerate(sets)}
    assert [g.members for g in index.groups(position)] == [("e3", "e4", "e5")] and index.crowds(position) == []


def test_a_model_of_look_alike_entities_gets_one_info_finding() -> None:
    entities = [
        {"id": f"e{i}", "name": f"Kind {i}", "fields": [{"name": f"own{i}", "type": "int"}]
         + [{"name": n, "type": "string"} for n in ("title", "status", "label", "code", "notes")]}
        for i in range(60)
    ]  # fmt: skip
    project = Project.model_validate(
        {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "name": "look-alikes", "entities": entities}
    )
    (f,) = [f for f in analyse(project).findings if f.rule == "polymorphic-pattern"]
    assert f.severity == "info" and f.subject.id == "e0"
    assert f.message.startswith("60 entities (Kind 0, Kind 1, Kind 2 and 57 more) share ")
    assert "give that entity subtypes" in f.message and len(f.numbers["entities"]) == 60


def test_memory_of_the_look_alike_worst_case_stays_linear() -> None:
    """3,000 entities sharing five fields: the index holds no pair of them (before: 4.5 million pairs, ~1.5 GB)."""
    tracemalloc.start()
    try:
        index = OverlapIndex(0.5, 3, max_shared=50)
        for key, fields in _crowded_sets(3000).items():
            index.update(key, fields)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20, f"peak {peak / 2**20:.1f} MiB"
    assert all(index.partners_of(k) == set() for k in ("e0", "e1500", "e2999"))


def _partners_by_definition(sets: dict[str, frozenset[tuple[str, str]]], index: OverlapIndex) -> dict[str, set[str]]:
    """Partners straight from the definition, every pair compared: enough shared fields for both, and a common
    prefix pair of fields that at most ``max_shared`` distinct field sets are filed under."""
    from itertools import combinations

    def keys(fields: frozenset[tuple[str, str]]) -> set[tuple[Any, ...]]:
        need = index.need(fields)
        return set(combinations(sorted(fields)[: len(fields) - need + 2], 2)) if need <= len(fields) else set()

    holders: dict[tuple[Any, ...], set[frozenset[tuple[str, str]]]] = {}
    for fields in sets.values():
        for pair in keys(fields):
            holders.setdefault(pair, set()).add(fields)
    out: dict[str, set[str]] = {key: set() for key in sets}
    for a, b in combinations(sets, 2):
        fa, fb = sets[a], sets[b]
        common = len(fa & fb)
        if fa == fb:
            linked = common >= index.need(fa)
        else:
            meet = keys(fa) & keys(fb)
            uncrowded = any(index.max_shared is None or len(holders[p]) <= index.max_shared for p in meet)
            linked = common >= index.need(fa) and common >= index.need(fb) and uncrowded
        if linked:
            out[a].add(b)
            out[b].add(a)
    return out


def test_partners_after_crowding_and_uncrowding_equal_the_definition() -> None:
    """Many look-alike field sets and a low cap: pairs become crowded while the index is built (the links
    through them are checked again) and uncrowded as entities go; every step equals comparing every pair."""
    import random

    rng = random.Random(7)
    words = ["title", "status", "label", "code", "notes", "price", "brand", "size"]
    sets = {
        f"e{i}": _fields(*rng.sample(words, rng.randint(3, 6)), *([f"own{i}"] if rng.random() < 0.5 else []))
        for i in range(80)
    }
    index = OverlapIndex(0.5, 3, max_shared=6)
    for key, fields in sets.items():
        index.update(key, fields)
    expected = _partners_by_definition(sets, index)
    assert any(expected.values()) and any(not v for v in expected.values())  # both partners and loners
    assert {key: index.partners_of(key) for key in sets} == expected
    for key in list(sets)[::3]:
        index.update(key, None)
        del sets[key]
        assert {k: index.partners_of(k) for k in sets} == _partners_by_definition(sets, index)
