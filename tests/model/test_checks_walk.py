"""The project checks walk each entity's fields once: the nesting depth they report on the way is depth()'s
(issue 16: the second walk, and naming every relationship's generated fields up front, were half the checks of a
10,000-entity open)."""

from __future__ import annotations

import random

from modeller.model import FORMAT_NAME, FORMAT_VERSION
from modeller.model.checks import MAX_NESTING, _check_fields, check_project
from modeller.model.paths import depth
from modeller.model.project import ArrayItems, Entity, Field, Index, Project, Relationship


def _items(rnd: random.Random, level: int) -> ArrayItems:
    kind = rnd.random()
    if level > 6 or kind < 0.3:
        return ArrayItems(type="string")
    if kind < 0.6:
        return ArrayItems(type="array", items=_items(rnd, level + 1))
    return ArrayItems(type="object", fields=_fields(rnd, level + 1))


def _fields(rnd: random.Random, level: int) -> list[Field]:
    out = []
    for i in range(rnd.randint(0, 3)):
        kind = rnd.random()
        if level > 6 or kind < 0.4:
            out.append(Field(name=f"f{i}", type="string"))
        elif kind < 0.7:
            out.append(Field(name=f"f{i}", type="object", fields=_fields(rnd, level + 1)))
        else:
            out.append(Field(name=f"f{i}", type="array", items=_items(rnd, level + 1)))
    return out


def _project(**parts: object) -> Project:
    return Project(format=FORMAT_NAME, format_version=FORMAT_VERSION, name="checks", **parts)  # type: ignore[arg-type]


def test_the_walk_counts_nesting_as_depth_does() -> None:
    rnd = random.Random(16)
    seen = set()
    for _ in range(500):
        fields = _fields(rnd, 0)
        seen.add(depth(fields))
        assert _check_fields(fields, "$", []) == depth(fields)
    assert {0, 1, 2, 3, 4, 5} <= seen  # flat, empty and deep shapes all came up


def test_a_deep_array_chain_is_refused_and_one_level_less_is_not() -> None:
    def chained(levels: int) -> Field:
        items = ArrayItems(type="string")
        for _ in range(levels - 2):
            items = ArrayItems(type="array", items=items)
        return Field(name="deep", type="array", items=items)

    for levels, refused in ((MAX_NESTING, False), (MAX_NESTING + 1, True)):
        assert depth([chained(levels)]) == levels
        project = _project(entities=[Entity(id="e", name="Thing", fields=[chained(levels)])])
        messages = [p.message for p in check_project(project)]
        assert any("nested deeper" in m for m in messages) is refused, messages


def test_generated_names_are_known_only_on_their_own_entity() -> None:
    # an index of the N on its reference to the One is fine; the same key on an unrelated entity is not
    one = Entity(id="a", name="Author", fields=[Field(name="name", type="string")])
    many = Entity(id="p", name="Post", fields=[Field(name="title", type="string")])
    other = Entity(id="o", name="Other", fields=[Field(name="x", type="string")])
    keys = [("author_id", 1)]
    project = _project(
        entities=[
            one,
            many.model_copy(update={"indexes": [Index(keys=keys)]}),
            other.model_copy(update={"indexes": [Index(keys=keys)]}),
        ],
        relationships=[Relationship(id="r", one="a", many="p", cardinality="one-to-many")],
    )
    problems = check_project(project)
    assert [p.path for p in problems] == ["$.entities[2].indexes[0].keys[0]"]
    assert problems[0].message == "'Other' has no field 'author_id'; declare the field or fix the name"
