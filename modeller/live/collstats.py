"""The server's own size of a collection: ``$collStats`` storage statistics, read where the server has them.

``infer`` samples a thousand documents, but the entity's ``count`` and the average document size should be
the whole collection's, as the server counts them, not the sample's. ``$collStats: {storageStats: {}}``
returns the document count and the uncompressed data size (``avgObjSize`` is their ratio); a sharded
collection answers with one document per shard, which are added up here. A time-series collection's storage
statistics count buckets, not measurements, so it is not asked (its count stays ``estimatedDocumentCount``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: the aggregation stage that reads them (MongoDB 3.4+; the ``read`` role may run it)
STAGE: dict[str, Any] = {"$collStats": {"storageStats": {}}}


@dataclass(frozen=True)
class StorageStats:
    """A collection's documents and their uncompressed size in bytes, as the server counts them."""

    count: int
    size: int

    @property
    def avg_bytes(self) -> int | None:
        """Average document size in bytes (None for an empty collection)."""
        return round(self.size / self.count) if self.count > 0 else None


def _number(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return int(value)


def storage_stats(replies: Iterable[Mapping[str, Any]]) -> StorageStats | None:
    """The ``$collStats`` replies (one per shard) added up; None when none carries a count and a size."""
    count = size = 0
    seen = False
    for reply in replies:
        stats = reply.get("storageStats")
        if not isinstance(stats, Mapping):
            continue
        n, bytes_ = _number(stats.get("count")), _number(stats.get("size"))
        if n is None or bytes_ is None:
            continue
        count, size, seen = count + n, size + bytes_, True
    return StorageStats(count, size) if seen else None


def describe(stats: StorageStats) -> str:
    """The entity description's words for them (the format has no field for the average document size)."""
    average = f", {stats.avg_bytes:,} bytes each on average" if stats.avg_bytes is not None else ""
    return f"the server holds {stats.count:,} documents{average} ($collStats)"
