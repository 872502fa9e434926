"""Denormalization rules (RULES.md 11-17): copy only what is read far more often than it changes.

Common gate (Zola-3 rule 5): a copy is worth it when the field's
read/write ratio is at least ``denorm_rw_min`` (engine default 10) and the
copies may be stale for a while; the fan-out (updates x copies) is reported.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from modeller.model.labels import relationship_words
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Change, Finding, Fix, SubjectRef, strategy_decision
from modeller.rules.framework.registry import register
from modeller.rules.framework.rule import Rule, cardinality_of, has_copies, strategy_of
from modeller.rules.physical.facts import RelFacts
from modeller.rules.physical.naming import plural_label
from modeller.rules.physical.plans import CopyPlan, RelPlan, effectively_immutable
from modeller.rules.physical.strategy import StrategyView, Vote, subset_size

#: precedence of the refinement votes (highest wins): buckets, then a subset, then an extended reference
BUCKET, SUBSET, EXTENDED = 30, 20, 10
#: the outlier pattern keeps the base reference and embeds the typical N: below a declared subset, above a copy
OUTLIER = 15


def _rw_text(rw: float | None) -> str:
    if rw is None:
        return "read/write ratio not annotated (set reads_per_sec and updates_per_sec on the field)"
    if math.isinf(rw):
        return "the field never changes"
    return f"read/write ratio {rw:,.0f}:1"


def copy_decision(view: RuleView, facts: RelFacts, cp: CopyPlan) -> SubjectRef:
    """The decision to copy one field: the copy in the entity that holds it (``logmsg.status``), which several rules
    judge (squillions of copies, never stale, volatile) and the engine shows as one finding."""
    path = view.res.builder.copy_paths.get((facts.rel.id, cp.denorm.field, cp.denorm.direction), cp.name)
    return SubjectRef("field", f"{cp.target.id}.{path}")


def remove_copy(facts: RelFacts, cp: CopyPlan) -> Fix:
    """The fix that removes one declared copy from the relationship (keep the field in its owner and join)."""
    remaining = [
        d.model_dump()
        for d in facts.rel.denormalize
        if not (d.field == cp.denorm.field and d.direction == cp.denorm.direction)
    ]
    return Fix(
        f"remove the copy of {cp.denorm.field} from {relationship_words(facts.one.name, facts.many.name)}",
        (Change("set", SubjectRef("relationship", facts.rel.id), "denormalize", remaining),),
    )


def _numbers(cp: CopyPlan) -> dict[str, Any]:
    return {
        "read_write_ratio": None if cp.rw is None else ("inf" if math.isinf(cp.rw) else round(cp.rw, 2)),
        "copies_per_update": cp.copies_per_update,
        "fanout_writes_per_sec": None if cp.fanout is None else round(cp.fanout, 4),
    }


def _copies(
    view: RuleView, facts: RelFacts, claims: Callable[[RelPlan, CopyPlan], bool]
) -> Iterable[tuple[RelPlan, CopyPlan]]:
    """The declared copies of a relationship a rule reports on (``claims``)."""
    plan = view.plan(facts.rel.id)
    for cp in plan.copies:
        if not cp.implied and claims(plan, cp):
            yield plan, cp


def _point_in_time(cp: CopyPlan) -> bool:
    """A copy that keeps the value of the moment it was made (``staleness: forever``)."""
    return cp.denorm.staleness == "forever"


def _keep_in_sync(cp: CopyPlan, sync: str) -> str:
    """How the copy is maintained; while its staleness is not set, the two kinds of copy the user chooses between
    (RULES.md 15/16: a display copy is synced, a point-in-time value such as an order line's price never is)."""
    if cp.denorm.staleness is not None or cp.sync == "none":  # (a field that never changes needs no choice)
        return f"Keep it in sync: {sync}"
    src = f"{cp.source.name}.{cp.denorm.field}"
    return (
        f"The copy's staleness is not set, so say which copy this is: the value {src} had when the "
        f"{cp.target.name} was created (a snapshot, like an order line's price at order time) — set its staleness "
        f"to forever: it is copied at insert and never synced, so history is not rewritten; or a copy that follows "
        f"{src} — set its staleness (none, seconds, minutes, hours or days) and keep it in sync: {sync}"
    )


def _sync_of(view: RuleView, plan: RelPlan, cp: CopyPlan) -> str:
    rd = view.rel_design(plan.facts.rel.id)
    copy = next((c for c in rd.denormalized if c.field == cp.denorm.field and c.direction == cp.denorm.direction), None)
    return "" if copy is None else copy.sync_advice


def subset_vote(rule: Rule, facts: RelFacts, view: StrategyView, also: tuple[str, ...]) -> Vote | None:
    """Keep the latest ``show_latest`` N in the One when that subset is within the seeds' bounds.

    Shared by the subset pattern and its squillions case (``also`` are the rules cited after ``rule``).
    """
    if facts.self_ref:
        return None
    k = subset_size(view.ctx, facts, view.elem_bytes)
    if k is None:
        return None
    one, many, elem = facts.one, facts.many, view.elem_bytes
    n = "an unbounded number of" if facts.unbounded and not facts.max_declared else f"{facts.n_max:,}"
    return rule.vote(
        "subset",
        f"the {one.name} page shows only the latest {k} of up to {n} {plural_label(many.name)}: keep those {k} as "
        f"copies in {one.name} ($push with $each/$sort/$slice) and every {many.name} in its own collection with a "
        f"reference to its {one.name}",
        f"the {one.name} renders with one read; every new {many.name} costs two writes and the {k} copies add "
        f"about {k * elem} bytes to each {one.name}",
        rules=(rule.id, *also),
        numbers={"show_latest": k, "subset_bytes": k * elem},
    )


class _GateRule(Rule):
    """Report declared copies of this rule against the read/write gate."""

    relationships = (has_copies, True)

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        s = view.settings
        for plan, cp in _copies(view, facts, self.claims):
            rel = plan.facts.rel
            what = self.describe(plan, cp)
            if cp.rw is not None and cp.rw < s.denorm_rw_warn:
                yield self.finding(
                    "info",
                    "relationship",
                    rel.id,
                    f"don't copy {cp.denorm.field}: {what}, but it is updated more often than read "
                    f"({_rw_text(cp.rw)}); a join is cheaper than the write fan-out",
                    numbers=_numbers(cp),
                    why=self.why_for(plan.facts),
                )
                continue
            if cp.rw is not None and cp.rw < s.denorm_rw_min:
                yield self.finding(
                    "info",
                    "relationship",
                    rel.id,
                    f"{what}: {_rw_text(cp.rw)} is below the {s.denorm_rw_min:g}:1 gate — the copy "
                    "saves little over an indexed join",
                    numbers=_numbers(cp),
                    why=self.why_for(plan.facts),
                )
                continue
            fan = (
                ""
                if cp.fanout is None
                else f"; an update of {cp.denorm.field} rewrites about "
                f"{cp.copies_per_update:,.0f} copies ({cp.fanout:g} extra writes/s)"
            )
            yield self.finding(
                "suggestion",
                "relationship",
                rel.id,
                f"{what} ({_rw_text(cp.rw)}{fan}). {_keep_in_sync(cp, _sync_of(view, plan, cp))}",
                numbers=_numbers(cp),
                why=self.why_for(plan.facts),
                decided=True,  # the user declared the copy and the design holds it
            )

    def claims(self, plan: RelPlan, cp: CopyPlan) -> bool:
        """The copies this rule reports on."""
        raise NotImplementedError

    def describe(self, plan: RelPlan, cp: CopyPlan) -> str:
        raise NotImplementedError


@register
class DenormManyToOneReadMostly(_GateRule):
    """Copy a read-mostly field of each N into the One's array of references (``[{id, name}]``).

    *Why*
    Zola-2 "denormalizing from many to one": the product page shows part
    names; storing ``{id, name}`` pairs instead of bare ids saves the join on
    every read, and is worth it only when names are read far more often than
    they change (Zola-3 rule 5: consider the read-to-write ratio).

    *Anti-pattern*
    Copying a part's stock level (updated constantly) into every product.

    *Best practice*
    ``product.parts: [{id, name}]``; on rename
    ``updateMany({"parts.id": id}, {$set: {"parts.$[p].name": n}},
    {arrayFilters: [{"p.id": id}]})``.
    """

    id = "denorm-many-to-one-read-mostly"
    explain = (
        "the {one} shows fields of its {manys}: storing {{id, field}} pairs instead of bare ids saves the join on every "
        "read, worth it only when the fields are read far more often than they change (Zola-2 many to one; Zola-3 "
        "rule 5: the read-to-write ratio)."
    )
    code = "DN11"
    family = "denormalization"
    severities = ("info", "suggestion")
    sources = ("Zola-2", "Zola-3")
    tradeoff = (
        "saves the join on the hot read; every update of the field must also update all copies, not "
        "atomically, and the array grows by the field's size per element"
    )

    def claims(self, plan: RelPlan, cp: CopyPlan) -> bool:
        """Copies into the One's array of references."""
        return cp.location == "child-array" and not _point_in_time(cp)

    def describe(self, plan: RelPlan, cp: CopyPlan) -> str:
        return (
            f"copy {cp.source.name}.{cp.denorm.field} into each element of {cp.target.name}'s array of "
            f"{cp.source.name} references ({{id, {cp.name}}})"
        )


@register
class DenormOneToManyIntoChildren(_GateRule):
    """Copy a read-mostly field of the One into each of its N (``part.product_name``).

    *Why*
    Zola-2 "denormalizing from one to many": the part page shows its
    product's name without a second query; renaming the product then updates
    all its parts, which is fine when renames are rare.

    *Anti-pattern*
    Copying a field that changes every minute into thousands of children.

    *Best practice*
    ``part.product_name``; on rename
    ``db.parts.updateMany({product_id}, {$set: {product_name}})``.
    """

    id = "denorm-one-to-many-into-children"
    explain = (
        "each {many} shows fields of its {one} without a second query; changing them in the {one} then updates all "
        "its {manys}, which is fine when such changes are rare (Zola-2 one to many)."
    )
    code = "DN12"
    family = "denormalization"
    severities = ("info", "suggestion")
    sources = ("Zola-2", "Zola-3")
    tradeoff = "the join is avoided on reads of the N side; renaming the One updates all its N"

    def claims(self, plan: RelPlan, cp: CopyPlan) -> bool:
        """Copies next to the reference in each N, unless the N are squillions (rule 13)."""
        return cp.location == "flat" and plan.facts.rel.cardinality != "one-to-squillions" and not _point_in_time(cp)

    def describe(self, plan: RelPlan, cp: CopyPlan) -> str:
        return f"copy {cp.source.name}.{cp.denorm.field} into each {cp.target.name} as {cp.name}"


@register
class DenormIntoSquillionsImmutable(Rule):
    """Copy an immutable field of the One into each of its squillions of N at insert, with no sync plan.

    *Why*
    Zola-2 "one to squillions": log searches filter by the host's ``ipaddr``
    without joining hosts; the address never changes, so writing it into
    each message at insert costs nothing later.

    *Anti-pattern*
    Copying a mutable field into millions of documents and promising to keep
    every copy current.

    *Best practice*
    ``insertOne({host_id, ipaddr: host.ipaddr, time, message})`` and an index
    ``{ipaddr: 1, time: -1}`` when log searches filter by it.
    """

    id = "denorm-into-squillions-immutable"
    explain = (
        "queries on {manys} filter by a field of their {one} without a join; a field that never changes costs nothing "
        "later when it is written into each {many} at insert (Zola-2 one to squillions)."
    )
    code = "DN13"
    family = "denormalization"
    severities = ("suggestion", "warning")
    sources = ("Zola-2",)
    tradeoff = "single-collection filtering on the N side; an update of the field would touch up to squillions"

    relationships = (cardinality_of, "one-to-squillions")

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        s = view.settings
        plan = view.plan(facts.rel.id)
        for cp in plan.copies:
            if cp.denorm.direction != "one-to-many" or cp.implied or cp.denorm.staleness == "forever":
                continue
            immutable = (cp.field is not None and cp.field.immutable) or (
                cp.rw is not None and effectively_immutable(cp.rw, cp.field, s.immutable_rw_factor * s.denorm_rw_min)
            )
            if immutable:
                yield self.finding(
                    "suggestion",
                    "relationship",
                    facts.rel.id,
                    f"copy {facts.one.name}.{cp.denorm.field} into each {facts.many.name} when it is inserted "
                    f"({_rw_text(cp.rw)}): queries on {facts.many.name} can filter by it without a join, and no "
                    "sync is needed",
                    numbers=_numbers(cp),
                    why=self.why_for(facts),
                    decided=True,  # the user declared the copy and the design writes it at insert
                )
            elif (
                cp.rw is not None and cp.rw >= s.immutable_rw_factor * s.denorm_rw_min and cp.denorm.staleness != "none"
            ):
                # read far more than updated, but the user declared that it changes: copied, and kept in sync
                yield self.finding(
                    "suggestion",
                    "relationship",
                    facts.rel.id,
                    f"copy {facts.one.name}.{cp.denorm.field} into each {facts.many.name} ({_rw_text(cp.rw)}): "
                    f"queries on {facts.many.name} can filter by it without a join; it changes now and then"
                    + (
                        f", so keep the copies in sync: {_sync_of(view, plan, cp)}"
                        if cp.denorm.staleness is not None
                        else f". {_keep_in_sync(cp, _sync_of(view, plan, cp))}"
                    ),
                    numbers=_numbers(cp),
                    why=self.why_for(facts),
                    decided=True,  # the user declared the copy and the design holds it
                )
            elif cp.denorm.staleness == "none":
                yield self.finding(
                    "warning",
                    "relationship",
                    facts.rel.id,
                    f"{facts.one.name}.{cp.denorm.field} changes and must never be stale, but it is copied into "
                    f"squillions of {facts.many.name}: each update fans out to about {cp.copies_per_update:,.0f} "
                    "documents; keep it only in the One and join",
                    fix=remove_copy(facts, cp),
                    numbers=_numbers(cp),
                    why=self.why_for(facts),
                    decision=copy_decision(view, facts, cp),
                )


@register
class SquillionsToOneLastN(Rule):
    """Keep the latest K of a one-to-squillions in the One with ``$push``/``$each``/``$sort``/``$slice``.

    *Why*
    Zola-2 "squillions to one": the host page shows its latest 1,000 log
    lines; a capped array of copies renders it in one read while the log
    collection stays the source of truth.

    *Anti-pattern*
    An ever-growing array of all messages in the host, or a second query for
    the same 1,000 lines on every page view.

    *Best practice*
    ``updateOne({_id: host}, {$push: {recent_logmsgs: {$each: [msg], $sort:
    {time: 1}, $slice: -1000}}})`` on every insert.
    """

    id = "squillions-to-one-last-n"
    explain = (
        "the {one} page shows its latest {manys}: a capped array of copies renders it in one read while the "
        "{manys}' own collection stays the source of truth (Zola-2 squillions to one)."
    )
    code = "DN14"
    family = "denormalization"
    severities = ("info", "suggestion")
    sources = ("Zola-2", "Manual-duplicate")
    tradeoff = "the One renders without a second query; two writes per new N and K copies in the One"
    decides = "refinement"
    precedence = SUBSET

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        """The latest K of an unbounded N side (the subset pattern's squillions case)."""
        if not (facts.unbounded or facts.rel.cardinality == "one-to-squillions"):
            return None
        return subset_vote(self, facts, view, ("subset-pattern",))

    relationships = (strategy_of, "subset")

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        plan = view.plan(facts.rel.id)
        if self.id not in plan.rec.rules:
            return
        rd = view.rel_design(facts.rel.id)
        push = next((c.sync_advice for c in rd.denormalized if c.direction == "many-to-one"), "")
        k = plan.subset_k or 0
        sev = "info" if plan.chosen_by == "user" else "suggestion"
        yield self.finding(
            sev,
            "relationship",
            facts.rel.id,
            f"keep the latest {k:,} {plural_label(facts.many.name)} in each {facts.one.name} as a bounded array: {push}",
            numbers={"show_latest": k, "subset_bytes": plan.numbers.get("subset_bytes")},
            decision=strategy_decision(facts.rel.id),
            decided=True,
            why=self.why_for(facts),
        )


@register
class ExtendedReference(Rule):
    """Store the One as ``{_id, <few stable fields>}`` in each N (extended reference).

    *Why*
    ER-seed: every post page shows the author's name and picture; copying
    those few fields into the post removes the ``$lookup`` from the hot path.
    The copies must be kept in sync: application code updating all copies,
    change streams on the source collection, or a scheduled job when a delay
    is acceptable — so copy only fields that rarely change, and as few as
    possible.

    *Anti-pattern*
    ``$lookup`` of users on every post read, or copying the whole user
    document (email, settings) into every post.

    *Best practice*
    ``post.author: {_id, name, profile_pic}``; on rename
    ``updateMany({"author._id": id}, {$set: {"author.name": n}})`` or a
    ``db.users.watch(...)`` listener.
    """

    id = "extended-reference"
    explain = (
        "every {many} shows a few fields of its {one}: copying those into the {many} removes the $lookup from the hot "
        "path. The copies must be kept in sync (application code updating all copies, change streams on the source "
        "collection, or a scheduled job when a delay is acceptable), so copy only fields that rarely change, and as "
        "few as possible (extended reference)."
    )
    code = "DN15"
    family = "denormalization"
    severities = ("info", "suggestion")
    sources = ("ER-seed", "BwP-extended-ref", "Manual-duplicate")
    tradeoff = (
        "removes the join from the hot path; duplicates data that goes stale unless synced — keep the "
        "copied set minimal and stable"
    )
    decides = "refinement"
    precedence = EXTENDED

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        """A parent reference whose N side shows fields of its One carries them: ``{_id, fields}``."""
        rel, base = facts.rel, view.base
        if base is None or base.strategy != "parent-ref" or facts.self_ref or rel.cardinality == "one-to-squillions":
            return None
        fields = ", ".join(d.field for d in rel.denormalize if d.direction == "one-to-many")
        if not fields:
            return None
        if rel.cardinality == "many-to-many":  # one N belongs to several Ones: one {_id, ...} per One
            stored = (
                f"each {facts.many.name} shows {fields} of its {plural_label(facts.one.name)}: store the references "
                f"as an array of sub-documents [{{_id, {fields}}}] (extended references)"
            )
        else:
            stored = (
                f"each {facts.many.name} shows {fields} of its {facts.one.name}: store the reference as a "
                f"sub-document {{_id, {fields}}} (extended reference)"
            )
        return self.vote(
            "extended-ref",
            f"{stored} so the page needs no $lookup",
            "removes the join from the hot path; the copied fields are duplicated and must be kept in sync "
            "(application code, change streams or a scheduled job) unless they are point-in-time values",
        )

    relationships = (strategy_of, "extended-ref")

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        plan = view.plan(facts.rel.id)
        copies = [cp for cp in plan.copies if cp.location == "extended"]
        rd = view.rel_design(facts.rel.id)
        ext = next((c.path.rsplit(".", 1)[0] for c in rd.denormalized if c.direction == "one-to-many"), "")
        fields = ", ".join(["_id", *(cp.name for cp in copies)])
        syncs = "; ".join(
            f"{c.field}: {c.sync}"
            + (
                ""
                if c.staleness is not None
                else f" — staleness not set: set it to forever if {c.field} is the value when the "
                f"{facts.many.name} was created (then it is never synced)"
            )
            for c in rd.denormalized
        )
        worst = min((cp.rw for cp in copies if cp.rw is not None), default=None)
        if facts.rel.cardinality == "many-to-many":
            stored = f"store each {facts.one.name} of a {facts.many.name} as one element of {ext} [{{{fields}}}]"
        else:
            stored = f"store {facts.one.name} in each {facts.many.name} as {ext} {{{fields}}}"
        yield self.finding(
            "info" if plan.chosen_by == "user" else "suggestion",
            "relationship",
            facts.rel.id,
            f"{stored} so the page needs no "
            f"$lookup. Keep the copies in sync with one of the seed's strategies: application code that "
            f"updates all copies right after the original, a change stream on {facts.one.name} that applies "
            f"the update, or a scheduled job when a delay is acceptable (chosen: {syncs or 'none'}). Copy only "
            "fields that rarely change, and as few as possible.",
            numbers={
                "copied_fields": [cp.name for cp in copies],
                "lowest_read_write_ratio": None if worst is None else ("inf" if math.isinf(worst) else round(worst, 2)),
            },
            decision=strategy_decision(facts.rel.id),
            decided=True,
            why=self.why_for(facts),
        )


@register
class PointInTimeSnapshot(Rule):
    """A copy that must keep its value from the time it was made (price at order time) is never synced.

    *Why*
    The Manual's temporal duplicate data: an order must show the price and
    address of the moment it was placed, so the copy is correct precisely
    because it is never updated (CN seed: 下单时的价格, the price snapshot).

    *Anti-pattern*
    Syncing ``order.items.price`` when the catalog price changes, rewriting
    history.

    *Best practice*
    Copy at insert, never sync; read the current value from the source when
    it is needed.
    """

    id = "point-in-time-snapshot"
    explain = (
        "{A_many} must show the value its {one} had when the {many} was made, so the copy is correct precisely "
        "because it is never updated (Manual: temporal duplicate data)."
    )
    code = "DN16"
    family = "denormalization"
    severities = ("info",)
    sources = ("Manual-best-practices", "CN")
    tradeoff = "history stays correct; reports of the current value must read the source"

    relationships = (has_copies, True)

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        for plan, cp in _copies(view, facts, lambda _plan, cp: _point_in_time(cp)):
            yield self.finding(
                "info",
                "relationship",
                plan.facts.rel.id,
                f"{cp.source.name}.{cp.denorm.field} is copied into {cp.target.name} as a point-in-time value "
                "(staleness forever): copy it at insert and never sync it — this duplication is correct",
                numbers=_numbers(cp),
                why=self.why_for(plan.facts),
            )


@register
class NoDenormVolatile(Rule):
    """Do not copy a field that changes more often than it is read, or that may never be stale.

    *Why*
    Zola-3 rule 5: denormalization only pays off with a high read-to-write
    ratio. A copy updated more often than read multiplies writes; a copy
    that must never be stale needs a transaction or trigger on every update
    (Manual: handle duplicate data).

    *Anti-pattern*
    Copying ``part.qty`` (updated on every sale) into every product.

    *Best practice*
    Keep the field in its owner and join; if it must be duplicated, keep the
    copies consistent in a transaction.
    """

    id = "no-denorm-volatile"
    code = "DN17"
    family = "denormalization"
    severities = ("warning",)
    sources = ("Zola-3", "Manual-best-practices")
    tradeoff = "a join on read is cheaper here than the write fan-out"

    relationships = (has_copies, True)

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        s = view.settings
        plan = view.plan(facts.rel.id)
        for cp in plan.copies:
            if cp.implied or cp.denorm.staleness == "forever":
                continue
            volatile = cp.rw is not None and cp.rw < s.denorm_rw_warn
            strict = cp.denorm.staleness == "none" and cp.copies_per_update > 1 and cp.sync != "none"
            if not (volatile or strict):
                continue
            reason = (
                f"it is updated more often than read ({_rw_text(cp.rw)})"
                if volatile
                else f"it may never be stale and each update rewrites {cp.copies_per_update:,.0f} copies"
            )
            yield self.finding(
                "warning",
                "relationship",
                facts.rel.id,
                f"don't copy {cp.source.name}.{cp.denorm.field} into {cp.target.name}: {reason}; keep it in "
                f"{cp.source.name} and join, or keep the copies consistent in a transaction",
                fix=remove_copy(facts, cp),
                numbers=_numbers(cp),
                decision=copy_decision(view, facts, cp),
            )
