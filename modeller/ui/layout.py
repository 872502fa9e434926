"""Auto-layout: card positions from Graphviz ``dot``, or a built-in layered layout without it.

Pure functions of the project and the card sizes (no Qt), so the result is
testable and one ``MoveCommand`` makes it undoable. The One side of a
relationship is placed above its Many side.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict

from modeller.model import Project

Sizes = dict[str, tuple[float, float]]
Positions = dict[str, tuple[float, float]]

H_GAP, V_GAP = 60.0, 90.0
POINTS_PER_INCH = 72.0
#: a card the scene has not measured (not shown yet)
DEFAULT_SIZE = (180.0, 120.0)


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


def layered_positions(project: Project, sizes: Sizes) -> Positions:
    """A dependable layout without Graphviz: One above Many, layers by longest path, barycentre ordering."""
    ids = [e.id for e in project.entities]
    known = set(ids)
    children: dict[str, list[str]] = defaultdict(list)
    parents: dict[str, list[str]] = defaultdict(list)
    for rel in project.relationships:
        if rel.one != rel.many and rel.one in known and rel.many in known:
            children[rel.one].append(rel.many)
            parents[rel.many].append(rel.one)
    # break cycles: keep only edges that go forward in a DFS order
    order: dict[str, int] = {}
    state: dict[str, int] = {}
    forward: dict[str, list[str]] = defaultdict(list)
    for root in ids:
        if root in state:
            continue
        stack = [(root, iter(children[root]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                order[node] = len(order)
                stack.pop()
            elif state.get(nxt) is None:
                forward[node].append(nxt)
                state[nxt] = 1
                stack.append((nxt, iter(children[nxt])))
            elif state[nxt] == 2:
                forward[node].append(nxt)
    layer: dict[str, int] = {}
    for node in sorted(ids, key=lambda n: -order[n]):  # reverse post-order = topological order
        layer.setdefault(node, 0)
        for child in forward[node]:
            layer[child] = max(layer.get(child, 0), layer[node] + 1)
    layers: dict[int, list[str]] = defaultdict(list)
    for node in ids:
        layers[layer[node]].append(node)
    # wide layers wrap so the diagram stays roughly as wide as it is tall
    max_per_row = max(4, int(len(ids) ** 0.5 * 1.5))
    rows: list[list[str]] = []
    index: dict[str, float] = {}
    for depth in sorted(layers):
        members = layers[depth]
        members.sort(key=lambda n: _barycentre(n, parents, index))
        for start in range(0, len(members), max_per_row):
            row = members[start : start + max_per_row]
            for i, node in enumerate(row):
                index[node] = i
            rows.append(row)
    out: Positions = {}
    y = 0.0
    for row in rows:
        x = 0.0
        tallest = 0.0
        for node in row:
            w, h = sizes.get(node, DEFAULT_SIZE)
            out[node] = (round(x), round(y))
            x += w + H_GAP
            tallest = max(tallest, h)
        y += tallest + V_GAP
    return out


def _barycentre(node: str, parents: dict[str, list[str]], index: dict[str, float]) -> float:
    placed = [index[p] for p in parents.get(node, []) if p in index]
    return sum(placed) / len(placed) if placed else float("inf")


def auto_layout(
    project: Project, sizes: Sizes, use_graphviz: bool = True, timeout: float = 10.0
) -> tuple[Positions, str]:
    """Positions and which engine made them (``"graphviz"`` or ``"built-in"``)."""
    if use_graphviz:
        positions = graphviz_positions(project, sizes, timeout)
        if positions is not None:
            return positions, "graphviz"
    return layered_positions(project, sizes), "built-in"
