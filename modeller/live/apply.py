"""``modeller apply``: the plan that brings a database to a design, and running it.

:func:`plan_apply` is pure (a resolved design and a :class:`DatabaseState` in,
an :class:`ApplyPlan` out), so the GUI and the CLI show the same plan before
anything runs. Each :class:`Step` holds the exact command document it sends
(``create``, ``collMod``, ``createIndexes``); :func:`run_plan` sends them in
order through any ``run(database, command)`` callable (``Source.command``).

Rules: a collection is created with its validator (or its time-series
options); an existing collection gets the design's validator with ``collMod``
- with ``validationLevel: "moderate"`` and ``validationAction: "warn"`` while
documents would fail it, so nothing already stored stops being writable, and a
note says how to tighten; once none fail, the next run tightens it. Missing
indexes are created with their options. Nothing is ever dropped: collections
and indexes the design does not have are listed as "not in the design", and an
index whose key or options differ is a conflict to resolve by hand. Applying a
plan and planning again gives no steps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from modeller.live.state import (
    DatabaseState,
    ObservedCollection,
    design_key_pairs,
    is_hidden,
    key_pairs,
    option_differences,
    validator_differs,
    validator_settings,
    wanted_validator,
)
from modeller.model.text import shown
from modeller.rules.physical.design import CollectionDesign, Design, IndexDesign
from modeller.rules.physical.server_options import index_key, index_options, timeseries_options

#: fields named per collection whose documents fail the validator (the rest are counted)
FAILING_SHOWN = 5
#: documents failing the design's validator read to name the fields they fail on
FAILING_READ = 200

StepKind = Literal["create-collection", "set-validator", "tighten-validator", "create-index", "unhide-index"]
NoteKind = Literal["not-in-design", "conflict", "to-tighten", "not-created"]


@dataclass(frozen=True)
class Step:
    """One command the plan sends: what it does in words, and the command document itself."""

    kind: StepKind
    collection: str
    summary: str
    command: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "collection": self.collection, "summary": self.summary}


@dataclass(frozen=True)
class Note:
    """Something the plan does not do, and why (extras, conflicts, validators still to tighten)."""

    kind: NoteKind
    collection: str
    text: str
    #: lines under the text (the fields documents fail the validator on)
    details: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "collection": self.collection, "text": self.text, "details": list(self.details)}


@dataclass
class ApplyPlan:
    """The steps in the order they run, then the notes."""

    database: str
    steps: list[Step] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The plan as a reader sees it before anything runs."""
        out = [f"plan for database {quoted(self.database)}: {len(self.steps)} step(s)"]
        out += [f"  {number}. {step.summary}" for number, step in enumerate(self.steps, start=1)]
        if not self.steps:
            out.append("  nothing to do: the database has every collection, validator and index of the design")
        for note in self.notes:
            out.append(f"  - {note.text}")
            out += [f"      {line}" for line in note.details]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "steps": [s.to_json() for s in self.steps],
            "notes": [n.to_json() for n in self.notes],
        }


def plan_apply(design: Design, state: DatabaseState, blocked: Mapping[str, str] | None = None) -> ApplyPlan:
    """The steps that bring ``state`` to ``design``; ``blocked``: ``collection#index`` -> why it is not created."""
    plan = ApplyPlan(state.database)
    creates: list[Step] = []
    validators: list[Step] = []
    indexes: list[Step] = []
    for coll in design.stored():
        observed = state.collections.get(coll.name)
        if observed is None:
            creates.append(_create(coll))
        elif observed.is_view:
            plan.notes.append(
                Note("conflict", coll.name, f"{quoted(coll.name)} is a view on the server; the design has a collection")
            )
            continue
        else:
            _validator(coll, observed, validators, plan.notes)
        _indexes(coll, observed, blocked or {}, indexes, plan.notes)
    plan.steps = creates + indexes + validators
    wanted = {c.name for c in design.stored()}
    for name, observed in sorted(state.collections.items()):
        if name not in wanted:
            what = "view" if observed.is_view else "collection"
            plan.notes.append(
                Note("not-in-design", name, f"{what} {quoted(name)} is not in the design (left as it is)")
            )
    return plan


def _create(coll: CollectionDesign) -> Step:
    command: dict[str, Any] = {"create": coll.name}
    ts = timeseries_options(coll)
    if ts is not None:
        command["timeseries"] = ts[0]
        if ts[1] is not None:
            command["expireAfterSeconds"] = ts[1]
        summary = f"create time-series collection {quoted(coll.name)} (time field {quoted(ts[0].get('timeField'))})"
    else:
        command.update(
            validator=coll.validator, validationLevel=coll.validation_level, validationAction=coll.validation_action
        )
        summary = (
            f"create collection {quoted(coll.name)} with its $jsonSchema validator "
            f"({coll.validation_level}, {coll.validation_action})"
        )
    return Step("create-collection", coll.name, summary, command)


def tighten_command(coll: CollectionDesign) -> dict[str, Any]:
    """The ``collMod`` that makes a rolled-out validator check every write (the design's level and action)."""
    return {"collMod": coll.name, "validationLevel": coll.validation_level, "validationAction": coll.validation_action}


def _validator(coll: CollectionDesign, observed: ObservedCollection, steps: list[Step], notes: list[Note]) -> None:
    wanted = wanted_validator(coll)
    if wanted is None:
        if not observed.is_timeseries:
            notes.append(
                Note(
                    "conflict",
                    coll.name,
                    f"{quoted(coll.name)} is a plain collection on the server; the design has a time-series one "
                    "(apply never drops: copy its documents into a new time-series collection by hand)",
                )
            )
        return
    if observed.is_timeseries:
        notes.append(
            Note(
                "conflict",
                coll.name,
                f"{quoted(coll.name)} is a time-series collection on the server, not in the design",
            )
        )
        return
    if not validator_differs(coll, observed):
        return
    failing = observed.failing or 0
    current = validator_settings(observed.options)
    tighten = f"db.runCommand({_js(tighten_command(coll))})"
    if current[0] == wanted:  # only the level or action differ: tighten when nothing fails any more
        if failing and current[1] == "off":  # nothing is even warned about: on as moderate, warn (as a new one)
            steps.append(
                Step(
                    "set-validator",
                    coll.name,
                    f"turn the validator of {quoted(coll.name)} on as moderate, warn (it is off): "
                    f"{failing} existing document(s) fail it",
                    {"collMod": coll.name, "validationLevel": "moderate", "validationAction": "warn"},
                )
            )
        level, action = ("moderate", "warn") if current[1] == "off" else current[1:]
        if failing:
            notes.append(
                Note(
                    "to-tighten",
                    coll.name,
                    f"{quoted(coll.name)}: {failing} document(s) still fail the validator ({level}, {action}); "
                    f"fix them (a migration, or an updateMany per field named below), then run apply again or "
                    f"{tighten}",
                    _failing_details(observed),
                )
            )
            return
        steps.append(
            Step(
                "tighten-validator",
                coll.name,
                f"tighten the validator of {quoted(coll.name)} to {coll.validation_level}, {coll.validation_action} "
                "(no document fails it)",
                tighten_command(coll),
            )
        )
        return
    command: dict[str, Any] = {"collMod": coll.name, "validator": wanted}
    if failing:
        command.update(validationLevel="moderate", validationAction="warn")
        summary = (
            f"set the validator of {quoted(coll.name)} as moderate, warn: {failing} existing document(s) would fail it"
        )
        notes.append(
            Note(
                "to-tighten",
                coll.name,
                f"{quoted(coll.name)}: fix the documents that fail the validator (a migration, or an updateMany per "
                f"field named below), then run apply again (or {tighten}) to make it reject invalid writes",
                _failing_details(observed),
            )
        )
    else:
        command.update(validationLevel=coll.validation_level, validationAction=coll.validation_action)
        summary = f"set the validator of {quoted(coll.name)} ({coll.validation_level}, {coll.validation_action})"
    steps.append(Step("set-validator", coll.name, summary, command))


def _failing_details(observed: ObservedCollection) -> tuple[str, ...]:
    """The first :data:`FAILING_SHOWN` fields documents fail the validator on, one line each, and how to see all."""
    why = observed.failing_why
    if len(why) > FAILING_SHOWN:
        more = len(why) - FAILING_SHOWN
        why = (*why[:FAILING_SHOWN], f"and {more} more field(s): modeller drift lists every difference")
    if why and (observed.failing or 0) > FAILING_READ:
        why = (*why, f"(counted in the first {FAILING_READ} of the {observed.failing} failing documents)")
    return why


def _indexes(
    coll: CollectionDesign,
    observed: ObservedCollection | None,
    blocked: Mapping[str, str],
    steps: list[Step],
    notes: list[Note],
) -> None:
    existing = list(observed.indexes) if observed is not None else []
    matched: set[str] = {"_id_"}
    for index in coll.indexes:
        why = blocked.get(f"{coll.name}#{index.name}")
        if why is not None:
            notes.append(Note("not-created", coll.name, f"index {quoted(index.name)} on {quoted(coll.name)}: {why}"))
            continue
        found, problem = match_index(index, existing)
        if found is not None:
            matched.add(str(found.get("name")))
        if problem is not None:
            notes.append(Note("conflict", coll.name, f"index {quoted(index.name)} on {quoted(coll.name)}: {problem}"))
        elif found is None:
            steps.append(_create_index(coll, index))
        elif is_hidden(found):  # the design's index, hidden (by a migration, by hand): the planner ignores it
            name = str(found.get("name"))
            steps.append(
                Step(
                    "unhide-index",
                    coll.name,
                    f"unhide index {quoted(name)} on {quoted(coll.name)} (the design uses it; it is hidden)",
                    {"collMod": coll.name, "index": {"name": name, "hidden": False}},
                )
            )
    for spec in existing:
        name = str(spec.get("name"))
        if name not in matched:
            hidden = " (hidden)" if is_hidden(spec) else ""
            notes.append(
                Note(
                    "not-in-design",
                    coll.name,
                    f"index {quoted(name)}{hidden} on {quoted(coll.name)} is not in the design (left as it is)",
                )
            )


def match_index(
    index: IndexDesign, existing: Iterable[Mapping[str, Any]]
) -> tuple[Mapping[str, Any] | None, str | None]:
    """The server's index that serves ``index`` (by name, else by key) and what differs, if anything."""
    keys = design_key_pairs(index)
    by_name = next((spec for spec in existing if spec.get("name") == index.name), None)
    by_key = next((spec for spec in existing if key_pairs(spec) == keys), None)
    spec = by_name or by_key
    if spec is None:
        return None, None
    if key_pairs(spec) != keys:
        return spec, (
            f"the server's index of that name has the key {_js(dict(key_pairs(spec)))}, the design "
            f"{_js(index_key(index))}; apply never drops an index: drop it by hand and run apply again"
        )
    differs = option_differences(index, spec)
    if differs:
        where = "" if spec is by_name else f" (as {quoted(str(spec.get('name')))})"
        return spec, (
            f"the server has this key{where} with other {', '.join(differs)}; apply never drops an index: "
            "drop it by hand and run apply again"
        )
    return spec, None


def _create_index(coll: CollectionDesign, index: IndexDesign) -> Step:
    spec = {"key": index_key(index), **index_options(index)}
    extra = [k for k in ("unique", "expireAfterSeconds", "partialFilterExpression", "collation") if k in spec]
    options = f" ({', '.join(extra)})" if extra else ""
    keys = ", ".join(f"{k} {v}" for k, v in index.keys)
    return Step(
        "create-index",
        coll.name,
        f"create index {quoted(index.name)} on {quoted(coll.name)}: {keys}{options}",
        {"createIndexes": coll.name, "indexes": [spec]},
    )


def quoted(name: object) -> str:
    """A user's name inside a message: quoted, on one line, control characters shown as escapes."""
    return shown(repr(str(name)), 120)


def _js(value: Any) -> str:
    """A command as a reader would type it in mongosh (JSON; names quoted by ``json``)."""
    import json

    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)


def run_plan(plan: ApplyPlan, send: Callable[[Step], Any], progress: Callable[[int, Step], None] | None = None) -> int:
    """Send the steps in order (``send(step)`` runs ``step.command``); stops at the first failure (it raises)."""
    for number, step in enumerate(plan.steps, start=1):
        if progress is not None:
            progress(number, step)
        send(step)
    return len(plan.steps)
