"""``modeller drift``: what a database has that the design does not, and the other way round (pure).

Compared: collections (missing, extra, a view or a time series where the
design has something else), validators (the ``$jsonSchema``, its level and
action), indexes (missing, extra, other key or options, by the same matching
as ``apply``), and the sampled documents' shape against the design's: fields
the design requires but documents lack, fields no design has, values of
another BSON type, values outside the allowed ones, arrays longer than the
design's bound, two fields that never occur together because one was renamed
half-way (:mod:`modeller.live.renames`). A field declared with ``other_types``
accepts each of them; a field an inferred project left undeclared
(``modeller.live.mixed``) is no "field no design has".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from modeller.live.apply import match_index, quoted
from modeller.live.renames import rename_advice, renamed_fields
from modeller.live.state import DatabaseState, is_hidden, validator_differs, validator_settings, wanted_validator
from modeller.live.stats import CollectionStats, FieldStats
from modeller.rules.physical.design import CollectionDesign, Design, ShapeNode

#: numbers the design's type accepts besides its own (a JSON client writes 5 for 5.0; BSON keeps it an int)
_ALSO = {"long": {"int"}, "double": set(), "decimal": set()}
#: the sample's names of values a BSON type holds besides its own (an other type is kept as its BSON type)
_SAMPLED_AS = {"binData": ("uuid",), "object": ("point",)}


@dataclass(frozen=True)
class Drift:
    """One difference: its kind, the collection (and path) it is in, and a sentence naming it."""

    kind: str  # collection-missing, collection-extra, collection-kind, validator, index-missing, index-extra,
    # index-differs, field-missing, field-extra, field-type, field-value, array-too-long, field-renamed
    collection: str
    message: str
    path: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "collection": self.collection, "path": self.path, "message": self.message}


@dataclass
class DriftReport:
    database: str
    drifts: list[Drift] = field(default_factory=list)
    #: collections whose documents were sampled, and how many documents each
    sampled: dict[str, int] = field(default_factory=dict)

    @property
    def in_sync(self) -> bool:
        return not self.drifts

    def lines(self) -> list[str]:
        if self.in_sync:
            checked = sum(self.sampled.values())
            return [f"database {quoted(self.database)} matches the design ({checked} document(s) sampled)"]
        out = [f"database {quoted(self.database)} drifts from the design: {len(self.drifts)} difference(s)"]
        out += [f"  {d.message}" for d in self.drifts]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "in_sync": self.in_sync,
            "sampled": dict(self.sampled),
            "drift": [d.to_json() for d in self.drifts],
        }


def compare(
    design: Design,
    state: DatabaseState,
    samples: Mapping[str, CollectionStats] | None = None,
    undeclared: Mapping[str, set[str]] | None = None,
) -> DriftReport:
    """The differences between ``design`` and ``state`` (and the sampled documents of its collections).

    ``undeclared``: collection -> field paths the project names as left undeclared (``mixed.undeclared``).
    """
    report = DriftReport(state.database)
    out = report.drifts
    for coll in design.stored():
        observed = state.collections.get(coll.name)
        name = quoted(coll.name)
        if observed is None:
            out.append(
                Drift("collection-missing", coll.name, f"collection {name} is in the design, not in the database")
            )
            continue
        if observed.is_view:
            out.append(
                Drift("collection-kind", coll.name, f"{name} is a view in the database, a collection in the design")
            )
            continue
        wants_ts = wanted_validator(coll) is None
        if wants_ts != observed.is_timeseries:
            what = (
                ("a plain collection", "a time-series one") if wants_ts else ("a time-series collection", "a plain one")
            )
            out.append(
                Drift("collection-kind", coll.name, f"{name} is {what[0]} in the database, {what[1]} in the design")
            )
        elif validator_differs(coll, observed):
            out.append(Drift("validator", coll.name, _validator_message(coll, observed.options)))
        _indexes(coll, observed.indexes, out)
        stats = (samples or {}).get(coll.name)
        if stats is not None:
            report.sampled[coll.name] = stats.documents
            known = (undeclared or {}).get(coll.name, set())
            _shape(coll.name, coll.shape, stats.fields, stats.documents, "", out, known)
            variant = {node.name: node.variant for node in coll.shape}
            out += [
                Drift("field-renamed", coll.name, rename_advice(coll.name, rename, stats.documents), rename.old)
                for rename in renamed_fields(stats)
                if not (variant.get(rename.old) and variant.get(rename.new))  # two subtypes' fields: no rename
            ]
    wanted = {c.name for c in design.stored()}
    for coll_name, observed in sorted(state.collections.items()):
        if coll_name not in wanted:
            kind = "view" if observed.is_view else "collection"
            out.append(
                Drift(
                    "collection-extra", coll_name, f"{kind} {quoted(coll_name)} is in the database, not in the design"
                )
            )
    report.drifts = list(dict.fromkeys(out))  # merged variants may name one difference twice
    return report


def failing_fields(coll: CollectionDesign, failing: CollectionStats) -> list[str]:
    """Why documents fail the design's validator, one line per field (``apply`` names them): ``failing`` holds
    documents the validator refuses; fields the design lacks are no reason (its validator allows them)."""
    out: list[Drift] = []
    _shape(coll.name, coll.shape, failing.fields, failing.documents, "", out, read="failing")
    return list(dict.fromkeys(d.message for d in out if d.kind != "field-extra"))


def _validator_message(coll: CollectionDesign, options: Mapping[str, Any]) -> str:
    validator, level, action = validator_settings(options)
    name = quoted(coll.name)
    if validator is None:
        return f"collection {name} has no validator; the design has a $jsonSchema one"
    if validator != wanted_validator(coll):
        return f"the validator of {name} differs from the design's $jsonSchema"
    return (
        f"the validator of {name} is {level}, {action}; the design's is "
        f"{coll.validation_level}, {coll.validation_action}"
    )


def _indexes(coll: CollectionDesign, existing: Any, out: list[Drift]) -> None:
    specs = list(existing)
    matched = {"_id_"}
    for index in coll.indexes:
        spec, problem = match_index(index, specs)
        where = f"index {quoted(index.name)} on {quoted(coll.name)}"
        if spec is None:
            out.append(Drift("index-missing", coll.name, f"{where} is in the design, not in the database"))
            continue
        matched.add(str(spec.get("name")))
        if problem is not None:
            out.append(Drift("index-differs", coll.name, f"{where} differs: {problem.split(';')[0]}"))
        elif is_hidden(spec):
            shown_as = "" if spec.get("name") == index.name else f" (as {quoted(str(spec.get('name')))})"
            out.append(Drift("index-differs", coll.name, f"{where} is hidden in the database{shown_as}"))
    for spec in specs:
        if str(spec.get("name")) not in matched:
            hidden = " (hidden)" if is_hidden(spec) else ""
            out.append(
                Drift(
                    "index-extra",
                    coll.name,
                    f"index {quoted(str(spec.get('name')))}{hidden} on {quoted(coll.name)} is in the database, "
                    "not in the design",
                )
            )


def _merged(nodes: list[ShapeNode]) -> list[ShapeNode]:
    """One node per name: the variants of a polymorphic collection each add their sub-fields to the first."""
    first: dict[str, ShapeNode] = {}
    for node in nodes:
        seen = first.get(node.name)
        if seen is None:
            first[node.name] = node
        elif node.children:
            first[node.name] = replace(seen, children=seen.children + node.children, required=False)
    return list(first.values())


def _accepted(node: ShapeNode) -> set[str]:
    kinds = {node.bson_type, *_ALSO.get(node.bson_type, set())}
    if node.field_type in ("uuid", "point"):
        kinds.add(node.field_type)
    if node.nullable:
        kinds.add("null")
    for other in node.other_types:  # a field declared with several types (inferred from mixed data)
        kinds |= {other, *_ALSO.get(other, set()), *_SAMPLED_AS.get(other, ())}
    return kinds


def _enum_key(value: Any) -> tuple[str, Any]:
    """A value compared as the server's ``enum`` compares it: ``true`` is not ``1``, a long ``1`` is ``1``."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", value)
    return (type(value).__name__, value)


def _values(coll: str, path: str, node: ShapeNode, stats: FieldStats, out: list[Drift], read: str) -> None:
    """Sampled values the design's allowed values refuse (a migration's default, a client's typo)."""
    allowed = {_enum_key(value) for value in node.enum or ()}
    outside = {value: n for value, n in stats.values.items() if _enum_key(value) not in allowed}
    if outside:
        count = sum(outside.values())
        commonest = sorted(outside, key=lambda value: (-outside[value], str(value)))
        shown = ", ".join(quoted(str(value)) for value in commonest[:3])
        more = f" and {len(outside) - 3} more" if len(outside) > 3 else ""
        message = f"{quoted(coll)} {quoted(path)}: {count} {read} value(s) outside the allowed values: {shown}{more}"
        out.append(Drift("field-value", coll, message, path))


def _shape(
    coll: str,
    nodes: list[ShapeNode],
    fields: Mapping[str, FieldStats],
    holders: int,
    prefix: str,
    out: list[Drift],
    undeclared: set[str] = frozenset(),  # type: ignore[assignment]
    read: str = "sampled",
) -> None:
    """Walk the design's shape next to the sampled statistics of the same level (``read``: how the documents
    were read, as the messages say it)."""
    known = {node.name for node in nodes}
    for node in _merged(nodes):
        path = prefix + node.name
        stats = fields.get(node.name)
        where = f"{quoted(coll)} {quoted(path)}"
        if stats is None or stats.count < holders:
            if node.required and node.variant is None and holders:
                lacking = holders - (stats.count if stats else 0)
                out.append(
                    Drift(
                        "field-missing",
                        coll,
                        f"{where}: required in the design, missing in {lacking} of {holders} {read} document(s)",
                        path,
                    )
                )
            if stats is None:
                continue
        wrong = {kind: n for kind, n in stats.types.items() if kind not in _accepted(node)}
        if wrong:
            seen = ", ".join(f"{kind} in {n}" for kind, n in sorted(wrong.items()))
            out.append(Drift("field-type", coll, f"{where}: the design says {node.bson_type}, found {seen}", path))
        if node.enum is not None:
            _values(coll, path, node, stats, out, read)
        if node.bson_type == "array":
            longest = max(stats.lengths, default=0)
            if node.max_items is not None and longest > node.max_items:
                out.append(
                    Drift(
                        "array-too-long",
                        coll,
                        f"{where}: an array of {longest} element(s); the design's bound is {node.max_items}",
                        path,
                    )
                )
            items = node.items
            if items is not None and stats.items is not None and items.bson_type == "object" and items.children:
                _shape(
                    coll,
                    items.children,
                    stats.items.fields or {},
                    stats.items.types["object"],
                    path + "[].",
                    out,
                    undeclared,
                    read,
                )
        elif node.bson_type == "object" and node.field_type != "point" and node.children and stats.fields is not None:
            _shape(coll, node.children, stats.fields, stats.types["object"], path + ".", out, undeclared, read)
    for name, stats in fields.items():
        if name not in known and prefix + name not in undeclared:
            out.append(
                Drift(
                    "field-extra",
                    coll,
                    f"{quoted(coll)} {quoted(prefix + name)}: in {stats.count} sampled document(s), not in the design",
                    prefix + name,
                )
            )
