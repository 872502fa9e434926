"""Anti-pattern rules (RULES.md 37-43): unbounded arrays, big or bloated documents, collections, joins, case."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import compress
from typing import Any

from modeller.model.names import snake
from modeller.model.project import Field, Query
from modeller.model.wording import counted
from modeller.rules.catalog.name_families import Family, families
from modeller.rules.catalog.split_fix import Taken, details_name, split_fix
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Change, Finding, Fix, SubjectRef, strategy_decision
from modeller.rules.framework.registry import register
from modeller.rules.framework.rule import Rule, set_strategy
from modeller.rules.framework.wording import and_list, keys_text
from modeller.rules.physical.design import CollectionDesign, ShapeNode
from modeller.rules.physical.documents import max_ones_of
from modeller.rules.physical.facts import RelFacts, how_many, ones_per_many, too_many_ids
from modeller.rules.physical.naming import plural_label
from modeller.rules.physical.planner import QueryPlan
from modeller.rules.physical.plans import ARRAY_OF_ALL, days_to_limit, kept_array
from modeller.rules.physical.sizes import element_overhead, megabytes, value_bytes

#: the strategies whose N of a many-to-many keep an array of their Ones' ids (``documents._many_side``)
_ONES_ARRAY = frozenset({"parent-ref", "two-way", "extended-ref"})


def _holds_array(view: RuleView, facts: RelFacts) -> bool:
    """The One keeps an array for this relationship (embedded documents or references), or each N of a
    many-to-many keeps one of its Ones' ids."""
    strategy = view.res.plans[facts.rel_id].strategy
    cardinality = facts.rel.cardinality
    if cardinality == "many-to-many" and strategy in _ONES_ARRAY:
        return True
    return strategy in ARRAY_OF_ALL and cardinality != "one-to-one"


def _ones_array_name(view: RuleView, facts: RelFacts) -> str:
    """The field of each N that holds its Ones' ids, as the design names it (``group_ids``)."""
    coll = view.collection_of(facts.many.id)
    for node in coll.shape if coll is not None else ():
        if node.relationship == facts.rel_id and node.bson_type == "array" and node.role != "child-refs":
            return node.name
    return f"the array of {facts.one.name} ids"


@register
class UnboundedArray(Rule):
    """Arrays must not grow without bound: graded from 250 elements up to the 16 MiB limit.

    *Why*
    Zola-3 rule 3: "arrays should not grow without bound" — more than a
    couple of hundred embedded documents or a few thousand ids makes every
    read and ``$push`` slower, every element is an index entry, and the
    document eventually hits 16 MiB. Compass flags arrays of 250+ elements,
    Atlas arrays of over 10,000.

    *Anti-pattern*
    ``hosts.logmsgs: [...]`` growing with every log line.

    *Best practice*
    A reference in each child (parent-ref), a bounded subset, buckets, and
    ``maxItems`` on every array that stays.
    """

    id = "unbounded-array"
    code = "AP37"
    family = "antipatterns"
    severities = ("info", "warning", "error")
    sources = ("Zola-3", "Manual-AP-unbounded", "AP-massive-arrays", "Atlas-PA", "Compass", "Manual-limits")
    tradeoff = "removing the array means a second query (or $lookup) when parent and children are shown together"

    relationships = (_holds_array, True)

    def check_relationship(self, view: RuleView, facts: RelFacts) -> Iterable[Finding]:
        s = view.settings
        plan = view.plan(facts.rel.id)
        if facts.rel.cardinality == "many-to-many" and plan.strategy in _ONES_ARRAY:
            finding = self._ones_array(view, facts)
            if finding is not None:
                yield finding
            if plan.strategy not in ARRAY_OF_ALL:
                return
        embedded = plan.strategy == "embed"
        item, array = kept_array(plan, view.res.array_sizes(facts))
        coll = view.collection_of(facts.one.id)
        doc = coll.max_bytes if coll is not None else array
        days = days_to_limit(view.facts, facts, item, 0) if facts.unbounded else None
        nums: dict[str, Any] = {
            "n_max": facts.n_max,
            "element_bytes": item,
            "array_bytes": array,
            "document_max_bytes": doc,
        }
        if days is not None:
            nums["days_to_16mib"] = round(days, 1)
        what = "embedded documents" if embedded else "references"
        target = plan.rec.strategy if plan.rec.strategy not in ("embed", plan.strategy) else "parent-ref"
        fix = set_strategy(facts.rel.id, target, facts=facts)
        # a document past the limit blames the array that is most of it (a small array in a huge document is not
        # the cause: document-size-and-nesting names the collection, and the large array gets this error)
        over = doc > s.max_doc_bytes and array * 2 > doc
        if over or (days is not None and days < 365 * 10 and facts.unbounded):
            # the figures say which: past the limit at the declared maximum, or on the way there at the growth
            past = (
                f"past the 16 MiB document limit ({megabytes(s.max_doc_bytes)})"
                if doc > s.max_doc_bytes
                else f"under the 16 MiB document limit ({megabytes(s.max_doc_bytes)}) today"
            )
            when = f"; at the annotated growth it reaches 16 MiB in about {days:,.0f} days" if days else ""
            yield self.finding(
                "error",
                "relationship",
                facts.rel.id,
                f"{facts.one.name}.{facts.rel.name or facts.many.name} holds {what} of {facts.many.name} that "
                f"{'grow without bound' if facts.unbounded else f'reach {facts.n_max:,}'}: the array is about "
                f"{array:,} bytes ({megabytes(array)}), a whole {facts.one.name} up to {megabytes(doc)}, "
                f"{past}{when}",
                fix=fix,
                numbers=nums,
            )
        elif facts.unbounded:
            yield self.finding(
                "warning",
                "relationship",
                facts.rel.id,
                f"the {what} of {facts.many.name} in each {facts.one.name} grow without bound",
                fix=fix,
                numbers=nums,
            )
        elif facts.n_max > s.atlas_array:
            yield self.finding(
                "warning",
                "relationship",
                facts.rel.id,
                f"up to {facts.n_max:,} {what} in one array: Atlas flags arrays with over {s.atlas_array:,} entries",
                fix=fix,
                numbers=nums,
                sources=("Atlas-PA",),
            )
        elif embedded and facts.n_max > s.embed_max:
            bound = plan.rec.numbers.get("outlier_bound")
            instead = (
                f"keep up to {bound:,} embedded and move the rest of the few large ones out (outlier pattern)"
                if bound is not None
                else "reference them instead"
            )
            yield self.finding(
                "warning",
                "relationship",
                facts.rel.id,
                f"up to {facts.n_max:,} embedded {plural_label(facts.many.name)} are more than 'a couple of "
                f"hundred' (Zola-3): {instead}",
                fix=fix,
                numbers=nums,
                sources=("Zola-3",),
            )
        elif not embedded and too_many_ids(facts, s):
            yield self.finding(
                "warning",
                "relationship",
                facts.rel.id,
                f"{how_many(facts)} ids in one array is more than the {s.refarray_max:,} an array should hold "
                f"(Zola-3: 'more than a few thousand'): store the reference in each {facts.many.name}",
                fix=fix,
                numbers=nums,
                sources=("Zola-3",),
            )
        elif facts.n_max >= s.compass_array:
            yield self.finding(
                "info",
                "relationship",
                facts.rel.id,
                f"up to {facts.n_max:,} {what} per {facts.one.name}: Compass shows its "
                f"large-array insight from {s.compass_array} elements; keep maxItems "
                f"{facts.n_max} in the validator",
                numbers=nums,
                sources=("Compass",),
            )

    def _ones_array(self, view: RuleView, facts: RelFacts) -> Finding | None:
        """RULES.md rule 6: each side's array passes rules 2-4 on its own, so the array of Ones' ids each N of a
        many-to-many keeps is bounded too (``max_ones``, its maxItems), and a side that would hold more ids than
        an array should keeps none."""
        s = view.settings
        most = max_ones_of(facts.rel)
        one, many = facts.one.name, facts.many.name
        ones = plural_label(one)
        name = _ones_array_name(view, facts)
        if most is None:
            return self.finding(
                "info",
                "relationship",
                facts.rel_id,
                f"each {many} keeps the ids of its {ones} in {name}, and nothing says how many {ones} one {many} "
                f"can have: set 'Max {ones} per {many}' so the validator bounds the array (maxItems)",
                numbers={"typical_ones_per_n": ones_per_many(facts)},
            )
        if most <= s.refarray_max:
            return None
        nums = {"max_ones_per_n": most, "refarray_max": s.refarray_max}
        over = (
            f"{name} in each {many} holds up to {most:,} {one} ids, more than the {s.refarray_max:,} an array "
            "should hold (Zola-3: 'more than a few thousand')"
        )
        if too_many_ids(facts, s):
            return self.finding(
                "warning",
                "relationship",
                facts.rel_id,
                f"{over}, and one {one} has up to {facts.n_max:,} {plural_label(many)}, too many for an array "
                f"in each {one}: neither side should keep the array; keep the links in a collection of their own "
                f"(one document per {one} and {many}, with an index on each of the two ids)",
                numbers=nums,
                sources=("Zola-3",),
            )
        return self.finding(
            "warning",
            "relationship",
            facts.rel_id,
            f"{over}: keep the array of {many} ids in each {one} instead",
            fix=set_strategy(facts.rel_id, "child-refs", facts=facts),
            numbers=nums,
            sources=("Zola-3",),
        )


def _depth(nodes: list[ShapeNode]) -> int:
    """Levels of a shape tree, walked one level at a time (no per-node tuples or calls)."""
    depth = 0
    level = nodes
    while level:
        depth += 1
        below: list[ShapeNode] = []
        for node in level:
            if node.children:
                below += node.children
            if node.items is not None:
                below.append(node.items)
        level = below
    return depth


def _largest_array(view: RuleView, coll: CollectionDesign) -> str | None:
    """The relationship whose array (embedded documents or references) is most of the collection's largest
    document, or None. The resolver sizes every such array as it adds up the document (``array_bytes``, filled
    for each shape: ``tests/rules/test_sizes.py`` checks it), so the figure is the one the document size holds."""
    best, best_bytes = None, 0
    sized = view.res.array_bytes
    for node in coll.shape:
        if node.bson_type != "array" or node.relationship is None or node.role not in ("embedded", "child-refs"):
            continue
        size = sized[node.relationship][1]
        if size > best_bytes:
            best, best_bytes = node.relationship, size
    return best if best_bytes * 2 > coll.max_bytes else None


@register
class DocumentSizeAndNesting(Rule):
    """Keep documents well under 16 MiB (graded from 200 KB) and nested less than 100 levels.

    *Why*
    16 MiB and 100 levels are hard limits; long before that, large documents
    fill the cache with data the page does not need (Skills: reassess at
    ~200 KB, aim under 1 MB; Atlas flags > 2 MB, Compass > 10 MB).

    *Anti-pattern*
    A product document carrying every review ever written.

    *Best practice*
    Remove unbounded arrays, keep a subset, move large binaries to GridFS or
    object storage.
    """

    id = "document-size-and-nesting"
    code = "AP38"
    family = "antipatterns"
    severities = ("info", "suggestion", "warning", "error")
    sources = ("Manual-limits", "Atlas-PA", "Compass", "Skills")
    tradeoff = "smaller documents mean more of them in cache per GB, and more queries when everything is needed"

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        s = view.settings
        levels = [
            (s.max_doc_bytes, "error", "the 16 MiB BSON document limit", ("Manual-limits",)),
            (s.doc_compass_bytes, "warning", "Compass's bloated-document insight (10,000,000 bytes)", ("Compass",)),
            (s.doc_warn_bytes, "warning", "Atlas's 2 MB document-size trigger", ("Atlas-PA",)),
            (s.doc_suggest_bytes, "suggestion", "the 1 MB guideline", ("Skills",)),
            (s.doc_info_bytes, "info", "the ~200 KB 'reassess the schema' guideline", ("Skills",)),
        ]
        for limit, sev, what, src in levels:
            if coll.max_bytes > limit:
                # the size comes from a relationship's array: then it is that relationship's decision
                # (unbounded-array says it with the array's figures; one finding, not two)
                array_rel = _largest_array(view, coll)
                yield self.finding(
                    sev,
                    "entity",
                    coll.root,
                    f"one {coll.name} document can reach about {coll.max_bytes:,} bytes (typical "
                    f"{coll.avg_bytes:,}), over {what}: move unbounded arrays out, keep a subset, or bucket",
                    numbers={"max_bytes": coll.max_bytes, "avg_bytes": coll.avg_bytes, "limit_bytes": limit},
                    sources=src,
                    decision=None if array_rel is None else strategy_decision(array_rel),
                )
                break
        depth = _depth(coll.shape)
        if depth > s.max_nesting:
            yield self.finding(
                "error",
                "entity",
                coll.root,
                f"{coll.name} documents nest {depth} levels; MongoDB supports at most {s.max_nesting}",
                numbers={"depth": depth},
            )


@register
class BloatedDocument(Rule):
    """Move fields the hot reads never show out of the document they read.

    *Why*
    The working set is whole documents: when the home page shows a title
    and a price but each document also carries a 5 KB synopsis and credits,
    most of the cache holds data no hot read needs. Splitting the cold
    fields into a 1:1 details collection keeps the hot documents small
    (Manual-AP-bloated: ``mainBookInfo`` + ``additionalBookDetails``).

    *Anti-pattern*
    A 10 KB movie document read 5,000 times a second by a list page that
    shows 200 bytes of it.

    *Best practice*
    ``movies {title, year, poster}`` and ``movie_details {_id: <movie id>,
    plot, cast, reviews...}``, read on the details page only.
    """

    id = "bloated-document"
    code = "AP39"
    family = "antipatterns"
    severities = ("suggestion", "warning")
    sources = ("Manual-AP-bloated", "AP-bloated")
    tradeoff = "a smaller working set vs. an extra query (or $lookup) on the details page"

    def __init__(self) -> None:
        #: id(collection design) -> (the design, what it bloats: entity id, hot reads, used and cold fields, sizes)
        self._seen: dict[int, tuple[CollectionDesign, _Bloat | None]] = {}
        #: the names a new entity must not take, with the project lists they were read from
        self._taken: tuple[tuple[Any, ...], Taken] | None = None

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """Per collection, but the fix names a new entity unique in the whole model: a property of the model.

        Edit -> findings <= 100 ms at 1,000 entities: what a collection bloats is kept per collection design
        (a new design object when its entity or queries change), so an edit re-reads only the changed ones.
        """
        seen, self._seen = self._seen, {}
        s = view.settings
        for coll in view.design.collections:
            if coll.avg_bytes < s.bloated_min_bytes or coll.bucket is not None:
                continue
            entry = seen.get(id(coll))
            if entry is None or entry[0] is not coll:
                entry = (coll, _bloat(view, coll))
            self._seen[id(coll)] = entry
            if entry[1] is not None:
                yield self._finding(view, coll, entry[1])

    def _names(self, view: RuleView) -> Taken:
        """The names taken in this model (gathered again only when the entities or queries were replaced).

        The companions are compared by name: a patched analysis lists them anew after every edit (``Taken.of``
        walked all 10,000 entities again after each edit at 10,000 entities: 13 ms), while ``view.collections``
        is the one mapping a patch keeps up to date in place.
        """
        companions = frozenset(c.name for c in view.design.companions)
        key = (view.project.entities, view.project.queries, view.collections)
        last = self._taken
        if last is None or not all(map(operator.is_, last[0][:3], key)) or last[0][3] != companions:
            last = self._taken = ((*key, companions), Taken.of(view.facts, (view.collections, companions)))
        return last[1]

    def _finding(self, view: RuleView, coll: CollectionDesign, bloat: _Bloat) -> Finding:
        s = view.settings
        entity = view.facts.entities[bloat.entity]
        taken = self._names(view)
        name = details_name(taken, entity)
        fix, refused = split_fix(view.facts, taken, entity, bloat.cold, s)
        saving = None if coll.count is None else bloat.cold_bytes * coll.count
        big = coll.max_bytes > s.doc_info_bytes
        return self.finding(
            "warning" if big else "suggestion",
            "entity",
            entity.id,
            f"the hot reads of {entity.name} ({', '.join(view.query_words(q) for q in bloat.hot)}) show only "
            f"{', '.join(sorted(bloat.used))}, but {', '.join(f.name for f in bloat.cold)} make up "
            f"{bloat.share:.0%} of a {coll.avg_bytes:,}-byte document: move them to {name} (collection "
            f"{snake(name)}, one document per {entity.name} with a reference to it) read on the details page only"
            + (f"; the working set shrinks by about {saving / 1_048_576:,.0f} MB" if saving is not None else "")
            + (f" (no automatic fix: {refused})" if refused else ""),
            fix=fix,
            numbers={
                "avg_bytes": coll.avg_bytes,
                "cold_bytes": bloat.cold_bytes,
                "cold_share": round(bloat.share, 2),
                "cold_fields": [f.name for f in bloat.cold],
                "details_collection": snake(name),
                "working_set_saving_bytes": saving,
            },
        )


@dataclass(frozen=True, slots=True)
class _Bloat:
    """What makes one collection's documents bloated: the fields its hot reads never show."""

    entity: str
    hot: tuple[Query, ...]
    used: frozenset[str]
    cold: tuple[Field, ...]
    cold_bytes: int
    share: float


def _bloat(view: RuleView, coll: CollectionDesign) -> _Bloat | None:
    """The cold fields of ``coll``'s root entity when they are at least half of its documents, else None."""
    s = view.settings
    entity = view.facts.entities[coll.root]
    hot = tuple(q for q in view.facts.queries_of[entity.id] if view.facts.is_hot(q))
    if not hot or any(not q.projection for q in hot):
        return None  # a hot read of whole documents uses every field
    used = frozenset(path.split(".", 1)[0] for q in hot for path in (*q.projection, *q.filter, *(k for k, _ in q.sort)))
    cold = tuple(f for f in entity.fields if f.name not in used and f.name != "_id")
    cold_bytes = sum(value_bytes(f, s)[0] + element_overhead(f.name) for f in cold)
    share = cold_bytes / coll.avg_bytes
    if share < s.bloated_cold_share:
        return None
    return _Bloat(entity.id, hot, used, cold, cold_bytes, share)


def _inputs(view: RuleView) -> tuple[Any, ...]:
    """What ``MassiveNumberOfCollections`` reads: the settings, the shards, the collections (their names and
    roots, in design order) and the entities (a root's fields)."""
    project = view.project
    return (view.settings, project.sharded, project.shards, list(view.design.collections), project.entities)


def _same(before: tuple[Any, ...], after: tuple[Any, ...], roots: set[str]) -> bool:
    """``_inputs`` alike: equal settings and shards, collections of the same names and roots, and the same
    objects for the entities ``roots`` names. The replaced collections and entities are found by identity (a
    C-speed pass), so an edit compares what it replaced, not the whole model (edit -> findings <= 200 ms at
    10,000 entities)."""
    if before[:3] != after[:3]:
        return False
    old_colls, colls, old_ents, ents = before[3], after[3], before[4], after[4]
    if len(old_colls) != len(colls) or len(old_ents) != len(ents):
        return False
    for i in compress(range(len(colls)), map(operator.is_not, old_colls, colls)):
        if old_colls[i].name != colls[i].name or old_colls[i].root != colls[i].root:
            return False
    edited = compress(range(len(ents)), map(operator.is_not, old_ents, ents))
    return not any(old_ents[i].id in roots or ents[i].id in roots for i in edited)


@register
class MassiveNumberOfCollections(Rule):
    """Keep the number of collections well under 10,000, and never create one collection per day or tenant.

    *Why*
    Every collection and each of its indexes is a WiredTiger file that costs
    cache and checkpoint work (each index at least 8 kB): MongoDB recommends
    at most 10,000 collections per replica set, or per shard on a sharded
    cluster, and an Atlas M10 slows down from about 5,000. Collections named
    by date (``readings_2024_05_10``) or by tenant (``logs_<tenant>``,
    ``events_<tenant>_<region>_<date>``) multiply without bound and turn every
    query across periods or tenants into one query per collection. A name's
    varying parts are read as one family; a number ending names whose
    siblings end in plain numbers (``store_16``, ``store_1996``) is an entity
    number, not a year.

    *Anti-pattern*
    A ``temperatures_<day>`` collection per day with the same indexes, and a
    cron job that drops the old ones.

    *Best practice*
    One ``temperatures`` collection (a time series collection on 5.0+) with
    the day in an indexed ``timestamp`` field, ``createIndex({sensor: 1,
    timestamp: 1})``, and a TTL index instead of dropping daily collections;
    one ``events`` collection with ``tenant_id`` and ``region`` as fields,
    its indexes and shard key led by ``tenant_id``.
    """

    id = "massive-number-of-collections"
    code = "AP40"
    family = "antipatterns"
    severities = ("info", "warning")
    sources = ("AP-massive-collections", "Manual-AP-reduce-collections", "Univ", "Compass")
    tradeoff = (
        "fewer files and indexes for WiredTiger vs. one larger collection that needs the right indexes "
        "(and possibly sharding)"
    )

    def __init__(self) -> None:
        #: what the last findings were made from (``_inputs``), the collections' roots and those findings
        self._last: tuple[tuple[Any, ...], set[str], list[Finding]] | None = None

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """The number of collections and the series among their names are properties of the whole model.

        Edit -> findings <= 200 ms at 10,000 entities: an edit that keeps every collection's name, root and root
        entity object (a cardinality, a query) gets the very findings of the last analysis, not the families
        found again (17 ms an edit)."""
        inputs = _inputs(view)
        last = self._last
        if last is None or not _same(last[0], inputs, last[1]):
            last = self._last = (inputs, {c.root for c in inputs[3]}, list(self._check(view)))
        else:
            self._last = (inputs, last[1], last[2])
        return last[2]

    def _check(self, view: RuleView) -> Iterable[Finding]:
        s = view.settings
        colls = view.design.collections
        if not colls:
            return
        project = view.project
        shards = project.shards if project.sharded and project.shards else 1
        n = len(colls)
        where = "per shard" if shards > 1 else "per replica set"
        if n > s.collections_max * shards:
            yield self.finding(
                "warning",
                "entity",
                colls[0].root,
                f"the design has {n:,} collections, more than the {s.collections_max:,} MongoDB recommends "
                f"{where}: merge collections of the same kind into one with the varying part as an indexed field",
                numbers={"collections": n, "limit": s.collections_max * shards},
                sources=("AP-massive-collections", "Compass"),
            )
        elif n > s.collections_small_cluster * shards:
            yield self.finding(
                "info",
                "entity",
                colls[0].root,
                f"the design has {n:,} collections: an Atlas M10 slows down from about "
                f"{s.collections_small_cluster:,} {where}; plan a larger tier or merge collections of the same kind",
                numbers={"collections": n, "limit": s.collections_small_cluster * shards},
                sources=("Univ",),
            )
        for family in families(colls, view.facts.entities.get, s.dynamic_collections_min, s.dynamic_names_min):
            yield self._family(family, s.collections_max)

    def _family(self, family: Family, limit: int) -> Finding:
        """One finding for a family of collections split by date and/or by words (tenant, region)."""
        names = family.names
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3:,} more" if len(names) > 3 else "")
        numbers: dict[str, Any] = {"collections": list(names)}
        if not family.parts:
            return self.finding(
                "warning",
                "entity",
                family.roots[0],
                f"{len(names):,} collections differ only by a date in their name ({shown}): a collection per "
                f"period grows without bound; keep one {family.stem} collection with the date in an indexed field "
                "(a time series collection for measurements) and expire old documents with a TTL index",
                numbers=numbers,
                sources=("Manual-AP-reduce-collections", "AP-massive-collections"),
            )
        values = [", ".join(p[:3]) + (", ..." if len(p) > 3 else "") for p in family.parts]
        varying = "; ".join(values) + ("; and the date" if family.dated else "")
        fields = list(family.part_fields)
        if len(fields) < len(family.parts):
            fields.append("a field for each other part" if fields else "a field for each part")
        if family.dated:
            fields.append(f"the date in {family.date_field}" if family.date_field else "the date")
        lead = (
            f"; lead its compound indexes and its shard key with {family.part_fields[0]}" if family.part_fields else ""
        )
        numbers["varying"] = [list(p) for p in family.parts]
        return self.finding(
            "warning",
            "entity",
            family.roots[0],
            f"{len(names):,} collections hold the same fields and differ only by parts of their name ({shown}; "
            f"what varies: {varying}): a collection per value grows with every new one, and MongoDB recommends at "
            f"most {limit:,} collections per replica set; keep one {family.stem} collection with "
            f"{and_list(fields)} as {'an indexed field' if len(fields) == 1 else 'indexed fields'}{lead}"
            + (
                "; expire old documents with a TTL index instead of dropping a collection per period"
                if family.dated
                else ""
            ),
            numbers=numbers,
            sources=("Manual-AP-reduce-collections", "AP-massive-collections"),
        )


@register
class ExcessiveLookup(Rule):
    """Data read together should be stored together: a hot query that still needs a join.

    *Why*
    Separating data that is always displayed together costs a ``$lookup`` or
    a second query on every read (AP-separating-data); Atlas flags
    collections where over half the queries, or over 100 queries, use
    ``$lookup``. Zola-3 adds: don't fear one application-level join on an
    indexed reference, so a single join is a suggestion, several a warning.
    A join through references kept on both sides (Zola-2 two-way
    referencing) is one indexed query in each direction, so it is not
    reported.

    *Anti-pattern*
    The task list finding each owner's name by scanning the people's arrays
    of task ids.

    *Best practice*
    Embed (1:1, 1:few), an extended reference for display fields, a subset
    for the latest children, a computed value for aggregates.
    """

    id = "excessive-lookup"
    code = "AP41"
    family = "antipatterns"
    severities = ("info", "suggestion", "warning")
    sources = ("AP-separating-data", "Atlas-PA", "Zola-3")
    tradeoff = "duplication and update fan-out (denormalization rules) vs. join cost on every read"

    def check_model(self, view: RuleView) -> Iterable[Finding]:
        """The share of queries with joins is a property of the whole model."""
        s = view.settings
        queries = view.facts.queries
        joining = [q for q in queries if view.res.query_joins.get(q.id)]
        share = len(joining) / len(queries) if queries else 0.0
        many = (share > s.lookup_share and len(queries) >= 4) or len(joining) > s.lookup_count
        plans = {p.id: p for p in view.design.queries}
        for q in joining:
            rels = view.res.query_joins[q.id]
            if not many and self._two_way_join(view, rels, plans.get(q.id)):
                continue
            missing = self._missing(view, q, rels)
            hot = view.facts.is_hot(q)
            sev = "warning" if (hot and len(rels) > 1) or (hot and many) else ("suggestion" if hot else "info")
            changes = tuple(
                Change(
                    "append",
                    SubjectRef("relationship", rel_id),
                    "denormalize",
                    {"field": f, "direction": direction, "staleness": "hours"},
                )
                for rel_id, f, direction in missing
            )
            fix = (
                Fix(
                    "copy the displayed fields: "
                    + ", ".join(f"{f} ({view.rel_words(rel_id)})" for rel_id, f, _ in missing),
                    changes,
                )
                if changes
                else None
            )
            names = ", ".join(view.rel_words(rel_id) for rel_id in rels)
            finding = self.finding(
                sev,
                "query",
                q.id,
                f"{view.query_words(q)} still needs {counted(len(rels), 'join')} ({names}) to show data stored elsewhere"
                + (f" at {q.per_sec:g}/s" if q.per_sec else "")
                + (
                    ""
                    if not missing
                    else "; copy the displayed fields ("
                    + ", ".join(f for _, f, _ in missing)
                    + ") if they rarely change"
                ),
                fix=fix,
                numbers={
                    "joins": rels,
                    "queries_with_joins": len(joining),
                    "queries": len(queries),
                    "share_with_joins": round(share, 2),
                },
            )
            yield finding

    @staticmethod
    def _two_way_join(view: RuleView, rels: list[str], plan: QueryPlan | None) -> bool:
        """The one join is the engine's two-way (or one-way, from the side that reads) referencing at work: not an
        anti-pattern to report.

        The engine stores a relationship two-way because both directions are read, or as a reference in each N
        because the N side reads its One, so that each is one indexed query (Zola-2 two-way referencing; Zola-3:
        don't fear an application-level join on an indexed reference). Reporting that join would argue against
        the engine's own design.
        """
        if len(rels) != 1 or plan is None:
            return False
        design = view.rel_designs.get(rels[0])
        if design is None or design.chosen_by != "engine":
            return False
        # one-way from the N: the many-to-many rule's for a one-to-many, the one-to-few rule's for a one-to-few
        one_way = design.strategy == "parent-ref" and bool(
            {"many-to-many-refs", "embed-one-to-few"} & set(design.rules)
        )
        if design.strategy != "two-way" and not one_way:
            return False
        return all(step.index is not None for step in plan.steps)

    def _missing(self, view: RuleView, q: Any, rels: list[str]) -> list[tuple[str, str, str]]:
        """(rel, field, direction) copies that would remove the joins of ``q``."""
        out: list[tuple[str, str, str]] = []
        for logical in [*q.projection, *q.filter, *(k for k, _ in q.sort)]:
            rel_id = view.res.join_rel(q.entity, logical)
            if rel_id is None or rel_id not in rels or "." not in logical:
                continue
            facts = view.facts.rel_by_id[rel_id]
            sub = logical.split(".", 1)[1]
            if q.entity == facts.many.id and view.facts.field(facts.one.id, sub) is not None:
                item = (rel_id, sub, "one-to-many")
            elif q.entity == facts.one.id and view.facts.field(facts.many.id, sub) is not None:
                item = (rel_id, sub, "many-to-one")
            else:
                continue
            if item not in out:
                out.append(item)
        return out


@register
class UnnecessaryIndexes(Rule):
    """Drop indexes that are a prefix of another, that no declared query uses, or that are too many.

    *Why*
    Every index costs work on every write, at least 8 kB and a WiredTiger
    file; ``{days: 1}`` is redundant next to ``{days: 1, time: 1}``. Compass
    suggests at most 10 indexes, Atlas flags more than 30, the anti-pattern
    article 50.

    *Anti-pattern*
    ``{user_id: 1}`` next to ``{user_id: 1, created_at: -1}``.

    *Best practice*
    Hide first (``hideIndex``), watch ``$indexStats``, then drop; never drop
    unique, TTL or partial indexes only because a prefix exists.
    """

    id = "unnecessary-indexes"
    code = "AP42"
    family = "antipatterns"
    severities = ("info", "suggestion", "warning")
    sources = ("Manual-AP-unnecessary-indexes", "AP-unnecessary-indexes", "Atlas-PA", "Compass")
    tradeoff = "faster writes and less RAM vs. the risk of slowing a rare query"

    def check_collection(self, view: RuleView, coll: CollectionDesign) -> Iterable[Finding]:
        s = view.settings
        entity = view.facts.entities[coll.root]
        user = [i for i in coll.indexes if i.origin == "user"]
        for i, idx in enumerate(user):
            if idx.unique or idx.expire_after_s is not None or idx.partial is not None:
                continue
            longer = next(
                (
                    o
                    for o in coll.indexes
                    if o is not idx
                    and len(o.keys) > len(idx.keys)
                    and o.keys[: len(idx.keys)] == idx.keys
                    and o.collation == idx.collation
                ),
                None,
            )
            if longer is not None:
                remaining = [d.model_dump(exclude_defaults=True) for j, d in enumerate(entity.indexes) if j != i]
                fix = Fix(
                    f"drop the index {keys_text(idx.keys)} from {entity.name}",
                    (Change("set", SubjectRef("entity", entity.id), "indexes", remaining),),
                )
                yield self.finding(
                    "warning",
                    "entity",
                    entity.id,
                    f"index {keys_text(idx.keys)} on {coll.name} is a prefix of "
                    f"{keys_text(longer.keys)}, which serves the same queries: drop it",
                    fix=fix,
                    numbers={"index": idx.name, "covered_by": longer.name},
                )
            elif not idx.queries and view.facts.queries_of[entity.id] and not view.index_used(coll.name, idx.name):
                yield self.finding(
                    "info",
                    "entity",
                    entity.id,
                    f"no declared query uses index {keys_text(idx.keys)} on {coll.name}: hide it "
                    "and watch $indexStats before dropping it",
                    numbers={"index": idx.name},
                )
        total = len(coll.indexes) + 1
        for limit, sev, src in (
            (s.index_count_guideline, "warning", "AP-unnecessary-indexes"),
            (s.index_count_warn, "warning", "Atlas-PA"),
            (s.index_count_info, "info", "Compass"),
        ):
            if total > limit:
                yield self.finding(
                    sev,
                    "entity",
                    entity.id,
                    f"{coll.name} has {total} indexes (with _id), over {limit}: every write updates all of them",
                    numbers={"indexes": total, "limit": limit},
                    sources=(src,),
                )
                break


def matches_without_case(view: RuleView, q: Query) -> bool:
    """The query matches a field case-insensitively (what ``CaseInsensitiveWithoutCollation`` reports on)."""
    return "ci" in q.filter.values()


@register
class CaseInsensitiveWithoutCollation(Rule):
    """A case-insensitive query needs an index with a case-insensitive collation, not ``/x/i`` on a plain index.

    *Why*
    A regular expression with the ``i`` option cannot use an index
    efficiently, and a plain index does not serve a query run with a
    collation: only an index whose collation has strength 1 or 2 (and the
    query run with the same collation) finds "leslie" and "Leslie" by an
    index seek (AP-case-insensitive; Atlas flags case-insensitive regexes).

    *Anti-pattern*
    ``createIndex({first_name: 1})`` and ``find({first_name: /^leslie$/i})``.

    *Best practice*
    ``createIndex({first_name: 1}, {collation: {locale: "en", strength:
    2}})`` and ``find({first_name: "leslie"}).collation({locale: "en",
    strength: 2})``; or that collation as the collection's default.
    """

    id = "case-insensitive-without-collation"
    queries = (matches_without_case, True)
    code = "AP43"
    family = "antipatterns"
    severities = ("warning",)
    sources = ("AP-case-insensitive", "Manual-case-insensitive", "Atlas-PA")
    tradeoff = "the index only helps queries issued with the same collation"

    def check_query(self, view: RuleView, q: Query) -> Iterable[Finding]:
        ci = [path for path, op in q.filter.items() if op == "ci"]
        if not ci:
            return
        coll = view.collection_of(q.entity)
        if coll is None:
            return
        for path in ci:
            physical = view.res.resolve_path(q.entity, path) or path
            plain = [
                i.name
                for i in coll.indexes
                if i.origin == "user" and i.keys and i.keys[0][0] == physical and not _case_insensitive(i.collation)
            ]
            if plain:
                yield self.finding(
                    "warning",
                    "query",
                    q.id,
                    f"{view.query_words(q)} matches {path} case-insensitively, but the declared index {', '.join(plain)} on "
                    f"{coll.name} has no case-insensitive collation: a /.../i regex cannot seek it; give it "
                    "collation {locale: 'en', strength: 2} and run the query with the same collation",
                    numbers={"field": path, "indexes": plain},
                )


def _case_insensitive(collation: Any) -> bool:
    """Strength 1 or 2 compares without case (AP-case-insensitive)."""
    return bool(collation) and collation.get("strength") in (1, 2)
