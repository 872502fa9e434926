"""The ``faker`` key names a provider from a fixed list, suited to the field's type; anything else is refused."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from modeller.model import Project, check_project
from modeller.model.fakers import FAKER_PROVIDERS, faker_problem
from modeller.model.vocabulary import FIELD_TYPES


def problems(field: dict[str, Any]) -> list[tuple[str, str]]:
    data = {
        "format": "mongo-schema-modeller",
        "format_version": 1,
        "name": "Fake",
        "entities": [{"id": "e", "name": "E", "fields": [field]}],
    }
    return [(p.path, p.message) for p in check_project(Project.model_validate(data))]


@pytest.mark.parametrize("name", ["seed", "enum", "format", "image", "__class__", "_factory_map", "no_such_thing"])
def test_names_outside_the_list_are_refused(name: str) -> None:
    [(path, message)] = problems({"name": "x", "type": "string", "faker": name})
    assert path == "$.entities[0].fields[0].faker"
    assert f"faker {name!r} is not one of the supported Faker providers" in message


@pytest.mark.parametrize(("typo", "meant"), [("emial", "email"), ("sentense", "sentence"), ("date_tim", "date_time")])
def test_near_misses_get_a_did_you_mean(typo: str, meant: str) -> None:
    [(_path, message)] = problems({"name": "x", "type": "string", "faker": typo})
    assert message.endswith(f"did you mean {meant!r}?")


def test_far_misses_point_at_the_documented_list() -> None:
    [(_path, message)] = problems({"name": "x", "type": "string", "faker": "zzzzzzzz"})
    assert message.endswith("see the list under 'faker' in docs/file-format.md")


def test_provider_of_another_type_is_refused_with_fitting_ones() -> None:
    [(path, message)] = problems({"name": "n", "type": "int", "faker": "email"})
    assert path == "$.entities[0].fields[0].faker"
    assert "faker 'email' makes string values, not 'int' ones; use one of pyint, random_digit, random_int" in message


def test_types_no_provider_fills_say_remove() -> None:
    [(_path, message)] = problems({"name": "o", "type": "objectId", "faker": "sha1"})
    assert message.endswith("remove 'faker'")


def test_array_items_faker_is_checked() -> None:
    [(path, _message)] = problems({"name": "t", "type": "array", "items": {"type": "string", "faker": "seed"}})
    assert path == "$.entities[0].fields[0].items.faker"


def test_every_provider_suits_known_types_only() -> None:
    for name, types in FAKER_PROVIDERS.items():
        assert types and types <= set(FIELD_TYPES), name
        assert name.isidentifier() and not name.startswith("_"), name


@pytest.mark.parametrize(("name", "field_type"), [(n, t) for n, ts in FAKER_PROVIDERS.items() for t in sorted(ts)])
def test_every_listed_pair_validates(name: str, field_type: str) -> None:
    assert faker_problem(name, field_type) is None


def test_the_documented_list_is_the_allow_list() -> None:
    """docs/file-format.md lists every provider with exactly the types it fills (and nothing else)."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "file-format.md").read_text(encoding="utf-8")
    section = text.split("#### Faker providers", 1)[1].split("\n#", 1)[0]
    documented: dict[str, frozenset[str]] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        types_cell, providers_cell = line.strip("|").split("|")
        types = frozenset(re.findall(r"`(\w+)`", types_cell))
        for name in re.findall(r"`(\w+)`", providers_cell):
            documented[name] = types
    assert documented == FAKER_PROVIDERS
