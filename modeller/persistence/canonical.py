"""The canonical text of a project file: what ``save`` writes and ``fmt`` checks.

UTF-8, keys in model order, values equal to their defaults omitted, two-space
indent, non-ASCII kept readable, layout in entity order, trailing newline.
Identical models give identical bytes, so a Git diff shows only real changes.

The text is produced by pydantic-core's JSON writer (Rust, ten times faster
than ``json.dumps(indent=2)``, which falls back to pure Python). It matches
``json.dumps(data, indent=2, ensure_ascii=False)`` except for very small
floats, which it writes without an exponent (``0.00001``, not ``1e-05``).
A project nested deeper than it can write (254 levels) is written by
``json.dumps`` itself.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic_core

from modeller.model import Project


def project_to_data(project: Project) -> dict[str, Any]:
    """Plain JSON data of ``project`` in canonical order.

    Python mode, not JSON mode: JSON mode would quietly turn a NaN that the
    GUI put into an ``example`` into ``null``; here it stays a float and
    :func:`dumps_data` refuses it.
    """
    data = project.model_dump(mode="python", exclude_defaults=True)
    # format identity is always written even if a default ever appears
    data = {"format": project.format, "format_version": project.format_version, **data}
    layout = data.get("layout")
    if layout:
        order = {entity.id: i for i, entity in enumerate(project.entities)}
        data["layout"] = dict(sorted(layout.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    return data


def dumps_data(data: dict[str, Any]) -> str:
    """Canonical text of plain project data.

    Raises ``ValueError`` for what JSON cannot hold (NaN, infinities, a lone
    UTF-16 surrogate) instead of writing a file that cannot be read back.
    """
    try:
        raw = pydantic_core.to_json(data, indent=2, inf_nan_mode="constants")
    except pydantic_core.PydanticSerializationError as exc:
        # pydantic-core stops at 254 levels, the loader accepts 256: what loads must save
        try:
            text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
            text.encode("utf-8")
        except (ValueError, TypeError, RecursionError):
            raise ValueError(str(exc)) from None
        return text + "\n"
    if b"NaN" in raw or b"Infinity" in raw:
        # usually just text that mentions them; the strict encoder tells a real number apart
        json.dumps(data, allow_nan=False)
    return raw.decode("utf-8") + "\n"


def dumps_project(project: Project) -> str:
    """Canonical file text of ``project``."""
    return dumps_data(project_to_data(project))
