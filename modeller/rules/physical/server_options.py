"""What the server is sent for a collection and an index of the design: options in MongoDB's own spelling.

The mongosh exporters and ``modeller apply`` (``modeller.live.apply``) both
speak to the server; they take these from here so the script and the direct
commands cannot disagree.
"""

from __future__ import annotations

from typing import Any

from modeller.rules.physical.design import CollectionDesign, IndexDesign


def index_options(index: IndexDesign) -> dict[str, Any]:
    """``createIndex`` options in MongoDB spelling; the name is always explicit."""
    options: dict[str, Any] = {"name": index.name}
    if index.unique:
        options["unique"] = True
    if index.expire_after_s is not None:
        options["expireAfterSeconds"] = index.expire_after_s
    if index.partial:
        options["partialFilterExpression"] = index.partial
    if index.collation:
        options["collation"] = index.collation
    return options


def index_key(index: IndexDesign) -> dict[str, Any]:
    """The index key document, in key order."""
    return {path: kind for path, kind in index.keys}


_TS_KEYS = {
    "timeField": "timeField",
    "time_field": "timeField",
    "metaField": "metaField",
    "meta_field": "metaField",
    "granularity": "granularity",
    "bucketMaxSpanSeconds": "bucketMaxSpanSeconds",
    "bucket_max_span_s": "bucketMaxSpanSeconds",
    "bucketRoundingSeconds": "bucketRoundingSeconds",
    "bucket_rounding_s": "bucketRoundingSeconds",
}
_TTL_KEYS = ("expireAfterSeconds", "expire_after_s", "retention_s")


def timeseries_options(coll: CollectionDesign) -> tuple[dict[str, Any], int | None] | None:
    """``(timeseries option, expireAfterSeconds)`` for a time-series collection, else None.

    Accepts the engine's dict in MongoDB spelling or in the file format's snake case.
    """
    ts = coll.timeseries
    if not ts:
        return None
    options = {_TS_KEYS[key]: value for key, value in ts.items() if key in _TS_KEYS and value is not None}
    ttl = next((ts[key] for key in _TTL_KEYS if ts.get(key) is not None), None)
    return options, (int(ttl) if ttl is not None else None)
