"""The migration registry: ordered single steps, refused gaps and duplicates, used by the loader."""

from __future__ import annotations

import json
from typing import Any

import pytest

from modeller.model import FORMAT_VERSION
from modeller.persistence import (
    MIGRATIONS,
    MigrationError,
    MigrationRegistry,
    ProjectFileError,
    UnsupportedVersionError,
    loads_project,
)
from modeller.persistence import migrations as migrations_module


def chain() -> MigrationRegistry:
    registry = MigrationRegistry()

    @registry.migrator(2, 3)
    def rename_title(data: dict[str, Any]) -> dict[str, Any]:
        data["name"] = data.pop("title")
        return data

    @registry.migrator(1, 2)
    def add_tags(data: dict[str, Any]) -> dict[str, Any]:
        data["tags"] = []
        return data

    return registry


def test_steps_run_in_version_order_whatever_the_registration_order() -> None:
    registry = chain()
    data, applied = registry.migrate({"format_version": 1, "title": "x"}, target=3)
    assert data == {"format_version": 3, "name": "x", "tags": []}
    assert [(m.from_version, m.to_version, m.name) for m in applied] == [(1, 2, "add_tags"), (2, 3, "rename_title")]
    assert [m.from_version for m in registry.steps()] == [1, 2]


def test_partial_chain_from_a_middle_version() -> None:
    data, applied = chain().migrate({"format_version": 2, "title": "x"}, target=3)
    assert data == {"format_version": 3, "name": "x"}
    assert len(applied) == 1


def test_current_version_needs_no_step() -> None:
    data, applied = chain().migrate({"format_version": 3, "name": "x"}, target=3)
    assert applied == [] and data["name"] == "x"


def test_gap_is_refused_with_the_readable_range() -> None:
    with pytest.raises(
        MigrationError, match="format_version 0 cannot be upgraded: this Modeller reads format_version 1 to 3"
    ):
        chain().migrate({"format_version": 0}, target=3)


def test_step_must_go_up_by_one() -> None:
    registry = MigrationRegistry()
    with pytest.raises(ValueError, match="one version at a time"):
        registry.migrator(1, 3)
    with pytest.raises(ValueError, match="one version at a time"):
        registry.migrator(2, 1)


def test_duplicate_step_is_refused() -> None:
    registry = chain()
    with pytest.raises(ValueError, match="already registered \\(add_tags\\)"):

        @registry.migrator(1, 2)
        def again(data: dict[str, Any]) -> dict[str, Any]:
            return data


def test_failing_step_names_itself() -> None:
    registry = MigrationRegistry()

    @registry.migrator(1, 2)
    def needs_title(data: dict[str, Any]) -> dict[str, Any]:
        data["name"] = data.pop("title")
        return data

    with pytest.raises(MigrationError, match="from format_version 1 to 2 failed in needs_title: 'title'"):
        registry.migrate({"format_version": 1}, target=2)


def test_step_returning_garbage_is_refused() -> None:
    registry = MigrationRegistry()
    registry.migrator(1, 2)(lambda data: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(MigrationError, match="returned NoneType"):
        registry.migrate({"format_version": 1}, target=2)


def test_default_registry_reads_every_published_format() -> None:
    """Format 1 is the first published one: a chain of steps brings it to today's format."""
    assert MIGRATIONS.oldest_supported(FORMAT_VERSION) == 1
    assert [(m.from_version, m.to_version) for m in MIGRATIONS.steps()] == [(1, 2)]


def test_loader_applies_registered_migrations(monkeypatch: pytest.MonkeyPatch) -> None:
    """A format-0 file (with an old key name) is upgraded on load, through the real pipeline."""
    registry = MigrationRegistry()

    @registry.migrator(0, 1)
    def entitys_to_entities(data: dict[str, Any]) -> dict[str, Any]:
        data["entities"] = data.pop("entitys", [])
        return data

    registry.migrator(1, 2)(migrations_module.filter_on_parent_reference_to_scope)
    monkeypatch.setattr(migrations_module, "MIGRATIONS", registry)
    old = {
        "format": "mongo-schema-modeller",
        "format_version": 0,
        "name": "Old",
        "entitys": [{"id": "a", "name": "A", "fields": [{"name": "x", "type": "int"}]}],
    }
    project = loads_project(json.dumps(old))
    assert project.format_version == FORMAT_VERSION == 2
    assert [e.id for e in project.entities] == ["a"]


def test_loader_reports_a_failing_migration(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = MigrationRegistry()

    @registry.migrator(0, 1)
    def broken(data: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("layout")

    monkeypatch.setattr(migrations_module, "MIGRATIONS", registry)
    text = '{"format": "mongo-schema-modeller", "format_version": 0, "name": "Old"}'
    with pytest.raises(ProjectFileError) as info:
        loads_project(text, "old.modeller.json")
    assert not isinstance(info.value, UnsupportedVersionError)
    assert str(info.value) == (
        "old.modeller.json:1:37: $.format_version: upgrading from format_version 0 to 1 failed in broken: 'layout'"
    )
