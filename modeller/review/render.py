"""A schema diff as text (terminal), Markdown (a pull-request comment) or JSON (scripts)."""

from __future__ import annotations

from typing import Any

from modeller.export.report import code, prose
from modeller.model.text import neutralize
from modeller.review.diff import SchemaDiff, by_collection, summary_line

_PROJECT = "whole project"


def diff_text(diff: SchemaDiff) -> str:
    """One block per collection, one line per change and an indented risk line."""
    lines = [summary_line(diff)]
    for collection, changes in by_collection(diff.changes).items():
        lines.append("")
        lines.append(f"collection {neutralize(collection)}" if collection else _PROJECT)
        for change in changes:
            mark = "BREAKING " if change.breaking else ""
            lines.append(f"  {mark}{change.kind}: {neutralize(change.summary)}")
            lines.append(f"    risk: {neutralize(change.risk)}")
    return "\n".join(lines) + "\n"


def diff_markdown(diff: SchemaDiff) -> str:
    """A pull-request comment: the summary line, then one section per collection, each change with its risk."""
    lines = ["## Schema changes", "", f"**{prose(summary_line(diff))}**"]
    for collection, changes in by_collection(diff.changes).items():
        lines.append("")
        lines.append(f"### Collection {code(collection)}" if collection else f"### {_PROJECT.capitalize()}")
        lines.append("")
        for change in changes:
            mark = "**breaking** " if change.breaking else ""
            lines.append(f"- {mark}{code(change.kind)} {prose(_arrows(change.summary))}")
            lines.append(f"  - risk: {prose(change.risk)}")
    return "\n".join(lines) + "\n"


def _arrows(text: str) -> str:
    """``->`` as ``→``: Markdown escapes ``>`` as ``&gt;``, which a raw comment or terminal shows as is."""
    return text.replace(" -> ", " → ")


def diff_json(diff: SchemaDiff) -> dict[str, Any]:
    """``{"summary", "breaking", "changes": [{kind, collection, subject, summary, risk, breaking, details}]}``."""
    return diff.to_json()
