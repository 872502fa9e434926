"""Why the resolver derives an index, in its own words (the rules behind each reason come from the catalog).

Each index the engine adds is tagged with one of these reasons; the rules
that claim a reason (``Rule.index_claims``) are the ``rules`` the design
lists for that index. The resolver never names a rule.
"""

from __future__ import annotations

#: a field declared unique gets a unique index
UNIQUE = "unique"
#: the reference from the N side to its One (``logmsg.host_id``)
REFERENCE = "reference"
#: a bucket collection's series field and bucket start
BUCKET_SERIES = "bucket-series"
#: the ``links`` array of a single collection
LINKS = "links"
#: the array of references of a two-way many-to-many
LINK_ARRAY = "link-array"
#: a TTL index (retention of a time series, or a field's expire_after_s)
EXPIRY = "expiry"
#: a text or 2dsphere index for a query's predicate
TEXT_OR_GEO = "text-or-geo"
#: a compound index in Equality, Sort, Range order for a query
COMPOUND_QUERY = "compound-query"
#: a single-field index for a query
QUERY = "query"
#: the index of a tree model (ancestors, materialized path, nested-set bounds, child references)
TREE = "tree"
#: the ``{k: 1, v: 1}`` index of an array of key/value pairs (attribute pattern)
ATTRIBUTE = "attribute"
#: the age index an archive job moves old documents by (archive pattern)
ARCHIVE = "archive"
#: the (reference, revision) index of a revisions collection (document versioning)
REVISIONS = "revisions"
#: the path a copy's sync ``updateMany`` matches (``author._id`` of an extended reference, ``parts.id``)
SYNC = "sync"
#: the parent reference of an outlier's overflow documents (outlier pattern)
OVERFLOW = "overflow"
