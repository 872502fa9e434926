"""The built-in layered layout of cards: One above Many, layers by longest path, barycentre ordering.

Pure (no Qt, no Graphviz), so the command line and the GUI lay out an inferred or imported project the same
way (:func:`laid_out`), and the GUI falls back to it when Graphviz is missing (``modeller.ui.layout``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from modeller.model.project import Entity, Field, Position, Project

Sizes = dict[str, tuple[float, float]]
Positions = dict[str, tuple[float, float]]

H_GAP, V_GAP = 60.0, 90.0
#: a card the scene has not measured (not shown yet)
DEFAULT_SIZE = (180.0, 120.0)
#: the canvas card's measures (ui/canvas/items: style.py, entity_item.set_content) rounded up, so an estimated card
#: is never smaller than the drawn one: header, row height, rows shown (then one "more" line), width bounds
CARD_HEADER, CARD_ROW, CARD_MAX_ROWS = 42.0, 19.0, 16
CARD_MIN_WIDTH, CARD_MAX_WIDTH = 170.0, 300.0
#: pixels per character of a field name (and of its type, drawn smaller), and per level of indentation
NAME_CHAR, TYPE_CHAR, INDENT = 7.5, 7.0, 14.0


def laid_out(project: Project) -> Project:
    """The project with card positions from the layered layout, each card as large as its fields make it
    (:func:`estimated_size`), so a tall or wide card does not run into its neighbour before the canvas measures it."""
    positions = layered_positions(project, {e.id: estimated_size(e) for e in project.entities})
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


def estimated_size(entity: Entity) -> tuple[float, float]:
    """A card's width and height from its name and field rows (sub-fields indented), without fonts."""
    rows = list(_rows(entity.fields, 0))
    if entity.subtypes is not None:
        for variant, fields in entity.subtypes.variants.items():
            rows.append((0, len(variant) + 2, 0))
            rows += _rows(fields, 1)
    shown = min(len(rows), CARD_MAX_ROWS) + (1 if len(rows) > CARD_MAX_ROWS else 0) or 1
    widest = max(
        (40 + level * INDENT + NAME_CHAR * (name + 2) + TYPE_CHAR * kind for level, name, kind in rows[:CARD_MAX_ROWS]),
        default=0.0,
    )
    title = 36 + 9.0 * len(entity.name)
    subtitle = 28 + TYPE_CHAR * (len(entity.collection or "") + 12)
    width = min(CARD_MAX_WIDTH, max(CARD_MIN_WIDTH, widest, title, subtitle))
    return round(width), round(CARD_HEADER + shown * CARD_ROW + 8)


def _rows(fields: Iterable[Field], level: int) -> Iterable[tuple[int, int, int]]:
    """(indentation, name length, type length) of each row a card shows for ``fields`` and their sub-fields."""
    for field in fields:
        kind = field.type + (" of " + field.items.type if field.items is not None else "")
        yield level, len(field.name) + (4 if field.type == "array" else 0), len(kind) + 2
        children, items = field.fields, field.items
        while children is None and items is not None:
            children, items = items.fields, items.items
        if children:
            yield from _rows(children, level + 1)
