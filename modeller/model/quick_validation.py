"""A project validated without most of its per-value Python calls: the same objects, a fraction of the time.

``Project.model_validate`` calls Python for every object (the unknown-key check before it), every workload number
(``_check_number``) and every id and field name (``check_id``, ``check_field_name``): about a million calls, a
third of a 10,000-entity read (issue 16; DESIGN.md "Performance targets": open -> findings). The quick validator
is built once from the models' own core schema, with each of those checks put behind a native one that accepts a
part of what the Python check accepts:

- the unknown-key check goes (pydantic's own ``extra="forbid"``, which every model has, refuses the same keys);
- a number is first tried as a strict int or finite float within the same bounds;
- an id or a field name is first tried against a native pattern of the plain names.

What the native check refuses goes on to the Python check, which decides as it always did (a union tried left to
right), so the quick validator accepts what ``model_validate`` accepts and builds the same objects. A file it
refuses is validated again the usual way, for the located messages the user reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache, partial
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import SchemaValidator

from modeller.model.project import (
    Aggregate,
    Entity,
    Field,
    Project,
    Query,
    Relationship,
    StrictModel,
    Subtypes,
    _check_number,
)

#: what check_id accepts, as the Rust regex engine reads it (``$`` is the end of the text: a stricter part)
_PLAIN_ID = r"^[A-Za-z_][A-Za-z0-9_\-]{0,99}$"
#: field names check_field_name accepts that do not start with '_' (so never ``__proto__``) nor '$'
_PLAIN_FIELD_NAME = r"^[^$._\x00][^.\x00]*$"


def _plain(method: Any) -> Any:
    """The function behind a validator as pydantic keeps it (a classmethod comes bound to its class)."""
    return getattr(method, "__func__", method)


#: the Python name checks, by the function pydantic calls, and the native pattern tried before each
_NAME_CHECKS: dict[Any, str] = {
    _plain(Entity._legal_id): _PLAIN_ID,
    _plain(Relationship._legal_id): _PLAIN_ID,
    _plain(Query._legal_id): _PLAIN_ID,
    _plain(Field._legal_name): _PLAIN_FIELD_NAME,
    _plain(Aggregate._legal_name): _PLAIN_FIELD_NAME,
    _plain(Subtypes._legal_discriminator): _PLAIN_FIELD_NAME,
    _plain(Relationship._legal_role): _PLAIN_FIELD_NAME,
}


def validate_project(data: Any) -> Project:
    """``Project.model_validate(data)``, quicker: a refusal is the usual ``ValidationError``, with its messages."""
    try:
        project = quick_validator().validate_python(data)
    except ValidationError:
        return Project.model_validate(data)  # raises, worded and located as always
    if not isinstance(project, Project):  # pragma: no cover - the schema builds a Project or raises
        raise TypeError(f"the quick validator built {type(project).__name__}, not a Project")
    return project


@cache
def quick_validator() -> SchemaValidator:
    """The project's core schema with the per-value Python checks behind native ones (built once, ~10 ms)."""
    schema = _rewritten(Project.__pydantic_core_schema__)
    with _compiled_inline(_model_classes(schema)):
        return SchemaValidator(schema)


@contextmanager
def _compiled_inline(classes: set[type[BaseModel]]) -> Iterator[None]:
    """While a schema is compiled, its models' own validators are not reused in it (pydantic-core reuses a complete
    class's validator for its ``model`` schema, which would bring back every Python check inside that class: it did
    for ``Field``, a third of the objects). Validation never reads the flag; a schema compiled elsewhere meanwhile
    only compiles those models inline too."""
    complete = {cls for cls in classes if cls.__dict__.get("__pydantic_complete__")}
    for cls in complete:
        cls.__pydantic_complete__ = False
    try:
        yield
    finally:
        for cls in complete:
            cls.__pydantic_complete__ = True


def _model_classes(node: Any) -> set[type[BaseModel]]:
    """The classes of the ``model`` schemas in a core schema."""
    found: set[type[BaseModel]] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if type(item) is list:
            stack.extend(item)
        elif type(item) is dict:
            if item.get("type") == "model":
                found.add(item["cls"])
            stack.extend(value for key, value in item.items() if key not in ("serialization", "metadata"))
    return found


def _rewritten(node: Any) -> Any:
    """A copy of a core schema (nested dicts and lists) with the checks named in the module's docstring changed.

    Only plain dicts and lists are schema: a default value such as a FrozenDict stays the object it is."""
    if type(node) is list:
        return [_rewritten(item) for item in node]
    if type(node) is not dict:
        return node
    copy = {key: (value if key in ("serialization", "metadata") else _rewritten(value)) for key, value in node.items()}
    kind = copy.get("type")
    function = _function(copy)
    if kind == "function-before" and function is _plain(StrictModel._refuse_unknown_keys):
        return copy["schema"]  # extra="forbid" in the model's own config refuses the same keys
    if kind == "function-plain" and isinstance(function, partial) and function.func is _check_number:
        low, high = function.args
        return _first_try(_native_number(low, high), copy)
    if kind == "function-after" and function in _NAME_CHECKS:
        native = _with_pattern(copy["schema"], _NAME_CHECKS[function])
        if native is not None:
            return _first_try(native, copy)
    return copy


def _function(node: dict[str, Any]) -> Callable[..., Any] | None:
    """The Python function a ``function-*`` schema calls, unbound (None for any other schema)."""
    if not str(node.get("type", "")).startswith("function-"):
        return None
    holder = node.get("function")
    function = holder.get("function") if isinstance(holder, dict) else holder
    return _plain(function) if function is not None else None


def _first_try(native: dict[str, Any], python: dict[str, Any]) -> dict[str, Any]:
    """``native`` first; what it refuses goes to ``python``, which decides."""
    return {"type": "union", "choices": [native, python], "mode": "left_to_right"}


def _native_number(low: float, high: float) -> dict[str, Any]:
    """What _check_number accepts between ``low`` and ``high``: an int stays an int, a float a float."""
    bounds = {"ge": low, "le": high, "strict": True}
    return {
        "type": "union",
        "choices": [{"type": "int", **bounds}, {"type": "float", "allow_inf_nan": False, **bounds}],
        "mode": "left_to_right",
    }


def _with_pattern(schema: dict[str, Any], pattern: str) -> dict[str, Any] | None:
    """``schema`` (a string, or a nullable one) that also needs ``pattern``; None for any other shape."""
    if schema.get("type") == "str" and "pattern" not in schema:
        return {**schema, "pattern": pattern}
    if schema.get("type") == "nullable":
        inner = _with_pattern(schema["schema"], pattern)
        return None if inner is None else {**schema, "schema": inner}
    return None
