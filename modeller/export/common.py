"""Small pieces every exporter shares: the design's fingerprint, entity names, time-series options."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from modeller import __version__
from modeller.model.project import Project
from modeller.rules.design import CollectionDesign, Design, IndexDesign

GENERATOR = f"modeller {__version__}"


def design_digest(design: Design) -> str:
    """A short fingerprint of the resolved design, so a script can name the design it came from."""
    text = json.dumps(design.to_json(), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def database_name(design: Design, project: Project) -> str:
    """The target database: the design's, else the project's, else ``test`` (mongosh's default)."""
    return design.database or project.database or "test"


def entity_names(project: Project) -> dict[str, str]:
    """Entity id -> the name the user gave it (reports and diagrams speak the user's words)."""
    return {entity.id: entity.name for entity in project.entities}


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


def human_count(value: int | None) -> str:
    """``1234567`` -> ``"1.2M"``: estimates are rough, so is their display."""
    if value is None:
        return "?"
    for limit, suffix in ((10**12, "T"), (10**9, "G"), (10**6, "M"), (10**3, "k")):
        if value >= limit:
            scaled = value / limit
            return f"{scaled:.0f}{suffix}" if scaled >= 100 else f"{scaled:.3g}{suffix}"
    return str(value)


def human_bytes(value: int | None) -> str:
    """Bytes as B / KB / MB / GB (1024-based: BSON limits are in MiB)."""
    if value is None:
        return "?"
    size = float(value)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.3g} {unit}"
        size /= 1024
    return f"{size:.3g} GB"
