"""Every whole-project check of ``modeller.model.checks``, each located by its JSON path."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from modeller.model import Project, check_project
from modeller.model.checks import MAX_NESTING

BASE: dict[str, Any] = {
    "format": "mongo-schema-modeller",
    "format_version": 2,
    "name": "Shop",
    "entities": [
        {
            "id": "person",
            "name": "Person",
            "fields": [
                {"name": "name", "type": "string"},
                {"name": "address", "type": "object", "fields": [{"name": "city", "type": "string"}]},
                {
                    "name": "phones",
                    "type": "array",
                    "items": {"type": "object", "fields": [{"name": "number", "type": "string"}]},
                },
                {"name": "created", "type": "date"},
            ],
        },
        {
            "id": "task",
            "name": "Task",
            "fields": [{"name": "due_date", "type": "date"}, {"name": "hours", "type": "double"}],
        },
    ],
    "relationships": [
        {"id": "person_tasks", "one": "person", "many": "task", "cardinality": "one-to-many"},
    ],
}


def problems(**changes: Any) -> list[tuple[str, str]]:
    data = copy.deepcopy(BASE)
    data.update(changes)
    return [(p.path, p.message) for p in check_project(Project.model_validate(data))]


def with_entity(index: int, **changes: Any) -> list[dict[str, Any]]:
    entities = copy.deepcopy(BASE["entities"])
    entities[index].update(changes)
    return entities


def with_rel(**changes: Any) -> list[dict[str, Any]]:
    return [{**BASE["relationships"][0], **changes}]


def query(**changes: Any) -> list[dict[str, Any]]:
    return [{"id": "q", "entity": "task", **changes}]


def test_base_is_valid() -> None:
    assert problems() == []


def test_format_name() -> None:
    assert problems(format="other") == [
        ("$.format", "expected 'mongo-schema-modeller'; this is not a Modeller project file")
    ]


@pytest.mark.parametrize("kind", ["entities", "relationships", "queries"])
def test_unique_ids(kind: str) -> None:
    items = {
        "entities": [*BASE["entities"], {"id": "task", "name": "Job", "fields": []}],
        "relationships": [*BASE["relationships"], {**BASE["relationships"][0], "cardinality": "one-to-few"}],
        "queries": [*query(), *query()],
    }[kind]
    found = problems(**{kind: items})
    first = {"entities": 1, "relationships": 0, "queries": 0}[kind]
    duplicate = {"entities": "task", "relationships": "person_tasks", "queries": "q"}[kind]
    assert (
        f"$.{kind}[{first}].id",
        f"id {duplicate!r} is used by more than one of {kind}; ids must be unique",
    ) in found


def test_duplicate_field_names_at_every_level() -> None:
    fields = [
        {"name": "a", "type": "string"},
        {"name": "a", "type": "int"},
        {"name": "o", "type": "object", "fields": [{"name": "b", "type": "int"}, {"name": "b", "type": "int"}]},
        {
            "name": "arr",
            "type": "array",
            "items": {
                "type": "array",
                "items": {"type": "object", "fields": [{"name": "c", "type": "int"}, {"name": "c", "type": "int"}]},
            },
        },
    ]
    found = problems(entities=[{"id": "e", "name": "E", "fields": fields}], relationships=[])
    assert [path for path, _ in found] == [
        "$.entities[0].fields",
        "$.entities[0].fields[2].fields",
        "$.entities[0].fields[3].items.items.fields",
    ]
    assert found[0][1] == "field name 'a' is used twice here; rename one of them"


def test_duplicate_field_names_in_a_subtype_variant() -> None:
    subtypes = {"variants": {"basic": [{"name": "x", "type": "int"}, {"name": "x", "type": "int"}]}}
    assert problems(entities=with_entity(1, subtypes=subtypes)) == [
        ("$.entities[1].subtypes.variants['basic']", "field name 'x' is used twice here; rename one of them")
    ]


def test_empty_enum() -> None:
    fields = [{"name": "status", "type": "string", "enum": []}]
    assert problems(entities=with_entity(1, fields=fields), relationships=[]) == [
        ("$.entities[1].fields[0].enum", "enum is empty; list the allowed values or remove 'enum'")
    ]


def test_derived_collection_name_too_long() -> None:
    found = problems(entities=with_entity(1, name="é" * 150))
    assert len(found) == 1
    assert found[0][0] == "$.entities[1].name"
    assert "longer than 200 bytes" in found[0][1] and "set 'collection'" in found[0][1]


def test_explicit_collection_avoids_the_derived_name_check() -> None:
    assert problems(entities=with_entity(1, name="é" * 150, collection="tasks")) == []


def test_nesting_deeper_than_mongodb_allows() -> None:
    field: dict[str, Any] = {"name": "leaf", "type": "string"}
    for i in range(MAX_NESTING):
        field = {"name": f"f{i}", "type": "object", "fields": [field]}
    found = problems(entities=with_entity(1, fields=[field]), relationships=[])
    assert found == [
        ("$.entities[1].fields", f"fields are nested deeper than MongoDB's {MAX_NESTING} levels; flatten them")
    ]


@pytest.mark.parametrize(
    ("changes", "path", "name"),
    [
        ({"indexes": [{"keys": [["due_date", 1], ["nope", -1]]}]}, "$.entities[1].indexes[0].keys[1]", "nope"),
        ({"shard_key": ["due_date", "zone"]}, "$.entities[1].shard_key[1]", "zone"),
        ({"timeseries": {"time_field": "ts"}}, "$.entities[1].timeseries.time_field", "ts"),
        ({"timeseries": {"time_field": "due_date", "meta_field": "m"}}, "$.entities[1].timeseries.meta_field", "m"),
        ({"archive": {"age_field": "age", "cold_after_s": 5}}, "$.entities[1].archive.age_field", "age"),
    ],
)
def test_entity_field_references(changes: dict[str, Any], path: str, name: str) -> None:
    assert problems(entities=with_entity(1, **changes)) == [
        (path, f"'Task' has no field {name!r}; declare the field or fix the name")
    ]


def test_entity_references_accept_nested_and_generated_paths() -> None:
    indexes = [{"keys": [["person_id", 1], ["person._id", 1], ["due_date", -1]]}]
    assert problems(entities=with_entity(1, indexes=indexes, shard_key=["person_id"])) == []


@pytest.mark.parametrize("end", ["one", "many"])
def test_dangling_relationship_ends(end: str) -> None:
    assert problems(relationships=with_rel(**{end: "ghost"})) == [
        (f"$.relationships[0].{end}", f"no entity has id 'ghost'; point '{end}' at an existing entity")
    ]


def test_tree_ops_only_on_self_relationships() -> None:
    assert problems(relationships=with_rel(tree_ops=["children"])) == [
        ("$.relationships[0].tree_ops", "tree_ops only apply to a relationship from an entity to itself; remove them")
    ]
    assert problems(relationships=with_rel(many="person", tree_ops=["children", "ancestors"])) == []


@pytest.mark.parametrize(
    ("direction", "field", "ok"),
    [
        ("many-to-one", "due_date", True),
        ("many-to-one", "name", False),  # 'name' is on the One (person), not on the task
        ("one-to-many", "name", True),
        ("one-to-many", "address.city", True),
        ("one-to-many", "phones.number", True),
        ("one-to-many", "address.zip", False),
    ],
)
def test_denormalized_field_must_exist_on_its_source(direction: str, field: str, ok: bool) -> None:
    found = problems(relationships=with_rel(denormalize=[{"field": field, "direction": direction}]))
    if ok:
        assert found == []
    else:
        source = "Task" if direction == "many-to-one" else "Person"
        assert found == [
            (
                "$.relationships[0].denormalize[0].field",
                f"{source!r} has no field {field!r}; declare the field or fix the name",
            )
        ]


def test_aggregate_field_must_exist_on_the_many_side() -> None:
    aggregates = [{"name": "total_hours", "op": "sum", "field": "hours"}, {"name": "x", "op": "avg", "field": "name"}]
    assert problems(relationships=with_rel(aggregates=aggregates)) == [
        (
            "$.relationships[0].aggregates[1].field",
            "'Task' has no field 'name'; declare the field or fix the name",
        )
    ]


def test_query_on_missing_entity() -> None:
    assert problems(queries=[{"id": "q", "entity": "ghost"}]) == [
        ("$.queries[0].entity", "no entity has id 'ghost'; pick an existing entity")
    ]


def test_query_paths_filter_sort_projection() -> None:
    found = problems(queries=query(filter={"zz": "eq"}, sort=[["due_date", 1], ["yy", -1]], projection=["xx"]))
    assert [p for p, _ in found] == ["$.queries[0].filter['zz']", "$.queries[0].sort[1]", "$.queries[0].projection[0]"]


@pytest.mark.parametrize(
    ("entity", "path"),
    [
        ("person", "address.city"),  # dotted into an object
        ("person", "phones.number"),  # through an array of sub-documents
        ("person", "_id"),
        ("task", "person_id"),  # parent reference
        ("task", "person"),  # extended reference
        ("task", "person.name"),  # a field copied into the extended reference
        ("task", "person._id"),
        ("person", "task_ids"),  # child references
        ("person", "tasks"),  # embedded array (plural of the many side)
        ("person", "tasks.due_date"),
        ("person", "recent_tasks"),  # subset pattern
        ("person", "recent_tasks.hours"),
    ],
)
def test_query_may_name_nested_and_generated_paths(entity: str, path: str) -> None:
    assert problems(queries=[{"id": "q", "entity": entity, "filter": {path: "eq"}}]) == []


@pytest.mark.parametrize(
    ("entity", "path"),
    [("task", "person.zip"), ("task", "person_id.x"), ("person", "tasks.nope"), ("person", "address.city.x")],
)
def test_query_generated_paths_are_checked_too(entity: str, path: str) -> None:
    assert len(problems(queries=[{"id": "q", "entity": entity, "filter": {path: "eq"}}])) == 1


def test_generated_names_follow_role_names() -> None:
    rels = with_rel(name="todo", inverse="owner", aggregates=[{"name": "open_count", "op": "count"}])
    for entity, path in [("task", "owner_id"), ("task", "owner.name"), ("person", "todo"), ("person", "recent_todo"),
                         ("person", "open_count")]:  # fmt: skip
        assert problems(relationships=rels, queries=[{"id": "q", "entity": entity, "filter": {path: "eq"}}]) == []
    # the default names are gone once roles are named
    assert (
        len(problems(relationships=rels, queries=[{"id": "q", "entity": "task", "filter": {"person_id": "eq"}}])) == 1
    )


def test_one_to_one_embeds_under_the_singular_name() -> None:
    rels = with_rel(cardinality="one-to-one")
    assert problems(relationships=rels, queries=[{"id": "q", "entity": "person", "filter": {"task.hours": "eq"}}]) == []


def test_query_joins_must_name_relationships() -> None:
    assert problems(queries=query(joins=["person_tasks", "nope"])) == [
        ("$.queries[0].joins[1]", "no relationship has id 'nope'; name an existing relationship")
    ]


def test_layout_entries_must_name_entities() -> None:
    assert problems(layout={"task": {"x": 1, "y": 2}, "ghost": {"x": 0, "y": 0}}) == [
        ("$.layout['ghost']", "no entity has id 'ghost'; remove this layout entry")
    ]


def test_all_problems_are_reported_together() -> None:
    found = problems(
        relationships=with_rel(many="ghost"), queries=query(filter={"zz": "eq"}), layout={"nobody": {"x": 0, "y": 0}}
    )
    assert len(found) == 3


@pytest.mark.parametrize("entity", ["task", "person"])  # the Tasks of one Person; the Person of one Task
def test_a_scope_names_a_relationship_of_the_query_entity(entity: str) -> None:
    assert problems(queries=[{"id": "q", "entity": entity, "scope": "person_tasks"}]) == []


def test_a_scope_elsewhere_or_nowhere_is_one_located_message() -> None:
    entities = [*BASE["entities"], {"id": "tag", "name": "Tag", "fields": []}]
    assert problems(entities=entities, queries=[{"id": "q", "entity": "tag", "scope": "person_tasks"}]) == [
        (
            "$.queries[0].scope",
            "relationship 'person_tasks' links 'Person' and 'Task', not 'Tag'; "
            "pick a relationship of 'Tag' or remove the scope",
        )
    ]
    assert problems(queries=query(scope="person_taks")) == [
        (
            "$.queries[0].scope",
            "no relationship has id 'person_taks'; pick a relationship of 'Task' or remove the scope",
        )
    ]


def test_a_related_field_in_the_projection_is_checked_against_the_joined_entity() -> None:
    assert problems(queries=query(projection=["person.name"], joins=["person_tasks"])) == []
    assert problems(queries=query(projection=["due_date", "person.nme"], joins=["person_tasks"])) == [
        (
            "$.queries[0].projection[1]",
            "'Person' (joined as 'person') has no field 'nme'; name a field of 'Person' or fix the name",
        )
    ]
