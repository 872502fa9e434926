"""Auto-layout: card positions from Graphviz ``dot``, or a built-in layered layout without it.

Pure functions of the project and the card sizes (no Qt), so the result is
testable and one ``MoveCommand`` makes it undoable. The One side of a
relationship is placed above its Many side.
"""

from __future__ import annotations

import shutil
import subprocess

from modeller.model import Project
from modeller.model.layered_layout import DEFAULT_SIZE, H_GAP, V_GAP, Positions, Sizes, layered_positions

POINTS_PER_INCH = 72.0


def _quote(text: str) -> str:
    """A DOT double-quoted string (ids are plain, but never trust that)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def dot_source(project: Project, sizes: Sizes) -> str:
    lines = [
        "digraph modeller {",
        f"  graph [rankdir=TB, nodesep={H_GAP / POINTS_PER_INCH:.3f}, ranksep={V_GAP / POINTS_PER_INCH:.3f}];",
        '  node [shape=box, fixedsize=true, label=""];',
    ]
    for entity in project.entities:
        w, h = sizes.get(entity.id, DEFAULT_SIZE)
        lines.append(f"  {_quote(entity.id)} [width={w / POINTS_PER_INCH:.3f}, height={h / POINTS_PER_INCH:.3f}];")
    known = {e.id for e in project.entities}
    for rel in project.relationships:
        if rel.one != rel.many and rel.one in known and rel.many in known:
            lines.append(f"  {_quote(rel.one)} -> {_quote(rel.many)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _unquote(token: str) -> str:
    if len(token) >= 2 and token[0] == token[-1] == '"':
        return token[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return token


def _plain_tokens(line: str) -> list[str]:
    tokens, current, quoted, escaped = [], "", False, False
    for char in line:
        if quoted:
            current += char
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            current += char
            quoted = True
        elif char.isspace():
            if current:
                tokens.append(current)
                current = ""
        else:
            current += char
    if current:
        tokens.append(current)
    return tokens


def parse_plain(text: str, sizes: Sizes) -> Positions:
    """Top-left card positions from ``dot -Tplain`` (inches, y up) in scene pixels (y down)."""
    height = 0.0
    out: Positions = {}
    for line in text.splitlines():
        tokens = _plain_tokens(line)
        if not tokens:
            continue
        if tokens[0] == "graph":
            height = float(tokens[3])
        elif tokens[0] == "node":
            name = _unquote(tokens[1])
            x, y = float(tokens[2]) * POINTS_PER_INCH, (height - float(tokens[3])) * POINTS_PER_INCH
            w, h = sizes.get(name, DEFAULT_SIZE)
            out[name] = (round(x - w / 2), round(y - h / 2))
    return out


def dot_binary(dot: str | None = None) -> str | None:
    """The ``dot`` to run: the one given, else the one on PATH (None when Graphviz is missing)."""
    return dot or shutil.which("dot")


def complete_positions(text: str, project: Project, sizes: Sizes) -> Positions | None:
    """Parsed ``dot -Tplain`` output, or None unless it places every entity (a truncated run is a failure)."""
    positions = parse_plain(text, sizes)
    return positions if set(positions) >= {e.id for e in project.entities} else None


def graphviz_positions(
    project: Project, sizes: Sizes, timeout: float = 10.0, dot: str | None = None
) -> Positions | None:
    """Positions from ``dot``, or None if it is missing, fails or takes longer than ``timeout`` seconds.

    Blocking: the GUI uses :class:`modeller.ui.layout_job.LayoutJob` instead.
    """
    binary = dot_binary(dot)
    if binary is None or not project.entities:
        return None
    try:
        done = subprocess.run(
            [binary, "-Tplain"],
            input=dot_source(project, sizes),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return complete_positions(done.stdout, project, sizes)


def auto_layout(
    project: Project, sizes: Sizes, use_graphviz: bool = True, timeout: float = 10.0
) -> tuple[Positions, str]:
    """Positions and which engine made them (``"graphviz"`` or ``"built-in"``)."""
    if use_graphviz:
        positions = graphviz_positions(project, sizes, timeout)
        if positions is not None:
            return positions, "graphviz"
    return layered_positions(project, sizes), "built-in"
