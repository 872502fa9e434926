"""Index rules (RULES.md 31-36): ESR order, hot queries, TTL, special indexes, hard limits, pipeline shape."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any

from modeller.model.project import Query
from modeller.model.wording import duration
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Finding, index_decision
from modeller.rules.framework.registry import register
from modeller.rules.framework.rule import Rule, append_index
from modeller.rules.framework.wording import keys_text
from modeller.rules.physical.design import CollectionDesign, IndexDesign
from modeller.rules.physical.esr import covers_fields, serves
from modeller.rules.physical.index_reasons import COMPOUND_QUERY, EXPIRY, QUERY, TEXT_OR_GEO, UNIQUE
from modeller.rules.physical.resolver import is_multikey, parallel_arrays


def _model_indexes(coll: CollectionDesign) -> list[IndexDesign]:
    """Indexes the model itself declares: the user's, and unique indexes from ``unique`` fields."""
    return [i for i in coll.indexes if i.origin == "user" or (i.unique and "special-index-types" in i.rules)]


def _query_index(view: RuleView, qid: str) -> tuple[CollectionDesign, IndexDesign, list[IndexDesign]] | None:
    """The collection and index serving a query, with the collection's model indexes."""
    loc = view.res.query_index.get(qid)
    if loc is None:
        return None
    coll = view.collection(loc[0])
    if coll is None:
        return None
    idx = next((i for i in coll.indexes if i.name == loc[1]), None)
    return None if idx is None else (coll, idx, _model_indexes(coll))


def _fix(view: RuleView, entity_id: str, idx: IndexDesign) -> Any:
    logical = view.logical_keys(entity_id, idx.keys)
    if logical is None:
        return None
    return append_index(
        entity_id,
        logical,
        f"add the index {keys_text(idx.keys)} to {view.facts.entities[entity_id].name}",
        collation=idx.collation,
    )


@register
class EsrCompoundIndex(Rule):
    """Order a compound index Equality, Sort, Range.

    *Why*
    Equality keys first narrow the scan to one contiguous range; the sort
    key next returns documents already ordered (no blocking in-memory sort,
    which fails beyond 100 MB); range keys last still filter inside that
    order (Manual ESR guideline, CN seed).

    *Anti-pattern*
    ``{created_at: -1, user_id: 1, amount: 1, status: 1}`` for
    ``find({user_id, status, amount: {$gte: 100}}).sort({created_at: -1})``.

    *Best practice*
    ``createIndex({user_id: 1, status: 1, created_at: -1, amount: 1})``.
    """

    id = "esr-compound-index"
    code = "IX31"
    family = "indexes"
    severities = ("info", "suggestion", "warning")
    sources = ("Manual-ESR", "CN")
    tradeoff = "one well-ordered index serves filter and sort; every extra index costs writes"
    index_claims = ((COMPOUND_QUERY, 0),)

    def check_query(self, view: RuleView, q: Query) -> Iterable[Finding]:
        plan = view.res.query_plans.get(q.id)
        if plan is None or plan.components < 2:
            return
        found = _query_index(view, q.id)
        if found is None:
            return
        coll, idx, declared = found
        if any(serves(d.keys, plan) for d in declared):
            return
        reasons = "; ".join(f"{k}: {r}" for (k, _), r in zip(idx.keys, idx.key_reasons, strict=False) if r)
        nums = {
            "keys": [[k, v] for k, v in idx.keys],
            "equality": plan.eq,
            "sort": [[k, d] for k, d in plan.sort],
            "range": plan.range,
        }
        wrong = next((d for d in declared if covers_fields(d.keys, plan)), None)
        if wrong is not None:
            yield self.finding(
                "warning",
                "query",
                q.id,
                f"index {keys_text(wrong.keys)} holds the fields of {view.query_words(q)} in the wrong order for the sort; use "
                f"{keys_text(idx.keys)} (Equality, Sort, Range): {reasons}",
                fix=_fix(view, q.entity, idx),
                numbers=nums,
                decision=index_decision(coll.name, idx.name),
            )
            return
        yield self.finding(
            "suggestion",
            "query",
            q.id,
            f"an index for {view.query_words(q)}: {keys_text(idx.keys)} on {coll.name} in Equality, Sort, Range order — {reasons}",
            fix=_fix(view, q.entity, idx),
            numbers=nums,
            decision=index_decision(coll.name, idx.name),
            decided=True,
        )


@register
class IndexHotQueries(Rule):
    """Every hot query needs an index whose prefix serves its filter and sort.

    *Why*
    A hot query without an index scans the collection on every call (Compass
    insight "query executed without index"; Manual: index commonly queried
    fields). A query counts as hot when its Hot path box is ticked or when it
    runs at least 10 times per second.

    *Anti-pattern*
    ``find({brand: "Apple"})`` fifty times a second with no index on brand.

    *Best practice*
    ``createIndex({brand: 1})``; with several keys, order them by ESR (rule
    esr-compound-index).
    """

    id = "index-hot-queries"
    code = "IX32"
    family = "indexes"
    # suggestion, not warning: the design (and the exported script) already
    # creates the index; the finding asks to declare it so it is kept on purpose
    severities = ("suggestion",)
    sources = ("Manual-best-practices", "Compass")
    tradeoff = "read latency vs. write cost and RAM (each index is at least 8 kB)"
    index_claims = ((QUERY, 0),)

    def check_query(self, view: RuleView, q: Query) -> Iterable[Finding]:
        # hot: the Hot path box, or Settings.hot_per_sec; the message calls the first a "hot-path query" and the
        # second a "frequent query", so it never calls a query hot whose box is unticked
        plan = view.res.query_plans.get(q.id)
        if plan is None or not view.facts.is_hot(q) or plan.components != 1 or plan.only_id:
            return
        found = _query_index(view, q.id)
        if found is None:
            return
        coll, idx, declared = found
        if any(serves(d.keys, plan) for d in declared):
            return
        yield self.finding(
            "suggestion",
            "query",
            q.id,
            f"{view.busy_query_words(q)} needs {keys_text(idx.keys)} on {coll.name}: the design "
            "creates it; declare it in the model so it stays when the design changes",
            fix=_fix(view, q.entity, idx),
            numbers={"per_sec": q.per_sec, "keys": [[k, v] for k, v in idx.keys]},
            decision=index_decision(coll.name, idx.name),
            decided=True,
        )


@register
class TtlRetentionIndex(Rule):
    """Data kept only for a retention period expires through a single-field TTL index.

    *Why*
    A TTL index deletes expired documents in the background (about every
    60 s) instead of a cleanup job; time series collections take
    ``expireAfterSeconds`` on the collection.

    *Anti-pattern*
    A nightly ``deleteMany({time: {$lt: cutoff}})`` job, or a compound TTL
    index (the server refuses it).

    *Best practice*
    ``createIndex({time: 1}, {expireAfterSeconds: 2592000})``.
    """

    id = "ttl-retention-index"
    code = "IX33"
    family = "indexes"
    severities = ("info", "suggestion")
    sources = ("Manual-TTL", "Manual-best-practices", "CN")
    tradeoff = "automatic cleanup vs. delete load and no history (archive instead when history matters)"
    index_claims = ((EXPIRY, 0),)

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        if coll.timeseries is not None and "expireAfterSeconds" in coll.timeseries:
            yield self.finding(
                "info",
                "entity",
                coll.root,
                f"{coll.name} expires measurements after {duration(coll.timeseries['expireAfterSeconds'])} "
                "through the time series collection's expireAfterSeconds",
                numbers={"expire_after_s": coll.timeseries["expireAfterSeconds"]},
            )
        for idx in coll.indexes:
            if idx.expire_after_s is None or idx.origin == "user":
                continue
            yield self.finding(
                "suggestion",
                "entity",
                coll.root,
                f"TTL index {keys_text(idx.keys)} with expireAfterSeconds {idx.expire_after_s} "
                f"({duration(idx.expire_after_s)}) on "
                f"{coll.name}: {idx.why}",
                numbers={"expire_after_s": idx.expire_after_s},
                decision=index_decision(coll.name, idx.name),
                decided=True,
            )
        for idx in coll.indexes:
            if idx.expire_after_s is not None and len(idx.keys) > 1:
                yield self.finding(
                    "error",
                    "entity",
                    coll.root,
                    f"TTL index {keys_text(idx.keys)} has {len(idx.keys)} keys: TTL indexes must "
                    "be single-field, the server refuses compound TTL specs",
                )


@register
class SpecialIndexTypes(Rule):
    """Use the special index a predicate needs: text, 2dsphere, case-insensitive collation, partial.

    *Why*
    Keyword search, geospatial predicates and case-insensitive matches cannot
    use a plain B-tree index efficiently; a query always restricted to one
    subtype can use a smaller partial index (CN: index types; Manual partial
    indexes).

    *Anti-pattern*
    ``find({name: /^smith$/i})`` on a plain index; ``$near`` without a
    2dsphere index.

    *Best practice*
    ``createIndex({title: "text"})``, ``createIndex({location: "2dsphere"})``,
    ``createIndex({name: 1}, {collation: {locale: "en", strength: 2}})``,
    ``createIndex({"specs.ram": 1}, {partialFilterExpression: {type: "phone"}})``.
    """

    id = "special-index-types"
    code = "IX34"
    family = "indexes"
    severities = ("info", "suggestion")
    sources = ("CN", "Manual-partial", "Manual-keyword", "Manual-limits")
    tradeoff = "smaller or special-purpose indexes only serve queries whose predicates match their definition"
    index_claims = ((UNIQUE, 0), (TEXT_OR_GEO, 0))

    def check_query(self, view: RuleView, q: Query) -> Iterable[Finding]:
        plan = view.res.query_plans.get(q.id)
        if plan is None:
            return
        for path in plan.text:
            yield self.finding(
                "suggestion",
                "query",
                q.id,
                f"{view.query_words(q)} searches text in {path}: a text index {{{path}: 'text'}} (one per "
                "collection; Atlas Search for relevance or fuzzy matching)",
            )
        for path in plan.geo:
            yield self.finding(
                "suggestion",
                "query",
                q.id,
                f"{view.query_words(q)} has a geospatial predicate on {path}: a 2dsphere index on GeoJSON points",
            )
        if plan.collation is not None:
            yield self.finding(
                "suggestion",
                "query",
                q.id,
                f"{view.query_words(q)} matches case-insensitively: use an index with collation "
                f"{plan.collation} and run the query with the same collation (not /x/i)",
            )
        entity = view.facts.entities[q.entity]
        if entity.subtypes is None:
            return
        disc = entity.subtypes.discriminator
        if q.filter.get(disc) != "eq":
            return
        variant_paths = [p for p in q.filter if p != disc and _variant_only(entity, p)]
        if variant_paths:
            yield self.finding(
                "info",
                "query",
                q.id,
                f"{view.query_words(q)} always filters one {disc}; {', '.join(variant_paths)} exist only in some variants: a "
                f"partial index on {', '.join(variant_paths)} with partialFilterExpression {{{disc}: <value>}} "
                "is a smaller alternative to the compound index",
            )


_second = operator.itemgetter(1)


def _variant_only(entity: Any, path: str) -> bool:
    head = path.split(".")[0]
    if any(f.name == head for f in entity.fields):
        return False
    return any(any(f.name == head for f in fields) for fields in entity.subtypes.variants.values())


@register
class IndexHardLimits(Rule):
    """Indexes the server refuses: over 64 per collection, over 32 keys, parallel arrays, two text indexes.

    *Why*
    These are hard limits (Manual limits, multikey indexes): ``createIndex``
    or the insert fails.

    *Anti-pattern*
    ``createIndex({tags: 1, categories: 1})`` where both fields are arrays;
    a 65th index.

    *Best practice*
    Fewer compound indexes, one array per compound index (move the other
    array to its own collection), one text index covering several fields.
    """

    id = "index-hard-limits"
    code = "IX35"
    family = "indexes"
    severities = ("error",)
    sources = ("Manual-limits", "Manual-multikey")
    tradeoff = "none: the server rejects the index or the insert"

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        s = view.settings
        arrays = view.res.array_paths.get(coll.name, set())
        total = len(coll.indexes) + 1
        if total > s.max_indexes:
            yield self.finding(
                "error",
                "entity",
                coll.root,
                f"{coll.name} would have {total} indexes (with _id); MongoDB allows {s.max_indexes}",
                numbers={"indexes": total},
            )
        texts = [i for i in coll.indexes if "text" in map(_second, i.keys)]
        if len(texts) > 1:
            yield self.finding(
                "error",
                "entity",
                coll.root,
                f"{coll.name} has {len(texts)} text indexes; a collection can have one — combine "
                "the fields into one text index",
            )
        for idx in coll.indexes:
            if len(idx.keys) > s.max_compound_fields:
                yield self.finding(
                    "error",
                    "entity",
                    coll.root,
                    f"index {keys_text(idx.keys)} has {len(idx.keys)} keys; a compound index holds at most "
                    f"{s.max_compound_fields}",
                    numbers={"keys": len(idx.keys)},
                )
            if not arrays:
                continue  # nothing in these documents is an array: no multikey limit applies
            # a top-level key is multikey when it is an array itself (no prefix to look at)
            multikey = [k for k, _ in idx.keys if (k in arrays if "." not in k else is_multikey(k, arrays))]
            # parallel arrays need two multikey keys at least
            if len(multikey) > 1 and parallel_arrays([k for k, _ in idx.keys], arrays):
                yield self.finding(
                    "error",
                    "entity",
                    coll.root,
                    f"index {keys_text(idx.keys)} on {coll.name} indexes {', '.join(multikey)}, which are all "
                    "arrays: MongoDB cannot index parallel arrays in one compound index",
                )
            if multikey and any(v == "hashed" for _, v in idx.keys):
                yield self.finding(
                    "error",
                    "entity",
                    coll.root,
                    f"hashed index {keys_text(idx.keys)} covers the array {multikey[0]}: hashed indexes cannot be multikey",
                )
        for key in coll.shard_key or []:
            if is_multikey(key, arrays):
                yield self.finding(
                    "error",
                    "entity",
                    coll.root,
                    f"shard key field {key} of {coll.name} is an array: a shard key index cannot be multikey",
                )


@register
class AggregationPipelineShape(Rule):
    """An aggregation starts with an indexed ``$match``/``$sort``, joins on indexed fields and fits 100 MB a stage.

    *Why*
    A pipeline uses an index only in its first stages: a ``$match`` or
    ``$sort`` on a field that exists only after a ``$lookup`` runs over every
    document. Each stage may use 100 MB of memory unless it spills to disk,
    a ``$lookup`` without an index on its ``foreignField`` scans the other
    collection once per input document, and a joined array counts toward
    the 16 MiB of its output document (CN aggregation tips,
    Manual-agg-limits).

    *Anti-pattern*
    ``[{$lookup: {from: "users", ...}}, {$match: {"user.country": "FR"}},
    {$sort: {"user.name": 1}}]`` over every order.

    *Best practice*
    ``$match`` and ``$sort`` first on indexed fields of the collection read
    (copy the joined field with an extended reference when it filters or
    sorts), ``$project`` early, ``createIndex({<foreignField>: 1})``, and
    ``{allowDiskUse: true}`` for stages that may pass 100 MB.
    """

    id = "aggregation-pipeline-shape"
    code = "IX36"
    family = "indexes"
    severities = ("suggestion", "warning")
    sources = ("CN", "Manual-agg-limits")
    tradeoff = (
        "an early $match/$project changes cost, not results; spilling to disk avoids errors but is slower than "
        "fitting in memory; copying a joined field duplicates it"
    )

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """A pipeline reads other collections than its query's own: it is checked once the whole design exists."""
        s = view.settings
        for plan in view.design.queries:
            lookups = plan.lookups
            if not lookups:
                continue
            main = plan.steps[0]
            if plan.unresolved:
                yield self.finding(
                    "suggestion",
                    "query",
                    plan.id,
                    f"{view.query_words(plan.id)} filters or sorts on {', '.join(plan.unresolved)}, which {main.collection} does not "
                    "hold: that $match/$sort can only come after the $lookup and runs over every joined document; "
                    "copy the field into the documents read (extended reference) so $match and $sort come first "
                    "and use an index",
                    numbers={"fields": list(plan.unresolved)},
                )
            for step in lookups:
                coll = view.collections.get(step.collection)
                if coll is None:
                    continue
                if step.index is None and step.foreign_field is not None:
                    yield self.finding(
                        "suggestion",
                        "query",
                        plan.id,
                        f"the $lookup of {view.query_words(plan.id)} into {step.collection} matches {step.foreign_field}, which no "
                        f"index starts with: each input document scans {step.collection}; index "
                        f"({step.foreign_field} 1)",
                        numbers={"collection": step.collection, "foreign_field": step.foreign_field},
                    )
                stage_bytes = step.docs_returned * coll.avg_bytes
                if stage_bytes > s.agg_stage_max_bytes:
                    yield self.finding(
                        "warning",
                        "query",
                        plan.id,
                        f"the $lookup of {view.query_words(plan.id)} brings about {step.docs_returned:,} {step.collection} documents "
                        f"(~{stage_bytes / 1_048_576:,.0f} MB) into the pipeline, over the "
                        f"{s.agg_stage_max_bytes / 1_048_576:,.0f} MB a stage may use in memory: $match and $limit "
                        "before the $lookup, $project only the fields shown, and run it with allowDiskUse: true",
                        numbers={"stage_bytes": stage_bytes, "limit_bytes": s.agg_stage_max_bytes},
                        sources=("Manual-agg-limits", "CN"),
                    )
