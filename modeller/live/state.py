"""What a database holds, as ``apply`` and ``drift`` compare it with a design (pure: read elsewhere, by ``source``).

One :class:`ObservedCollection` per ``listCollections`` entry with its
``listIndexes`` output, and, where the design's validator differs from the
server's, how many documents would fail the design's (a ``$nor`` count).
Index keys and options are normalised here once, so the planner and the drift
report compare the same things: directions as ints, a text index as its
weighted fields, a collation by the options the design names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from modeller.rules.physical.design import CollectionDesign, IndexDesign
from modeller.rules.physical.server_options import index_key, index_options, timeseries_options

#: the index options the server reports (besides the name and the key) that a design's index must match; a design
#: never has ``sparse`` (the format has no such key), so a sparse index on the server differs from it
INDEX_OPTIONS = ("unique", "sparse", "expireAfterSeconds", "partialFilterExpression", "collation")


@dataclass(frozen=True)
class ObservedCollection:
    """One ``listCollections`` entry: name, type (collection, timeseries, view), options and indexes."""

    name: str
    kind: str = "collection"
    options: Mapping[str, Any] = field(default_factory=dict)
    indexes: Sequence[Mapping[str, Any]] = ()
    #: documents failing the design's validator (counted only where the validator or its level differs)
    failing: int | None = None
    #: why some of them fail, one line per field (read from the first of them: ``drift.failing_fields``)
    failing_why: tuple[str, ...] = ()

    @property
    def is_view(self) -> bool:
        # some servers (mongoeco) list a view as a collection with ``viewOn``
        return self.kind == "view" or bool(self.options.get("viewOn"))

    @property
    def is_timeseries(self) -> bool:
        return self.kind == "timeseries" or bool(self.options.get("timeseries"))


@dataclass(frozen=True)
class DatabaseState:
    """A database as the server listed it (system collections left out)."""

    database: str
    collections: Mapping[str, ObservedCollection] = field(default_factory=dict)


def key_pairs(spec: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """A ``listIndexes`` key as ``[(path, 1 | -1 | "text" | ...)]``; a text index as its weighted fields."""
    raw = list((spec.get("key") or {}).items())
    if any(k.startswith("_fts") for k, _ in raw):
        weights = spec.get("weights") or {}
        return [(k, "text") for k in weights] or raw
    return [(k, _direction(v)) for k, v in raw]


def _direction(value: Any) -> Any:
    if isinstance(value, float) and value in (1.0, -1.0):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)  # Int64 -> int
    return value


def design_key_pairs(index: IndexDesign) -> list[tuple[str, Any]]:
    return [(k, _direction(v)) for k, v in index_key(index).items()]


def option_differences(index: IndexDesign, spec: Mapping[str, Any]) -> list[str]:
    """The options where the server's index differs from the design's, in MongoDB spelling."""
    wanted = index_options(index)
    out = []
    for option in INDEX_OPTIONS:
        want, have = wanted.get(option), spec.get(option)
        if option in ("unique", "sparse"):
            want, have = bool(want), bool(have)
        elif option == "collation" and isinstance(want, Mapping) and isinstance(have, Mapping):
            have = {k: have.get(k) for k in want}  # the server fills in every default the design leaves out
        elif option == "expireAfterSeconds" and have is not None:
            have = int(have)
        if want != have:
            out.append(option)
    return out


def is_hidden(spec: Mapping[str, Any]) -> bool:
    """A hidden index (``hideIndex``, as a migration leaves an old one): the planner does not use it."""
    return spec.get("hidden") is True


def wanted_validator(coll: CollectionDesign) -> dict[str, Any] | None:
    """The validator the design gives the collection (None for a time series: the server takes none)."""
    return None if timeseries_options(coll) is not None else coll.validator


def validator_settings(options: Mapping[str, Any]) -> tuple[Any, str, str]:
    """(validator, level, action) of a collection's options, with the server's defaults filled in."""
    return (
        options.get("validator") or None,
        str(options.get("validationLevel") or "strict"),
        str(options.get("validationAction") or "error"),
    )


def validator_differs(coll: CollectionDesign, observed: ObservedCollection) -> bool:
    """Does the server's validator, level or action differ from the design's?"""
    wanted = wanted_validator(coll)
    if wanted is None or observed.is_timeseries or observed.is_view:
        return False
    return validator_settings(observed.options) != (wanted, coll.validation_level, coll.validation_action)
