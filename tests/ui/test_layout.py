"""Auto-layout: Graphviz positions parsed from ``dot -Tplain``, a built-in layered fallback, no overlaps."""

from __future__ import annotations

import os
import shutil

import pytest

from modeller.model import Entity, Project, Relationship
from modeller.ui.document import empty_project
from modeller.ui.layout import auto_layout, dot_source, graphviz_positions, layered_positions, parse_plain

from .conftest import load_sample


def overlaps(positions: dict[str, tuple[float, float]], sizes: dict[str, tuple[float, float]]) -> list[tuple[str, str]]:
    keys = list(positions)
    bad = []
    for i, a in enumerate(keys):
        ax, ay = positions[a]
        aw, ah = sizes[a]
        for b in keys[i + 1 :]:
            bx, by = positions[b]
            bw, bh = sizes[b]
            if ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah:
                bad.append((a, b))
    return bad


def chain(n: int, hostile: bool = False) -> Project:
    names = [f'n{i}"\\ {{x}}' if hostile else f"n{i}" for i in range(n)]
    entities = [Entity(id=f"e{i}", name=names[i], fields=[]) for i in range(n)]
    rels = [Relationship(id=f"r{i}", one=f"e{i}", many=f"e{i + 1}", cardinality="one-to-many") for i in range(n - 1)]
    rels.append(Relationship(id="loop", one="e0", many="e0", cardinality="one-to-many"))
    rels.append(Relationship(id="back", one=f"e{n - 1}", many="e0", cardinality="one-to-many"))  # a cycle
    return empty_project().model_copy(update={"entities": entities, "relationships": rels})


def test_layered_layout_puts_one_above_many_without_overlaps() -> None:
    project = chain(6)
    sizes = {e.id: (200.0, 100.0 + 10 * i) for i, e in enumerate(project.entities)}
    positions = layered_positions(project, sizes)
    assert set(positions) == set(sizes)
    assert overlaps(positions, sizes) == []
    for i in range(4):
        assert positions[f"e{i}"][1] < positions[f"e{i + 1}"][1]


def test_parse_plain_converts_inches_and_flips_y() -> None:
    text = 'graph 1 4 3\nnode "a" 1 2.5 2 1 "" solid box black lightgrey\nnode b 3 0.5 1 1 "" solid box\nstop\n'
    sizes = {"a": (144.0, 72.0), "b": (72.0, 72.0)}
    assert parse_plain(text, sizes) == {"a": (0, 0), "b": (180, 144)}


def test_dot_source_quotes_ids() -> None:
    project = empty_project().model_copy(update={"entities": [Entity(id="a-b", name='x"y', fields=[])]})
    assert '"a-b" [width=' in dot_source(project, {})


@pytest.mark.skipif(
    shutil.which("dot") is None and not os.environ.get("CI"),
    reason="Graphviz dot is not installed (the fallback is tested above)",
)
def test_graphviz_layout_of_a_sample_has_no_overlaps() -> None:
    project = load_sample("ecommerce")
    sizes = {e.id: (220.0, 160.0) for e in project.entities}
    positions = graphviz_positions(project, sizes, timeout=20)
    assert positions is not None and set(positions) == set(sizes)
    assert overlaps(positions, sizes) == []
    assert auto_layout(project, sizes)[1] == "graphviz"


def test_missing_or_failing_dot_falls_back(tmp_path) -> None:
    project = chain(4, hostile=True)
    sizes = {e.id: (180.0, 120.0) for e in project.entities}
    assert graphviz_positions(project, sizes, dot=str(tmp_path / "no-dot")) is None
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    assert graphviz_positions(project, sizes, dot=str(fake)) is None
    positions, engine = auto_layout(project, sizes, use_graphviz=False)
    assert engine == "built-in" and overlaps(positions, sizes) == []
