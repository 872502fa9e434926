"""The loader's quick validator builds what ``Project.model_validate`` builds, without the per-value Python checks
on valid values (issue 16: a third of a 10,000-entity read), and refuses what it refuses, worded the same."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from benchmarks.generate import generate_project
from modeller.model import ArrayItems, Field, Project, names
from modeller.model import project as project_module
from modeller.model.quick_validation import quick_validator, validate_project
from modeller.persistence import save_project

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.modeller.json"))
#: the Python checks the quick validator puts behind native ones
CHECKS: tuple[Callable[..., Any], ...] = (
    project_module.StrictModel._refuse_unknown_keys,
    project_module._check_number,
    names.check_field_name,
    names.check_id,
)


@contextmanager
def counting(functions: tuple[Callable[..., Any], ...]) -> Iterator[dict[str, int]]:
    """Calls of ``functions`` (by name) made by Python code while the block runs."""
    codes: dict[CodeType, str] = {}
    for function in functions:
        plain = getattr(function, "__func__", function)
        codes[plain.__code__] = plain.__name__
    calls = dict.fromkeys(codes.values(), 0)

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        if event == "call" and frame.f_code in codes:
            calls[codes[frame.f_code]] += 1

    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(None)


def models(node: Any) -> Iterator[BaseModel]:
    """Every model object inside ``node``, depth first."""
    if isinstance(node, BaseModel):
        yield node
        for name in type(node).model_fields:
            yield from models(getattr(node, name))
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from models(item)
    elif isinstance(node, dict):
        for item in node.values():
            yield from models(item)


def assert_same(quick: Project, usual: Project) -> None:
    assert quick == usual
    pairs = list(zip(models(quick), models(usual), strict=True))
    assert len(pairs) > 1
    for one, two in pairs:
        assert type(one) is type(two)
        assert one.model_fields_set == two.model_fields_set
        for name in type(one).model_fields:
            assert type(getattr(one, name)) is type(getattr(two, name)), name  # 50 stays an int, 0.5 a float


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_each_sample_is_built_as_model_validate_builds_it(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert_same(validate_project(data), Project.model_validate(data))


def test_a_generated_project_is_built_without_the_python_checks_on_its_valid_values(tmp_path: Path) -> None:
    save_project(generate_project(60, 1.5, 0.5, seed=3), tmp_path / "p.modeller.json")
    data = json.loads((tmp_path / "p.modeller.json").read_text(encoding="utf-8"))
    quick_validator()  # built before counting
    with counting(CHECKS) as quick_calls:
        quick = validate_project(data)
    with counting(CHECKS) as usual_calls:
        usual = Project.model_validate(data)
    assert_same(quick, usual)
    # the usual way calls each check hundreds of times on this project; the quick one never
    assert min(usual_calls.values()) > 100, usual_calls
    assert quick_calls == dict.fromkeys(usual_calls, 0)


def test_objects_of_the_same_keys_still_share_one_set_of_them() -> None:
    entity = {"id": "e", "name": "E", "fields": [{"name": f"f{i}", "type": "string"} for i in range(20)]}
    project = validate_project({"format": "modeller", "format_version": 2, "name": "p", "entities": [entity]})
    assert len({id(f.__pydantic_fields_set__) for f in project.entities[0].fields}) == 1


def base(**extra: Any) -> dict[str, Any]:
    return {"format": "modeller", "format_version": 2, "name": "p", **extra}


def entity(*fields: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": "e", "name": "E", "fields": list(fields), **extra}


@pytest.mark.parametrize(
    "name",
    ["_id", "__v", "ünïcode name", "dollar$inside", "x" * 200],
)
def test_a_name_outside_the_native_pattern_is_decided_by_the_python_check(name: str) -> None:
    data = base(entities=[entity({"name": name, "type": "string", "fields": None})])
    assert_same(validate_project(data), Project.model_validate(data))


def errors(data: dict[str, Any], validate: Callable[[Any], Project]) -> list[tuple[Any, ...]]:
    with pytest.raises(ValidationError) as info:
        validate(data)
    return [(e["type"], tuple(e["loc"]), e["msg"]) for e in info.value.errors()]


@pytest.mark.parametrize(
    "data",
    [
        base(entities=[entity({"name": "__proto__", "type": "string"})]),
        base(entities=[entity({"name": "$set", "type": "string"})]),
        base(entities=[entity({"name": "a.b", "type": "string"})]),
        base(entities=[entity({"name": "a", "type": "string", "typo": 1})]),
        base(entities=[entity(reads_per_sec=-1)]),
        base(entities=[entity(reads_per_sec=True)]),
        base(entities=[entity(reads_per_sec="5")]),
        base(layout={"e": {"x": 10**16, "y": 0}}),
        base(entities=[{"id": "1bad", "name": "E", "fields": []}]),
        base(colour="red"),
    ],
    ids=["proto", "dollar", "dot", "unknown-key", "negative", "bool", "string", "far", "bad-id", "unknown-top"],
)
def test_a_refused_project_is_refused_with_the_usual_errors(data: dict[str, Any]) -> None:
    usual = errors(data, Project.model_validate)
    assert usual
    assert errors(data, validate_project) == usual


def test_building_it_leaves_every_model_complete() -> None:
    quick_validator.cache_clear()
    quick_validator()
    for cls in (Project, Field, ArrayItems, project_module.Entity, project_module.Position):
        assert cls.__dict__["__pydantic_complete__"] is True, cls
    # and a model's own validation is what it was: the Python check words an unknown key
    with pytest.raises(ValidationError, match="did you mean 'required'"):
        Field.model_validate({"name": "a", "type": "string", "requird": True})
