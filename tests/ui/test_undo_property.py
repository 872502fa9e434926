"""Random command sequences: undo-all restores the start exactly, redo-all the end; the canvas follows."""

from __future__ import annotations

import operator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modeller.model import Position, Project, Relationship
from modeller.persistence import load_project
from modeller.ui.canvas.scene import CanvasScene
from modeller.ui.commands import (
    AddQueryCommand,
    AddRelationshipCommand,
    EditEntityCommand,
    EditRelationshipCommand,
    MoveCommand,
    delete_command,
    paste_command,
)
from modeller.ui.commands.composite import fragment, new_query
from modeller.ui.document import ProjectDocument
from modeller.ui.templates import make_entity

from .conftest import sample

OPS = ("add", "remove", "move", "edit", "connect", "delete_rel", "query", "paste", "cardinality")
START = load_project(sample("task-tracker"))


def apply(document: ProjectDocument, op: str, a: int, b: int) -> None:
    project = document.project
    entities = project.entities
    if op == "add":
        key = ("entity", "event_stream", "lookup")[a % 3]
        name = document.unique_entity_name(f"New {a}")
        document.push(
            __import__("modeller.ui.commands", fromlist=["AddEntityCommand"]).AddEntityCommand(
                document, make_entity(key, document.unique_id(name), name), Position(x=a * 10, y=b * 10)
            )
        )
    elif not entities:
        return
    elif op == "remove":
        command = delete_command(document, [entities[a % len(entities)].id])
        assert command is not None
        document.push(command)
    elif op == "move":
        chosen = entities[a % len(entities)].id, entities[b % len(entities)].id
        document.push(MoveCommand(document, {key: Position(x=a * 7, y=-b) for key in chosen}))
    elif op == "edit":
        entity = entities[a % len(entities)]
        new = entity.model_copy(update={"count": b * 1000, "name": f"{entity.name}!"})
        document.push(EditEntityCommand(document, new, merge_key=("entity", entity.id, "name") if b % 2 else None))
    elif op == "connect":
        one, many = entities[a % len(entities)].id, entities[b % len(entities)].id
        rel = Relationship(id=document.unique_id(f"{one}_{many}"), one=one, many=many, cardinality="one-to-many")
        document.push(AddRelationshipCommand(document, rel))
    elif op == "delete_rel" and project.relationships:
        command = delete_command(document, rel_ids=[project.relationships[a % len(project.relationships)].id])
        assert command is not None
        document.push(command)
    elif op == "cardinality" and project.relationships:
        rel = project.relationships[a % len(project.relationships)]
        new = rel.model_copy(update={"cardinality": ("one-to-few", "one-to-squillions", "many-to-many")[b % 3]})
        document.push(EditRelationshipCommand(document, new))
    elif op == "query":
        document.push(AddQueryCommand(document, new_query(document, entities[a % len(entities)].id)))
    elif op == "paste":
        chosen = [entities[a % len(entities)].id, entities[b % len(entities)].id]
        command = paste_command(document, fragment(document, chosen), (a, b))
        assert command is not None
        document.push(command)


def assert_canvas_matches(scene: CanvasScene, project: Project) -> None:
    assert list(scene.entity_items) == [e.id for e in project.entities] or set(scene.entity_items) == {
        e.id for e in project.entities
    }
    assert set(scene.relationship_items) == {r.id for r in project.relationships}
    for entity in project.entities:
        pos = scene.entity_items[entity.id].pos()
        expected = scene.model_position(entity.id)
        assert (pos.x(), pos.y()) == (expected.x(), expected.y())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 50), st.integers(0, 50)), max_size=25))
def test_random_commands_undo_redo_exactly(qapp, steps: list[tuple[str, int, int]]) -> None:
    document = ProjectDocument(START)
    scene = CanvasScene(document)
    initial = document.project
    initial_text = initial.model_dump_json()
    for op, a, b in steps:
        apply(document, op, a, b)
    final = document.project
    assert_canvas_matches(scene, final)
    stack = document.undo_stack
    while stack.canUndo():
        stack.undo()
    # edits swap in new projects: the old one is untouched, and undo brings back its very objects
    # (what the analyser's identity caches rely on)
    assert document.project == initial and initial.model_dump_json() == initial_text
    for name in ("entities", "relationships", "queries"):
        assert all(map(operator.is_, getattr(document.project, name), getattr(initial, name))), name
    assert_canvas_matches(scene, initial)
    while stack.canRedo():
        stack.redo()
    assert document.project == final
    for name in ("entities", "relationships", "queries"):
        assert all(map(operator.is_, getattr(document.project, name), getattr(final, name))), name
    assert_canvas_matches(scene, final)


def test_delete_entity_removes_relationships_and_queries_and_undo_restores_order(qapp) -> None:
    project = load_project(sample("ecommerce"))
    document = ProjectDocument(project.model_copy(deep=True))
    victim = next(e.id for e in project.entities if len(document.relationships_of(e.id)) >= 2)
    command = delete_command(document, [victim])
    assert command is not None and len(command.kids) >= 3
    document.push(command)
    assert document.entity(victim) is None
    assert all(victim not in (r.one, r.many) for r in document.project.relationships)
    assert all(q.entity != victim for q in document.project.queries)
    assert document.undo_stack.count() == 1
    document.undo_stack.undo()
    assert document.project == project
    assert [r.id for r in document.project.relationships] == [r.id for r in project.relationships]
    assert [q.id for q in document.project.queries] == [q.id for q in project.queries]
