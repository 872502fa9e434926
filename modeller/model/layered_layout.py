"""The built-in layered layout of cards: One above Many, layers by longest path, barycentre ordering.

Pure (no Qt, no Graphviz), so the command line and the GUI lay out an inferred or imported project the same
way (:func:`laid_out`), and the GUI falls back to it when Graphviz is missing (``modeller.ui.layout``).
"""

from __future__ import annotations

from collections import defaultdict

from modeller.model.project import Position, Project

Sizes = dict[str, tuple[float, float]]
Positions = dict[str, tuple[float, float]]

H_GAP, V_GAP = 60.0, 90.0
#: a card the scene has not measured (not shown yet)
DEFAULT_SIZE = (180.0, 120.0)


def laid_out(project: Project) -> Project:
    """The project with card positions from the layered layout (cards of the default size)."""
    positions = layered_positions(project, {})
    layout = {key: Position(x=x, y=y) for key, (x, y) in positions.items()}
    return project.model_copy(update={"layout": layout})


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
