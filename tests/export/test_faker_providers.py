"""Every allow-listed Faker provider makes values the generated validator accepts; no other name is ever called."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest
from bson_checker import errors, is_bson_type
from faker import Faker

from modeller.export import sample_documents
from modeller.export import values as values_module
from modeller.export.samples import SampleError
from modeller.export.values import FAKER_CALLS, ValueFactory
from modeller.model import Project, check_project
from modeller.model.fakers import FAKER_PROVIDERS
from modeller.rules import analyse
from modeller.rules.physical.design import ShapeNode

BSON = {"string": "string", "int": "int", "long": "long", "double": "double", "decimal": "decimal"}
BSON |= {"bool": "bool", "date": "date"}
TYPES = sorted({t for types in FAKER_PROVIDERS.values() for t in types})
REFUSED = ["seed", "seed_instance", "enum", "format", "image", "__class__", "_factory_map", "parse", "no_such"]


def faker_project() -> Project:
    """One entity per field type, one field per provider that suits it (``faker`` wins over the field name)."""
    entities = []
    for field_type in TYPES:
        fields = [
            {"name": f"f_{name}", "type": field_type, "required": True, "faker": name}
            for name, types in FAKER_PROVIDERS.items()
            if field_type in types
        ]
        entities.append({"id": f"e_{field_type}", "name": f"E {field_type}", "fields": fields})
    data = {"format": "mongo-schema-modeller", "format_version": 1, "name": "Fakers", "entities": entities}
    project = Project.model_validate(data)
    assert check_project(project) == []
    return project


@pytest.fixture(scope="module")
def exported() -> tuple[Any, dict[str, list[dict[str, Any]]]]:
    project = faker_project()
    design = analyse(project).design
    return design, sample_documents(design, project, n=4, seed=11)


def test_the_dispatch_covers_exactly_the_allow_list() -> None:
    assert set(FAKER_CALLS) == set(FAKER_PROVIDERS)


def test_every_provider_value_passes_the_validator_for_each_type(
    exported: tuple[Any, dict[str, list[dict[str, Any]]]],
) -> None:
    design, docs = exported
    checked = set()
    for coll in design.collections:
        field_type = coll.name.removeprefix("e_")
        assert docs[coll.name], coll.name
        for doc in docs[coll.name]:
            assert errors(coll.validator, doc) == [], coll.name
            for key, value in doc.items():
                if key.startswith("f_"):
                    assert is_bson_type(value, BSON[field_type]), (key, value)
                    checked.add((key.removeprefix("f_"), field_type))
    assert checked == {(n, t) for n, types in FAKER_PROVIDERS.items() for t in types}


def test_values_come_from_the_named_provider(exported: tuple[Any, dict[str, list[dict[str, Any]]]]) -> None:
    _design, docs = exported
    strings, dates, ints = docs["e_string"][0], docs["e_date"], docs["e_int"]
    assert "@" in strings["f_email"] and strings["f_ipv4"].count(".") == 3
    assert len(strings["f_sha256"]) == 64 and len(strings["f_uuid4"]) == 36
    window = (dt.datetime(2023, 1, 1, tzinfo=dt.UTC), dt.datetime(2025, 1, 1, tzinfo=dt.UTC))
    assert all(window[0] <= doc["f_date_time"] <= window[1] for doc in dates)
    assert all(dt.datetime(1950, 1, 1, tzinfo=dt.UTC) <= doc["f_date_of_birth"] for doc in dates)
    assert all(0 <= doc["f_random_digit"] <= 9 for doc in ints)


def test_same_seed_same_values_whatever_today_is() -> None:
    project = faker_project()
    design = analyse(project).design
    first = sample_documents(design, project, n=2, seed=5)
    assert sample_documents(design, project, n=2, seed=5) == first


class Spy:
    """Wraps a Faker and records every attribute the exporter asks it for."""

    def __init__(self, real: Faker) -> None:
        self.real = real
        self.asked: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.asked.append(name)
        return getattr(self.real, name)


@pytest.mark.parametrize("name", REFUSED)
def test_refused_names_are_never_looked_up_on_faker(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(Faker("en_US"))
    monkeypatch.setattr(values_module, "_thread_faker", lambda: spy)
    factory = ValueFactory(1)
    assert factory.provider(name) is None
    with pytest.raises(KeyError):
        factory.pooled(name, random.Random(1))
    assert spy.asked == []


def test_export_of_an_unchecked_design_refuses_seed_without_calling_it(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(Faker("en_US"))
    monkeypatch.setattr(values_module, "_thread_faker", lambda: spy)
    project = Project.model_validate(
        {
            "format": "mongo-schema-modeller",
            "format_version": 1,
            "name": "P",
            "entities": [{"id": "e", "name": "E", "fields": [{"name": "nick", "type": "string"}]}],
        }
    )
    design = analyse(project).design
    design.collections[0].shape.append(ShapeNode("x", "string", faker="seed"))
    with pytest.raises(SampleError, match="'seed'"):
        sample_documents(design, project, n=1)
    assert "seed" not in spy.asked and "seed_instance" in spy.asked  # seeding is the exporter's own call
