"""Schema design patterns (RULES.md 18-30): the seeds' patterns and the rest of Building with Patterns."""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable
from itertools import compress
from typing import Any

from modeller.model.project import Entity, Query
from modeller.model.wording import with_article
from modeller.rules.catalog.denormalization import BUCKET, OUTLIER, SUBSET, SquillionsToOneLastN, subset_vote
from modeller.rules.catalog.overlap import Crowd, OverlapGroup, OverlapIndex, Token
from modeller.rules.catalog.shape import TREE_MODEL, outlier_fix, refinement_rule
from modeller.rules.catalog.traits import (
    APPENDED_ON_5,
    ARCHIVED,
    ATTRIBUTE_GROUPS,
    COUNTER,
    HISTORY,
    SCHEMA_CHANGE,
    collection_traits,
)
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Change, Finding, Fix, SubjectRef, strategy_decision
from modeller.rules.framework.registry import register
from modeller.rules.framework.rule import (
    Rule,
    has_aggregates,
    outlier_bounded,
    recommended_of,
    set_strategy,
    strategy_of,
    tree_with_operations,
)
from modeller.rules.framework.wording import and_list as _and
from modeller.rules.framework.wording import keys_text
from modeller.rules.physical.design import CollectionDesign
from modeller.rules.physical.facts import RelFacts, insert_rate
from modeller.rules.physical.index_reasons import ARCHIVE, ATTRIBUTE, BUCKET_SERIES, OVERFLOW, REVISIONS, TREE
from modeller.rules.physical.naming import (
    child_refs_field,
    collection_name,
    embed_field,
    parent_ref_field,
    plural_label,
    snake,
)
from modeller.rules.physical.strategy import (
    StrategyView,
    Vote,
    bucket_wanted,
    paged_stream_read,
    small_stream,
    stream_time_field,
)
from modeller.rules.physical.trees import CHILD_REFS, PARENT_REFS, TreeModel, choose_tree_model_name, tree_model
from modeller.rules.settings import Settings

#: seconds in a (365-day) year: revisions per document per year
SECONDS_PER_YEAR = 365 * 86_400


@register
class AttributePattern(Rule):
    """Turn a group of similar fields that queries filter or sort on into an array of ``{k, v}`` pairs.

    *Why*
    A movie with ``release_US``, ``release_France``, ... needs one index per
    field for "released in any country after a date"; every new country is a
    new field and a new index. As an array of key/value sub-documents, one
    compound index serves every key (BwP-attribute), and fields present in
    only some documents no longer widen the schema.

    *Anti-pattern*
    Twelve ``release_<country>`` date fields, each with its own single-field
    index, and the engine's "more than 10 indexes" note with no remedy.

    *Best practice*
    ``releases: [{k: "USA", v: ISODate(...)}, ...]`` with
    ``createIndex({"releases.k": 1, "releases.v": 1})`` and queries
    ``find({releases: {$elemMatch: {k: "USA", v: {$gte: d}}}})``.
    """

    id = "attribute-pattern"
    collections = (collection_traits, ATTRIBUTE_GROUPS)
    code = "PT18"
    family = "patterns"
    severities = ("suggestion",)
    sources = ("BwP-attribute", "Skills")
    tradeoff = (
        "one index instead of one per field, and new keys need no schema change; queries become $elemMatch on "
        "k/v, and Atlas Search cannot map k/v pairs as named fields"
    )
    index_claims = ((ATTRIBUTE, 0),)

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        entity = view.facts.entities[coll.root]
        groups = view.facts.attribute_groups(entity)
        if not groups:
            return
        queries = view.facts.queries_of[entity.id]
        for group in groups:
            names = set(group.names)
            asking_ids = [q for q in queries if names.intersection([*q.filter, *(k for k, _ in q.sort)])]
            asking = [view.query_words(q) for q in asking_ids]
            if not asking:
                continue
            queried = sorted({n for q in queries for n in (*q.filter, *(k for k, _ in q.sort)) if n in names})
            arr = group.array
            keys = [(f"{arr}.k", 1), (f"{arr}.v", 1)]
            applied = any(n.attribute and n.name == arr for n in coll.shape)
            shown = ", ".join(group.names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
            how = "stored" if applied else "store them"
            yield self.finding(
                "suggestion",
                "entity",
                entity.id,
                f"{entity.name} has {len(names)} {group.type} fields that differ only by a key ({shown}) and "
                f"{_and(asking)} filter or sort on them: {how} as {arr}: [{{k, v}}] (k = "
                f"{', '.join(repr(k) for _, k in group.members[:3])}, ...) with one index ({arr}.k 1, {arr}.v 1) "
                f"instead of one index per queried field ({len(queried)}: {', '.join(queried)}); queries match one "
                f"pair with {{{arr}: {{$elemMatch: {{k: ..., v: ...}}}}}}"
                + (
                    ""
                    if applied
                    else f" (first rename the field {arr} and drop the indexes and unique flags of "
                    "the fields: the array needs that name, and an index on one pair would apply to every key)"
                ),
                numbers={
                    "fields": group.names,
                    "array": arr,
                    "index": [[k, v] for k, v in keys],
                    "indexes_replaced": len(queried),
                    "queries": [q.id for q in asking_ids],
                    "applied": applied,
                },
                decided=applied,  # the design already keeps the pairs
            )


@register
class BucketPattern(Rule):
    """Group a time series into bucket documents with a count and pre-computed sum/min/max.

    *Why*
    CN seed: one document per sensor reading means billions of tiny documents
    and index entries; a bucket of 60 readings per sensor with count, sum,
    min and max serves dashboards from a handful of documents. A stream not
    yet declared a time series (a one-to-squillions of small, never-updated N
    that a query reads by ranges or pages of a time field per One) gets this
    advice too, with a fix that declares its time field.

    *Anti-pattern*
    ``insertOne({sensor_id, timestamp, value})`` per reading, aggregated on
    every dashboard refresh.

    *Best practice*
    ``updateOne({sensor_id, count: {$lt: 60}}, {$push: {readings: r}, $inc:
    {count: 1, sum: v}, $min: {min: v}, $max: {max: v}, $setOnInsert: {start:
    t}}, {upsert: true})`` and ``createIndex({sensor_id: 1, start: -1})``.
    """

    id = "bucket-pattern"
    explain = (
        "one document per {entity} measurement means billions of tiny documents and index entries; a bucket of "
        "measurements per series with count, sum, min and max serves dashboards from a handful of documents "
        "(bucket pattern, CN seed)."
    )
    code = "PT19"
    family = "patterns"
    severities = ("suggestion",)
    sources = ("Manual-bucket", "BwP-bucket", "CN")
    tradeoff = (
        "far fewer documents and index entries, pre-computed aggregates; writes become an upsert and "
        "ad-hoc queries on single measurements need $unwind"
    )
    decides = "refinement"
    precedence = BUCKET
    index_claims = ((BUCKET_SERIES, 0),)

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        """A time series kept by parent reference is grouped in buckets (when no time series collection fits)."""
        base, many = view.base, facts.many
        if base is None or base.strategy != "parent-ref" or facts.self_ref:
            return None
        if not bucket_wanted(view.ctx, many):
            paged = paged_stream_read(view.ctx, facts, view.elem_bytes)
            if paged is None:
                return None
            one = facts.one
            return self.vote(
                "bucket",
                f"query {paged.query!r} reads the {plural_label(many.name)} of one {one.name} "
                f"{paged.limit} at a time by {paged.time_field}: group them {paged.limit} per bucket document, one "
                f"page per read (bucket pattern, Manual-bucket: 10 trades per page); " + base.reason,
                f"a page is one document and one index entry instead of {paged.limit}; every new {many.name} is an "
                "upsert into the open bucket, and a query on single items needs $unwind",
                numbers={"bucket_size": paged.limit, "bucket_time_field": paged.time_field, "paged_query": paged.query},
            )
        size = (many.timeseries.bucket_size if many.timeseries else None) or 60
        return self.vote(
            "bucket",
            f"{many.name} is a time series: group {size} measurements per bucket document with "
            f"count/sum/min/max instead of one document per measurement (bucket pattern, CN seed); " + base.reason,
            "far fewer documents and index entries and pre-computed aggregates; writes become an upsert "
            "into the open bucket and ad-hoc queries on single readings need $unwind",
            numbers={"bucket_size": size},
        )

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        b = coll.bucket
        if b is None:
            stream = undeclared_stream(view, coll)
            if stream is not None and not _series_collection_fits(view, stream.many):
                yield stream_finding(self, view, stream)
            return
        entity = view.facts.entities[coll.root]
        v = b.value_field
        stats = "count" + (f", sum, min and max of {v}" if v else "")
        upsert = (
            f"one upsert (updateOne with upsert: true) into {coll.name} that matches the open bucket of the series "
            f"({b.series_field}, fewer than {b.size} items), pushes the measurement into {b.items_field}, "
            f"$inc-s {stats}, sets {b.start_field} on insert and {b.end_field} to its time"
        )
        docs = entity.count
        # the relationship refined to bucket: this finding reports that strategy decision
        series = next(
            (f.rel.id for f in view.facts.rels_of_many.get(entity.id, ()) if view.plan(f.rel.id).strategy == "bucket"),
            None,
        )
        yield self.finding(
            "suggestion",
            "entity",
            entity.id,
            f"store {entity.name} in buckets of {b.size} per {b.series_field} with count"
            f"{', sum, min, max of ' + v if v else ''}: insert with {upsert}; index "
            f"({b.series_field} 1, {b.start_field} -1)",
            numbers={
                "bucket_size": b.size,
                "documents_without_buckets": docs,
                "documents_with_buckets": None if docs is None else -(-docs // b.size),
            },
            decision=None if series is None else strategy_decision(series),
            decided=True,
            why=self.why_for(entity=entity.name),
        )


@register
class TimeSeriesCollection(Rule):
    """On MongoDB 5.0+, an append-only time series can use a native time series collection.

    *Why*
    Time series collections apply the bucket pattern inside the server, with
    columnar compression and automatic expiry; ``granularity`` should match
    the interval between two measurements of one source.

    *Anti-pattern*
    A hand-made bucket scheme on a 7.0 server with no need for custom bucket
    documents (UI pages, pre-aggregates).

    *Best practice*
    ``db.createCollection("weather", {timeseries: {timeField: "ts",
    metaField: "sensor_id", granularity: "minutes"}, expireAfterSeconds})``.
    """

    id = "time-series-collection"
    collections = (collection_traits, APPENDED_ON_5)
    code = "PT20"
    family = "patterns"
    severities = ("info", "suggestion")
    sources = ("Manual-TS-best-practices", "Manual-TS-granularity", "Manual-bucket")
    tradeoff = "automatic bucketing and compression vs. restricted updates/deletes and a sparse metaField"

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        if not view.facts.version_known_at_least_5:
            return
        entity = view.facts.entities[coll.root]
        ts = entity.timeseries
        if ts is None and entity.append_only and coll.bucket is None:
            stream = undeclared_stream(view, coll)
            if stream is not None:
                yield stream_finding(self, view, stream)
        if ts is None or not entity.append_only:
            return
        if coll.timeseries is not None:
            yield self.finding(
                "suggestion",
                "entity",
                entity.id,
                f"create {coll.name} as a time series collection ("
                + ", ".join(f"{k} {v!r}" for k, v in coll.timeseries.items())
                + f") — the server "
                f"buckets {entity.name} by {coll.timeseries.get('metaField', 'series')} itself",
                numbers={"granularity": coll.timeseries["granularity"], "interval_s": ts.interval_s},
            )
        elif coll.bucket is not None:
            gran = "seconds" if (ts.interval_s or 0) < 60 else ("minutes" if (ts.interval_s or 0) < 3600 else "hours")
            yield self.finding(
                "info",
                "entity",
                entity.id,
                f"alternative on MongoDB {view.project.server_version}: a time series collection "
                f"(timeField {ts.time_field!r}, metaField {coll.bucket.series_field!r}, granularity {gran!r}) "
                f"buckets and compresses {entity.name} in the server; the hand-made buckets of "
                f"{coll.bucket.size} are kept because the model asks for them (bucket_size, pre-computed "
                "count/sum/min/max)",
                numbers={"granularity": gran, "interval_s": ts.interval_s},
            )


def undeclared_stream(view: RuleView, coll: CollectionDesign) -> RelFacts | None:
    """The first relationship that makes ``coll`` an undeclared event stream, else None (RULES.md rule 19's stream).

    A one-to-squillions stream of small, never-updated N per One, kept by parent reference, that a query reads by
    ranges or pages of a date (or monotonic) field per One: the bucket or time series advice applies, but only
    once the user declares the time series (the time field, the retention are theirs to say).
    """
    entity = view.facts.entities.get(coll.root)
    if entity is None or entity.timeseries is not None or entity.archive is not None:
        return None  # (an archive: the user said how old data leaves, and a time series collection restricts deletes)
    for facts in view.facts.rels_of_many.get(entity.id, ()):
        plan = view.res.plans.get(facts.rel.id)
        if plan is None or plan.strategy != "parent-ref" or not small_stream(view.facts, facts, plan.elem_bytes):
            continue
        if any(_range_read(view, facts, q) for q in view.facts.queries_of[entity.id]):
            return facts
    return None


def _range_read(view: RuleView, facts: RelFacts, query: Query) -> str | None:
    """The time field of a read of one One's stream by a range of it or by pages; a long "latest 5,000" list of a
    host's log lines is neither (Zola-1: they stay one document each)."""
    name = stream_time_field(view.facts, facts, query)
    if name is None:
        return None
    paged = query.limit is not None and query.limit <= view.settings.bucket_page_max
    return name if paged or query.filter.get(name) == "range" else None


def _series_collection_fits(view: RuleView, many: Entity) -> bool:
    """Rule 20 rather than 19: an append-only stream on a server known to be 5.0 or later."""
    return view.facts.version_known_at_least_5 and many.append_only


def stream_finding(rule: Rule, view: RuleView, facts: RelFacts) -> Finding:
    """Tell the user their N look like an event stream and what to declare: the time field, then a retention."""
    many, one = facts.many, facts.one
    ctx = view.facts
    reads = [(q, t) for q in ctx.queries_of[many.id] if (t := _range_read(view, facts, q)) is not None]
    query, time_field = reads[0]
    manys = plural_label(many.name)
    how = f"{query.limit:,} at a time by {time_field!r}" if query.limit else f"by ranges of {time_field!r}"
    rate = insert_rate(facts)
    # a bound the user did not declare is the engine's default: not theirs to read as "up to"
    many_per = (
        f"up to {facts.n_max:,}"
        if facts.max_declared
        else ("without bound" if facts.unbounded else f"about {facts.n_typ:,}")
    )
    written = f"about {rate:,g} new a second, " if rate else ""
    if _series_collection_fits(view, many):
        outcome = (
            f"on MongoDB {view.project.server_version} the design then makes {snake(many.name)} a time series "
            f"collection that the server buckets and compresses per {one.name}"
        )
        why = None  # the rule's own: the server applies the bucket pattern itself
    else:
        outcome = f"the design then groups them per {one.name} in bucket documents with a count" + (
            " (with the server version set to 5.0 or later: a time series collection instead)"
            if ctx.server_version is None
            else ""
        )
        why = rule.why_for(entity=many.name)
    return rule.finding(
        "suggestion",
        "entity",
        many.id,
        f"{many.name} looks like an event stream ({written}{many_per} per {one.name}, small and never "
        f"updated) that {view.query_words(query)} reads {how} per {one.name}: mark it as a time "
        f"series with time field {time_field!r}, and {outcome}; then set a retention if old {manys} can be deleted",
        why=why,
        fix=Fix(
            f"mark {many.name} as a time series with time field {time_field!r}",
            (Change("set", SubjectRef("entity", many.id), "timeseries", {"time_field": time_field}),),
        ),
        numbers={"time_field": time_field, "queries": [query.id], "per_one": facts.n_max}
        | ({} if rate is None else {"writes_per_sec": rate}),
    )


@register
class ComputedPattern(Rule):
    """Store a value summarizing many documents (count, sum, average) where it is read, updated on write.

    *Why*
    The product page shows the average rating and the number of reviews on
    every view while reviews arrive rarely: computing on write (``$inc``)
    divides the work by the read/write ratio (BwP-computed: 1,000,000
    reads/h vs 1,000 writes/h; CN: rating statistics).

    *Anti-pattern*
    ``aggregate([{$match: {product_id}}, {$group: {avg: {$avg: "$stars"}}}])``
    on every product page view.

    *Best practice*
    ``product.rating: {count, sum, avg}`` maintained with ``$inc: {"rating.count":
    1, "rating.sum": stars}`` and ``avg`` recomputed in a pipeline update.
    """

    id = "computed-pattern"
    explain = (
        "reads of {a_one} show values summarizing its {manys}, which are written far less often: computing on write "
        "($inc) divides the work by the read/write ratio (BwP-computed: 1,000,000 reads/h vs 1,000 writes/h)."
    )
    code = "PT21"
    family = "patterns"
    severities = ("suggestion",)
    sources = ("BwP-computed", "CN")
    tradeoff = "fast, predictable reads vs. extra work on every write and possible staleness in periodic mode"
    relationships = (has_aggregates, True)

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        if not facts.rel.aggregates:
            return
        coll = view.collection_of(facts.one.id)
        nodes = [n for n in (coll.shape if coll else []) if n.role == "computed" and n.relationship == facts.rel.id]
        paths = []
        incs = []
        for n in nodes:
            children = n.children or [n]
            for c in children:
                path = f"{n.name}.{c.name}" if n.children else n.name
                paths.append(path)
                if c.computation and c.computation.op == "count":
                    incs.append(f"{path} by 1")
                elif c.computation and c.computation.op == "sum":
                    incs.append(f"{path} by the new {facts.many.name}'s {c.computation.field}")
        if not paths:
            return  # the design keeps no computed value for this relationship (e.g. a single collection)
        reads = facts.one.reads_per_sec
        writes = facts.many.writes_per_sec
        ratio = None if not reads or not writes else reads / writes
        update = (
            f"one updateOne on {coll.name if coll else facts.one.name} by _id that $inc-s {', '.join(incs)}"
            if incs
            else ""
        )
        yield self.finding(
            "suggestion",
            "relationship",
            facts.rel.id,
            f"keep {', '.join(paths)} in {facts.one.name}, computed from {facts.many.name} on write"
            + (f" ({update}; averages recomputed from sum/count in a pipeline update)" if update else "")
            + (
                f": {facts.one.name} is read {ratio:,.0f}x more often than {facts.many.name} is written"
                if ratio
                else ""
            ),
            numbers={"read_write_ratio": None if ratio is None else round(ratio, 1), "fields": paths},
            why=self.why_for(facts),
            decided=True,  # the design already keeps these computed values
        )


@register
class ApproximationPattern(Rule):
    """Write a hot counter that need not be exact only every N events.

    *Why*
    A page-view or popularity counter ``$inc``-ed on every event turns a
    read-mostly document into a write hot spot, and rewrites every index
    entry the counter is part of. When nobody needs the exact value, writing
    it once per 100 events (BwP-approximation: "update by 100, 1% of the
    time") removes 99 % of those writes.

    *Anti-pattern*
    ``updateOne({_id}, {$inc: {popularity: 1}})`` 5,000 times a second on a
    product indexed ``{category: 1, popularity: -1}``.

    *Best practice*
    ``if (Math.random() < 1/100) db.products.updateOne({_id}, {$inc:
    {popularity: 100}})``, or an in-application counter flushed every 100
    events; mark the field ``exact`` when it must not lag.
    """

    id = "approximation-pattern"
    collections = (collection_traits, COUNTER)
    code = "PT22"
    family = "patterns"
    severities = ("suggestion", "warning")
    sources = ("BwP-approximation", "Manual-approximation", "Skills")
    tradeoff = (
        "about 100x fewer writes vs. a value that lags by up to one step; an in-memory counter is lost when the "
        "application restarts"
    )

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        s = view.settings
        step = s.approximation_step
        for eid in coll.entities:
            entity = view.facts.entities[eid]
            for path, f in view.facts.fields_of[eid].items():
                rate = f.updates_per_sec or 0
                if not f.counter or f.exact or rate < s.approximation_updates_per_sec:
                    continue
                physical = view.res.resolve_path(eid, path) or path
                indexed = [keys_text(i.keys) for i in coll.indexes if any(k == physical for k, _ in i.keys)]
                big = coll.max_bytes >= s.doc_info_bytes
                after = rate / step
                reasons = []
                if indexed:
                    reasons.append(f"each $inc also rewrites the entries of index {', '.join(indexed)}")
                if big:
                    reasons.append(f"each write touches a document of up to {coll.max_bytes:,} bytes")
                yield self.finding(
                    "warning" if reasons else "suggestion",
                    "field",
                    f"{eid}.{path}",
                    f"{entity.name}.{path} is a counter incremented {rate:,g} times a second and need not be exact: "
                    f"write it once every {step} events ($inc by {step} with probability 1/{step}, or an "
                    f"application counter flushed every {step}): {after:,.4g} writes a second instead of "
                    f"{rate:,g} ({1 - 1 / step:.0%} fewer), the value lagging by at most {step}"
                    + (f"; {'; '.join(reasons)}" if reasons else ""),
                    numbers={
                        "updates_per_sec": rate,
                        "step": step,
                        "writes_per_sec_after": after,
                        "write_reduction": round(1 - 1 / step, 4),
                        "indexes": indexed,
                    },
                    decided=True,  # the design writes the counter every ``step`` events
                )


@register
class SubsetPattern(Rule):
    """When a page shows only the latest or top K of many related documents, keep just those K in the One.

    *Why*
    The product page shows 10 reviews out of thousands; keeping all of them
    embedded bloats every product read (working set), keeping none needs a
    second query. A bounded subset with the full set in its own collection
    gives one read for the page.

    *Anti-pattern*
    All reviews embedded in the product, or the product page always querying
    the reviews collection.

    *Best practice*
    ``products.recent_reviews`` with ``$push: {$each, $sort, $slice: -10}``
    and ``reviews.product_id`` indexed for "see all".
    """

    id = "subset-pattern"
    explain = (
        "the {one} page shows only a few of many {manys}: keeping all of them in the {one} bloats every read "
        "(working set), keeping none needs a second query; a bounded subset with the full set in its own "
        "collection gives one read for the page (subset pattern)."
    )
    code = "PT23"
    family = "patterns"
    severities = ("info", "suggestion")
    sources = ("Manual-subset", "BwP-subset", "Manual-duplicate")
    tradeoff = "smaller working set and a single-query page vs. two collections and duplicated elements"
    decides = "refinement"
    precedence = SUBSET

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        """The latest K of a bounded N side (the unbounded case is ``squillions-to-one-last-n``)."""
        if facts.unbounded or facts.rel.cardinality == "one-to-squillions":
            return None
        return subset_vote(self, facts, view, ())

    relationships = (recommended_of, "subset")

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        plan = view.plan(facts.rel.id)
        if refinement_rule(plan) is SubsetPattern:
            return  # the base rule's finding is filed under this rule and says it all
        k = facts.rel.show_latest or 0
        if plan.strategy == "subset":
            sev = "info" if plan.chosen_by == "user" or SquillionsToOneLastN.id in plan.rec.rules else ("suggestion")
            yield self.finding(
                sev,
                "relationship",
                facts.rel.id,
                f"{facts.one.name} keeps the latest {k} {facts.many.name} (subset) and the rest "
                f"stays in {facts.many.name}'s own collection",
                numbers={"show_latest": k},
                decision=strategy_decision(facts.rel.id),
                decided=True,
                why=self.why_for(facts),
            )
        else:
            yield self.finding(
                "suggestion",
                "relationship",
                facts.rel.id,
                f"{view.rel_words(facts.rel.id)} is stored as {plan.strategy}, but the {facts.one.name} page shows "
                f"only {k} of up to {facts.n_max:,}: keep those {k} in {facts.one.name} "
                "(subset) and the rest in their own collection",
                fix=set_strategy(facts.rel.id, "subset", facts=facts),
                numbers={"show_latest": k},
                why=self.why_for(facts),
            )


@register
class OutlierPattern(Rule):
    """Embed the typical few and move the rare outlier's overflow to its own collection, behind a flag.

    *Why*
    A post has 12 comments typically and 50,000 when it goes viral: sizing
    the design for the outlier (a parent reference, a second query for every
    post) makes every typical read pay for the rare one. The outlier pattern
    embeds up to a bound, sets ``has_overflow`` on the few documents that
    pass it, and keeps the rest in an overflow collection (BwP-outlier:
    1,000 purchases; Manual-outlier: 50 sales).

    *Anti-pattern*
    Every post read followed by ``find({post_id})`` on comments because one
    post in ten thousand has 50,000 of them; or all 50,000 embedded.

    *Best practice*
    ``posts.comments`` holding at most N (``maxItems``), ``has_overflow:
    true`` on the outliers, the rest in ``posts_overflow`` documents keyed
    by the post (``createIndex({post_id: 1})``); the application reads the
    overflow only when the flag is set. The comments have no collection of
    their own (it would stay empty); comments read on their own (a query of
    their own) are not embedded, so the pattern does not apply to them. Nor
    does it to a one-to-squillions log (Zola-1: a reference in each entry),
    to a typical count above the bound (every post would overflow), to N
    that no read of the One is known to need (Read together not set and no
    query joining them), or to N written as often as the One is read.
    """

    id = "outlier-pattern"
    code = "PT24"
    family = "patterns"
    severities = ("suggestion",)
    sources = ("BwP-outlier", "Manual-outlier", "Skills")
    tradeoff = (
        "typical documents stay small and are read in one query vs. more complex update logic and a second query "
        "for the outliers; a poor fit when the array is updated very often"
    )

    decides = "refinement"
    precedence = OUTLIER
    index_claims = ((OVERFLOW, 0),)
    relationships = (outlier_bounded, True)

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        """A reference chosen because of the rare outlier keeps the typical N embedded.

        The base may be child-refs too: an order with 4 line items typically and 296 at most gets an id array
        only because of its largest orders, and the outlier pattern serves the typical ones in one read.
        """
        base = view.base
        if base is None or base.strategy not in ("parent-ref", "child-refs"):
            return None
        bound = _outlier_bound(facts, view.ctx.settings)
        if bound is None:
            return None
        many = facts.many
        return self.vote(
            "parent-ref",
            f"{with_article(facts.one.name)} has {facts.n_typ:,} {plural_label(many.name)} typically but up to {facts.n_max:,}: "
            f"embed up to {bound:,} in the {facts.one.name} with has_overflow set when it passes them, and keep "
            f"the overflow in {collection_name(facts.one)}_overflow with a reference to its {facts.one.name} "
            "(outlier pattern)",
            f"typical {facts.one.name} documents are read with their {plural_label(many.name)} in one query; "
            f"writes check the flag and outliers need a second query",
            numbers={"outlier_bound": bound},
        )

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        rel = facts.rel
        plan = view.plan(rel.id)
        # only this rule's vote (``decide``, from the same facts and settings) sets the bound
        bound = plan.rec.numbers.get("outlier_bound")
        if bound is None:
            return  # no outliers, or the engine refines this relationship otherwise (a subset outranks it)
        if refinement_rule(plan) is OutlierPattern:
            return  # the base rule's finding is filed under this rule and says it all
        array = embed_field(rel, facts.many)
        overflow = f"{collection_name(facts.one)}_overflow"
        ref = f"{snake(facts.one.name)}_id"
        typ, top = facts.n_typ, facts.n_max
        # only Auto applies the pattern: a strategy the user set (even parent-ref) is kept as it is
        applied = plan.strategy == plan.rec.strategy and plan.chosen_by == "engine"
        nums = {
            "n_typical": typ,
            "n_max": top,
            "embed_up_to": bound,
            "array": array,
            "overflow_collection": overflow,
            "flag": "has_overflow",
        }
        what = (
            f"embed up to {bound:,} in {array} (maxItems {bound:,}), set has_overflow: true on the {facts.one.name} "
            f"that pass it and keep the rest in {overflow} (indexed by {ref}); only outliers need the second query"
        )
        if applied:
            yield self.finding(
                "suggestion",
                "relationship",
                rel.id,
                f"{with_article(facts.one.name)} has {typ:,} {plural_label(facts.many.name)} typically but up to {top:,} "
                f"({top / max(typ, 1):,.0f}x): {what}",
                numbers=nums,
                decision=strategy_decision(rel.id),  # the refinement of the base rule's decision: one finding
                decided=True,  # the design embeds up to the bound and holds the overflow collection
            )
            return
        yield self.finding(
            "suggestion",
            "relationship",
            rel.id,
            f"{with_article(facts.one.name)} has {typ:,} {plural_label(facts.many.name)} typically but up to {top:,} "
            f"({top / max(typ, 1):,.0f}x), and its strategy is set to {plan.strategy}: set it to Auto and the "
            f"design will {what}",
            fix=outlier_fix(rel.id, bound, facts),
            numbers=nums,
            decision=strategy_decision(rel.id),
        )


def _outlier_bound(facts: RelFacts, s: Settings) -> int | None:
    """How many N to embed when a few One have far more N than the rest (None: no outliers to plan for).

    RULES.md rule 24: only when the typical One holds at most ``outlier_max`` (a typical count above it would put
    every One in the overflow), never for a one-to-squillions (rule 4, Zola-1's log messages: a reference in each
    N), only when the One is known to read its N (a declared share, a query of the One that joins them, or the
    user's own embed: an unset ``read_together`` is no reason to size the One's document for its N), and not when new N arrive as
    often as the One is read or more ("a poor fit when updates are very frequent", Manual-outlier).
    """
    rel = facts.rel
    if rel.typical is None or facts.self_ref or rel.cardinality in ("one-to-one", "many-to-many", "one-to-squillions"):
        return None
    typ, top = facts.n_typ, facts.n_max
    if typ > s.outlier_max:
        return None
    bound = min(s.outlier_max, max(1, math.ceil(typ * s.outlier_headroom)))
    if top < s.outlier_factor * max(typ, 1) or top <= s.embed_max or bound >= top:
        return None
    # RULES.md 0.1: read together by default only when drawn inside the One (the user's own embed)
    known = facts.one_reads_many or rel.strategy == "embed"
    if facts.read_together < s.read_together_min or facts.standalone or not known:
        # rarely read with the One, not known to be, or read on its own (declared, or a query of its own): the N
        # are not embedded at all; otherwise they live only embedded and in the overflow collection, with no
        # collection of their own
        return None
    writes = insert_rate(facts)
    reads = rel.reads_per_sec if rel.reads_per_sec is not None else facts.one.reads_per_sec
    if writes and reads is not None and writes >= reads:
        return None  # each new N rewrites a One document: more writes than reads of it
    return bound


#: above this many replaced collections and entities ``PolymorphicPattern`` walks every collection again
_FEW_REPLACED = 64


@register
class PolymorphicPattern(Rule):
    """Subtypes queried together live in one collection with a discriminator and a ``oneOf`` validator.

    *Why*
    CN seed: phones, laptops and headphones share name, brand and price and
    are listed together ("all Apple products"); one collection with a
    ``type`` field serves cross-type queries with one index, while
    type-specific fields sit in a ``specs`` sub-document.

    Separate entities (each in its own collection) that share at least half
    of their fields, and at least 3 of the same name and type, are proposed
    as variants of one entity. Dates, ids and references do not count:
    unrelated entities share them, and so do fields that more than 50 kinds
    of entity hold (title, status): such a crowd is only mentioned.

    *Anti-pattern*
    One collection per product type, merged with ``$unionWith`` or several
    queries for every catalog listing.

    *Best practice*
    ``products {type, name, brand, price, specs: {...}}``; ``$jsonSchema``
    ``oneOf`` per type; ``createIndex({type: 1, "specs.ram": 1})`` for
    per-type queries and ``{brand: 1}`` across types.
    """

    id = "polymorphic-pattern"
    explain = (
        "{entity}: kinds of one thing share most fields and are listed together; one collection with a discriminator "
        "serves cross-type queries with one index, while the fields of one kind sit with that kind (polymorphic "
        "pattern, CN seed)."
    )
    code = "PT25"
    family = "patterns"
    severities = ("info", "suggestion")
    sources = ("BwP-polymorphic", "Manual-inheritance", "CN")
    tradeoff = "one query and one set of indexes across types vs. per-type validation and code paths"

    # the split form's thresholds (the Why says their defaults): Settings.polymorphic_share, polymorphic_min_fields
    # and polymorphic_max_shared
    def __init__(self) -> None:
        #: (thresholds, the overlap index, entity id -> the entity object it was indexed from)
        self._index: tuple[tuple[Any, ...], OverlapIndex, dict[str, Entity]] | None = None
        #: collection name -> (the collection, its root entity, that entity's queries, the finding made from
        #: them): the finding reads nothing else, so an edit makes it again for the changed ones only (edit ->
        #: findings <= 200 ms at 10,000 entities, issue 16)
        self._declared_made: dict[str, tuple[CollectionDesign, Entity, tuple[Any, ...], Finding]] = {}
        #: the last groups and crowds with the order they were sorted by (the same while the index is), and each
        #: one's finding with the objects it read (its entities and their collections): edit -> findings
        #: <= 200 ms at 10,000 entities, issue 16 (walking the index and wording every group was a sixth of an edit)
        self._found: tuple[Any, list[OverlapGroup], list[Crowd]] | None = None
        self._worded: dict[Any, tuple[tuple[Any, ...], Finding]] = {}
        #: the collections and entities last walked, their collections' roots, the positions of the collections
        #: with a discriminator (``_walked``)
        self._walk: tuple[list[CollectionDesign], tuple[Entity, ...], set[str], list[int]] | None = None

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """Entities that look like variants of one another are found by comparing the whole model."""
        colls = view.design.collections
        roots, declared, touched = self._walked(view)
        made, self._declared_made = self._declared_made, {}
        for coll in map(colls.__getitem__, declared):
            entity = view.facts.entities[coll.root]
            queries = tuple(view.facts.queries_of[entity.id])
            known = made.get(coll.name)
            if (
                known is None
                or known[0] is not coll
                or known[1] is not entity
                or len(known[2]) != len(queries)
                or not all(map(operator.is_, known[2], queries))
            ):
                known = (coll, entity, queries, self._declared(view, coll))
            self._declared_made[coll.name] = known
            yield known[3]
        s = view.settings
        thresholds = (s.polymorphic_share, s.polymorphic_min_fields, s.polymorphic_max_shared)
        # the index lives as long as the rule object (one per Analyser) and is updated for the entities that
        # are new objects: an edit costs that entity, not the model (edit -> findings <= 200 ms at 10,000
        # entities; a fresh index of 10,000 entities takes about 150 ms)
        if self._index is None or self._index[0] != thresholds:
            self._index = (thresholds, OverlapIndex(*thresholds), {})
            touched = None
        _, index, indexed = self._index
        entities = view.facts.entities
        changed = False
        gone = indexed.keys() - roots if touched is None else [e for e in touched if e not in roots and e in indexed]
        for eid in gone:
            index.update(eid, None)
            del indexed[eid]
            changed = True
        for eid in roots if touched is None else touched.intersection(roots):
            entity = entities[eid]
            if indexed.get(eid) is not entity:
                fields = None if entity.subtypes is not None else compared_fields(entity)
                if eid not in indexed or index.sets.get(eid) != fields:
                    index.update(eid, fields)
                    changed = True
                indexed[eid] = entity
        order = view.facts.entity_order
        found = self._found
        if changed or found is None or found[0] is not order:
            found = self._found = (order, index.groups(order), index.crowds(order))
        worded, self._worded = self._worded, {}
        for group in found[1]:
            yield self._worded_once(view, worded, group, self._split_finding)
        for crowd in found[2]:
            yield self._worded_once(view, worded, crowd, self._crowd_finding)

    def _walked(self, view: RuleView) -> tuple[set[str], list[int], set[str] | None]:
        """The collections' root entity ids, the positions of the collections with a discriminator, and the root
        ids an edit may have changed since the last call (None: any).

        Edit -> findings <= 200 ms at 10,000 entities (issue 16): a patched analysis keeps every collection and
        entity object it did not replace, so those found by identity (a C-speed pass) are all that is read again,
        not every collection's root (12 ms an edit).
        """
        colls, ents = view.design.collections, view.project.entities
        last = self._walk
        if last is not None and len(last[0]) == len(colls) and len(last[1]) == len(ents):
            old_colls, old_ents, roots, declared = last
            moved = list(compress(range(len(colls)), map(operator.is_not, old_colls, colls)))
            edited = list(compress(range(len(ents)), map(operator.is_not, old_ents, ents)))
            if len(moved) + len(edited) <= _FEW_REPLACED:
                left = {old_colls[i].root for i in moved}
                came = {colls[i].root for i in moved}
                roots.difference_update(left)  # (each entity is the root of one collection at most)
                roots.update(came)
                if len(roots) == len(colls):
                    touched = left | came
                    touched.update(old_ents[i].id for i in edited)
                    touched.update(ents[i].id for i in edited)
                    if any(old_colls[i].discriminator is not None or colls[i].discriminator is not None for i in moved):
                        declared = [i for i, c in enumerate(colls) if c.discriminator is not None]
                    self._walk = (list(colls), ents, roots, declared)
                    return roots, declared, touched
        roots = {c.root for c in colls}
        declared = [i for i, c in enumerate(colls) if c.discriminator is not None]
        # (two collections of one root would make the set of roots wrong after an edit: walked whole each time)
        self._walk = (list(colls), ents, roots, declared) if len(roots) == len(colls) else None
        return roots, declared, None

    def _worded_once(
        self, view: RuleView, worded: dict[Any, tuple[tuple[Any, ...], Finding]], found: Any, word: Any
    ) -> Finding:
        """The finding of a group or crowd: the last one when it reads the same entities and collections."""
        members = [view.facts.entities[m] for m in found.members]
        read = (*members, *map(view.collection_of, found.members))
        known = worded.get(found)
        if known is None or len(known[0]) != len(read) or not all(map(operator.is_, known[0], read)):
            known = (read, word(view, members, found))
        self._worded[found] = known
        return known[1]

    def _declared(self, view: RuleView, coll: CollectionDesign) -> Finding:
        """An entity with declared subtypes: the polymorphic collection the design already holds."""
        entity = view.facts.entities[coll.root]
        cross_queries = [q for q in view.facts.queries_of[entity.id] if coll.discriminator not in q.filter]
        cross = [view.query_words(q) for q in cross_queries]
        return self.finding(
            "suggestion",
            "entity",
            entity.id,
            f"keep every {entity.name} variant ({', '.join(coll.variants)}) in one collection {coll.name} with "
            f"the discriminator {coll.discriminator!r}; the validator checks each variant's fields with oneOf"
            + (f"; cross-type queries ({', '.join(cross)}) need no union" if cross else ""),
            numbers={"variants": list(coll.variants), "cross_type_queries": [q.id for q in cross_queries]},
            why=self.why_for(entity=entity.name),
            decided=True,  # the design already holds the one collection
        )

    def _crowd_finding(self, view: RuleView, members: list[Entity], crowd: Crowd) -> Finding:
        shared = sorted(name for name, _ in crowd.fields)
        names = [e.name for e in members]
        shown = _and(names) if len(names) <= 4 else f"{', '.join(names[:3])} and {len(names) - 3} more"
        return self.finding(
            "info",
            "entity",
            members[0].id,
            f"{len(members)} entities ({shown}) share {', '.join(shared)}: too common to tell variants of one "
            f"entity apart (more than {view.settings.polymorphic_max_shared} kinds of entity hold them), so they "
            "were not compared as variants; if some of them are kinds of one thing, give that entity subtypes",
            numbers={"shared_fields": shared, "entities": [e.id for e in members]},
            why=self.why_for(entity=shown),
        )

    def _split_finding(self, view: RuleView, members: list[Entity], group: OverlapGroup) -> Finding:
        colls = [c.name for c in map(view.collection_of, (e.id for e in members)) if c is not None]
        shared = sorted(name for name, _ in group.common)
        pct = round(group.share * 100)
        return self.finding(
            "suggestion",
            "entity",
            members[0].id,
            f"{_and([e.name for e in members])} are kept in {len(members)} collections ({', '.join(colls)}) but "
            f"share {', '.join(shared)} ({pct} % or more of each one's fields): store them in one collection "
            "with a discriminator field (e.g. 'type'), the shared fields at the same paths and the type-specific "
            "ones in a sub-document; the validator checks each type with oneOf, and a listing across types "
            "needs no $unionWith or one query per collection",
            numbers={
                "shared_share": round(group.share, 2),
                "shared_fields": shared,
                "entities": [e.id for e in members],
            },
            why=self.why_for(entity=_and([e.name for e in members])),
        )


@register
class SchemaVersioning(Rule):
    """Roll a shape change out with a ``schema_version`` field instead of migrating every document at once.

    *Why*
    Migrating a populated collection in one go means downtime or hours of
    writes; with a version number in each document the application reads
    both shapes, migrates documents lazily or in background batches, and
    the validator is tightened only when no old document is left
    (Manual-versioning, BwP-schema-versioning).

    *Anti-pattern*
    A deploy that stops the application to rewrite every ``contacts``
    document from ``homePhone``/``cellPhone`` to a ``contacts`` array.

    *Best practice*
    ``schema_version: 2`` in new documents; a validator rolled out with
    ``validationLevel: "moderate"``, ``validationAction: "warn"``;
    ``updateMany({schema_version: {$lt: 2}}, [{$set: ...}])`` in batches of
    1,000, then ``strict``/``error``.
    """

    id = "schema-versioning"
    collections = (collection_traits, SCHEMA_CHANGE)
    code = "PT26"
    family = "patterns"
    severities = ("suggestion",)
    sources = ("Manual-versioning", "BwP-schema-versioning", "Skills")
    tradeoff = (
        "no downtime vs. two code paths until the migration completes; indexes may be needed on both the old "
        "and the new field paths meanwhile"
    )

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        entity = view.facts.entities[coll.root]
        if not entity.schema_change:
            return
        batch = view.settings.schema_migration_batch
        count = entity.count
        batches = None if count is None else -(-count // batch)
        how = (
            f"in {batches:,} background batches of {batch:,}"
            if batches is not None
            else f"in background batches of {batch:,}"
        )
        yield self.finding(
            "suggestion",
            "entity",
            entity.id,
            f"{entity.name} changes shape on existing documents: add schema_version (the current shape is 1, the "
            f"new one 2) to {coll.name}, let the application read both, and migrate lazily on write and {how} "
            f"(updateMany({{schema_version: {{$lt: 2}}}}, [{{$set: ...}}])); roll the new validator out with "
            "validationLevel 'moderate' and validationAction 'warn', then set strict/error once no document has "
            "schema_version < 2",
            numbers={"documents": count, "batch": batch, "batches": batches, "field": "schema_version"},
            decided=True,  # the design adds schema_version and the moderate/warn validator
        )


@register
class DocumentVersioning(Rule):
    """Keep the current version of a document in its collection and every prior revision in a second one.

    *Why*
    An insurance policy must keep every revision queryable, yet nearly every
    read wants the current one: current documents stay small and indexed as
    before, revisions pile up where only history queries look
    (BwP-document-versioning). The blog's assumptions: few revisions per
    document, not too many documents versioned, most queries on the current
    version; when they fail, a separate history store fits better.

    *Anti-pattern*
    An ever-growing ``revisions`` array inside each policy, or every
    revision in the main collection with ``current: true`` on one of them.

    *Best practice*
    ``policies`` (current) and ``policy_revisions`` with ``{policy_id,
    revision}``, ``createIndex({policy_id: 1, revision: -1})``, both written
    in one ``withTransaction``.
    """

    id = "document-versioning"
    collections = (collection_traits, HISTORY)
    code = "PT27"
    family = "patterns"
    severities = ("info", "suggestion")
    sources = ("BwP-document-versioning", "Manual-versioning")
    index_claims = ((REVISIONS, 0),)
    tradeoff = (
        "current-state queries are unaffected vs. two writes per update and a revisions collection that grows "
        "without bound (expire or archive it)"
    )

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        entity = view.facts.entities[coll.root]
        if not entity.history:
            return
        revisions = f"{coll.name}_revisions"
        ref = f"{snake(entity.name)}_id"
        per_year = None
        if entity.count and entity.writes_per_sec is not None:
            per_year = entity.writes_per_sec * SECONDS_PER_YEAR / entity.count
        limit = view.settings.revisions_per_doc_max
        nums = {
            "revisions_collection": revisions,
            "index": [[ref, 1], ["revision", -1]],
            "revisions_per_document_per_year": None if per_year is None else round(per_year, 1),
        }
        if per_year is not None and per_year > limit:
            yield self.finding(
                "info",
                "entity",
                entity.id,
                f"{entity.name} keeps its history, but each document would gather about {per_year:,.0f} revisions "
                f"a year (more than {limit}): document versioning assumes few revisions per document; keep the "
                f"changes in a separate history store instead (a time series collection of changes by {ref}, "
                "expired or archived)",
                numbers=nums,
            )
            return
        yield self.finding(
            "suggestion",
            "entity",
            entity.id,
            f"{entity.name} keeps its history: keep the current version in {coll.name} and copy each prior "
            f"revision into {revisions} ({{{ref}, revision, ...}}, index ({ref} 1, revision -1)); write both in "
            "one transaction so they agree, and current-version queries stay as they are",
            numbers=nums,
            decided=True,  # the design holds the revisions collection
        )


@register
class TreePattern(Rule):
    """Store a hierarchy with the tree model its operations need: parent or child references, ancestors, path or nested sets.

    *Why*
    The Manual gives five tree models. Parent references answer "children"
    and "parent" with one indexed query but need ``$graphLookup`` for a
    subtree or a breadcrumb; an array of ancestors (or a materialized path)
    answers both with one indexed query at the cost of rewriting a subtree
    when a node moves; nested sets are fastest for subtrees of a static
    tree (Manual-trees).

    *Anti-pattern*
    A ``parent_id`` only, and a ``$graphLookup`` (or a loop of queries) for
    every breadcrumb and category subtree.

    *Best practice*
    ``{_id: "MongoDB", parent: "Databases", ancestors: ["Books",
    "Programming", "Databases"]}`` with ``createIndex({ancestors: 1})`` and
    ``find({ancestors: "Programming"})``.
    """

    id = "tree-pattern"
    code = "PT28"
    family = "patterns"
    severities = ("info", "suggestion")
    sources = ("Manual-trees", "BwP-tree", "Manual-limits")
    tradeoff = "faster hierarchy reads vs. the update cost when a node moves (its whole subtree is rewritten)"
    decides = "base"
    #: asked before the plain parent reference of a tree (``parent-ref-one-to-squillions``): the declared tree
    #: operations choose the model
    precedence = TREE_MODEL
    index_claims = ((TREE, 0),)
    relationships = (tree_with_operations, True)

    def decide(self, facts: RelFacts, view: StrategyView) -> Vote | None:
        """A tree whose operations are declared gets the Manual's model for them."""
        rel = facts.rel
        if not facts.self_ref or not rel.tree_ops:
            return None
        model = _tree_model_for(facts)
        ops = ", ".join(rel.tree_ops)
        return self.vote(
            "child-refs" if model.name == CHILD_REFS else "parent-ref",
            f"{facts.one.name} is a tree read by {ops}: store it as {model.name} (Manual-trees) — {model.reads}",
            f"{model.move_cost}",
            numbers={"tree_model": model.name},
        )

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        if not facts.self_ref or not facts.rel.tree_ops:
            return
        rel, node = facts.rel, facts.one
        model = _tree_model_for(facts)
        plan = view.plan(rel.id)
        fields = ", ".join(f"{name} ({kind})" for name, kind in model.fields)
        index = ", ".join(f"{k} {v}" for k, v in model.index)
        nums = {
            "model": model.name,
            "fields": [name for name, _ in model.fields],
            "index": [[k, v] for k, v in model.index],
            "tree_ops": list(rel.tree_ops),
        }
        ops = ", ".join(rel.tree_ops)
        wanted = "child-refs" if model.name == CHILD_REFS else "parent-ref"
        if plan.strategy != wanted:
            yield self.finding(
                "suggestion",
                "relationship",
                rel.id,
                f"{node.name} is a tree read by {ops} but stored as {plan.strategy}: store it as {model.name} — "
                f"each node holds {fields}, indexed ({index}); {model.reads}",
                fix=set_strategy(rel.id, wanted, facts=facts),
                numbers=nums,
            )
            return
        yield self.finding(
            "info" if model.name == PARENT_REFS else "suggestion",
            "relationship",
            rel.id,
            f"{node.name} is a tree read by {ops}: stored as {model.name} — each node holds {fields}, indexed "
            f"({index}); {model.reads}; {model.move_cost}",
            numbers=nums,
            decided=True,  # the design stores the tree this way
        )


def _tree_model_for(facts: RelFacts) -> TreeModel:
    """The tree model the declared operations of a self-referencing relationship call for."""
    rel, node = facts.rel, facts.one
    name = choose_tree_model_name(rel.tree_ops, node.writes_per_sec == 0)
    return tree_model(name, parent_ref_field(rel, node), child_refs_field(rel, node))


@register
class PreallocationPattern(Rule):
    """A fixed structure known up front can be created whole at insert and updated in place.

    *Why*
    A seat map or one slot per minute of a day has a known, fixed number of
    elements: creating all of them at insert lets the application reach a
    slot by position (``$set: {"seats.3.5": ...}``). The storage motive
    (avoiding document moves) belonged to MMAPv1; with WiredTiger the gain
    is simpler code (BwP-preallocation, Manual-data-model-ops).

    *Anti-pattern*
    ``$push``-ing seats one by one and searching the array for a seat by its
    number on every reservation.

    *Best practice*
    Insert the venue with every seat ``{row, number, status: "free"}`` and
    update ``seats.<i>.status`` in place.
    """

    id = "preallocation-pattern"
    code = "PT29"
    family = "patterns"
    severities = ("info",)
    sources = ("BwP-preallocation", "Manual-data-model-ops")
    tradeoff = "simple positional updates vs. space for slots that stay unused"
    relationships = (strategy_of, "embed")

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        rel = facts.rel
        if rel.growth != "bounded" or rel.max is None or rel.typical != rel.max or rel.max < 2:
            return
        array = embed_field(rel, facts.many)
        yield self.finding(
            "info",
            "relationship",
            rel.id,
            f"every {facts.one.name} holds exactly {rel.max:,} {plural_label(facts.many.name)} (typical = max, "
            f"bounded): they can be created with the {facts.one.name} and updated in place by position "
            f"($set: {{'{array}.<i>.<field>': ...}}) instead of pushed one by one",
            numbers={"slots": rel.max, "array": array},
        )


@register
class ArchivePattern(Rule):
    """Move documents past their active life to cheaper storage, with a mover job and an index on their age.

    *Why*
    Data rarely read after an age still fills the active indexes and the
    working set; when it must be kept (otherwise a TTL index deletes it),
    moving it to Atlas Online Archive, object storage, a cheaper cluster or
    an archive collection keeps the hot data small (Manual-archive: data
    older than a few years moved out of the active collection).

    *Anti-pattern*
    Ten years of reviews in the collection and indexes every page reads,
    although only the last year is ever shown.

    *Best practice*
    An Online Archive rule on ``date``, or a scheduled ``aggregate([{$match:
    {date: {$lt: cutoff}}}, {$merge: {into: "reviews_archive"}}])`` followed
    by ``deleteMany`` in batches, with ``createIndex({date: 1})`` for both.
    """

    id = "archive-pattern"
    collections = (collection_traits, ARCHIVED)
    code = "PT30"
    family = "patterns"
    severities = ("info", "suggestion")
    sources = ("Manual-archive", "Univ")
    index_claims = ((ARCHIVE, 0),)
    tradeoff = "smaller active indexes and working set, cheaper storage vs. slower, read-mostly archived data"

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        entity = view.facts.entities[coll.root]
        archive = entity.archive
        if archive is None:
            return
        age = view.res.resolve_path(entity.id, archive.age_field) or archive.age_field
        days = archive.cold_after_s / 86_400
        declared = view.facts.field(entity.id, archive.age_field)
        if declared is not None and declared.expire_after_s is not None:
            yield self.finding(
                "info",
                "entity",
                entity.id,
                f"{entity.name} declares an archive after {days:,.0f} days, but a TTL index on {age} deletes the "
                f"documents after {declared.expire_after_s / 86_400:,.0f} days: keep one of the two (archive "
                "keeps the data, TTL drops it)",
                numbers={"cold_after_days": days, "expire_after_days": declared.expire_after_s / 86_400},
            )
            return
        target = f"{coll.name}_archive"
        served = next((keys_text(i.keys) for i in coll.indexes if i.keys and i.keys[0][0] == age), None)
        cold = None
        if entity.count is not None and entity.growth_per_day is not None:
            cold = max(0, entity.count - round(entity.growth_per_day * days))
        batch = view.settings.archive_batch
        yield self.finding(
            "suggestion",
            "entity",
            entity.id,
            f"{entity.name} is rarely read after {days:,.0f} days: move older documents to Atlas Online Archive "
            f"(a rule on {age}) or to the collection {target} with a scheduled mover — aggregate [{{$match: {{{age}: "
            f"{{$lt: cutoff}}}}}}, {{$merge: {{into: {target!r}, on: '_id'}}}}] then deleteMany the same match in "
            f"batches of {batch:,}; "
            + (f"the index {served} serves the mover" if served else f"index ({age} 1) for the mover")
            + "; archived documents must be self-contained (copy what they refer to)"
            + (f"; about {cold:,} of {entity.count:,} documents are past the cut-off" if cold is not None else ""),
            numbers={
                "cold_after_days": days,
                "archive_collection": target,
                "mover_index": [[age, 1]],
                "index_exists": served is not None,
                "cold_documents": cold,
            },
            decided=True,  # the design holds the archive collection and the mover's index
        )


#: bookkeeping types shared by unrelated entities (timestamps, references, ids) say nothing about variants
BOOKKEEPING_TYPES = frozenset({"date", "objectId", "uuid"})


def compared_fields(entity: Entity) -> frozenset[Token]:
    """The top-level fields that tell variants apart from unrelated entities: (name, type), no bookkeeping."""
    return frozenset([(f.name, f.type) for f in entity.fields if f.type not in BOOKKEEPING_TYPES])
