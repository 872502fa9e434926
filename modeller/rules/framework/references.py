"""Where the advice comes from: each source's title and address, and its name inside a sentence.

Source keys ("Zola-2", "CN", "ER-seed") are the catalog's shorthand; people read
titles and links, so every text a finding or the rule reference shows goes
through :func:`plain` and :func:`cite`.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: source key -> (title, URL or seed file). Keys follow RULES.md §0.4.
SOURCES: dict[str, tuple[str, str]] = {
    "Zola-1": (
        "W. Zola, 6 Rules of Thumb for MongoDB Schema Design, part 1",
        "https://www.mongodb.com/blog/post/6-rules-of-thumb-for-mongodb-schema-design-part-1",
    ),
    "Zola-2": (
        "W. Zola, 6 Rules of Thumb for MongoDB Schema Design, part 2",
        "https://www.mongodb.com/blog/post/6-rules-of-thumb-for-mongodb-schema-design-part-2",
    ),
    "Zola-3": (
        "W. Zola, 6 Rules of Thumb for MongoDB Schema Design, part 3",
        "https://www.mongodb.com/blog/post/6-rules-of-thumb-for-mongodb-schema-design-part-3",
    ),
    "CN": (
        "zt, MongoDB Schema设计最佳实践 (MongoDB Schema Design Best Practices), 2025",
        "https://withesse.co/post/mongodb-schema-design/",
    ),
    "ER-seed": (
        "MongoDB Schema Design Pattern - Extended Reference Pattern (glenote, 2025)",
        "https://glenote.com/MongoDB/20250406/1554184924",
    ),
    "Manual-1:1": (
        "MongoDB Manual, Model One-to-One Relationships with Embedded Documents",
        "https://www.mongodb.com/docs/manual/tutorial/model-embedded-one-to-one-relationships-between-documents/",
    ),
    "Manual-1:N-embed": (
        "MongoDB Manual, Model One-to-Many Relationships with Embedded Documents",
        "https://www.mongodb.com/docs/manual/tutorial/model-embedded-one-to-many-relationships-between-documents/",
    ),
    "Manual-1:N-ref": (
        "MongoDB Manual, Model One-to-Many Relationships with Document References",
        "https://www.mongodb.com/docs/manual/tutorial/model-referenced-one-to-many-relationships-between-documents/",
    ),
    "Manual-embed-vs-ref": (
        "MongoDB Manual, Embedded Data Versus References",
        "https://www.mongodb.com/docs/manual/data-modeling/concepts/embedding-vs-references/",
    ),
    "Manual-best-practices": (
        "MongoDB Manual, Data Modeling Best Practices",
        "https://www.mongodb.com/docs/manual/data-modeling/best-practices/",
    ),
    "Manual-map-relationships": (
        "MongoDB Manual, Map Schema Relationships",
        "https://www.mongodb.com/docs/manual/data-modeling/schema-design-process/map-relationships/",
    ),
    "Manual-duplicate": (
        "MongoDB Manual, Handle Duplicate Data",
        "https://www.mongodb.com/docs/manual/data-modeling/handle-duplicate-data/",
    ),
    "Manual-atomic": (
        "MongoDB Manual, Model Data for Atomic Operations",
        "https://www.mongodb.com/docs/manual/tutorial/model-data-for-atomic-operations/",
    ),
    "Manual-single-collection": (
        "MongoDB Manual, Single Collection Pattern",
        "https://www.mongodb.com/docs/v8.0/data-modeling/design-patterns/single-collection/",
    ),
    "Manual-limits": (
        "MongoDB Manual, MongoDB Limits and Thresholds",
        "https://www.mongodb.com/docs/manual/reference/limits/",
    ),
    "Manual-bson-order": (
        "MongoDB Manual, Comparison/Sort Order",
        "https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/",
    ),
    "Manual-multikey": ("MongoDB Manual, Multikey Indexes", "https://www.mongodb.com/docs/manual/core/index-multikey/"),
    "Manual-ESR": (
        "MongoDB Manual, The ESR (Equality, Sort, Range) Guideline",
        "https://www.mongodb.com/docs/manual/tutorial/equality-sort-range-guideline/",
    ),
    "Manual-TTL": ("MongoDB Manual, TTL Indexes", "https://www.mongodb.com/docs/manual/core/index-ttl/"),
    "Manual-partial": ("MongoDB Manual, Partial Indexes", "https://www.mongodb.com/docs/manual/core/index-partial/"),
    "Manual-keyword": (
        "MongoDB Manual, Model Data to Support Keyword Search",
        "https://www.mongodb.com/docs/manual/tutorial/model-data-for-keyword-search/",
    ),
    "Manual-bucket": (
        "MongoDB Manual, Bucket Pattern",
        "https://www.mongodb.com/docs/manual/data-modeling/design-patterns/group-data/bucket-pattern/",
    ),
    "Manual-subset": (
        "MongoDB Manual, Subset Pattern",
        "https://www.mongodb.com/docs/manual/data-modeling/design-patterns/group-data/subset-pattern/",
    ),
    "Manual-inheritance": (
        "MongoDB Manual, Inheritance Schema Pattern",
        "https://www.mongodb.com/docs/manual/data-modeling/design-patterns/polymorphic-data/inheritance-schema-pattern/",
    ),
    "Manual-TS-best-practices": (
        "MongoDB Manual, Best Practices for Time Series Collections",
        "https://www.mongodb.com/docs/manual/core/timeseries/timeseries-best-practices/",
    ),
    "Manual-TS-granularity": (
        "MongoDB Manual, Set Granularity for Time Series Data",
        "https://www.mongodb.com/docs/manual/core/timeseries/timeseries-granularity/",
    ),
    "Manual-AP-unbounded": (
        "MongoDB Manual, Avoid Unbounded Arrays",
        "https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unbounded-arrays/",
    ),
    "Manual-AP-unnecessary-indexes": (
        "MongoDB Manual, Remove Unnecessary Indexes",
        "https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unnecessary-indexes/",
    ),
    "AP-massive-arrays": (
        "Schema Design Anti-Pattern: Massive Arrays",
        "https://www.mongodb.com/developer/products/mongodb/schema-design-anti-pattern-massive-arrays/",
    ),
    "AP-separating-data": (
        "Schema Design Anti-Pattern: Separating Data That Is Accessed Together",
        "https://www.mongodb.com/developer/products/mongodb/schema-design-anti-pattern-separating-data/",
    ),
    "AP-unnecessary-indexes": (
        "Schema Design Anti-Pattern: Unnecessary Indexes",
        "https://www.mongodb.com/developer/products/mongodb/schema-design-anti-pattern-unnecessary-indexes/",
    ),
    "AP-massive-collections": (
        "Schema Design Anti-Pattern: Massive Number of Collections",
        "https://www.mongodb.com/developer/products/mongodb/schema-design-anti-pattern-massive-number-collections/",
    ),
    "Manual-AP-reduce-collections": (
        "MongoDB Manual, Reduce the Number of Collections",
        "https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/reduce-collections/",
    ),
    "Univ": (
        "MongoDB University, Advanced Schema Patterns and Antipatterns",
        "https://learn.mongodb.com/",
    ),
    "BwP-bucket": (
        "Building with Patterns: The Bucket Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-bucket-pattern",
    ),
    "BwP-computed": (
        "Building with Patterns: The Computed Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-computed-pattern",
    ),
    "BwP-subset": (
        "Building with Patterns: The Subset Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-subset-pattern",
    ),
    "BwP-polymorphic": (
        "Building with Patterns: The Polymorphic Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-polymorphic-pattern",
    ),
    "BwP-extended-ref": (
        "Building with Patterns: The Extended Reference Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-extended-reference-pattern",
    ),
    "BwP-attribute": (
        "Building with Patterns: The Attribute Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-attribute-pattern",
    ),
    "BwP-approximation": (
        "Building with Patterns: The Approximation Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-approximation-pattern",
    ),
    "Manual-approximation": (
        "MongoDB Manual, Approximation Schema Pattern",
        "https://www.mongodb.com/docs/manual/data-modeling/design-patterns/computed-values/approximation-schema-pattern/",
    ),
    "BwP-outlier": (
        "Building with Patterns: The Outlier Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-outlier-pattern",
    ),
    "Manual-outlier": (
        "MongoDB Manual, Outlier Pattern",
        "https://www.mongodb.com/docs/manual/data-modeling/design-patterns/group-data/outlier-pattern/",
    ),
    "Manual-versioning": (
        "MongoDB Manual, Data Versioning",
        "https://www.mongodb.com/docs/manual/data-modeling/design-patterns/data-versioning/",
    ),
    "BwP-schema-versioning": (
        "Building with Patterns: The Schema Versioning Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-schema-versioning-pattern",
    ),
    "BwP-document-versioning": (
        "Building with Patterns: The Document Versioning Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-document-versioning-pattern",
    ),
    "Manual-trees": (
        "MongoDB Manual, Model Tree Structures",
        "https://www.mongodb.com/docs/manual/applications/data-models-tree-structures/",
    ),
    "BwP-tree": (
        "Building with Patterns: The Tree Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-tree-pattern",
    ),
    "BwP-preallocation": (
        "Building with Patterns: The Preallocation Pattern",
        "https://www.mongodb.com/blog/post/building-with-patterns-the-preallocation-pattern",
    ),
    "Manual-data-model-ops": (
        "MongoDB Manual 4.0, Operational Factors and Data Models (document growth)",
        "https://www.mongodb.com/docs/v4.0/core/data-model-operations/",
    ),
    "Manual-archive": (
        "MongoDB Manual, Archive Pattern",
        "https://www.mongodb.com/docs/manual/data-modeling/design-patterns/archive/",
    ),
    "Manual-agg-limits": (
        "MongoDB Manual, Aggregation Pipeline Limits",
        "https://www.mongodb.com/docs/manual/core/aggregation-pipeline-limits/",
    ),
    "Manual-AP-bloated": (
        "MongoDB Manual, Bloated Documents",
        "https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/bloated-documents/",
    ),
    "AP-bloated": (
        "Schema Design Anti-Pattern: Bloated Documents",
        "https://www.mongodb.com/developer/products/mongodb/schema-design-anti-pattern-bloated-documents/",
    ),
    "AP-case-insensitive": (
        "Schema Design Anti-Pattern: Case-Insensitive Queries Without Case-Insensitive Indexes",
        "https://www.mongodb.com/developer/products/mongodb/schema-design-anti-pattern-case-insensitive-query-index/",
    ),
    "Manual-case-insensitive": (
        "MongoDB Manual, Case-Insensitive Indexes",
        "https://www.mongodb.com/docs/manual/core/index-case-insensitive/",
    ),
    "Atlas-PA": (
        "MongoDB Atlas, Performance Advisor: Schema Suggestions",
        "https://www.mongodb.com/docs/atlas/performance-advisor/schema-advisor/",
    ),
    "Compass": (
        "MongoDB Compass, Performance Insights",
        "https://www.mongodb.com/docs/compass/current/manage-data/performance-insights/",
    ),
    "Skills": (
        "MongoDB Agent Skills, MongoDB Schema Design",
        "https://github.com/mongodb/agent-skills/tree/main/skills/mongodb-schema-design",
    ),
    "Manual-shard-key": (
        "MongoDB Manual, Choose a Shard Key",
        "https://www.mongodb.com/docs/manual/core/sharding-choose-a-shard-key/",
    ),
    "Manual-hashed": ("MongoDB Manual, Hashed Sharding", "https://www.mongodb.com/docs/manual/core/hashed-sharding/"),
    "Manual-shard-distribute": (
        "MongoDB Manual, Distribute Collection Data",
        "https://www.mongodb.com/docs/manual/core/sharding-distribute-collection-data/",
    ),
}


#: how a source reads inside a sentence ("as Zola's 6 Rules of Thumb, part 3 says"); others use their title
NAMES: dict[str, str] = {
    "Zola-1": "Zola's 6 Rules of Thumb, part 1",
    "Zola-2": "Zola's 6 Rules of Thumb, part 2",
    "Zola-3": "Zola's 6 Rules of Thumb, part 3",
    "CN": "the article MongoDB Schema Design Best Practices",
    "ER-seed": "the article Extended Reference Pattern",
    "Atlas-PA": "Atlas Performance Advisor",
    "Compass": "MongoDB Compass",
    "Skills": "MongoDB's schema-design agent skills",
    "Univ": "MongoDB University",
}


#: a key of a family the catalog cites without a page of its own ("[Manual-TS]")
FAMILIES: dict[str, str] = {
    "Manual": "the MongoDB Manual",
    "AP": "MongoDB's Schema Design Anti-Patterns series",
    "BwP": "MongoDB's Building with Patterns series",
}


def name_of(key: str) -> str:
    """A source's name for a sentence: ``NAMES``, else its title ("MongoDB Manual, Bucket Pattern")."""
    if key in NAMES:
        return NAMES[key]
    if key in SOURCES:
        return SOURCES[key][0]
    return FAMILIES[key.partition("-")[0]]


#: keys that look like shorthand wherever they stand; plain words ("Compass") only inside brackets
_BARE = sorted((k for k in SOURCES if "-" in k or k in ("CN", "Univ")), key=len, reverse=True)
#: the first characters a match can start with ("the", "[", a bare key). Speed only (DESIGN.md's cold analysis
#: near 250 ms at 1,000 entities): the lookahead changes no match, but without it the engine tries every bare
#: key at every character of every finding's text (3x slower ``plain``)
_FIRST = "".join(sorted({"T", "t", "["} | {key[0] for key in _BARE}))
_KEYS = re.compile(
    "(?=[" + re.escape(_FIRST) + "])"
    r"(?P<the>\b[Tt]he\s+)?(?:\[(?P<bracketed>(?:Manual|AP|BwP)-[^\]\s]+|"
    + "|".join(map(re.escape, sorted(SOURCES, key=len, reverse=True)))
    + r")\](?:\s+seed\b)?"
    r"|\b(?P<bare>" + "|".join(map(re.escape, _BARE)) + r")\b(?:\s+seed\b)?)"
)


def _named(match: re.Match[str]) -> str:
    name = name_of(match.group("bracketed") or match.group("bare"))
    the = match.group("the")
    if the and not name.startswith("the "):
        return the + name  # "the MongoDB Manual, ..." keeps its article
    return name[0].upper() + name[1:] if the and the[0] == "T" else name


#: every match of ``_KEYS`` holds one of these: a text without any is returned as it is. The pattern's
#: leading optional "the" keeps the regex engine from skipping ahead, so it tried ~60 keys at every
#: character: 0.1 ms a finding, a third of a 10,000-entity analysis (its texts name entities, so the
#: cache below rarely hits there)
_SCREEN = tuple(sorted({"["} | {key.split("-")[0] + "-" if "-" in key else key for key in _BARE}))
#: ``_SCREEN`` as one pattern: one scan of the text instead of one per part (speed only, DESIGN.md's cold
#: analysis near 250 ms at 1,000 entities: most texts name entities, miss the cache and hold no key; half the
#: time of the ``any`` over the parts)
_SCREEN_RE = re.compile("|".join(map(re.escape, _SCREEN)))
#: a part of each ``_SCREEN`` entry (a key prefix's last letter and its dash, else the whole entry): a text
#: holding none of them holds no key. Speed only (issue 16: 75,000 findings' texts at 10,000 entities, most
#: with no key): a substring test of each is a few times faster than the one scan of ``_SCREEN_RE``, whose
#: alternatives start at every capital of the entities' names; "one-to-many" or "parent-ref" pass it, as no
#: key ends with "e-" or "t-"
_HINTS = tuple(dict.fromkeys(part[-2:] if part.endswith("-") else part for part in _SCREEN))


@lru_cache(maxsize=4096)
def plain(text: str) -> str:
    """``text`` with every source key written as the source's name: what a person reads."""
    if not text:
        return text
    for hint in _HINTS:
        if hint in text:
            break
    else:
        return text
    if _SCREEN_RE.search(text) is None:
        return text
    return _KEYS.sub(_named, text)


def cite(*keys: str) -> str:
    """``"W. Zola, ... part 1 <https://...>; MongoDB Manual, ... <https://...>"`` for the given source keys."""
    parts = []
    for key in keys:
        title, where = SOURCES[key]
        parts.append(f"{title} <{where}>")
    return "; ".join(parts)
