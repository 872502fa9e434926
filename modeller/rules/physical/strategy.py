"""Apply the strategy rules' votes: how one relationship is stored, and which refinement.

The rules decide (``Rule.decide`` in the catalog: Zola's questions — what is
the cardinality; does the N side stand alone; is it read together with the
One; will the array grow without bound — and the refinements: buckets for a
time series (CN), a subset of the latest K (Zola-2 squillions -> one), an
extended reference when the N side shows fields of its One (ER-seed)). This
module only applies their votes: the base vote with the highest precedence
chooses the storage, then the refinement vote with the highest precedence
(given the base choice) may replace it. It knows no rule by its id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from modeller.model.conventions import parent_ref_field
from modeller.model.project import Entity, Query
from modeller.rules.physical.facts import Context, RelFacts, too_many_ids
from modeller.rules.physical.sizes import array_bytes

#: strategies whose N side stores a reference to its One
N_HOLDS_REF = frozenset({"parent-ref", "two-way", "subset", "bucket", "extended-ref"})
#: strategies whose One side stores an array of the N's ids (or of {id, copies})
ONE_HOLDS_IDS = frozenset({"child-refs", "two-way"})


@dataclass(slots=True)
class Recommendation:
    """What the engine would choose for a relationship, and the reasoning behind it."""

    strategy: str
    rules: list[str]
    reason: str
    tradeoff: str
    numbers: dict[str, Any] = field(default_factory=dict)
    #: the shape rule (1-6) behind the base choice, before any refinement
    base_rule: str = ""
    base_strategy: str = ""
    #: info-level remark (e.g. "between 100 and 200: borderline")
    borderline: bool = False
    #: the reason of the base choice (before refinements such as subset or extended reference)
    base_reason: str = ""


@dataclass(slots=True)
class Vote:
    """One strategy rule's decision for one relationship, as the resolver applies it."""

    strategy: str
    #: the id of the rule that votes (the ``base_rule`` of a base vote)
    rule: str
    reason: str
    tradeoff: str
    #: the highest precedence among the votes of a stage wins (ties: the rule asked first)
    precedence: int
    #: the rules that justify the decision, in the order a reader sees them
    rules: tuple[str, ...]
    #: numbers added to the relationship's own (n_max, element_bytes, ...)
    numbers: dict[str, Any] = field(default_factory=dict)
    borderline: bool = False


@dataclass(slots=True)
class StrategyView:
    """What a strategy rule sees besides the relationship's facts."""

    ctx: Context
    #: average bytes of one N as a sub-document
    elem_bytes: int
    #: the base choice a refinement refines (None while the base is chosen)
    base: Recommendation | None = None


class Decider(Protocol):
    """A strategy rule as the resolver sees it."""

    @property
    def precedence(self) -> int:
        """The highest precedence this rule votes with."""
        ...

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None: ...


class NoDecisionError(LookupError):
    """No strategy rule voted for a relationship: the shape rules are not registered."""


@dataclass(frozen=True, slots=True)
class Deciders:
    """What the rules decide for the resolver: the strategy rules (those that choose the storage, those that
    refine it), each stage in the order they are asked — highest precedence first, then registration order —
    and the rules behind each reason for an index (``physical.index_reasons``)."""

    base: tuple[Decider, ...] = ()
    refinements: tuple[Decider, ...] = ()
    index_rules: dict[str, tuple[str, ...]] = field(default_factory=dict)


def bucket_wanted(ctx: Context, entity: Entity) -> bool:
    """A time series is grouped in buckets when a time series collection is not the answer.

    That is: the user asked for a bucket size (the CN seed's 60), the server
    is older than 5.0 (or unknown), or the data is not append-only.
    """
    ts = entity.timeseries
    if ts is None:
        return False
    return ts.bucket_size is not None or not ctx.version_known_at_least_5 or not entity.append_only


@dataclass(frozen=True, slots=True)
class PagedRead:
    """A query that reads the N of one One page by page (or by time range): the bucket pattern's second trigger."""

    query: str
    #: the time-like field the pages follow (a date, or a field whose values only grow)
    time_field: str
    #: the page size: the bucket size (Manual-bucket: 10 trades per page)
    limit: int


def small_stream(ctx: Context, facts: RelFacts, elem_bytes: int) -> bool:
    """A one-to-squillions stream of small N per One, read only through its One (RULES.md rule 19's stream).

    The N grow without bound per One, each is small (``Settings.bucket_item_max_bytes``), is written once (no
    field is updated) and is not a declared time series yet. No query of the N filters other fields than the
    reference and a range: a query picking single items (an order's status, an event's actor) would need
    $unwind in buckets.
    """
    many, s = facts.many, ctx.settings
    if facts.self_ref or many.timeseries is not None or not (facts.unbounded or too_many_ids(facts, s)):
        return False
    if elem_bytes > s.bucket_item_max_bytes:
        return False
    if not many.append_only and any((f.updates_per_sec or 0) > 0 and not f.immutable for f in many.fields):
        return False
    ref = parent_ref_field(facts.rel, facts.one)
    return not any(k != ref and op != "range" for q in ctx.queries_of[facts.many_id] for k, op in q.filter.items())


def stream_time_field(ctx: Context, facts: RelFacts, query: Query, scoped: bool = True) -> str | None:
    """The date or monotonic field by which ``query`` reads the N of one One in ranges or pages, else None.

    The query reads the N of one One (an equality on the reference or, with ``scoped``, scoped to the
    relationship) and filters by nothing but a range on that field, and sorts or ranges on it.
    """
    ref = parent_ref_field(facts.rel, facts.one)
    if not (scoped and query.scope == facts.rel.id) and query.filter.get(ref) != "eq":
        return None
    others = [k for k in query.filter if k != ref]
    candidates = [k for k, _ in query.sort] or others
    for name in candidates[:1]:
        f = ctx.field(facts.many_id, name)
        timely = f is not None and "." not in name and (f.type == "date" or f.monotonic)
        if timely and all(k == name and query.filter[k] == "range" for k in others):
            return name
    return None


def paged_stream_read(ctx: Context, facts: RelFacts, elem_bytes: int) -> PagedRead | None:
    """A paged or range read of a one-to-squillions stream of small N per One (RULES.md rule 19, second trigger).

    The stream: :func:`small_stream`. The read: a query on the N side with a page-sized ``limit``
    (``Settings.bucket_page_max``) that follows a time-like field (:func:`stream_time_field`). The bucket holds
    one page: ``limit`` items, kept within the document-size guideline.
    """
    s = ctx.settings
    if not small_stream(ctx, facts, elem_bytes):
        return None
    for q in ctx.queries_of[facts.many_id]:
        if q.limit is None or not 2 <= q.limit <= s.bucket_page_max:
            continue
        if q.limit * (elem_bytes + 4) > s.doc_suggest_bytes:
            continue
        # (a query scoped to the relationship does not refine to buckets yet: that would change the seed designs)
        name = stream_time_field(ctx, facts, q, scoped=False)
        if name is not None:
            return PagedRead(q.id, name, q.limit)
    return None


def subset_size(ctx: Context, facts: RelFacts, elem_bytes: int) -> int | None:
    """``show_latest`` when keeping that many copies in the One is within the seeds' bounds."""
    k = facts.rel.show_latest
    if k is None:
        return None
    s = ctx.settings
    if facts.n_max < s.subset_factor * k and not facts.unbounded:
        return None
    if k <= s.few_max or (k <= s.subset_seed_max and k * elem_bytes <= s.subset_small_bytes):
        return k
    return None


def recommend(ctx: Context, facts: RelFacts, elem_bytes: int, deciders: Deciders) -> Recommendation:
    """The engine's strategy for ``facts`` whatever the user chose: the winning base vote, then its refinement."""
    nums: dict[str, Any] = {
        "n_max": facts.n_max,
        "n_typical": facts.n_typ,
        "element_bytes": elem_bytes,
        "array_bytes": array_bytes(facts.n_max, elem_bytes),
    }
    if facts.rel.read_together is not None:  # a share the user set (unset is not "always read together")
        nums["read_together"] = facts.read_together
    view = StrategyView(ctx, elem_bytes)  # one per relationship: the refinements see it with ``base`` set
    vote = _winner(facts, view, deciders.base)
    if vote is None:
        raise NoDecisionError(f"no strategy rule decided relationship {facts.rel.id!r}: load the rule catalog")
    base = Recommendation(
        vote.strategy,
        list(vote.rules),
        vote.reason,
        vote.tradeoff,
        {**nums, **vote.numbers} if vote.numbers else nums,
        vote.rule,
        vote.strategy,
        vote.borderline,
        vote.reason,
    )
    view.base = base
    refined = _winner(facts, view, deciders.refinements)
    if refined is None:
        return base
    return Recommendation(
        refined.strategy,
        list(dict.fromkeys((base.base_rule, *refined.rules))),
        refined.reason,
        refined.tradeoff,
        {**base.numbers, **refined.numbers} if refined.numbers else base.numbers,
        base.base_rule,
        base.strategy,
        refined.borderline,
        base.reason,
    )


def _winner(facts: RelFacts, view: StrategyView, deciders: tuple[Decider, ...]) -> Vote | None:
    """The vote with the highest precedence (the first asked on a tie).

    The rules are asked highest precedence first, so asking stops once no rule left could outvote the best
    vote so far: the rules that lose are mostly not asked (edit -> findings <= 100 ms at 1,000 entities).
    """
    best: Vote | None = None
    for decider in deciders:
        if best is not None and best.precedence >= decider.precedence:
            break
        vote = decider.decide(facts, view)
        if vote is None:
            continue
        if vote.precedence > decider.precedence:
            raise ValueError(f"{vote.rule} votes with precedence {vote.precedence}, above its own {decider.precedence}")
        if best is None or vote.precedence > best.precedence:
            best = vote
    return best
