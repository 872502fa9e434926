"""The canonical text of a project file: what ``save`` writes and ``fmt`` checks.

UTF-8, keys in model order, values equal to their defaults omitted, two-space
indent, non-ASCII kept readable, layout in entity order, trailing newline.
Identical models give identical bytes, so a Git diff shows only real changes.
"""

from __future__ import annotations

import json
from typing import Any

from modeller.model import Project


def project_to_data(project: Project) -> dict[str, Any]:
    """Plain JSON data of ``project`` in canonical order."""
    data = project.model_dump(mode="json", exclude_defaults=True)
    # format identity is always written even if a default ever appears
    data = {"format": project.format, "format_version": project.format_version, **data}
    layout = data.get("layout")
    if layout:
        order = {entity.id: i for i, entity in enumerate(project.entities)}
        data["layout"] = dict(sorted(layout.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    return data


def dumps_project(project: Project) -> str:
    """Canonical file text of ``project``."""
    return json.dumps(project_to_data(project), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
