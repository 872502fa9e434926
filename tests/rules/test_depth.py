"""``_depth`` (document-size-and-nesting, a level-by-level walk) counts the levels of a shape, however deep."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.rules import analyse
from modeller.rules.engine import load_rules
from modeller.rules.physical.design import ShapeNode

load_rules()  # the rule modules register in catalog order only when load_rules imports them first

from modeller.rules.catalog.antipatterns import _depth  # noqa: E402


def chain(levels: int) -> list[ShapeNode]:
    """An object nested ``levels`` deep, with an array of objects every tenth level and leaves beside it."""
    node = ShapeNode("leaf", "string")
    for i in range(levels - 1):
        if i % 10 == 5:
            node = ShapeNode(f"a{i}", "array", items=ShapeNode("item", "object", children=[node]))
        else:
            node = ShapeNode(f"o{i}", "object", children=[ShapeNode("x", "int"), node])
    return [ShapeNode("_id", "objectId"), node]


def reference_depth(nodes: list[ShapeNode]) -> int:
    """The original stack walk."""
    best = 0
    stack = [(n, 1) for n in nodes]
    while stack:
        node, level = stack.pop()
        best = max(best, level)
        stack.extend((c, level + 1) for c in node.children)
        if node.items is not None:
            stack.append((node.items, level + 1))
    return best


def test_depth_of_generated_designs_equals_the_stack_walk() -> None:
    design = analyse(generate_project(120, seed=3)).design
    depths = [_depth(c.shape) for c in design.collections]
    assert depths == [reference_depth(c.shape) for c in design.collections]
    assert max(depths) >= 3


def test_depth_of_deep_and_empty_shapes() -> None:
    assert _depth([]) == 0
    assert _depth([ShapeNode("a", "int")]) == 1
    for levels in (2, 11, 101, 2500):
        shape = chain(levels)
        want = reference_depth(shape)
        assert _depth(shape) == want
        assert want >= levels  # arrays add their item level
