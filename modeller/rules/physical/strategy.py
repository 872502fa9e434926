"""The seeds' decision for one relationship: embed, reference, and which refinement.

Zola's questions in order: what is the cardinality; does the N side need to
stand alone; is the N side read together with the One; will the array grow
without bound. Then the refinements: a subset of the latest K (Zola-2
squillions -> one), buckets for time series (CN), an extended reference when
the N side shows fields of its One (ER-seed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from modeller.model.project import Entity
from modeller.rules.physical.facts import Context, RelFacts
from modeller.rules.physical.naming import plural_label

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


def bucket_wanted(ctx: Context, entity: Entity) -> bool:
    """A time series is grouped in buckets when a time series collection is not the answer.

    That is: the user asked for a bucket size (the CN seed's 60), the server
    is older than 5.0 (or unknown), or the data is not append-only.
    """
    ts = entity.timeseries
    if ts is None:
        return False
    return ts.bucket_size is not None or not ctx.version_known_at_least_5 or not entity.append_only


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


def recommend(ctx: Context, facts: RelFacts, elem_bytes: int) -> Recommendation:
    """The engine's strategy for ``facts`` whatever the user chose (rules 1-6, 14, 15, 19, 23)."""
    base = _base(ctx, facts, elem_bytes)
    base.base_reason = base.reason
    rec = _refine(ctx, facts, elem_bytes, base)
    rec.base_reason = base.reason
    return rec


def _refine(ctx: Context, facts: RelFacts, elem_bytes: int, base: Recommendation) -> Recommendation:
    rel = facts.rel
    # refinements on top of a reference strategy
    if base.strategy in ("parent-ref", "child-refs", "two-way", "embed") and not facts.self_ref:
        if bucket_wanted(ctx, facts.many) and base.strategy == "parent-ref":
            size = facts.many.timeseries.bucket_size if facts.many.timeseries else None
            size = size or 60
            return Recommendation(
                "bucket",
                [base.base_rule, "bucket-pattern"],
                f"{facts.many.name} is a time series: group {size} measurements per bucket document with "
                f"count/sum/min/max instead of one document per measurement (bucket pattern, CN seed); " + base.reason,
                "far fewer documents and index entries and pre-computed aggregates; writes become an upsert "
                "into the open bucket and ad-hoc queries on single readings need $unwind",
                {**base.numbers, "bucket_size": size},
                base.base_rule,
                base.strategy,
            )
        k = subset_size(ctx, facts, elem_bytes)
        if k is not None:
            squillions = facts.unbounded or rel.cardinality == "one-to-squillions"
            rule = "squillions-to-one-last-n" if squillions else "subset-pattern"
            return Recommendation(
                "subset",
                _unique([base.base_rule, rule, "subset-pattern"]),
                f"the {facts.one.name} page shows only the latest {k} of up to {_n(facts)} {facts.many.name}: keep "
                f"those {k} as copies in {facts.one.name} ($push with $each/$sort/$slice) and every "
                f"{facts.many.name} in its own collection with a reference to its {facts.one.name}",
                f"the {facts.one.name} renders with one read; every new {facts.many.name} costs two writes and "
                f"the {k} copies add about {k * elem_bytes} bytes to each {facts.one.name}",
                {**base.numbers, "show_latest": k, "subset_bytes": k * elem_bytes},
                base.base_rule,
                base.strategy,
            )
        if (
            base.strategy == "parent-ref"
            and rel.cardinality != "one-to-squillions"
            and any(d.direction == "one-to-many" for d in rel.denormalize)
        ):
            fields = ", ".join(d.field for d in rel.denormalize if d.direction == "one-to-many")
            return Recommendation(
                "extended-ref",
                [base.base_rule, "extended-reference"],
                f"each {facts.many.name} shows {fields} of its {facts.one.name}: store the reference as a "
                f"sub-document {{_id, {fields}}} (extended reference) so the page needs no $lookup",
                "removes the join from the hot path; the copied fields are duplicated and must be kept in sync "
                "(application code, change streams or a scheduled job) unless they are point-in-time values",
                base.numbers,
                base.base_rule,
                base.strategy,
            )
    return base


def _n(facts: RelFacts) -> str:
    return "an unbounded number of" if facts.unbounded and not facts.max_declared else f"{facts.n_max:,}"


def _base(ctx: Context, facts: RelFacts, elem_bytes: int) -> Recommendation:
    s = ctx.settings
    rel, one, many = facts.rel, facts.one, facts.many
    nums: dict[str, Any] = {
        "n_max": facts.n_max,
        "n_typical": facts.n_typ,
        "element_bytes": elem_bytes,
        "array_bytes": facts.n_max * elem_bytes,
        "read_together": facts.read_together,
    }
    if facts.self_ref:
        return Recommendation(
            "parent-ref",
            ["parent-ref-one-to-squillions"],
            f"{one.name} refers to itself (a tree): each node stores a reference to its parent; a document "
            "cannot embed itself",
            "children and parent are one indexed query each; ancestors and subtrees need $graphLookup",
            nums,
            "parent-ref-one-to-squillions",
            "parent-ref",
        )
    if rel.cardinality == "many-to-many":
        if facts.n_max > s.refarray_max:
            return Recommendation(
                "parent-ref",
                ["many-to-many-refs"],
                f"each {one.name} relates to up to {facts.n_max:,} {plural_label(many.name)}, more than the "
                f"{s.refarray_max:,} ids an array should hold (Zola-3: 'more than a few thousand'): keep the array "
                f"of references only in each {many.name} and query it by {one.name}",
                "both directions stay one indexed query; the large side never holds an array",
                nums,
                "many-to-many-refs",
                "parent-ref",
            )
        return Recommendation(
            "two-way",
            ["many-to-many-refs"],
            f"each {one.name} relates to many {many.name} and each {many.name} to many {one.name}: arrays of "
            f"references on both sides, each indexed, so either direction is one query",
            "both directions are one indexed query; changing a link updates two documents and is not atomic "
            "without a multi-document transaction",
            nums,
            "many-to-many-refs",
            "two-way",
        )
    if rel.cardinality == "one-to-one":
        if not facts.standalone and facts.read_together >= s.read_together_min:
            return Recommendation(
                "embed",
                ["embed-one-to-one"],
                f"one {one.name} has exactly one {many.name}, read together ({facts.read_together:.0%} of reads) "
                f"and never on its own: embed it as a sub-document (Zola-1: favor embedding)",
                f"one read and atomic updates; {many.name} cannot be listed on its own without scanning {one.name}",
                nums,
                "embed-one-to-one",
                "embed",
            )
        why = facts.standalone_reason or f"only {facts.read_together:.0%} of reads need both"
        return Recommendation(
            "parent-ref",
            ["embed-one-to-one", "no-embed-independent-access"],
            f"one-to-one, but {why}: keep {many.name} in its own collection with a reference to its {one.name}",
            "independent access and a smaller document vs. a second query when both are shown",
            nums,
            "no-embed-independent-access",
            "parent-ref",
        )
    if facts.unbounded or rel.cardinality == "one-to-squillions" or facts.n_max > s.refarray_max:
        what = "grows without bound" if facts.unbounded else f"reaches {facts.n_max:,} per {one.name}"
        return Recommendation(
            "parent-ref",
            ["parent-ref-one-to-squillions"],
            f"the number of {plural_label(many.name)} per {one.name} {what}: even an array of ObjectIds would outgrow the "
            f"16 MiB document (Zola-1 one-to-squillions); store a reference to the {one.name} in each "
            f"{many.name} and index it",
            f"{one.name} stays fixed-size; reading it with its {plural_label(many.name)} is a second, indexed query; counts "
            "and sums over them are not free (see computed-pattern)",
            nums,
            "parent-ref-one-to-squillions",
            "parent-ref",
        )
    if not facts.standalone and facts.read_together >= s.read_together_min and facts.n_max <= s.embed_max:
        borderline = facts.n_max > s.few_max
        extra = (
            f" ({facts.n_max} is between the CN seed's {s.few_max} and Zola's 'couple of hundred': borderline)"
            if borderline
            else ""
        )
        return Recommendation(
            "embed",
            ["embed-one-to-few"],
            f"each {one.name} has at most {facts.n_max} {plural_label(many.name)}, read together with it and never on their own: "
            f"embed them as an array of sub-documents with maxItems {facts.n_max} (Zola-1 one-to-few){extra}",
            "one read, atomic $push/$pull and no join; every $push rewrites the document and the embedded "
            f"{plural_label(many.name)} cannot be queried on their own",
            nums,
            "embed-one-to-few",
            "embed",
            borderline,
        )
    if facts.standalone:
        why = facts.standalone_reason
    elif facts.n_max > s.embed_max:
        why = f"up to {facts.n_max:,} {plural_label(many.name)} is more than 'a couple of hundred' (Zola-3)"
    else:
        why = f"only {facts.read_together:.0%} of {one.name} reads need them"
    if facts.many_needs_one or rel.inverse:
        role = rel.inverse or one.name
        return Recommendation(
            "two-way",
            ["many-to-many-refs", "child-refs-one-to-many"],
            f"{why}; and both directions are read ('the {plural_label(many.name)} of one {one.name}' and 'the {role} of one "
            f"{many.name}'): keep an array of {many.name} ids in {one.name} and a reference to the {one.name} in "
            f"each {many.name} (Zola-2 two-way referencing)",
            "both directions are one indexed query; reassigning one "
            f"{many.name} updates two documents and is not atomic without a multi-document transaction",
            nums,
            "many-to-many-refs",
            "two-way",
        )
    return Recommendation(
        "child-refs",
        ["child-refs-one-to-many"],
        f"{why}: keep {many.name} in its own collection and an array of their ids (at most {facts.n_max:,}) in "
        f"{one.name}; read them with an application-level join find({{_id: {{$in: ids}}}}) — don't fear it when "
        "the fields are indexed and projected (Zola-3)",
        f"{many.name} is addressable on its own and {one.name} stays small; a second query per read, and the "
        "array must be maintained on insert/delete",
        nums,
        "child-refs-one-to-many",
        "child-refs",
    )


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
