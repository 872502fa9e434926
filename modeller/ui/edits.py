"""Validated copies of model objects: how every panel turns user input into a new object.

Model objects are immutable (undo commands keep references to old versions,
the analyser keys its caches on them); an edit builds a new, fully validated object or raises
:class:`EditRefused` with the model's own reason, shown next to the widget.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

PathStep = str | int


class EditRefused(ValueError):
    """A value the model refuses; ``str(err)`` is the reason for the user."""


def reason(err: ValidationError) -> str:
    """The first problem of a pydantic error, phrased for a person (place + message)."""
    first = err.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("function-after", "function-plain"))
    msg = str(first.get("msg", "invalid value"))
    for prefix in ("Value error, ", "Assertion failed, "):
        msg = msg.removeprefix(prefix)
    return f"{where}: {msg}" if where else msg


def set_in(data: Any, path: Sequence[PathStep], value: Any) -> Any:
    """A copy of plain ``data`` (dicts, lists/tuples) with ``path`` set to ``value`` (None removes a dict key)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, (list, tuple)):
        out_list = list(data)
        out_list[int(head)] = set_in(out_list[int(head)], rest, value)
        return out_list
    out = dict(data or {})
    new = set_in(out.get(str(head)), rest, value)
    if new is None and not rest:
        out.pop(str(head), None)
    else:
        out[str(head)] = new
    return out


def dump(model: BaseModel) -> dict[str, Any]:
    """Plain data of a model as the file writes it (defaults left out)."""
    return model.model_dump(mode="python", exclude_defaults=True)


def validated(model_type: type[M], data: Any) -> M:
    """``model_type`` built from plain data, or :class:`EditRefused` with the reason."""
    try:
        return model_type.model_validate(data)
    except ValidationError as err:
        raise EditRefused(reason(err)) from None


def updated(model: M, path: Sequence[PathStep], value: Any) -> M:
    """A validated copy of ``model`` with the value at ``path`` replaced."""
    return validated(type(model), set_in(dump(model), path, value))
