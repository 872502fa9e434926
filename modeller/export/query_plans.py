"""The query planner's plans written as mongosh: one statement per round trip.

The planner (``modeller.rules.physical.planner``) keeps filters and sorts as
data; here they become JavaScript through the one quoting function
(:func:`modeller.export.literals.js_key` / :func:`js_value`), so every name a
user typed is a string literal. A value the application supplies is
``params["name"]``; a join reads the ids out of the previous step's
documents (``r1.flatMap(d => d["owner_id"])``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from modeller.export.literals import js_key, js_string, js_value
from modeller.rules.physical.companions import HAS_OVERFLOW
from modeller.rules.physical.planner import Param, QueryPlan, Ref, Step


@dataclass(frozen=True, slots=True)
class FlaggedRef:
    """``Ref`` to the documents of an earlier read whose ``has_overflow`` is true (outlier pattern)."""

    step: int
    path: str


def js_data(value: Any) -> str:
    """A filter / sort document as a JS expression: quoted keys, placeholders as expressions."""
    if isinstance(value, Param):
        return f"params[{js_string(value.name)}]"
    if isinstance(value, FlaggedRef):
        flag = js_string(HAS_OVERFLOW)
        return f"r{value.step}.filter(d => d[{flag}] === true){_values_at(value.path)}"
    if isinstance(value, Ref):
        return f"r{value.step}{_values_at(value.path)}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{js_key(k)}: {js_data(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(js_data(v) for v in value) + "]"
    return js_value(value)


def _values_at(path: str) -> str:
    """The chained ``flatMap`` that collects every value at a dotted path of an array of documents, through arrays
    on the way (``links.target`` of ``links: [{target}]``) as the server's dotted paths go; a missing part gives
    nothing."""
    head, *rest = path.split(".")
    return f".flatMap(d => d[{js_string(head)}] ?? [])" + "".join(
        f".flatMap(d => d?.[{js_string(part)}] ?? [])" for part in rest
    )


def step_mongosh(step: Step) -> str:
    """``db.getCollection(...).find(filter, projection).sort(...).limit(...)`` for one read."""
    args = js_data(step.filter)
    if step.projection:
        args += ", " + js_data(dict.fromkeys(step.projection, 1))
    text = f"db.getCollection({js_string(step.collection)}).find({args})"
    if step.collation is not None:
        text += f".collation({js_data(step.collation)})"
    if step.sort:
        text += f".sort({js_data(dict(step.sort))})"
    if step.limit is not None:
        text += f".limit({int(step.limit)})"
    return text


def query_mongosh(plan: QueryPlan) -> str:
    """The whole plan: the query alone, or ``const r1 = ...`` then one read per join.

    Overflow reads (outlier pattern) run only when a document read has ``has_overflow``: typical reads stay one
    round trip.
    """
    if len(plan.steps) == 1 and not plan.on_overflow:
        return step_mongosh(plan.steps[0])
    lines = [f"const r{i} = {step_mongosh(step)}.toArray();" for i, step in enumerate(plan.steps, start=1)]
    flag = js_string(HAS_OVERFLOW)
    for step in plan.on_overflow:
        read = step_mongosh(replace(step, filter=_only_flagged(step.filter)))
        lines.append("// only the outliers (has_overflow: true) have overflow documents: a second read for them alone")
        lines.append(f"const overflow = r1.some(d => d[{flag}] === true) ? {read}.toArray() : [];")
    return "\n".join(lines)


def _only_flagged(value: Any) -> Any:
    """The filter with ``r1``'s ids narrowed to the documents flagged ``has_overflow``."""
    if isinstance(value, Ref):
        return FlaggedRef(value.step, value.path)
    if isinstance(value, dict):
        return {k: _only_flagged(v) for k, v in value.items()}
    return value
