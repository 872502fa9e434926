"""Apply / Override commands: one undo entry each, and overrides survive save and open."""

from __future__ import annotations

from pathlib import Path

import pytest

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project, Query, check_project
from modeller.persistence import load_project, save_project
from modeller.persistence.canonical import dumps_project
from modeller.rules import analyse
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


# ----- the bloated-document fix: split the cold fields into a new one-to-one entity -----


def _movies() -> Project:
    """A list page showing 200 bytes of a 7 KB movie; a details page (5/s) showing the plot and credits."""
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "movies",
            "entities": [
                {
                    "id": "movie",
                    "name": "Movie",
                    "collection": "movies",
                    "count": 1_000_000,
                    "fields": [
                        {"name": "title", "type": "string"},
                        {"name": "year", "type": "int"},
                        {"name": "plot", "type": "string", "bytes": 4000},
                        {"name": "credits", "type": "string", "bytes": 3000, "required": True},
                    ],
                },
                {"id": "movie_details", "name": "Movie details", "fields": [{"name": "note", "type": "string"}]},
            ],
            "queries": [
                {
                    "id": "home",
                    "entity": "movie",
                    "filter": {"year": "eq"},
                    "projection": ["title", "year"],
                    "per_sec": 5000,
                },
                {
                    "id": "details_page",
                    "entity": "movie",
                    "filter": {"_id": "eq"},
                    "projection": ["title", "plot", "credits"],
                    "per_sec": 5,
                },
            ],
            "layout": {"movie": {"x": 40, "y": 60}, "movie_details": {"x": 40, "y": 400}},
        }
    )


def _bloated(project: Project) -> Finding:
    [finding] = [f for f in analyse(project).findings if f.rule == "bloated-document"]
    return finding


def test_the_bloated_document_fix_moves_the_cold_fields_to_a_new_one_to_one_entity(qapp: object) -> None:
    project = _movies()
    document = ProjectDocument(project)
    before = dumps_project(document.project)
    finding = _bloated(project)
    assert finding.fix is not None and finding.subject.id == "movie"
    document.push(apply_fix_command(document, finding))
    assert document.undo_stack.count() == 1

    after = document.project
    assert check_project(after) == []
    # a unique name in the user's words ("Movie details" is taken, and so is its collection)
    details = next(e for e in after.entities if e.name == "Movie details 2")
    assert [(f.name, f.type, f.bytes, f.required) for f in details.fields] == [
        ("plot", "string", 4000, False),
        ("credits", "string", 3000, True),
    ]
    assert details.count == 1_000_000
    assert [f.name for f in document.entity("movie").fields] == ["title", "year"]  # type: ignore[union-attr]
    [rel] = [r for r in after.relationships if r.many == details.id]
    assert (rel.one, rel.cardinality) == ("movie", "one-to-one")
    assert rel.read_together is not None and rel.read_together < 0.5  # 5 of 5,005 reads need the details
    # the details page still shows the moved fields, now through the relationship
    page = document.query("details_page")
    assert page is not None and page.joins == (rel.id,)
    assert page.projection == ("title", "movie_details_2.plot", "movie_details_2.credits")
    assert document.query("home").joins == ()  # type: ignore[union-attr]
    position = document.position(details.id)
    assert position is not None and (position.x, position.y) == (360.0, 60.0)

    analysis = analyse(after)
    assert [f for f in analysis.findings if f.rule == "bloated-document"] == []
    movies = next(c for c in analysis.design.collections if c.name == "movies")
    assert [n.name for n in movies.shape] == ["_id", "title", "year"]
    [split] = [r for r in analysis.design.relationships if r.id == rel.id]
    assert split.strategy == "parent-ref"
    moved = next(c for c in analysis.design.collections if details.id in c.entities)
    assert moved.name == "movie_details_2"
    assert {"plot", "credits", "movie_id"} <= {n.name for n in moved.shape}

    document.undo_stack.undo()
    assert dumps_project(document.project) == before
    document.undo_stack.redo()
    assert document.project == after


def test_the_bloated_document_fix_has_a_reason_when_a_query_filters_on_a_cold_field(qapp: object) -> None:
    project = _movies()
    search = Query(id="plot_search", entity="movie", name="Plot search", filter={"plot": "text"}, projection=["title"])
    finding = _bloated(project.model_copy(update={"queries": (*project.queries, search)}))
    assert finding.fix is None
    assert finding.message.endswith("(no automatic fix: query 'Plot search' filters or sorts on plot)")
    with pytest.raises(EditRefused, match="no automatic fix"):
        apply_fix_command(ProjectDocument(project), finding)


def test_the_bloated_document_fix_is_refused_when_its_new_id_was_taken_since(qapp: object) -> None:
    project = _movies()
    finding = _bloated(project)
    taken = Query(id="movie_details_2", entity="movie", filter={"year": "eq"})
    document = ProjectDocument(project.model_copy(update={"queries": (*project.queries, taken)}))
    with pytest.raises(EditRefused, match="'movie_details_2' is already used"):
        apply_fix_command(document, finding)
    assert document.undo_stack.count() == 0
