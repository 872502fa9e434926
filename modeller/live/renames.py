"""Fields renamed half-way through a collection's data (``signup`` -> ``created_at``), as a sample shows them (pure).

A rename made in the application and never migrated leaves two optional fields:
no document holds both, and every document with the old name is older (by its
ObjectId ``_id``) than every document with the new one. Both names hold the same kind of value (the commonest type of one is among
the other's types: ``cust_id`` held ObjectIds and their hex strings,
``customer_id`` ObjectIds). Two fields of two kinds of document (a card's
number, a transfer's IBAN) meet the first condition but not the time cut, so
they are no rename. ``infer`` and ``drift`` both say so, with the counts and
the way out: a rename migration.
"""

from __future__ import annotations

from dataclasses import dataclass

from modeller.live.apply import quoted
from modeller.live.stats import CollectionStats, FieldStats

#: documents each of the two names must be held by before a rename is claimed
RENAME_MIN_DOCS = 5
#: top-level fields compared pairwise (a collection with more optional fields is not searched)
RENAME_MAX_FIELDS = 200


@dataclass(frozen=True)
class Rename:
    """``old`` held by the ``old_count`` older documents, ``new`` by the ``new_count`` newer ones, never both."""

    old: str
    new: str
    old_count: int
    new_count: int


def renamed_fields(stats: CollectionStats) -> list[Rename]:
    """The probable renames in one collection's sample, oldest name first; none when the sample cannot tell
    (too many key lists kept, ``_id`` s that are no ObjectIds)."""
    if stats.shapes_full:
        return []
    fields = stats.fields
    spans = _spans(stats)
    optional = [
        name
        for name, field in fields.items()
        if name != "_id" and RENAME_MIN_DOCS <= field.count < stats.documents and name in spans
    ][:RENAME_MAX_FIELDS]
    held_in = _held_in(stats, set(optional))
    found: list[Rename] = []
    taken: set[str] = set()
    for old in sorted(optional, key=lambda n: spans[n][0]):  # the name seen first, first
        if old in taken:
            continue
        newer = [
            new
            for new in optional
            if new != old
            and new not in taken
            and spans[old][1] < spans[new][0]
            and not held_in[old] & held_in[new]
            and _same_kind(fields[old], fields[new])
        ]
        if newer:
            new = max(newer, key=lambda n: (fields[n].count, n))
            taken.update((old, new))
            found.append(Rename(old, new, fields[old].count, fields[new].count))
    return found


def _spans(stats: CollectionStats) -> dict[str, tuple[bytes, bytes]]:
    """Per top-level field, the oldest and newest ``_id`` holding it (an ObjectId's bytes); a field some document
    without an ObjectId ``_id`` holds is left out (its age is not known)."""
    spans: dict[str, tuple[bytes, bytes]] = {}
    unknown: set[str] = set()
    for keys, (_, first, last) in stats.shapes.items():
        for name in keys:
            if first is None:
                unknown.add(name)
                continue
            seen = spans.get(name)
            spans[name] = (first, last) if seen is None else (min(seen[0], first), max(seen[1], last))
    return {name: span for name, span in spans.items() if name not in unknown}


def _held_in(stats: CollectionStats, names: set[str]) -> dict[str, set[int]]:
    """Per name, the numbers of the key lists holding it (two names some document holds together share one)."""
    held: dict[str, set[int]] = {name: set() for name in names}
    for number, keys in enumerate(stats.shapes):
        for name in keys:
            if name in held:
                held[name].add(number)
    return held


def _same_kind(old: FieldStats, new: FieldStats) -> bool:
    """One name's commonest type is among the other's (nulls aside)."""
    a, b = old.commonest_type(), new.commonest_type()
    return a is not None and b is not None and (a in new.types or b in old.types)


def rename_advice(collection: str, rename: Rename, documents: int) -> str:
    """The one line ``infer`` and ``drift`` print for a probable rename: both names, the counts, what to do."""
    old, new = quoted(rename.old), quoted(rename.new)
    return (
        f"{quoted(collection)}: {old} (in {rename.old_count} of {documents} sampled document(s), all older) and "
        f"{new} (in {rename.new_count}, all newer) never occur together: probably {old} was renamed to {new} "
        f"half-way; rename it in the older documents (a rename migration: $rename {old} to {new}), "
        f"then keep only {new} in the design"
    )
