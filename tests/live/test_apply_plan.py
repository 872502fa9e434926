"""The pure apply planner: a design and a listed database state in, the steps and notes out (no server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from modeller.live.apply import plan_apply
from modeller.live.state import DatabaseState, ObservedCollection
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.physical.design import Design

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture(scope="module")
def design() -> Design:
    return analyse(load_project(SAMPLES / "task-tracker.modeller.json")).design


def _deployed(design: Design, **changes: ObservedCollection) -> DatabaseState:
    """The state ``apply`` leaves behind, with some collections replaced."""
    colls = {}
    for coll in design.collections:
        indexes = [{"name": "_id_", "key": {"_id": 1}}] + [
            {"name": i.name, "key": dict(i.keys), **({"unique": True} if i.unique else {})} for i in coll.indexes
        ]
        options = {"validator": coll.validator, "validationLevel": "strict", "validationAction": "error"}
        colls[coll.name] = ObservedCollection(coll.name, options=options, indexes=indexes)
    colls.update(changes)
    return DatabaseState("tracker", colls)


def test_an_empty_database_gets_collections_with_validators_then_indexes(design: Design) -> None:
    plan = plan_apply(design, DatabaseState("tracker"))
    assert [(s.kind, s.collection) for s in plan.steps] == [
        ("create-collection", "people"),
        ("create-collection", "tasks"),
        ("create-index", "people"),
        ("create-index", "tasks"),
        ("create-index", "tasks"),
    ]
    create = plan.steps[0].command
    assert next(iter(create)) == "create" and create["validator"] == design.collections[0].validator
    assert (create["validationLevel"], create["validationAction"]) == ("strict", "error")
    assert plan.steps[2].command == {
        "createIndexes": "people",
        "indexes": [{"key": {"email": 1}, "name": "email_1", "unique": True}],
    }
    assert plan.notes == []
    assert plan.lines()[0] == "plan for database 'tracker': 5 step(s)"


def test_the_deployed_design_plans_nothing_and_lists_what_the_design_lacks(design: Design) -> None:
    state = _deployed(design, logs=ObservedCollection("logs"))
    people = state.collections["people"]
    extra = ObservedCollection(
        "people", options=people.options, indexes=[*people.indexes, {"name": "name_1", "key": {"name": 1.0}}]
    )
    plan = plan_apply(design, _deployed(design, people=extra, logs=ObservedCollection("logs")))
    assert plan.steps == []
    assert [n.text for n in plan.notes] == [
        "index 'name_1' on 'people' is not in the design (left as it is)",
        "collection 'logs' is not in the design (left as it is)",
    ]
    assert "nothing to do" in plan.lines()[1]


def test_an_index_with_the_design_key_under_another_name_serves_it_and_a_conflict_is_never_dropped(
    design: Design,
) -> None:
    tasks = _deployed(design).collections["tasks"]
    indexes = [
        {"name": "_id_", "key": {"_id": 1}},
        {"name": "by_due", "key": {"due_date": 1}},  # the design's due_date_1 under another name
        {"name": "owner_id_1_due_date_1", "key": {"owner_id": 1, "due_date": -1}},  # same name, other key
    ]
    plan = plan_apply(
        design, _deployed(design, tasks=ObservedCollection("tasks", options=tasks.options, indexes=indexes))
    )
    assert plan.steps == []
    (conflict,) = plan.notes
    assert conflict.kind == "conflict" and "owner_id_1_due_date_1" in conflict.text
    assert '{"owner_id": 1, "due_date": -1}' in conflict.text and "drop it by hand" in conflict.text


def test_an_existing_collection_with_failing_documents_gets_a_moderate_warning_validator(design: Design) -> None:
    bare = ObservedCollection("tasks", indexes=_deployed(design).collections["tasks"].indexes, failing=7)
    plan = plan_apply(design, _deployed(design, tasks=bare))
    (step,) = plan.steps
    assert step.kind == "set-validator" and "7 existing document(s) would fail it" in step.summary
    assert step.command == {
        "collMod": "tasks",
        "validator": design.collection("tasks").validator,  # type: ignore[union-attr]
        "validationLevel": "moderate",
        "validationAction": "warn",
    }
    assert [n.kind for n in plan.notes] == ["to-tighten"]
    assert '"validationLevel": "strict"' in plan.notes[0].text


def test_a_rolled_out_validator_is_tightened_only_once_no_document_fails(design: Design) -> None:
    tasks = _deployed(design).collections["tasks"]
    rolled = {**tasks.options, "validationLevel": "moderate", "validationAction": "warn"}
    still = plan_apply(
        design, _deployed(design, tasks=ObservedCollection("tasks", options=rolled, indexes=tasks.indexes, failing=2))
    )
    assert still.steps == [] and "2 document(s) still fail" in still.notes[0].text
    clean = plan_apply(
        design, _deployed(design, tasks=ObservedCollection("tasks", options=rolled, indexes=tasks.indexes, failing=0))
    )
    assert [s.command for s in clean.steps] == [
        {"collMod": "tasks", "validationLevel": "strict", "validationAction": "error"}
    ]


def test_views_and_blocked_indexes_are_notes_not_steps(design: Design) -> None:
    view = ObservedCollection("people", options={"viewOn": "x", "pipeline": []})
    plan = plan_apply(design, _deployed(design, people=view), blocked={"tasks#due_date_1": "not created (35): why"})
    kinds = [(s.kind, s.collection) for s in plan.steps]
    assert ("create-index", "people") not in kinds  # never on a view
    assert [n.text for n in plan.notes][:1] == ["'people' is a view on the server; the design has a collection"]
    assert "index 'due_date_1' on 'tasks': not created (35): why" in [n.text for n in plan.notes]


def test_changes_made_behind_the_tools_back_sparse_hidden_and_a_validator_turned_off(design: Design) -> None:
    """Tryout a13 item 6: a sparse index, the design's index hidden, another hidden one and a validator level off
    are each named by drift and apply; apply unhides the design's index and turns the validator on again."""
    from modeller.live.drift import compare

    state = _deployed(design)
    people, tasks = state.collections["people"], state.collections["tasks"]
    marked = [
        {**ix, "sparse": True}
        if ix["name"] == "due_date_1"
        else {**ix, "hidden": True}
        if ix["name"] == "email_1"
        else ix
        for ix in [*people.indexes, *tasks.indexes]
    ]
    people_off = ObservedCollection(
        "people",
        options={**people.options, "validationLevel": "off"},
        indexes=[ix for ix in marked if ix["name"] in {i["name"] for i in people.indexes}]
        + [{"name": "old_1", "key": {"old": 1}, "hidden": True}],
        failing=3,
    )
    tasks_sparse = ObservedCollection(
        "tasks",
        options=tasks.options,
        indexes=[ix for ix in marked if ix["name"] in {i["name"] for i in tasks.indexes}],
    )
    changed = _deployed(design, people=people_off, tasks=tasks_sparse)
    plan = plan_apply(design, changed)
    assert [(s.kind, s.summary) for s in plan.steps] == [
        ("unhide-index", "unhide index 'email_1' on 'people' (the design uses it; it is hidden)"),
        (
            "set-validator",
            "turn the validator of 'people' on as moderate, warn (it is off): 3 existing document(s) fail it",
        ),
    ]
    assert plan.steps[0].command == {"collMod": "people", "index": {"name": "email_1", "hidden": False}}
    assert plan.steps[1].command == {"collMod": "people", "validationLevel": "moderate", "validationAction": "warn"}
    notes = [n.text for n in plan.notes]
    assert "index 'old_1' (hidden) on 'people' is not in the design (left as it is)" in notes
    assert any(t.startswith("index 'due_date_1' on 'tasks': the server has this key with other sparse") for t in notes)
    assert any("3 document(s) still fail the validator (moderate, warn)" in t for t in notes)
    lines = compare(design, changed).lines()
    assert "  index 'email_1' on 'people' is hidden in the database" in lines
    assert "  index 'old_1' (hidden) on 'people' is in the database, not in the design" in lines
    assert any(
        ln.startswith("  index 'due_date_1' on 'tasks' differs: the server has this key with other sparse")
        for ln in lines
    )
    assert "  the validator of 'people' is off, error; the design's is strict, error" in lines


def test_the_fields_documents_fail_on_are_named_the_first_five_and_where_they_were_counted(design: Design) -> None:
    tasks = _deployed(design).collections["tasks"]
    rolled = {**tasks.options, "validationLevel": "moderate", "validationAction": "warn"}
    why = tuple(f"'tasks' 'f{i}': required in the design, missing in {i} of 200 failing document(s)" for i in range(7))
    many = ObservedCollection("tasks", options=rolled, indexes=tasks.indexes, failing=600, failing_why=why)
    (note,) = plan_apply(design, _deployed(design, tasks=many)).notes
    assert note.details == (
        *why[:5],
        "and 2 more field(s): modeller drift lists every difference",
        "(counted in the first 200 of the 600 failing documents)",
    )
    few = ObservedCollection("tasks", options=rolled, indexes=tasks.indexes, failing=3, failing_why=why[:1])
    (note,) = plan_apply(design, _deployed(design, tasks=few)).notes
    assert note.details == why[:1] and "updateMany per field named below" in note.text
    assert plan_apply(design, _deployed(design, tasks=few)).lines()[-1] == f"      {why[0]}"
