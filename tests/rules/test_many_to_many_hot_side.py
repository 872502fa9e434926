"""A many-to-many with a hot side (tryout a15 item 8): 200,000 Groups of up to 5,000,000 Users.

How many Groups one User can join is declared (``max_ones``): it bounds each User's array of Group ids
(maxItems), and an array past what an array should hold is a warning (RULES.md rule 6: "each side's array must
independently pass rules 2-4"). The trade-off counts the reads the plans make, and an unpaged read of the large
side is told to page.
"""

from __future__ import annotations

from typing import Any

from modeller.export.report import design_report
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import Analysis, analyse
from modeller.rules.engine import Analyser


def groups(limit: int | None = None, **rel: Any) -> Project:
    members = {"id": "members", "one": "group", "many": "user", "cardinality": "many-to-many"}
    members.update({"typical": 250, "max": 5_000_000, **rel})
    member_query: dict[str, Any] = {
        "id": "members_of_group",
        "entity": "user",
        "name": "members of a group",
        "scope": "members",
        "sort": [["name", 1]],
        "per_sec": 300,
    }
    if limit is not None:
        member_query["limit"] = limit
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "groups",
            "entities": [
                {"id": "user", "name": "User", "count": 50_000_000, "fields": [{"name": "name", "type": "string"}]},
                {
                    "id": "group",
                    "name": "Group",
                    "count": 200_000,
                    "fields": [{"name": "created_at", "type": "date"}],
                },
            ],
            "relationships": [members],
            "queries": [
                {
                    "id": "groups_of_user",
                    "entity": "group",
                    "name": "groups of a user",
                    "scope": "members",
                    "sort": [["created_at", -1]],
                    "per_sec": 2000,
                },
                member_query,
            ],
        }
    )


def _of(analysis: Analysis, rule: str) -> list[Any]:
    return [f for f in analysis.findings if f.rule == rule]


def _group_ids(analysis: Analysis) -> Any:
    users = analysis.design.collection("user")
    assert users is not None
    return next(n for n in users.shape if n.relationship == "members" and n.bson_type == "array")


def test_the_other_bound_is_the_users_arrays_max_items() -> None:
    analysis = analyse(groups(max_ones=500))
    node = _group_ids(analysis)
    assert (node.name, node.max_items) == ("group_ids", 500)
    users = analysis.design.collection("user")
    assert users is not None
    schema = users.validator["$jsonSchema"]["properties"]["group_ids"]
    assert schema["maxItems"] == 500
    assert _of(analysis, "unbounded-array") == []  # bounded and small: nothing to say


def test_without_the_other_bound_the_array_asks_for_one() -> None:
    analysis = analyse(groups())
    assert _group_ids(analysis).max_items is None
    (finding,) = _of(analysis, "unbounded-array")
    assert finding.severity == "info"
    assert "nothing says how many Groups one User can have: set 'Max Groups per User'" in finding.message


def test_both_sides_past_an_arrays_bound_warn_with_a_link_collection() -> None:
    analysis = analyse(groups(max_ones=10_000))
    (finding,) = _of(analysis, "unbounded-array")
    assert finding.severity == "warning"
    assert finding.message.startswith("group_ids in each User holds up to 10,000 Group ids, more than the 2,000")
    assert "neither side should keep the array; keep the links in a collection of their own" in finding.message
    assert finding.fix is None


def test_one_large_side_moves_the_array_to_the_other() -> None:
    """Few Users per Group but Users in up to 50,000 Groups: the array goes into each Group."""
    analysis = analyse(groups(typical=30, max=100, max_ones=50_000))
    assert [r.strategy for r in analysis.design.relationships] == ["child-refs"]
    (decision,) = _of(analysis, "many-to-many-refs")
    assert "one User belongs to up to 50,000 Groups, more than the 2,000 ids an array should hold" in decision.message
    assert (
        "; 'groups of a user' sets no limit, yet one User can have 50,000 Groups (not the typical 1): page it with a "
        "limit and go on from the last created_at read" in decision.message
    )


def test_the_trade_off_counts_the_reads_of_each_direction() -> None:
    analysis = analyse(groups(max_ones=500))
    (decision,) = _of(analysis, "many-to-many-refs")
    assert "one query" not in decision.tradeoff.replace("the Users of one Group are one query", "")
    assert "the Groups of one User take two reads" in decision.tradeoff
    trips = {q.id: q.round_trips for q in analysis.design.queries}
    assert trips == {"groups_of_user": 2, "members_of_group": 1}


def test_an_unpaged_read_of_the_large_side_is_told_to_page() -> None:
    (decision,) = _of(analyse(groups(max_ones=500)), "many-to-many-refs")
    assert (
        "'members of a group' sets no limit, yet one Group can have 5,000,000 Users (not the typical 250): page it "
        "with a limit and go on from the last name read" in decision.message
    )
    (paged,) = _of(analyse(groups(limit=50, max_ones=500)), "many-to-many-refs")
    assert "sets no limit" not in paged.message


def test_the_decision_says_what_each_user_holds() -> None:
    """No "parent-ref" alone for an array of ids in each User, and a fix in the same words, without a rule id."""
    (decision,) = _of(analyse(groups(max_ones=500)), "many-to-many-refs")
    assert decision.message.startswith("an array of Group ids in each User (parent-ref) — each Group relates to")
    assert decision.fix is not None and decision.fix.description == "keep an array of Group ids in each User"


def test_the_report_says_what_each_user_holds() -> None:
    project = groups(max_ones=500)
    analysis = analyse(project)
    report = design_report(analysis.design, project, analysis.findings)
    assert "- **Strategy:** `parent-ref`: an array of Group ids in each User (chosen by the engine; " in report


def test_editing_the_other_bound_equals_a_fresh_analysis() -> None:
    """The GUI's edits go through the incremental Analyser: each step of declaring, raising and clearing the
    other bound gives what a fresh analysis gives (maxItems, the warning, then the question again)."""
    analyser = Analyser()
    project = groups()
    analyser.analyse(project)
    seen = []
    for bound in (500, 10_000, None):
        (rel,) = project.relationships
        project = project.model_copy(update={"relationships": (rel.model_copy(update={"max_ones": bound}),)})
        incremental = analyser.analyse(project)
        fresh = analyse(project)
        assert [f.to_json() for f in incremental.findings] == [f.to_json() for f in fresh.findings]
        assert incremental.design.to_json() == fresh.design.to_json()
        seen.append((_group_ids(incremental).max_items, [f.severity for f in _of(incremental, "unbounded-array")]))
    assert seen == [(500, []), (10_000, ["warning"]), (None, ["info"])]
