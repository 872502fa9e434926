"""Schema design patterns from the seeds (RULES.md 19, 20, 21, 23, 25)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from modeller.model.project import Entity
from modeller.rules.catalog.denormalization import BUCKET, SUBSET, SquillionsToOneLastN, subset_vote
from modeller.rules.catalog.overlap import Crowd, OverlapGroup, OverlapIndex, Token
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Finding, strategy_decision
from modeller.rules.framework.registry import register
from modeller.rules.framework.rule import Rule, recommended_of, set_strategy
from modeller.rules.physical.design import CollectionDesign
from modeller.rules.physical.facts import RelFacts
from modeller.rules.physical.index_reasons import BUCKET_SERIES
from modeller.rules.physical.strategy import StrategyView, Vote, bucket_wanted


@register
class BucketPattern(Rule):
    """Group a time series into bucket documents with a count and pre-computed sum/min/max.

    *Why*
    CN seed: one document per sensor reading means billions of tiny documents
    and index entries; a bucket of 60 readings per sensor with count, sum,
    min and max serves dashboards from a handful of documents.

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
        if base is None or base.strategy != "parent-ref" or facts.self_ref or not bucket_wanted(view.ctx, many):
            return None
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
        "reads of a {one} show values summarizing its {manys}, which are written far less often: computing on write "
        "($inc) divides the work by the read/write ratio (BwP-computed: 1,000,000 reads/h vs 1,000 writes/h)."
    )
    code = "PT21"
    family = "patterns"
    severities = ("suggestion",)
    sources = ("BwP-computed", "CN")
    tradeoff = "fast, predictable reads vs. extra work on every write and possible staleness in periodic mode"

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
                f"{facts.rel.id} is stored as {plan.strategy}, but the {facts.one.name} page shows "
                f"only {k} of up to {facts.n_max:,}: keep those {k} in {facts.one.name} "
                "(subset) and the rest in their own collection",
                fix=set_strategy(facts.rel.id, "subset", self.id),
                numbers={"show_latest": k},
                why=self.why_for(facts),
            )


@register
class PolymorphicPattern(Rule):
    """Subtypes queried together live in one collection with a discriminator and a ``oneOf`` validator.

    *Why*
    CN seed: phones, laptops and headphones share name, brand and price and
    are listed together ("all Apple products"); one collection with a
    ``type`` field serves cross-type queries with one index, while
    type-specific fields sit in a ``specs`` sub-document.

    The engine also looks for the split form: separate entities (each its
    own collection) whose fields overlap by at least the ``polymorphic_share``
    threshold, with at least ``polymorphic_min_fields`` shared fields of the
    same name and type, are proposed as variants of one entity. Dates, ids
    and references are not compared: unrelated entities share them, and so
    are two fields that more than ``polymorphic_max_shared`` kinds of entity
    hold (``title`` and ``status``): such a crowd is reported as info.

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

    def __init__(self) -> None:
        #: (thresholds, the overlap index, entity id -> the entity object it was indexed from)
        self._index: tuple[tuple[Any, ...], OverlapIndex, dict[str, Entity]] | None = None

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """Entities that look like variants of one another are found by comparing the whole model."""
        for coll in view.design.collections:
            if coll.discriminator is not None:
                yield self._declared(view, coll)
        s = view.settings
        thresholds = (s.polymorphic_share, s.polymorphic_min_fields, s.polymorphic_max_shared)
        # the index lives as long as the rule object (one per Analyser) and is updated for the entities that
        # are new objects: an edit costs that entity, not the model (edit -> findings <= 200 ms at 10,000
        # entities; a fresh index of 10,000 entities takes about 150 ms)
        if self._index is None or self._index[0] != thresholds:
            self._index = (thresholds, OverlapIndex(*thresholds), {})
        _, index, indexed = self._index
        roots = {c.root: view.facts.entities[c.root] for c in view.design.collections}
        for gone in indexed.keys() - roots.keys():
            index.update(gone, None)
            del indexed[gone]
        for eid, entity in roots.items():
            if indexed.get(eid) is not entity:
                index.update(eid, None if entity.subtypes is not None else compared_fields(entity))
                indexed[eid] = entity
        order = view.facts.entity_order
        for group in index.groups(order):
            yield self._split_finding(view, [view.facts.entities[m] for m in group.members], group)
        for crowd in index.crowds(order):
            yield self._crowd_finding(view, [view.facts.entities[m] for m in crowd.members], crowd)

    def _declared(self, view: RuleView, coll: CollectionDesign) -> Finding:
        """An entity with declared subtypes: the polymorphic collection the design already holds."""
        entity = view.facts.entities[coll.root]
        cross = [q.id for q in view.facts.queries_of[entity.id] if coll.discriminator not in q.filter]
        return self.finding(
            "suggestion",
            "entity",
            entity.id,
            f"keep every {entity.name} variant ({', '.join(coll.variants)}) in one collection {coll.name} with "
            f"the discriminator {coll.discriminator!r}; the validator checks each variant's fields with oneOf"
            + (f"; cross-type queries ({', '.join(cross)}) need no union" if cross else ""),
            numbers={"variants": list(coll.variants), "cross_type_queries": cross},
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


def _and(names: list[str]) -> str:
    """ "a, b and c" for a message."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


#: bookkeeping types shared by unrelated entities (timestamps, references, ids) say nothing about variants
BOOKKEEPING_TYPES = frozenset({"date", "objectId", "uuid"})


def compared_fields(entity: Entity) -> frozenset[Token]:
    """The top-level fields that tell variants apart from unrelated entities: (name, type), no bookkeeping."""
    return frozenset([(f.name, f.type) for f in entity.fields if f.type not in BOOKKEEPING_TYPES])
