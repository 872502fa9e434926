"""Whether the resolved design serves each declared query: the planner's verdict as a finding (issue 10).

Not one of RULES.md's 45 catalog rules: it reads the query plans
(``physical/planner.py``) rather than the model, so it is numbered after
them and registered last.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from modeller.model.project import Query
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Finding
from modeller.rules.framework.registry import register
from modeller.rules.framework.rule import Rule
from modeller.rules.physical.planner import QueryPlan


def _plan_numbers(plan: QueryPlan) -> dict[str, Any]:
    """The plan's figures as the design shows them (``modeller design --format json``)."""
    return {
        "collection": plan.collection,
        "index": None if plan.index is None else plan.index.name,
        "collection_scans": [s.collection for s in plan.steps if s.index is None],
        "round_trips": plan.round_trips,
        "docs_examined": plan.docs_examined,
        "docs_returned": plan.docs_returned,
        "blocking_sort": plan.blocking_sort,
        "sort_bytes": plan.sort_bytes,
        "per_sec": plan.per_sec,
    }


@register
class QueryNotServed(Rule):
    """A declared query the design cannot serve from an index: a collection scan, or a sort the server refuses.

    *Why*
    The design is chosen from the queries it must serve; the planner finds the
    index each read would use (longest Equality, Sort, Range prefix). A hot
    query without one scans the whole collection on every call (Compass:
    "query executed without index"); a blocking in-memory sort past 100 MB
    fails unless it spills to disk (Manual limits); ``$text`` without a text
    index is refused by the server.

    *Anti-pattern*
    ``find({"owner.name": n})`` fifty times a second when the name lives in
    another collection; ``find({$text: ...}).sort({at: -1})`` over millions of
    matches.

    *Best practice*
    Filter on what the collection holds (copy the field, or query by the
    reference), declare the sort the index should deliver, page with
    ``limit``; the plan then names the index and the documents it examines.
    """

    id = "query-not-served"
    code = "IX46"
    family = "indexes"
    severities = ("info", "warning", "error")
    sources = ("Manual-limits", "Compass", "Manual-ESR")
    tradeoff = "an index per access pattern costs writes and RAM; a scan or an in-memory sort costs every read"

    def check_query(self, view: RuleView, q: Query) -> Iterable[Finding]:
        plan = view.query_plan(q.id)
        if plan is None:
            return
        numbers = _plan_numbers(plan)
        limit = view.settings.blocking_sort_max_bytes
        text = "$text" in plan.steps[0].filter
        if text and plan.index is None:
            yield self.finding(
                "error",
                "query",
                q.id,
                f"{view.query_words(q)} searches text in {plan.collection}, which has no text index holding those fields: the "
                "server refuses $text without one — put the fields in the collection's one text index",
                numbers=numbers,
            )
        if plan.sort_over_limit:
            yield self.finding(
                "error",
                "query",
                q.id,
                f"{view.query_words(q)} sorts about {plan.sort_bytes:,} bytes of {plan.collection} in memory, past the server's "
                f"{limit // (1024 * 1024)} MB blocking-sort limit: it fails unless the sort spills to disk — let an "
                "index deliver the order (sort keys after the equality keys) or page with a limit",
                numbers=numbers,
            )
        scans = [s for s in plan.steps[1 if text else 0 :] if s.index is None]  # (a $text read is judged above)
        if not scans or not (view.facts.is_hot(q) or (q.per_sec or 0) > 0):
            return
        where = ", ".join(dict.fromkeys(s.collection for s in scans))
        if plan.index is not None:
            join = scans[0]
            why = f"its join finds the related documents by {join.foreign_field}, which no index of {join.collection} holds"
        elif plan.unresolved:
            why = f"its filter goes through {', '.join(plan.unresolved)}, which {plan.collection} does not hold"
        elif not plan.steps[0].filter:
            why = "it has no filter, so it reads every document"
        else:
            why = "no index of the design holds its filter"
        rate = f" at {q.per_sec:g}/s" if q.per_sec else ""
        yield self.finding(
            "warning" if view.facts.is_hot(q) else "info",
            "query",
            q.id,
            f"{view.query_words(q)}{rate} scans {where} (about {plan.docs_examined:,} documents examined per run): {why}",
            numbers=numbers,
        )
