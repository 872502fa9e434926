"""Apply / Override commands: one undo entry each, and overrides survive save and open."""

from __future__ import annotations

from pathlib import Path

import pytest

from modeller.persistence import load_project, save_project
from modeller.rules.framework.findings import Change, Finding, Fix, SubjectRef
from modeller.ui.commands.apply_fix import (
    OverrideCommand,
    RemoveOverrideCommand,
    apply_fix_command,
    find_override,
)
from modeller.ui.document import ProjectDocument
from modeller.ui.edits import EditRefused

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _finding(fix: Fix | None, subject: SubjectRef | None = None, rule: str = "parent-ref-one-to-squillions") -> Finding:
    return Finding(
        rule=rule,
        severity="warning",
        subject=subject or SubjectRef("relationship", "person_tasks"),
        message="Store each task's owner instead of an array of tasks",
        why="unbounded",
        tradeoff="a second query",
        reference="[Zola-1] part 1 <https://example.org/zola1>",
        fix=fix,
    )


@pytest.fixture
def document(qapp: object) -> ProjectDocument:
    return ProjectDocument(load_project(SAMPLES / "task-tracker.modeller.json"))


def test_apply_fix_with_two_subjects_is_one_undo_entry(document: ProjectDocument) -> None:
    before = document.project.model_copy(deep=True)
    fix = Fix(
        "Store tasks as parent references and index the owner",
        (
            Change("set", SubjectRef("relationship", "person_tasks"), "strategy", "parent-ref"),
            Change("append", SubjectRef("entity", "task"), "indexes", {"keys": [["owner_id", 1], ["due_date", 1]]}),
            Change("set", SubjectRef("relationship", "person_tasks"), "decision.note", "engine advice"),
        ),
    )
    document.push(apply_fix_command(document, _finding(fix)))
    assert document.undo_stack.count() == 1
    assert document.undo_stack.undoText() == "Apply: Store tasks as parent references and index the owner"
    rel = document.relationship("person_tasks")
    assert rel is not None and rel.strategy == "parent-ref"
    assert rel.decision is not None and rel.decision.note == "engine advice"
    task = document.entity("task")
    assert task is not None and [list(k) for k in task.indexes[-1].keys] == [["owner_id", 1], ["due_date", 1]]
    document.undo_stack.undo()
    assert document.project == before
    document.undo_stack.redo()
    assert document.relationship("person_tasks").strategy == "parent-ref"  # type: ignore[union-attr]


def test_apply_refuses_invalid_or_stale_fixes(document: ProjectDocument) -> None:
    bad_value = Fix("bad", (Change("set", SubjectRef("relationship", "person_tasks"), "strategy", "teleport"),))
    with pytest.raises(EditRefused, match="strategy"):
        apply_fix_command(document, _finding(bad_value))
    gone = Fix("gone", (Change("set", SubjectRef("entity", "nobody"), "count", 3),))
    with pytest.raises(EditRefused, match="no longer exists"):
        apply_fix_command(document, _finding(gone))
    with pytest.raises(EditRefused, match="no automatic fix"):
        apply_fix_command(document, _finding(None))
    assert document.undo_stack.count() == 0


def test_override_records_note_and_decision_and_survives_save_open(document: ProjectDocument, tmp_path: Path) -> None:
    finding = _finding(None)
    document.push(OverrideCommand(document, finding, 'Owners change rarely; "two-way" is fine\n</script>'))
    assert document.undo_stack.count() == 1
    override = find_override(document, finding)
    assert override is not None and override.note.startswith("Owners change rarely")
    rel = document.relationship("person_tasks")
    assert rel is not None and rel.decision is not None and rel.decision.note == override.note
    # editing the note replaces, never duplicates
    document.push(OverrideCommand(document, finding, "second thoughts"))
    assert [o.note for o in document.project.overrides] == ["second thoughts"]

    path = tmp_path / "tracker.modeller.json"
    save_project(document.project, path)
    reopened = load_project(path)
    assert [(o.rule, o.subject.kind, o.subject.id, o.note) for o in reopened.overrides] == [
        ("parent-ref-one-to-squillions", "relationship", "person_tasks", "second thoughts")
    ]
    assert reopened.relationships[0].decision is not None
    assert reopened.relationships[0].decision.note == "second thoughts"

    document.push(RemoveOverrideCommand(document, finding))
    assert document.project.overrides == ()
    assert document.relationship("person_tasks").decision is None  # type: ignore[union-attr]
    for _ in range(3):
        document.undo_stack.undo()
    assert document.project.overrides == ()
    assert document.relationship("person_tasks").decision is None  # type: ignore[union-attr]


def test_override_of_a_field_finding_touches_only_overrides(document: ProjectDocument) -> None:
    finding = _finding(None, SubjectRef("field", "task.due_date"), rule="index-reference-fields")
    document.push(OverrideCommand(document, finding, "fine"))
    assert document.project.overrides[0].subject.kind == "field"
    assert document.relationship("person_tasks").decision is None  # type: ignore[union-attr]
    document.undo_stack.undo()
    assert document.project.overrides == ()
