"""Every number the engine decides with, with its kind and its source (RULES.md §2).

Rules read thresholds only from :class:`Settings`, never from literals, so a
project (or a test) can override one value and the documentation can list
where each number comes from. Kinds: ``H`` hard server limit, ``T`` MongoDB
tool trigger (Atlas / Compass), ``G`` published guideline, ``X`` number from a
published example, ``E`` engine default (no published number exists).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

Kind = Literal["H", "T", "G", "X", "E"]


def _t(value: Any, kind: Kind, source: str) -> Any:
    """A threshold with its provenance kept in the dataclass field metadata."""
    return field(default=value, metadata={"kind": kind, "source": source})


@dataclass(frozen=True, slots=True)
class Settings:
    """Thresholds of the recommendation engine (see :func:`describe` for their sources)."""

    # --- array sizes (RULES §5.1: graded levels) ---
    few_max: int = _t(100, "G", "[CN] 1:few N<100 embed if read together; [Skills] SKILL.md decision table")
    embed_max: int = _t(200, "G", "[Zola-3] rule 3: more than a couple of hundred on the many side: don't embed")
    refarray_max: int = _t(2000, "E", "[Zola-3] 'more than a few thousand: no ObjectID array' -> engine default 2,000")
    compass_array: int = _t(250, "T", "[Compass] shouldShowUnboundArrayInsight thresholdLength = 250")
    atlas_array: int = _t(10_000, "T", "[Atlas-PA] DOCS_CONTAIN_UNBOUNDED_ARRAY: arrays with over 10000 entries")
    in_list_equality_max: int = _t(200, "G", "[Manual-ESR] $in lists < 200 values are merged like equality")
    # --- document size and nesting ---
    max_doc_bytes: int = _t(16 * 1024 * 1024, "H", "[Manual-limits] BSON document size 16 MiB")
    doc_info_bytes: int = _t(200_000, "G", "[Skills] fundamental-document-size: reassess when > ~200KB")
    doc_suggest_bytes: int = _t(1_000_000, "G", "[Skills] fundamental-document-size: aim for documents under 1MB")
    doc_warn_bytes: int = _t(2 * 1024 * 1024, "T", "[Atlas-PA] DOC_SIZE_TOO_LARGE: documents larger than 2 MB")
    doc_compass_bytes: int = _t(10_000_000, "T", "[Compass] bloated-document insight: $bsonSize > 10,000,000")
    max_nesting: int = _t(100, "H", "[Manual-limits] no more than 100 levels of nesting")
    # --- indexes ---
    max_indexes: int = _t(64, "H", "[Manual-limits] 64 indexes per collection")
    max_compound_fields: int = _t(32, "H", "[Manual-limits] 32 fields in a compound index")
    index_count_info: int = _t(10, "T", "[Compass] IDEAL_NUMBER_OF_MAX_INDEXES = 10")
    index_count_warn: int = _t(30, "T", "[Atlas-PA] NUM_INDEXES: more than 30 indexes")
    index_count_guideline: int = _t(50, "G", "[AP-unnecessary-indexes] limit a collection to 50 indexes")
    hot_per_sec: float = _t(10.0, "E", "engine default: a query run >= 10 times per second is a hot path")
    # --- denormalization gate (RULES §5.8) ---
    denorm_rw_min: float = _t(10.0, "E", "engine default (Zola: 'high read to write ratio'; BwP-computed shows 1000:1)")
    denorm_rw_warn: float = _t(1.0, "E", "engine default: a copy updated more often than read costs more than a join")
    immutable_rw_factor: float = _t(100.0, "E", "engine default: rw >= 100 x gate counts as effectively immutable")
    # --- relationship shape ---
    read_together_min: float = _t(0.5, "E", "engine default: embed when at least half the reads need both sides")
    one_to_one_child_bytes: int = _t(10_000, "G", "[Skills] embed-vs-reference: embedded doc > 10KB ...")
    one_to_one_parent_bytes: int = _t(1_000, "G", "[Skills] embed-vs-reference: ... while the parent < 1KB")
    default_few: int = _t(10, "E", "engine default: upper bound of a one-to-few without 'max'")
    default_many: int = _t(1000, "E", "engine default: upper bound of a one-to-many without 'max'")
    default_squillions: int = _t(1_000_000, "E", "engine default: size of a one-to-squillions without 'max'")
    default_many_to_many: int = _t(100, "E", "engine default: references per side of a many-to-many without 'max'")
    # --- patterns ---
    subset_factor: float = _t(2.0, "E", "engine default: subset when n_max >= 2 x the elements shown")
    subset_small_bytes: int = _t(200_000, "G", "[Skills] 200KB: a subset array may hold up to 1,000 small elements")
    subset_seed_max: int = _t(1000, "X", "[Zola-2] hosts keep the last 1,000 log messages")
    bucket_page_max: int = _t(
        100, "X", "[Manual-bucket] a bucket doubles as a UI page: 10 trades per page; 100 comments per page"
    )
    bucket_item_max_bytes: int = _t(
        1024, "E", "engine default: a 'small' document of a stream that rule 19 buckets (Manual-bucket: trades)"
    )
    polymorphic_share: float = _t(
        0.5, "E", "engine default: entities sharing >= 50 % of their fields are variants of one entity (rule 25)"
    )
    polymorphic_min_fields: int = _t(
        3, "E", "engine default: variants share at least 3 fields (the CN seed's name, brand, price)"
    )
    polymorphic_max_shared: int = _t(
        50, "E", "engine default: two fields held by more than 50 kinds of entity are too common to mark variants"
    )
    collections_max: int = _t(
        10_000,
        "G",
        "[AP-massive-collections] limit collections to 10,000 per replica set ([Univ]: per shard on a sharded "
        "cluster); [Compass] sidebar insight above 10,000 collections",
    )
    collections_small_cluster: int = _t(
        5_000, "G", "[Univ] Advanced Schema Patterns and Antipatterns: an M10 cluster slows down beyond 5,000"
    )
    dynamic_collections_min: int = _t(
        2, "E", "engine default: two collections named alike but for a date are a collection per period"
    )
    dynamic_names_min: int = _t(
        3,
        "E",
        "engine default: three collections with the same fields whose names differ in words (logs_acme, logs_globex, "
        "logs_initech) are a collection per tenant or place; two may be two kinds of one thing",
    )
    attribute_min: int = _t(5, "E", "engine default (RULES §2 #52): >= 5 similar sparse fields make an attribute group")
    approximation_step: int = _t(
        100, "X", "[BwP-approximation] update by 100, 1% of the time: writes reduced by 99%; [Manual-approximation] 100"
    )
    approximation_updates_per_sec: float = _t(
        10.0, "E", "engine default: a counter incremented >= 10 times per second is a hot write (as a hot query)"
    )
    outlier_factor: float = _t(
        20.0, "E", "engine default (RULES §2 #53): n_max >= 20 x typical ([Skills]: 4x only means raise the bound)"
    )
    outlier_headroom: float = _t(
        4.0, "E", "engine default: embed up to 4 x typical ([Skills] pattern-outlier: 200 vs 50 is not an outlier)"
    )
    outlier_max: int = _t(1000, "X", "[BwP-outlier] customers_purchased array beyond a 1000 item limit")
    schema_migration_batch: int = _t(1000, "X", "[Skills] schema-versioning-migration: migrate in batches of 1,000")
    revisions_per_doc_max: int = _t(
        100, "E", "engine default for [BwP-document-versioning]'s 'each document doesn't have too many revisions'"
    )
    archive_batch: int = _t(1000, "E", "engine default: the mover deletes archived documents in batches of 1,000")
    bloated_min_bytes: int = _t(4096, "E", "engine default (RULES §2 #54): documents of 4 KB or more")
    bloated_cold_share: float = _t(0.5, "E", "engine default (RULES §2 #54): cold fields >= 50 % of the document")
    agg_stage_max_bytes: int = _t(
        100 * 1024 * 1024, "H", "[Manual-agg-limits] 100 MB of memory per aggregation stage unless it spills to disk"
    )
    ts_min_version: float = _t(5.0, "H", "[Manual-TS] time series collections exist from MongoDB 5.0")
    ts_auto_index_version: float = _t(
        6.3,
        "H",
        "[Manual-TS] from MongoDB 6.3 the server creates a compound index on a new time series collection's "
        "metaField and timeField",
    )
    lookup_share: float = _t(0.5, "T", "[Atlas-PA] PERCENT_QUERIES_USE_LOOKUP > 50%")
    lookup_count: int = _t(100, "T", "[Atlas-PA] NUMBER_OF_QUERIES_USE_LOOKUP > 100")
    # --- size estimates (engine defaults, bytes) ---
    default_string_bytes: int = _t(24, "E", "engine default: average string value size")
    default_array_items: int = _t(5, "E", "engine default: elements of a declared array field without max_items")
    default_array_max: int = _t(100, "E", "engine default: maximum elements of an array field without max_items")
    optional_presence: float = _t(
        0.5, "E", "engine default: share of documents that hold an optional field (average sizes; maxima count it)"
    )
    transaction_lifetime_s: int = _t(60, "H", "[Manual-limits] transactionLifetimeLimitSeconds default 60 s")
    # --- query plans (physical/planner.py) ---
    blocking_sort_max_bytes: int = _t(
        100 * 1024 * 1024,
        "H",
        "[Manual-limits] a blocking sort that cannot spill to disk uses at most 100 MB of memory "
        "(internalQueryMaxBlockingSortMemoryUsageBytes)",
    )
    sync_scan_docs_per_sec_max: float = _t(
        1000.0,
        "E",
        "engine default: a copy's sync filter path is indexed unless its scans examine fewer documents per second",
    )
    default_count: int = _t(10_000, "E", "engine default: documents of an entity without a declared count")
    default_eq_selectivity: float = _t(
        0.01, "E", "engine default: share of documents an equality matches on a field without 'distinct'"
    )
    default_range_selectivity: float = _t(
        0.1, "E", "engine default: share of documents a range, regex, text or geo predicate matches"
    )

    # --- sharding (RULES.md 44, 45; physical/shardkey.py) ---
    shard_collection_bytes: int = _t(
        3 * 1000**4,
        "G",
        "[Manual-shard-distribute] 'If your collection contains 3TB of data or more, you should consider sharding it'",
    )
    shard_writes_per_sec: float = _t(
        10_000,
        "E",
        "engine default: writes per second above which one replica set's primary is the bottleneck "
        "(the Manual names write demand as a reason to shard, without a number)",
    )
    shards_default: int = _t(2, "E", "engine default: planned shards when the project does not say 'shards'")
    shard_cardinality_factor: int = _t(
        10, "E", "engine default: a shard key with at most 10 x shards distinct values warns"
    )
    shard_top_share: float = _t(0.1, "E", "engine default: one shard-key value holding >= 10 % of the documents warns")
    shard_heavy_inserts: float = _t(
        1_000,
        "E",
        "engine default: inserts per second from which a monotonic ranged key's single hot chunk limits throughput "
        "([Manual-limits] 'Monotonically Increasing Shard Keys Can Limit Insert Throughput')",
    )
    shard_weight_targeting: float = _t(0.4, "E", "engine default: weight of the targeted query share in a key's score")
    shard_weight_cardinality: float = _t(0.25, "E", "engine default: weight of cardinality in a key's score")
    shard_weight_frequency: float = _t(0.15, "E", "engine default: weight of a low top-value share in a key's score")
    shard_weight_monotonic: float = _t(
        0.1, "E", "engine default: weight of spreading inserts (not monotonic, or hashed) in a key's score"
    )
    shard_weight_immutable: float = _t(0.1, "E", "engine default: weight of a key whose values never change")

    def with_values(self, **values: Any) -> Settings:
        """A copy with some values replaced (per-project overrides, tests)."""
        return replace(self, **values)


DEFAULT_SETTINGS = Settings()


@dataclass(frozen=True, slots=True)
class ThresholdInfo:
    """One threshold as the documentation shows it."""

    name: str
    value: Any
    kind: Kind
    source: str


def describe(settings: Settings = DEFAULT_SETTINGS) -> list[ThresholdInfo]:
    """Every threshold with its value, kind and source, in declaration order."""
    return [
        ThresholdInfo(f.name, getattr(settings, f.name), f.metadata["kind"], f.metadata["source"])
        for f in fields(settings)
    ]
