"""Relationship shape rules (RULES.md 1-10): embed or reference, and which way round.

Rules 1-6 decide how a relationship is stored (``decides = "base"``): each
votes when its trigger holds, and the vote with the highest precedence wins,
so the precedences put Zola's questions in order — a tree, many-to-many,
one-to-one, unbounded growth, a few read together, read in both directions,
otherwise an array of references.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from modeller.model.labels import query_words
from modeller.model.project import Query
from modeller.model.wording import with_article
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Finding, Fix, SubjectRef, index_decision, strategy_decision
from modeller.rules.framework.registry import REGISTRY, register
from modeller.rules.framework.rule import (
    Rule,
    base_rule_of,
    cardinality_of,
    marked_atomic,
    set_strategy,
    strategy_of,
    worded,
)
from modeller.rules.framework.wording import and_list, keys_text
from modeller.rules.physical.design import CollectionDesign
from modeller.rules.physical.documents import BSON, many_to_many_holds, max_ones_of, strategy_label
from modeller.rules.physical.facts import RelFacts, how_many, ones_per_many, too_many_ids
from modeller.rules.physical.index_reasons import BUCKET_SERIES, LINK_ARRAY, LINKS, REFERENCE, SYNC
from modeller.rules.physical.naming import plural_label
from modeller.rules.physical.plans import ARRAY_OF_ALL, RelPlan, kept_array
from modeller.rules.physical.sizes import TYPE_BYTES, array_bytes, megabytes
from modeller.rules.physical.strategy import StrategyView, Vote
from modeller.rules.settings import Settings

#: precedence of the base votes (highest wins): Zola's questions in order
TREE, MANY_TO_MANY, ONE_TO_ONE, SQUILLIONS, FEW, BOTH_WAYS, REFERENCES = 100, 90, 80, 60, 50, 40, 30
#: a tree whose operations are declared: the tree pattern's model outranks the plain parent reference
TREE_MODEL = 110


def _one_to_n(facts: RelFacts) -> bool:
    """The relationship is one-to-few, one-to-many or one-to-squillions."""
    return facts.rel.cardinality not in ("one-to-one", "many-to-many")


def _not_embedded_because(facts: RelFacts, s: Settings) -> str:
    """Why a one-to-N is not embedded (the first part of a reference strategy's reason)."""
    if facts.standalone:
        return facts.standalone_reason
    if facts.n_max > s.embed_max:
        return f"up to {facts.n_max:,} {plural_label(facts.many.name)} is more than 'a couple of hundred' (Zola-3)"
    return f"only {facts.read_together:.0%} of {facts.one.name} reads need them"


def referenced_both_ways(rule: Rule, facts: RelFacts, s: Settings, rules: tuple[str, ...], lead: str) -> Vote | None:
    """A one-to-N that is not embedded and whose N side names its One: a reference in each N (one-way, when only
    one direction is read) or references on both sides (Zola-2 two-way referencing: a query of the One reads its
    N and a query of the N reads its One); ``lead`` opens the reason (the one-to-few rule: why its N are not
    embedded). A query of the N scoped to the relationship reads "the N of one One", not "the One of an N"."""
    rel, one, many = facts.rel, facts.one, facts.many
    if not _one_to_n(facts) or not (facts.many_needs_one or facts.many_reads_one or rel.inverse):
        return None
    role = rel.inverse or one.name
    manys = plural_label(many.name)
    if facts.many_reads_one:
        back = f"each {many.name} is read with its {role}"
    elif facts.many_needs_one:
        back = f"the {manys} of one {one.name} are found by their {role}"
    else:
        back = f"each {many.name} names its {role}"
    if not (facts.one_reads_many and facts.many_reads_one):  # only one direction is read: one-way (rule 6)
        unread = (
            f"no {one.name} query reads its {manys} from its own document"
            if not facts.one_reads_many
            else f"no query reads the {role} of one {many.name}"
        )
        return rule.vote(
            "parent-ref",
            f"{lead}{_not_embedded_because(facts, s)}; {back} and {unread}: keep a reference to the {one.name} in "
            f"each {many.name} (one-way referencing from the side that is queried)",
            f"the {role} of {with_article(many.name)} is one read by _id; listing the {manys} of a "
            f"{one.name} is a query on the reference",
            rules=rules,
            precedence=BOTH_WAYS,
        )
    return rule.vote(
        "two-way",
        f"{lead}{_not_embedded_because(facts, s)}; and both directions are read ('the {manys} of one "
        f"{one.name}' and 'the {role} of one {many.name}'): keep an array of {many.name} ids in {one.name} and a "
        f"reference to the {one.name} in each {many.name} (Zola-2 two-way referencing)",
        "both directions are one indexed query; reassigning one "
        f"{many.name} updates two documents and is not atomic without a multi-document transaction",
        rules=rules,
        precedence=BOTH_WAYS,
    )


def reassignment_note(view: RuleView, plan: RelPlan, numbers: dict[str, Any]) -> str:
    """What reassigning a child costs in a two-way one-to-N (a many-to-many has no reassignment: a child keeps
    several owners)."""
    if plan.strategy != "two-way" or plan.facts.rel.cardinality == "many-to-many":
        return ""
    numbers["transaction_lifetime_s"] = view.settings.transaction_lifetime_s
    return (
        f" Reassigning one {plan.facts.many.name} touches two documents (pull from the old "
        f"{plan.facts.one.name}'s array, push to the new one, set the reference): it is not atomic unless "
        f"both updates run in one multi-document transaction (session.withTransaction, default lifetime "
        f"{view.settings.transaction_lifetime_s} s)."
    )


def referenced_why(plan: RelPlan) -> str:
    """The *Why* of a one-to-N kept as references: two-way, or one-way from the N side."""
    facts = plan.facts
    one, many = facts.one.name, facts.many.name
    manys = plural_label(many)
    if plan.rec.base_strategy == "two-way":
        return (
            f"both 'the {manys} of one {one}' and 'the {one} of one {many}' are read, so each side keeps "
            "references to the other and each direction is one indexed query (Zola-2 two-way referencing)."
        )
    return (
        f"only the {many} side refers to the other: a reference to the {one} in each {many} makes "
        f"'the {one} of one {many}' a read by _id and 'the {manys} of one {one}' one query on it, without an "
        f"array to maintain in the {one} (one-way referencing, Zola-2)."
    )


def _held(label: str, facts: RelFacts) -> str:
    """A strategy's name with what the documents hold where the name says otherwise (``many_to_many_holds``)."""
    holds = many_to_many_holds(label, facts.rel.cardinality, facts.one.name, facts.many.name)
    return f"{holds} ({label})" if holds else label


def outlier_fix(rel_id: str, bound: int, facts: RelFacts) -> Fix:
    """Back to Auto, the one strategy that applies the outlier pattern (a strategy set by hand is kept as set)."""
    words = (
        f"set the strategy to Auto: embed up to {bound:,} {plural_label(facts.many.name)} in each {facts.one.name} "
        "and move the rest of the few large ones to an overflow collection"
    )
    return set_strategy(rel_id, "auto", words=words)


#: the pattern rules a refined decision is filed under when the base rule names another cardinality
_FILED_REFINEMENTS = frozenset({"outlier-pattern", "subset-pattern"})


def refinement_rule(plan: RelPlan) -> type[Rule] | None:
    """The pattern rule a refined decision goes under when the base rule's name states a cardinality the user did
    not draw: a one-to-many of up to 200,000 Reviews kept as an outlier pattern is the outlier rule's advice, not a
    one-to-squillions one (tryout a15 item 10); the base rule stays in the message ("refining parent-ref: ...").
    The pattern rule then reports nothing of its own there: the base rule's finding is its one finding."""
    rec = plan.rec
    refined = rec.rules[-1] if len(rec.rules) > 1 else ""
    if refined not in _FILED_REFINEMENTS or rec.reason == (rec.base_reason or rec.reason):
        return None
    base_rule = REGISTRY.get(rec.base_rule)
    if base_rule is None or not issubclass(base_rule, _StrategyRule):
        return None
    if base_rule.cardinality in (None, plan.facts.rel.cardinality):
        return None  # the base rule names no cardinality, or the one drawn
    if base_rule().filed_under(plan) is not None:
        return None  # filed elsewhere already (a tree, rule 5's advice)
    return REGISTRY.get(refined)


class _StrategyRule(Rule):
    """Shared logic: report the engine's choice when this rule made it."""

    decides = "base"
    #: the cardinality the rule's advice is about (None: any); a refined decision on a relationship drawn with
    #: another one is filed under the pattern rule (``refinement_rule``)
    cardinality: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "relationships" not in cls.__dict__:  # the relationships whose recommendation this rule made
            cls.relationships = (base_rule_of, cls.id)

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        yield self._report(view, view.plan(facts.rel.id))

    def _report(self, view: RuleView, plan: RelPlan) -> Finding:
        rec, rel = plan.rec, plan.facts.rel
        decision = strategy_decision(rel.id)
        target = rec.base_strategy
        nums = dict(rec.numbers)
        if plan.strategy in ARRAY_OF_ALL:  # the array of every N the design keeps: the figure unbounded-array quotes
            nums["element_bytes"], nums["array_bytes"] = kept_array(plan, view.res.array_sizes(plan.facts))
        extra = self._extra(view, plan, nums)
        filed = self.filed_under(plan) or refinement_rule(plan)
        if plan.chosen_by == "engine":
            sev = "info" if rec.borderline else "suggestion"
            # every surface shows the subject beside it; a refinement leads, as it is what the design does
            base = rec.base_reason or rec.reason
            lead = _held(strategy_label(rec.strategy, rec.numbers.get("outlier_bound")), plan.facts)
            msg = (
                f"{lead} — {rec.reason} (refining {target}: {base})"
                if rec.reason != base
                else f"{_held(target, plan.facts)} — {base}"
            )
            return self.finding(
                sev,
                "relationship",
                rel.id,
                msg + extra,
                fix=self._fix(plan, decision),
                numbers=nums,
                tradeoff=rec.tradeoff,
                decision=decision,
                decided=plan.strategy == rec.strategy,
                why=self.why_of(plan, view.settings),
                filed_under=filed,
            )
        # a strategy set by hand never applies the outlier pattern (only Auto does): not what the seeds recommend
        by_hand_outlier = rec.strategy == "parent-ref" and "outlier_bound" in rec.numbers
        if plan.strategy in (target, rec.strategy) and not by_hand_outlier:
            # the reason of the strategy the design holds (a refinement's reason argues for the refined one)
            reason = rec.reason if plan.strategy == rec.strategy else (rec.base_reason or rec.reason)
            return self.finding(
                "info",
                "relationship",
                rel.id,
                f"{plan.strategy} is what the seeds recommend here — {reason}{extra}",
                numbers=nums,
                tradeoff=rec.tradeoff,
                decision=decision,
                decided=True,
                why=self.why_of(plan, view.settings),
                filed_under=filed,
            )
        return self.finding(
            "suggestion",
            "relationship",
            rel.id,
            f"{view.rel_words(rel.id)} is stored as {plan.strategy}, but {rec.reason}{extra}",
            fix=self._fix(plan),
            numbers=nums,
            tradeoff=rec.tradeoff,
            why=self.why_of(plan, view.settings),
            filed_under=filed,
        )

    def _fix(self, plan: RelPlan, decision: SubjectRef | None = None) -> Fix | None:
        """The fix that keeps the engine's choice: its strategy set in the model, or for the outlier pattern
        (which only Auto applies) Auto itself, nothing when the strategy is Auto already."""
        rec, facts = plan.rec, plan.facts
        bound = rec.numbers.get("outlier_bound")
        if rec.strategy == "parent-ref" and bound is not None:
            return None if plan.chosen_by == "engine" else outlier_fix(facts.rel_id, bound, facts)
        return set_strategy(facts.rel_id, rec.strategy, decision, facts=facts)

    def _extra(self, view: RuleView, plan: RelPlan, numbers: dict[str, Any]) -> str:
        """What a subclass appends to the message (and adds to ``numbers``)."""
        return ""

    def filed_under(self, plan: RelPlan) -> type[Rule] | None:
        """The rule whose advice this decision gives when it is not this rule's own pattern (None: this rule)."""
        return None

    def why_of(self, plan: RelPlan, settings: Settings) -> str | None:
        """The *Why* of the decision this rule took for ``plan`` (a rule that can vote two ways says which)."""
        return self.why_for(plan.facts)


def reference_index_note(view: RuleView, plan: RelPlan) -> str:
    """Whether the design indexes the relationship's references, as a sentence after the advice: read from the
    exported indexes (``reference_index_words``, which the resolver worked out once for the relationship's
    design), so the advice never promises an index the design leaves out."""
    words = view.rel_design(plan.facts.rel_id).index_words
    return f"; {words}" if words else ""


@register
class EmbedOneToOne(_StrategyRule):
    """Embed a one-to-one child that is read with its parent as a sub-document.

    *Why*
    One read returns both and a single-document update is atomic; a separate
    collection would only add a join (Zola-1: favor embedding unless there is
    a compelling reason not to).

    *Anti-pattern*
    ``patrons`` and ``addresses`` in two collections, joined on every profile
    read.

    *Best practice*
    ``{_id, name, address: {street, city, zip}}`` — the address nested in the
    patron, with a nested ``$jsonSchema`` object.
    """

    id = "embed-one-to-one"
    cardinality = "one-to-one"
    code = "RS01"
    family = "shape"
    severities = ("info", "suggestion")
    sources = ("Manual-1:1", "Zola-1", "CN")
    tradeoff = "one read and atomic updates vs. a larger parent; the child cannot be listed on its own"
    precedence = ONE_TO_ONE

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        if facts.rel.cardinality != "one-to-one" or facts.standalone:
            return None
        if facts.read_together < view.ctx.settings.read_together_min:
            return None
        one, many = facts.one, facts.many
        return self.vote(
            "embed",
            f"one {one.name} has exactly one {many.name}, read together ({facts.read_together:.0%} of reads) "
            f"and never on its own: embed it as a sub-document (Zola-1: favor embedding)",
            f"one read and atomic updates; {many.name} cannot be listed on its own without scanning {one.name}",
        )


@register
class EmbedOneToFew(_StrategyRule):
    """Embed a bounded one-to-few as an array of sub-documents with ``maxItems``.

    *Why*
    Zola-1's person and addresses: a handful of children, never needed on
    their own, read with the parent — one query, atomic ``$push``/``$pull``.
    The CN seed draws the line at N < 100; Zola-3 forbids embedding beyond
    "a couple of hundred", so 100-200 is reported as borderline.

    *Anti-pattern*
    A separate ``addresses`` collection with ``person_id``, read with a join
    on every profile page.

    *Best practice*
    ``person.addresses: [{street, city, cc}]`` with ``maxItems`` enforcing
    the declared bound.
    """

    id = "embed-one-to-few"
    cardinality = "one-to-few"
    explain = (
        "a handful of {manys} per {one}, never needed on their own and read with the {one}: one query and atomic "
        "$push/$pull (Zola-1 one-to-few). The CN seed draws the line at N < 100; Zola-3 forbids embedding beyond "
        "'a couple of hundred', so 100-200 is reported as borderline."
    )
    code = "RS02"
    family = "shape"
    severities = ("info", "suggestion")
    sources = ("Zola-1", "CN", "Manual-1:N-embed", "Skills")
    tradeoff = "single read and atomic $push/$pull vs. each $push rewriting the document"
    precedence = FEW

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        s = view.ctx.settings
        if not _one_to_n(facts):
            return None
        if facts.standalone or facts.read_together < s.read_together_min or facts.n_max > s.embed_max:
            return self._not_embedded(facts, s)
        one, many = facts.one, facts.many
        borderline = facts.n_max > s.few_max
        extra = (
            f" ({facts.n_max} is between the CN seed's {s.few_max} and Zola's 'couple of hundred': borderline)"
            if borderline
            else ""
        )
        return self.vote(
            "embed",
            f"each {one.name} has at most {facts.n_max} {plural_label(many.name)}, read together with it and never on "
            f"their own: embed them as an array of sub-documents with maxItems {facts.n_max} (Zola-1 one-to-few){extra}",
            "one read, atomic $push/$pull and no join; every $push rewrites the document and the embedded "
            f"{plural_label(many.name)} cannot be queried on their own",
            borderline=borderline,
        )

    def _not_embedded(self, facts: RelFacts, s: Settings) -> Vote | None:
        """A one-to-few whose N are not embedded (used on their own, or rarely read with the One) and name their
        One: this rule says why, with the references the N side needs (the rule of the cardinality the user drew,
        not the many-to-many one)."""
        if facts.rel.cardinality != "one-to-few":
            return None
        rules = (self.id, NoEmbedIndependentAccess.id) if facts.standalone else (self.id,)
        return referenced_both_ways(self, facts, s, rules, "one-to-few, but ")

    def _extra(self, view: RuleView, plan: RelPlan, numbers: dict[str, Any]) -> str:
        return reassignment_note(view, plan, numbers)

    def filed_under(self, plan: RelPlan) -> type[Rule] | None:
        """A one-to-few kept as references because its N are used on their own is rule 5's advice."""
        return NoEmbedIndependentAccess if plan.rec.base_strategy != "embed" and plan.facts.standalone else None

    def why_of(self, plan: RelPlan, settings: Settings) -> str | None:
        """Embedded, or kept as references because the N are not embedded."""
        return self.why_for(plan.facts) if plan.rec.base_strategy == "embed" else referenced_why(plan)


@register
class ChildRefsOneToMany(_StrategyRule):
    """Keep a bounded one-to-many in its own collection, referenced by an array of ids in the One.

    *Why*
    Zola-1's products and parts: parts are looked up on their own and there
    are hundreds per product, so they cannot be embedded; an array of a few
    hundred ObjectIds is small, and the application-level join
    ``find({_id: {$in: ids}})`` is cheap with the right projection (Zola-3:
    don't fear application-level joins).

    *Anti-pattern*
    Embedding hundreds of parts in each product, or keeping thousands of ids
    (Zola-3: "more than a few thousand — don't use an array of ObjectID
    references").

    *Best practice*
    ``product.part_ids: [ObjectId, ...]`` with ``maxItems``; read with
    ``db.parts.find({_id: {$in: product.part_ids}}, {name: 1})``.
    """

    id = "child-refs-one-to-many"
    cardinality = "one-to-many"
    explain = (
        "{manys} are looked up on their own, or there are too many per {one} to embed; an array of their ObjectIds in "
        "the {one} stays small, and the application-level join find({{_id: {{$in: ids}}}}) is cheap with the right "
        "projection (Zola-1 one-to-many; Zola-3: don't fear application-level joins)."
    )
    code = "RS03"
    family = "shape"
    severities = ("info", "suggestion")
    sources = ("Zola-1", "Zola-3", "Manual-1:N-ref")
    tradeoff = "independent access and a small parent vs. a second query per read"
    precedence = REFERENCES

    def why_of(self, plan: RelPlan, settings: Settings) -> str | None:
        """The *Why* of the reason the N is not embedded here (the message's): on their own, too many, or rarely
        read with the One — not all three at once."""
        facts = plan.facts
        one, manys = facts.one.name, plural_label(facts.many.name)
        if facts.standalone:
            cause = f"{manys} are looked up on their own, which embedded documents cannot be"
        elif facts.n_max > settings.embed_max:
            cause = f"there are too many {manys} per {one} to embed (Zola-3: more than 'a couple of hundred')"
        else:
            cause = f"only a few {one} reads need its {manys}: embedded, they would be read and sent with every {one}"
        return (
            f"{cause}; an array of their ObjectIds in the {one} stays small, and the application-level join "
            "find({_id: {$in: ids}}) is cheap with the right projection (Zola-1 one-to-many; Zola-3: don't fear "
            "application-level joins)."
        )

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        if not _one_to_n(facts):
            return None
        one, many = facts.one, facts.many
        return self.vote(
            "child-refs",
            f"{_not_embedded_because(facts, view.ctx.settings)}: keep {many.name} in its own collection and an array "
            f"of their ids (at most {facts.n_max:,}) in {one.name}; read them with an application-level join "
            "find({_id: {$in: ids}}) — don't fear it when the fields are indexed and projected (Zola-3)",
            f"{many.name} is addressable on its own and {one.name} stays small; a second query per read, and the "
            "array must be maintained on insert/delete",
        )


@register
class ParentRefOneToSquillions(_StrategyRule):
    """Store the reference to the One in each N when N grows without bound (one-to-squillions).

    *Why*
    Zola-1's hosts and log messages: even an array of 12-byte ObjectIds per
    host would pass the 16 MiB document limit; the reference belongs in each
    log message, indexed with the time of the hot query.

    *Anti-pattern*
    ``hosts.logmsg_ids: [...]`` or embedded messages that grow forever.

    *Best practice*
    ``logmsg.host_id`` with ``createIndex({host_id: 1, time: -1})`` and
    ``find({host_id}).sort({time: -1}).limit(5000)``.
    """

    id = "parent-ref-one-to-squillions"
    cardinality = "one-to-squillions"
    explain = (
        "the {manys} of one {one} are too many for an array in the {one} (Zola-1 one-to-squillions): the reference "
        "belongs in each {many} and the {one} stays fixed-size; the reads that find the {manys} of one {one} need "
        "an index on it, with the sort of the hot query."
    )
    code = "RS04"
    family = "shape"
    severities = ("info", "suggestion")
    sources = ("Zola-1", "Manual-1:N-ref", "Manual-AP-unbounded", "Manual-limits")
    tradeoff = "the One stays fixed-size vs. a second query on the N side, by the reference, for every read of both"
    precedence = TREE

    def why_for(self, facts: RelFacts | None = None, entity: str | None = None) -> str | None:
        if facts is not None and facts.self_ref:
            return (
                f"{with_article(facts.one.name)} refers to other {plural_label(facts.one.name)} (a tree): each node keeps a "
                "reference to its parent, indexed, and a document cannot embed itself (Manual: tree structures)."
            )
        if facts is not None and facts.rel.cardinality != "one-to-squillions":
            return worded(
                "the {manys} of one {one} are more than an array of ids in the {one} should hold (Zola-3: 'more "
                "than a few thousand'; Manual-AP-unbounded): the reference belongs in each {many} and the {one} "
                "stays fixed-size; the reads that find the {manys} of one {one} need an index on it, with the sort of "
                "the hot query.",
                one=facts.one.name,
                many=facts.many.name,
                manys=plural_label(facts.many.name),
            )
        return super().why_for(facts, entity)

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        one, many = facts.one, facts.many
        if facts.self_ref:
            return self.vote(
                "parent-ref",
                f"{one.name} refers to itself (a tree): each node stores a reference to its parent; a document "
                "cannot embed itself",
                "children and parent are one indexed query each; ancestors and subtrees need $graphLookup",
                rules=("tree-pattern",),  # the tree pattern's plain model, however few children a node has
            )
        if not _one_to_n(facts):
            return None
        s = view.ctx.settings
        squillions = facts.rel.cardinality == "one-to-squillions"
        if not (facts.unbounded or squillions or too_many_ids(facts, s)):
            return None
        n = max(facts.n_max, facts.n_typ)
        ids = array_bytes(n, TYPE_BYTES["objectId"])
        # the claims follow the size model ("outgrow 16 MiB" only when the ids alone would) and the user's
        # cardinality (one-to-squillions only when the user said so)
        seed = "Zola-1 one-to-squillions" if squillions else "Manual-AP-unbounded"
        if facts.unbounded and not facts.max_declared:
            what = f"grows without bound: even an array of their ObjectIds would outgrow the 16 MiB document ({seed})"
        elif ids > s.max_doc_bytes:
            what = (
                f"is {how_many(facts)}: an array of their ObjectIds alone would be about {megabytes(ids)}, past "
                f"the 16 MiB document ({seed})"
            )
        elif squillions and not too_many_ids(facts, s):
            what = f"is {how_many(facts)}, declared one-to-squillions (Zola-1)"
        else:
            grows = " and keeps growing" if facts.unbounded else ""
            what = (
                f"is {how_many(facts)}{grows}: an array of that many ObjectIds (about {megabytes(ids)}) "
                f"is more than the {s.refarray_max:,} ids an array should hold (Zola-3: 'more than a few thousand')"
            )
        return self.vote(
            "parent-ref",
            f"the number of {plural_label(many.name)} per {one.name} {what}; store a reference to the {one.name} in "
            f"each {many.name}",
            f"{one.name} stays fixed-size; reading it with its {plural_label(many.name)} is a second query, by the "
            "reference; "
            "counts and sums over them are not free (see the computed pattern)",
            numbers={"id_array_bytes": ids},
            precedence=SQUILLIONS,
        )

    def _extra(self, view: RuleView, plan: RelPlan, numbers: dict[str, Any]) -> str:
        return reference_index_note(view, plan)

    def filed_under(self, plan: RelPlan) -> type[Rule] | None:
        """A tree's parent references are the tree pattern's plain model, however few children a node has."""
        return REGISTRY.get("tree-pattern") if plan.facts.self_ref else None


def embedded_or_kept_apart(view: RuleView, facts: RelFacts) -> bool:
    """``NoEmbedIndependentAccess`` sees the embedded relationships and the one-to-ones it kept apart."""
    plan = view.res.plans[facts.rel_id]
    return plan.strategy == "embed" or plan.rec.base_rule == NoEmbedIndependentAccess.id


@register
class NoEmbedIndependentAccess(_StrategyRule):
    """Do not embed what the application reads, lists or updates on its own.

    *Why*
    Zola-3 rule 2: needing to access an object on its own is a compelling
    reason not to embed it — embedded documents cannot be listed, indexed
    alone or updated without rewriting their parent. A one-to-one read on
    its own, or rarely with its parent, therefore keeps its own collection
    with a reference (a suggestion when the engine chooses it, info when the
    model already stores it so).

    *Anti-pattern*
    Embedding ``tasks`` in ``person`` while the app lists "tasks due
    tomorrow" across all people.

    *Best practice*
    Its own collection with a reference (rules 3, 4, 6), plus an extended
    reference or subset where the parent page still needs a few fields.
    """

    id = "no-embed-independent-access"
    code = "RS05"
    family = "shape"
    severities = ("info", "suggestion")
    sources = ("Zola-3", "Manual-embed-vs-ref")
    tradeoff = "independent access and a smaller parent vs. an extra query when both are shown"
    precedence = ONE_TO_ONE
    relationships = (embedded_or_kept_apart, True)

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        """A one-to-one that stands alone or is rarely read with its One keeps its own collection."""
        if facts.rel.cardinality != "one-to-one":
            return None
        if not facts.standalone and facts.read_together >= view.ctx.settings.read_together_min:
            return None
        one, many = facts.one, facts.many
        why = facts.standalone_reason or f"only {facts.read_together:.0%} of reads need both"
        return self.vote(
            "parent-ref",
            f"one-to-one, but {why}: keep {many.name} in its own collection with a reference to its {one.name}",
            "independent access and a smaller document vs. a second query when both are shown",
            rules=(EmbedOneToOne.id, self.id),
        )

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        plan = view.plan(facts.rel.id)
        if plan.rec.base_rule == self.id:  # a one-to-one kept in its own collection: the decision, as rules 1-4 report
            yield self._report(view, plan)
            return
        if not facts.standalone:
            return
        target = plan.rec.strategy if plan.rec.strategy != "embed" else "child-refs"
        yield self.finding(
            "suggestion",
            "relationship",
            facts.rel.id,
            f"{facts.many.name} is embedded in {facts.one.name}, but {facts.standalone_reason}: give it its "
            f"own collection ({target}) so it can be found without scanning {facts.one.name}",
            fix=set_strategy(facts.rel.id, target, facts=facts),
        )

    def _extra(self, view: RuleView, plan: RelPlan, numbers: dict[str, Any]) -> str:
        return reference_index_note(view, plan)


def _reads_of(facts: RelFacts, entity_id: str, queries: dict[str, list[Query]]) -> list[Query]:
    """The queries of ``entity_id`` that go through the relationship (scoped to it, or joining it)."""
    rid = facts.rel_id
    return [q for q in queries.get(entity_id, ()) if q.scope == rid or rid in q.joins]


def _large_side_pages(facts: RelFacts, queries: dict[str, list[Query]], of_many: bool, most: int, typical: int) -> str:
    """A word on paging the reads of the large side ("the Users of one Group", up to 5,000,000; with ``of_many``
    False the Ones of one N, "the Groups of one User") that set no limit: the plan counts the typical number, but
    the largest one is the read that hurts."""
    read, per = (facts.many, facts.one) if of_many else (facts.one, facts.many)
    unpaged = [q for q in _reads_of(facts, read.id, queries) if q.scope == facts.rel_id and q.limit is None]
    if not unpaged:
        return ""
    named = and_list([query_words(q, read.name) for q in unpaged[:2]])
    sort_keys = list(dict.fromkeys(k for q in unpaged[:2] for k, _ in q.sort))
    keys = and_list(sort_keys) if sort_keys else "_id"
    return (
        f"; {named} sets no limit, yet one {per.name} can have {most:,} {plural_label(read.name)} (not the typical "
        f"{typical:,}): page it with a limit and go on from the last {keys} read, so the largest one is never read "
        "at once"
    )


def _one_way_many_to_many(
    facts: RelFacts, back: int, s: Settings, queries: dict[str, list[Query]]
) -> tuple[str, str, str] | None:
    """A many-to-many whose array belongs on one side only (RULES.md rule 6): the N side would hold more ids than
    an array should (``back`` typical Ones per N against ``refarray_max``), or the queries of only one side go
    through the relationship. None: two-way (both sides read, or neither said)."""
    one_reads = _reads_of(facts, facts.one_id, queries)
    many_reads = _reads_of(facts, facts.many_id, queries)
    # (holder, other, holder's queries): the side that keeps the array of the other's ids
    most = max_ones_of(facts.rel)
    if back >= s.refarray_max or (most is not None and most > s.refarray_max):
        belongs = f"up to {most:,}" if most is not None and most > s.refarray_max else f"about {back:,}"
        holder, other, why = (
            facts.one.name,
            facts.many.name,
            f"one {facts.many.name} belongs to {belongs} {plural_label(facts.one.name)}, more than the "
            f"{s.refarray_max:,} ids an array should hold (Zola-3: 'more than a few thousand')",
        )

    elif one_reads and not many_reads:
        holder, other, why = facts.one.name, facts.many.name, ""
    elif many_reads and not one_reads:
        holder, other, why = facts.many.name, facts.one.name, ""
    else:
        return None
    if not why:
        named = ", ".join(query_words(q, holder) for q in (one_reads or many_reads)[:2])
        why = f"only {holder} queries go through it ({named}); no {other} query reads its {plural_label(holder)}"
    holders = plural_label(holder)
    pages = (
        _large_side_pages(facts, queries, False, most, back) if most is not None and holder == facts.one.name else ""
    )
    return (
        "child-refs" if holder == facts.one.name else "parent-ref",
        f"each {facts.one.name} relates to several {plural_label(facts.many.name)} and each {facts.many.name} to "
        f"several {plural_label(facts.one.name)}, but {why}: keep the array of {other} ids only in each {holder} "
        f"(one-way referencing from the side that is queried) and find the {holders} of one {other} by it "
        f"(indexed, multikey){pages}",
        f"one array to maintain and no transaction for a link; the {holders} of one {other} are a query on the "
        f"{holder} array, and {with_article(other)} page listing its {holders} reads them through it",
    )


@register
class ManyToManyRefs(_StrategyRule):
    """Many-to-many, or one-to-many read in both directions: arrays of references (two-way referencing).

    *Why*
    Zola-2's people and tasks: "the tasks of a person" and "the owner of a
    task" are both hot, so each side keeps references to the other and each
    direction is one indexed query.

    *Anti-pattern*
    A join table collection, or a reference on one side only while the other
    direction scans the whole collection.

    *Best practice*
    ``person.task_ids: [...]`` and ``task.owner_id``; indexes on both; wrap a
    reassignment (two updates) in ``session.withTransaction`` when it must be
    atomic.
    """

    id = "many-to-many-refs"
    cardinality = "many-to-many"
    explain = (
        "both directions are read ('the {manys} of one {one}' and the other way round), so each side keeps "
        "references to the other and each direction is one indexed query (Zola-2 two-way referencing); a side that "
        "would hold too many ids keeps none."
    )
    code = "RS06"
    family = "shape"
    severities = ("info", "suggestion")
    sources = ("Zola-2", "CN", "Skills", "Manual-limits")
    tradeoff = (
        "both directions are one indexed query, but reassigning a child updates two documents and is NOT "
        "atomic without a multi-document transaction (default lifetime 60 s)"
    )
    precedence = MANY_TO_MANY
    index_claims = ((LINK_ARRAY, 0),)

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        s = view.ctx.settings
        rel, one, many = facts.rel, facts.one, facts.many
        if rel.cardinality == "many-to-many":
            back = ones_per_many(facts)
            nums = {"typical_ones_per_n": back}
            if too_many_ids(facts, s):
                ones, manys = plural_label(one.name), plural_label(many.name)
                return self.vote(
                    "parent-ref",
                    f"each {one.name} relates to up to {facts.n_max:,} {manys}, more than the "
                    f"{s.refarray_max:,} ids an array should hold (Zola-3: 'more than a few thousand'): keep the "
                    f"array of references only in each {many.name} and query it by {one.name}"
                    + _large_side_pages(facts, view.ctx.queries_of, True, facts.n_max, facts.n_typ),
                    f"the {manys} of one {one.name} are one query on that array; the {ones} of one {many.name} take "
                    f"two reads (its array, then the {ones} by _id with $in); the large side never holds an array",
                    numbers=nums,
                )
            one_way = _one_way_many_to_many(facts, back, s, view.ctx.queries_of)
            if one_way is not None:
                return self.vote(*one_way, numbers=nums)
            return self.vote(
                "two-way",
                f"each {one.name} relates to many {plural_label(many.name)} and each {many.name} to many "
                f"{plural_label(one.name)}: arrays of references on both sides, so either direction is one query",
                "both directions are one indexed query; changing a link updates two documents and is not atomic "
                "without a multi-document transaction",
                numbers=nums,
            )
        if rel.cardinality == "one-to-few":
            return None  # the one-to-few rule says why its N are not embedded (EmbedOneToFew)
        return referenced_both_ways(self, facts, s, (self.id, ChildRefsOneToMany.id), "")

    def why_of(self, plan: RelPlan, settings: Settings) -> str | None:
        """Two-way, or the array on one side only: the *Why* of the decision taken, not of the rule."""
        facts = plan.facts
        one, many = facts.one.name, facts.many.name
        ones, manys = plural_label(one), plural_label(many)
        m2m = facts.rel.cardinality == "many-to-many"
        if plan.rec.base_strategy == "two-way" and m2m:
            template = (
                "each {one} relates to several {manys} and each {many} to several {ones}: an array of references "
                "on each side makes either direction one query (Zola-2 two-way referencing)."
            )
        elif m2m and (plan.rec.base_strategy == "child-refs" or not too_many_ids(facts, settings)):
            holder, other = (one, many) if plan.rec.base_strategy == "child-refs" else (many, one)
            return worded(
                "only one side needs an array: references go on the side that is queried (Zola-2), and a side "
                "that would hold more than a few thousand ids keeps none (Zola-3). The array of {other} ids in each "
                "{holder}, indexed (multikey), makes 'the {holders} of one {other}' one query, and no second array "
                "has to be kept in step.",
                holder=holder,
                other=other,
                holders=plural_label(holder),
            )
        elif m2m:
            template = (
                "one {one} can have more {manys} than an array of ids should hold (Zola-3: 'more than a few "
                "thousand'), so only each {many} keeps an array, of its {ones}; 'the {manys} of one {one}' is one "
                "query on that array."
            )
        else:
            return referenced_why(plan)
        return worded(template, one=one, many=many, ones=ones, manys=manys)

    def _extra(self, view: RuleView, plan: RelPlan, numbers: dict[str, Any]) -> str:
        return reference_index_note(view, plan) + reassignment_note(view, plan, numbers)

    def filed_under(self, plan: RelPlan) -> type[Rule] | None:
        """A one-to-N kept as one-way references is not rule 6's two-way case: it goes under the rule of the
        reason its N are not embedded (read on their own: rule 5; too many: rule 3), never under a many-to-many
        name the user's cardinality contradicts (tryout a14 item 5)."""
        if plan.facts.rel.cardinality == "many-to-many" or plan.rec.base_strategy != "parent-ref":
            return None
        return NoEmbedIndependentAccess if plan.facts.standalone else ChildRefsOneToMany


@register
class SingleCollectionManyToMany(Rule):
    """Many-to-many read both ways with volatile fields: consider one collection with a ``links`` array.

    *Why*
    The Single Collection pattern stores both entity types in one collection
    with ``doc_type`` and ``links: [{target, doc_type}]``, so "X and
    everything linked to X" is one query without copying fields that change
    often.

    *Anti-pattern*
    Copying frequently updated class details into every student document to
    avoid a join.

    *Best practice*
    ``createIndex({"links.target": 1, "links.doc_type": 1})`` and
    ``find({"links.target": id})``.
    """

    id = "single-collection-many-to-many"
    code = "RS07"
    family = "shape"
    severities = ("suggestion",)
    sources = ("Manual-single-collection",)
    tradeoff = "no joins and no duplicated data vs. heterogeneous documents and bounded links arrays"
    index_claims = ((LINKS, 0),)

    relationships = (cardinality_of, "many-to-many")

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        plan = view.plan(facts.rel.id)
        if plan.strategy == "single-collection":
            return
        s = view.settings
        hot = [q for q in view.facts.queries_joining.get(facts.rel.id, []) if view.facts.is_hot(q)]
        if not hot:
            return
        reads = max(q.per_sec or s.hot_per_sec for q in hot)
        # a field changes too often to copy when a copy would fail the denormalization gate (reads per update
        # below denorm_rw_min): a trivial update rate (0.05/s against a hot read) is no reason to merge collections
        volatile = [
            f.name
            for f in facts.many.fields
            if f.updates_per_sec and not f.immutable and reads / f.updates_per_sec < s.denorm_rw_min
        ]
        if volatile:
            yield self.finding(
                "suggestion",
                "relationship",
                facts.rel.id,
                f"{view.rel_words(facts.rel.id)} is read with its links on a hot path ({view.query_words(hot[0])}) and {facts.many.name} has "
                f"fields that change too often to copy ({', '.join(volatile[:3])}: fewer than "
                f"{s.denorm_rw_min:g} reads per update): instead of copying them, store both types in "
                "one collection with a links array (single collection pattern)",
                fix=set_strategy(facts.rel.id, "single-collection", facts=facts),
                numbers={"reads_per_sec": reads, "read_write_min": s.denorm_rw_min},
            )


@register
class AtomicFieldsSameDocument(Rule):
    """Fields that must change together belong in one document.

    *Why*
    A single-document write is atomic; across documents the invariant needs a
    multi-document transaction (Manual: model data for atomic operations).

    *Anti-pattern*
    ``books.available`` in one collection and the checkout list in another,
    updated by two writes.

    *Best practice*
    ``findOneAndUpdate({_id, available: {$gt: 0}}, {$inc: {available: -1},
    $push: {checkout: {...}}})`` on one document.
    """

    id = "atomic-fields-same-document"
    code = "RS08"
    family = "shape"
    severities = ("info", "warning")
    sources = ("Manual-atomic", "Manual-best-practices")
    tradeoff = "atomicity without transactions vs. embedding growth"
    relationships = (marked_atomic, True)

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        if not facts.rel.atomic:
            return
        plan = view.plan(facts.rel.id)
        if plan.strategy == "embed":
            yield self.finding(
                "info",
                "relationship",
                facts.rel.id,
                f"{view.rel_words(facts.rel.id)} is marked atomic and {facts.many.name} is embedded in {facts.one.name}: one "
                "update changes both atomically, no transaction needed",
            )
        else:
            yield self.finding(
                "warning",
                "relationship",
                facts.rel.id,
                f"{view.rel_words(facts.rel.id)} is marked atomic but {facts.one.name} and {facts.many.name} are in different "
                f"documents ({plan.strategy}): every change must run in a multi-document transaction, or embed "
                "the fields that must change together",
                fix=set_strategy(facts.rel.id, "embed", facts=facts)
                if facts.n_max <= view.settings.embed_max and not facts.unbounded
                else None,
            )


@register
class SplitByUpdateFrequency(Rule):
    """Move an embedded part that is written more often than its parent is read into its own collection.

    *Why*
    Every update of an embedded element rewrites the parent document; when
    the child changes more often than the parent is read, or the parent is
    large, the writes cost more than the join saves (CN: frequently updated
    sub-documents -> consider referencing).

    *Anti-pattern*
    A 300 KB product document rewritten on every stock-level change of an
    embedded variant.

    *Best practice*
    The volatile part in its own collection with a reference to the parent.
    """

    id = "split-by-update-frequency"
    code = "RS09"
    family = "shape"
    severities = ("suggestion",)
    sources = ("CN", "Manual-map-relationships", "Manual-embed-vs-ref", "Skills")
    tradeoff = "cheaper writes and less contention vs. an extra read when both are needed"

    relationships = (strategy_of, "embed")

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        s = view.settings
        writes = facts.many.writes_per_sec
        reads = facts.one.reads_per_sec
        coll = view.collection_of(facts.one.id)
        big = coll is not None and coll.avg_bytes >= s.doc_info_bytes
        if writes is None or writes <= 0:
            return
        if (reads is not None and writes >= reads) or big:
            why = (
                f"{facts.many.name} is written {writes:g}/s, {facts.one.name} read {reads or 0:g}/s"
                if not big
                else f"each write rewrites a {coll.avg_bytes if coll else 0:,}-byte {facts.one.name}"
            )
            yield self.finding(
                "suggestion",
                "relationship",
                facts.rel.id,
                f"{why}: move {facts.many.name} to its own collection referenced by {facts.one.name}",
                fix=set_strategy(facts.rel.id, "parent-ref", facts=facts),
                numbers={"child_writes_per_sec": writes, "parent_reads_per_sec": reads},
            )


#: BSON types an equality treats as one ("all numeric types are considered equivalent", Manual-bson-order)
_NUMBERS = frozenset({"int", "long", "double", "decimal"})


def _mistyped_references(rule: Rule, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
    """A reference the user declared with another type than the key it refers to (a string ``user_id`` for an
    ObjectId ``_id``): an equality matches a value of the same BSON type only (Manual, Comparison/Sort Order), so
    the join or the lookup by it finds nothing. No rule of the catalog covers it: it goes under the reference
    rule, with the Manual page that says why (tryout a15 item 14)."""
    for node in coll.shape:
        if node.role != "parent-ref" or node.entity is None or node.relationship is None:
            continue
        held = node.items if node.bson_type == "array" and node.items is not None else node
        key = view.facts.field(node.entity, "_id")
        wanted = BSON[key.type] if key is not None else "objectId"
        if held.bson_type == wanted or (held.bson_type in _NUMBERS and wanted in _NUMBERS):
            continue
        facts = view.facts.rel_by_id.get(node.relationship)
        if facts is None:
            continue
        one, many = facts.one.name, facts.many.name
        yield rule.finding(
            "warning",
            "relationship",
            facts.rel_id,
            f"{node.name} in each {many} refers to the {one}'s _id, {with_article(wanted)}, but it is declared "
            f"{with_article(held.bson_type)}: an equality matches only values of the same BSON type, so no "
            f"{many} is found by its {one}'s _id; declare {node.name} as {wanted}, or give {one} an _id field "
            f"of type {held.bson_type}",
            why=_MISTYPED_WHY,
            tradeoff="changing the field's type means converting the values documents already hold",
            numbers={"field": node.name, "declared": held.bson_type, "referenced_key": wanted},
            sources=("Manual-bson-order",),
        )


_MISTYPED_WHY = (
    "A query compares a field with a value only in documents where the field holds the value's BSON type (all "
    "numbers count as one type; Manual-bson-order): a reference must hold the type of the _id it names, or an "
    "equality, an $in or a $lookup on it matches nothing."
)


@register
class IndexReferenceFields(Rule):
    """Index every reference field a join or lookup follows.

    *Why*
    Without an index, finding the N of one parent scans the whole collection;
    with it an application-level join is as cheap as a server-side join
    (Zola-3 rule 4; CN: always index reference fields).

    *Anti-pattern*
    ``logmsg.host_id`` without an index, queried for every host page.

    *Best practice*
    ``createIndex({host_id: 1, time: -1})`` — the reference first, compound
    with the sort of the hot query.
    """

    id = "index-reference-fields"
    code = "RS10"
    family = "shape"
    severities = ("suggestion", "warning")
    sources = ("CN", "Zola-3")
    tradeoff = "each index costs work on every insert and RAM (count it against the index limits)"
    #: second to the pattern that asks for the index (bucket, single collection, two-way many-to-many)
    index_claims = ((REFERENCE, 0), (SYNC, 0), (BUCKET_SERIES, 1), (LINKS, 1), (LINK_ARRAY, 1))

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        yield from _mistyped_references(self, view, coll)
        entity = view.facts.entities[coll.root]
        declared = [idx for idx in coll.indexes if idx.origin == "user"]
        for idx in coll.indexes:
            if self.id not in idx.rules or idx.origin == "user":
                continue
            ref = idx.keys[0][0]
            if declared and any(d.keys and d.keys[0][0] == ref for d in declared):
                continue
            used = list(idx.queries)
            sev = "warning" if used and declared else "suggestion"
            # no fix: the design creates this index (the exported script has it); declaring it changes nothing
            yield self.finding(
                sev,
                "entity",
                entity.id,
                f"reference field {ref} of {coll.name} needs an index: {keys_text(idx.keys)} — {idx.why}; the design "
                "creates it",
                numbers={"queries": used},
                decision=index_decision(coll.name, idx.name),
                decided=True,
            )
