"""``save(load(f))`` is byte-identical for canonical files; everything else becomes canonical once."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from persistence_fixtures import pretty

from modeller.persistence import dumps_project, load_project, loads_project, save_project

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "samples").glob("*.modeller.json"))
sys.path.insert(0, str(ROOT))

from benchmarks.generate import generate_data, generate_project  # noqa: E402


def test_there_are_samples() -> None:
    assert len(SAMPLES) >= 5


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_sample_round_trip_is_byte_identical(sample: Path, tmp_path: Path) -> None:
    original = sample.read_bytes()
    project = load_project(sample)
    target = tmp_path / sample.name
    save_project(project, target)
    assert target.read_bytes() == original
    assert load_project(target) == project


def test_canonical_text_shape(tiny: dict[str, Any]) -> None:
    text = dumps_project(loads_project(json.dumps(tiny)))
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert text.startswith('{\n  "format": "mongo-schema-modeller",\n  "format_version": 2,\n  "name": "Task tracker",')
    assert "\t" not in text and "\r" not in text
    # defaults are omitted: "strategy": "auto", "required": false never appear
    assert '"strategy"' not in text and '"required": false' not in text


def test_non_canonical_input_is_normalised_once(tiny: dict[str, Any]) -> None:
    tiny["relationships"][0]["strategy"] = "auto"  # a default, dropped
    tiny["layout"] = {"task": {"x": 340, "y": 60}, "person": {"x": 40, "y": 60}}  # reordered by entity order
    messy = json.dumps(tiny, indent=4, ensure_ascii=True)
    first = dumps_project(loads_project(messy))
    assert first != messy
    assert dumps_project(loads_project(first)) == first
    assert first.index('"person": {') < first.index('"task": {', first.index('"layout"'))


def test_hostile_text_survives(tiny: dict[str, Any]) -> None:
    hostile = 'Quote " back\\slash\nnew line </script> ${x} \u2028 é 😀 \x00'
    tiny["entities"][0]["description"] = hostile
    tiny["description"] = hostile
    text = dumps_project(loads_project(json.dumps(tiny)))
    again = loads_project(text)
    assert again.entities[0].description == hostile
    assert dumps_project(again) == text
    assert "é 😀" in text  # non-ASCII stays readable


def test_ids_not_positions_layout_kept_apart(tiny: dict[str, Any]) -> None:
    """Moving a box changes only the layout lines: the diff is one line."""
    project = loads_project(json.dumps(tiny))
    before = dumps_project(project).splitlines()
    moved = project.layout["task"].model_copy(update={"x": 999})
    project = project.model_copy(update={"layout": {**project.layout, "task": moved}})
    after = dumps_project(project).splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert changed == [('      "x": 340,', '      "x": 999,')]


def test_generated_project_round_trips() -> None:
    project = generate_project(60, seed=3)
    text = dumps_project(project)
    assert loads_project(text) == project
    assert dumps_project(loads_project(text)) == text


def test_generated_project_is_varied_and_valid() -> None:
    data = generate_data(200, seed=1)
    project = loads_project(pretty(data))  # raises if check_project finds anything
    assert len(project.entities) == 200 and len(project.relationships) == 300 and len(project.queries) == 100
    assert {r.cardinality for r in project.relationships} == {
        "one-to-one", "one-to-few", "one-to-many", "one-to-squillions", "many-to-many"
    }  # fmt: skip
    assert any(r.denormalize for r in project.relationships)
    assert any(r.tree_ops and r.one == r.many for r in project.relationships)
    assert any(any(f.fields for f in e.fields) for e in project.entities)
    assert any("." in key for q in project.queries for key in q.filter)
    assert set(project.layout) == {e.id for e in project.entities}


def test_generator_is_deterministic() -> None:
    assert generate_data(30, seed=7) == generate_data(30, seed=7)
    assert generate_data(30, seed=7) != generate_data(30, seed=8)
