"""Collections named alike: one kind of document split by date, tenant or region (RULES.md rule 40).

``readings_2024_05_10`` and ``readings_2024_05_11`` differ by a date;
``logs_acme``, ``logs_globex`` and ``logs_initech`` hold the same fields and
differ by a word (a tenant); ``events_<tenant>_<region>_<date>`` by both. A
trailing number is a date only when the other collections of its stem have
dates too: ``store_16`` next to ``store_1996`` says the numbers are entity
numbers, not years. Parts that are plain numbers never make a family.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from modeller.model.names import snake
from modeller.model.project import Entity
from modeller.rules.physical.design import CollectionDesign

#: a collection name ending in a year, year-month or date (``readings_2024_05_10``, ``logs2024-05``)
_DATED = re.compile(
    r"(?P<stem>.*?[^\d_.-])[_.-]?(?:19|20)\d\d(?:[_.-]?(?:0[1-9]|1[0-2])(?:[_.-]?(?:0[1-9]|[12]\d|3[01]))?)?$"
)
_DATE = re.compile(r"(?:19|20)\d\d(?:(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])?)?")
_DIGITS = "0123456789"
_SEPARATORS = ("_", ".", "-")
_SEPARATED = re.compile(r"[_.-]")
_SEP = re.compile(r"[_.-]+")
_LETTER = re.compile(r"[^\W\d_]")
#: words of a field name that say it tells tenants, places or devices apart: the field a varying name part becomes
PART_WORDS = frozenset(
    {
        "tenant",
        "customer",
        "account",
        "org",
        "organization",
        "client",
        "company",
        "user",
        "device",
        "sensor",
        "region",
        "country",
        "continent",
        "zone",
        "site",
        "shop",
        "store",
        "location",
        "datacenter",
    }
)


@dataclass(frozen=True, slots=True)
class Family:
    """Collections of one kind split by name: what stays, what varies, and the fields the parts could become."""

    stem: str
    names: tuple[str, ...]
    roots: tuple[str, ...]
    #: each varying word of the names: its values, in the order the collections come
    parts: tuple[tuple[str, ...], ...]
    dated: bool
    #: the root entity's fields that could hold the varying words (``tenant_id``, ``region``) and the date (``day``)
    part_fields: tuple[str, ...] = ()
    date_field: str | None = None


@dataclass(slots=True)
class _Unit:
    """The collections of one base name (the name without its date): one, or one per period."""

    base: str
    names: list[str]
    roots: list[str]
    #: the names with a date after the base (``sales_2023``; not ``sales`` itself)
    dated: list[str]


def families(
    colls: Sequence[CollectionDesign], entity: Callable[[str], Entity | None], dated_min: int, words_min: int
) -> list[Family]:
    """The families among ``colls`` (design order): a date series of one base name (``dated_min`` or more), or
    ``words_min`` or more base names with the same first word, length and fields that differ in words."""
    numbers: dict[str, list[str]] = {}  # stem -> the numbers ending its names (store_16: store -> 16)
    for coll in colls:
        name = coll.name
        if name[-1:].isdigit():
            head = name.rstrip(_DIGITS)
            stem = head.rstrip("_.-")
            if stem:
                numbers.setdefault(stem, []).append(name[len(head) :])
    numbered = {stem for stem, ns in numbers.items() if not all(_DATE.fullmatch(n) for n in ns)}
    units: dict[str, _Unit] = {}
    for coll in colls:
        name = coll.name
        base, dated = name, False
        if name[-1:].isdigit():
            match = _DATED.match(name)
            if match is not None and match["stem"] not in numbered:
                base, dated = match["stem"], True
            elif name.rstrip(_DIGITS)[-1:] in _SEPARATORS:
                continue  # a number as the last word (store_16): an entity number, in no family
        elif not _SEPARATED.search(name):
            continue  # one word: in no family
        unit = units.get(base)
        if unit is None:
            unit = units[base] = _Unit(base, [], [], [])
        unit.names.append(name)
        unit.roots.append(coll.root)
        if dated:
            unit.dated.append(name)
    # names of words (a number among them is an entity number: store_16), by first word and length
    alike: dict[tuple[str, int, bool], list[_Unit]] = {}
    for unit in units.values():
        words = _SEP.split(unit.base.strip("_.-"))
        if len(words) >= 2 and not any(w.isdigit() for w in words):
            alike.setdefault((words[0], len(words), bool(unit.dated)), []).append(unit)
    out: list[Family] = []
    merged: set[str] = set()
    for units_alike in alike.values():
        if len(units_alike) < words_min:
            continue
        groups: dict[tuple[tuple[str, str], ...], list[_Unit]] = {}
        for unit in units_alike:  # of those, the ones whose documents hold the same fields
            root = entity(unit.roots[0])
            if root is not None and root.fields:
                groups.setdefault(tuple(sorted((f.name, f.type) for f in root.fields)), []).append(unit)
        for members in groups.values():
            family = _word_family(members, entity, words_min)
            if family is not None:
                out.append(family)
                merged.update(u.base for u in members)
    roots = {coll.name: coll.root for coll in colls}
    for unit in units.values():
        if unit.base not in merged and len(unit.dated) >= dated_min:
            out.append(Family(unit.base, tuple(unit.dated), tuple(roots[n] for n in unit.dated), (), True))
    first = {coll.name: i for i, coll in enumerate(colls)}
    return sorted(out, key=lambda f: first[f.names[0]])


def _word_family(members: list[_Unit], entity: Callable[[str], Entity | None], words_min: int) -> Family | None:
    """The units of one group as a family when their names differ in words (not numbers) at some places."""
    if len(members) < words_min:
        return None
    split = [_SEP.split(u.base.strip("_.-")) for u in members]
    fixed: list[str] = []
    parts: list[tuple[str, ...]] = []
    for place in range(len(split[0])):
        values = tuple(dict.fromkeys(words[place] for words in split))
        if len(values) == 1:
            fixed.append(values[0])
        elif all(_LETTER.search(v) for v in values):
            parts.append(values)
        else:
            return None  # entity numbers (store_16, store_36), not tenants
    if not parts:
        return None
    root = entity(members[0].roots[0])
    hints = [f.name for f in root.fields if PART_WORDS.intersection(snake(f.name).split("_"))] if root else []
    dated = bool(members[0].dated)
    date_field = next((f.name for f in root.fields if f.type == "date"), None) if root and dated else None
    return Family(
        "_".join(fixed),
        tuple(n for u in members for n in u.names),
        tuple(r for u in members for r in u.roots),
        tuple(parts),
        dated,
        tuple(hints[: len(parts)]),
        date_field,
    )
