"""DESIGN.md's sync plan for a subset (tryout a14 item 8): one paragraph and one snippet per subset, pushing in the
order the shape documents (newest first: $sort -1 with $slice K, as the strategy's own snippet does)."""

from __future__ import annotations

import re

from modeller.export import design_report
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse


def _blog() -> Project:
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "blog",
            "entities": [
                {"id": "post", "name": "Post", "fields": [{"name": "title", "type": "string"}]},
                {
                    "id": "comment",
                    "name": "Comment",
                    "fields": [
                        {"name": "author_name", "type": "string"},
                        {"name": "text", "type": "string"},
                        {"name": "created_at", "type": "date"},
                    ],
                },
            ],
            "relationships": [
                {
                    "id": "post_comments",
                    "one": "post",
                    "many": "comment",
                    "cardinality": "one-to-many",
                    "typical": 20,
                    "max": 2000,
                    "read_together": 0.9,
                    "show_latest": 10,
                }
            ],
        }
    )


def test_one_snippet_per_subset_in_the_documented_order() -> None:
    project = _blog()
    analysis = analyse(project)
    (coll,) = [c for c in analysis.design.collections if c.name == "post"]
    (subset,) = [n for n in coll.shape if n.role == "subset"]
    assert subset.sort == ("created_at", -1)  # documented "sorted by created_at desc"
    report = design_report(analysis.design, project, analysis.findings)
    sync = report[report.index("## Sync plan") : report.index("## Access patterns")]
    pushes = re.findall(r"\$push: \{ \"recent_comments\".*", sync)
    assert len(pushes) == 1, sync
    assert '$sort: { "created_at": -1 }, $slice: 10 }' in pushes[0], pushes[0]
    # the strategy's snippet in the relationship section pushes the same way
    assert '$sort: { "created_at": -1 }, $slice: 10 }' in report[: report.index("## Sync plan")]
    assert sync.count("**`post.recent_comments`**") == 1, sync


def test_synced_subset_copies_carry_the_source_id_with_update_and_delete_sync() -> None:
    """The copies are kept in sync (staleness not forever, fields that change): each element keeps its Comment's
    _id, so an edited Comment updates its copy and a deleted one is pulled (as SD11/SD12's edited elements)."""
    project = _blog()
    analysis = analyse(project)
    (coll,) = [c for c in analysis.design.collections if c.name == "post"]
    (subset,) = [n for n in coll.shape if n.role == "subset"]
    assert subset.items is not None and [c.name for c in subset.items.children][:1] == ["_id"]
    report = design_report(analysis.design, project, analysis.findings)
    sync = report[report.index("## Sync plan") : report.index("## Access patterns")]
    assert '{"_id": doc["_id"], "author_name": doc["author_name"]' in sync
    assert '"recent_comments.$[e].text": doc["text"]' in sync and '{ arrayFilters: [{ "e._id": doc._id }] }' in sync
    assert '$pull: { "recent_comments": { _id: doc._id } }' in sync


def test_copies_of_fields_that_never_change_need_no_id() -> None:
    """Zola's log lines (SD08): immutable copies are pushed once and never found again."""
    data = _blog().model_dump(mode="json")
    for f in data["entities"][1]["fields"]:
        f["immutable"] = True
    analysis = analyse(Project.model_validate(data))
    (coll,) = [c for c in analysis.design.collections if c.name == "post"]
    (subset,) = [n for n in coll.shape if n.role == "subset"]
    assert subset.items is not None and "_id" not in [c.name for c in subset.items.children]
    report = design_report(analysis.design, Project.model_validate(data), analysis.findings)
    assert "$pull" not in report[report.index("## Sync plan") :]


def _sync_table(report: str) -> list[str]:
    sync = report[report.index("## Sync plan") : report.index("## Access patterns")]
    return [line for line in sync.splitlines() if line.startswith("| `")]


def test_a_subset_is_one_row_whose_extra_writes_come_from_the_workload() -> None:
    """Tryout a14 item 8: 'extra writes/s ?' three times. One push per new Comment writes every copied field."""
    data = _blog().model_dump(mode="json")
    data["relationships"][0]["writes_per_sec"] = 5
    comment = data["entities"][1]
    comment["fields"][1]["updates_per_sec"] = 0.5  # an edited text updates its copy too
    project = Project.model_validate(data)
    analysis = analyse(project)
    (row,) = _sync_table(design_report(analysis.design, project, analysis.findings))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "`post.recent_comments` (`author_name`, `text`, `created_at`)"
    assert cells[1] == "`Comment`"
    assert cells[5] == "5.5 (a push per new Comment, an update per edit of a copied field)"


def test_a_subset_without_a_write_rate_says_what_to_set() -> None:
    project = _blog()
    analysis = analyse(project)
    (row,) = _sync_table(design_report(analysis.design, project, analysis.findings))
    assert row.endswith("| ? (no write rate on Comment or on Post → Comment: set one to see the cost) |"), row


def test_subset_elements_must_carry_the_source_id() -> None:
    """The sync finds an edited or deleted Comment's copy by its _id: the validator requires it in each element."""
    analysis = analyse(_blog())
    (coll,) = [c for c in analysis.design.collections if c.name == "post"]
    items = coll.validator["$jsonSchema"]["properties"]["recent_comments"]["items"]
    assert items["required"] == ["_id"]


def test_the_strategy_line_names_the_rules_check_files_it_under() -> None:
    """Tryout a14 item 5: DESIGN.md said 'rules many-to-many-refs' for a one-to-many that check files under rule 3
    (the one-way choice comes from the rule that decides two-way references, as soon as a query reads the N)."""
    data = _blog().model_dump(mode="json")
    data["queries"] = [
        {
            "id": "q",
            "entity": "comment",
            "name": "comments of a post",
            "scope": "post_comments",
            "sort": [["created_at", -1]],
        }
    ]
    project = Project.model_validate(data)
    analysis = analyse(project)
    (decision,) = [f for f in analysis.findings if f.decision is not None and f.decision.id == "post_comments"]
    report = design_report(analysis.design, project, analysis.findings)
    (line,) = [ln for ln in report.splitlines() if ln.startswith("- **Strategy:** `subset`")]
    assert "many-to-many-refs" not in line
    assert line.endswith("rules " + ", ".join(f"`{r}`" for r in [decision.rule, *decision.also]) + ").")
