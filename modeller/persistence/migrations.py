"""Ordered upgrades of old project files, one registered function per version step.

Modelled on napari's ``settings/_migrations.py``: each step is a small
function on plain JSON data, registered with ``@migrator(from, to)``, applied
in order until the data reaches the version this program writes. A step
reads data that has not been validated yet: it changes only what has the
shape it expects and leaves the rest for validation to report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from modeller.model.conventions import parent_ref_name

Data = dict[str, Any]
MigrationFunc = Callable[[Data], Data]


class MigrationError(Exception):
    """A file's version cannot be brought to the current one (no path, or a step failed)."""


@dataclass(frozen=True, slots=True)
class Migration:
    """One step: data of ``from_version`` in, data of ``to_version`` out."""

    from_version: int
    to_version: int
    func: MigrationFunc

    @property
    def name(self) -> str:
        return getattr(self.func, "__name__", "migration")


class MigrationRegistry:
    """Registered steps, keyed on the version they upgrade from."""

    def __init__(self) -> None:
        self._steps: dict[int, Migration] = {}

    def migrator(self, from_version: int, to_version: int) -> Callable[[MigrationFunc], MigrationFunc]:
        """Register the decorated function as the step ``from_version -> to_version``.

        Steps go up by exactly one version, and each version has one way out,
        so the chain from any old file to today's format is unambiguous.
        """
        if to_version != from_version + 1:
            raise ValueError(f"a migration goes up one version at a time, not {from_version} -> {to_version}")

        def register(func: MigrationFunc) -> MigrationFunc:
            if from_version in self._steps:
                other = self._steps[from_version].name
                raise ValueError(f"migration from version {from_version} is already registered ({other})")
            self._steps[from_version] = Migration(from_version, to_version, func)
            return func

        return register

    def steps(self) -> list[Migration]:
        """All steps in version order."""
        return [self._steps[v] for v in sorted(self._steps)]

    def oldest_supported(self, target: int) -> int:
        """The lowest version that a chain of steps brings to ``target``."""
        version = target
        while version - 1 in self._steps:
            version -= 1
        return version

    def migrate(self, data: Data, target: int) -> tuple[Data, list[Migration]]:
        """Upgrade ``data`` (whose ``format_version`` is below ``target``) step by step.

        Returns the upgraded data and the steps applied. Raises
        :class:`MigrationError` when a step is missing or fails.
        """
        version = data.get("format_version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise MigrationError(f"format_version must be an integer, got {version!r}")
        applied: list[Migration] = []
        while version < target:
            step = self._steps.get(version)
            if step is None:
                oldest = self.oldest_supported(target)
                readable = (
                    f"only format_version {target}" if oldest == target else f"format_version {oldest} to {target}"
                )
                raise MigrationError(f"format_version {version} cannot be upgraded: this Modeller reads {readable}")
            try:
                result = step.func(data)
            except Exception as exc:
                raise MigrationError(
                    f"upgrading from format_version {step.from_version} to {step.to_version} "
                    f"failed in {step.name}: {exc}"
                ) from exc
            if not isinstance(result, dict):
                raise MigrationError(f"migration {step.name} returned {type(result).__name__}, not an object")
            result["format_version"] = step.to_version
            data = result
            version = step.to_version
            applied.append(step)
        return data, applied


#: The registry the loader uses.
MIGRATIONS = MigrationRegistry()
migrator = MIGRATIONS.migrator


@migrator(1, 2)
def filter_on_parent_reference_to_scope(data: Data) -> Data:
    """Format 2 says "the N of one One" as ``scope``: a v1 equality on a generated parent-reference name becomes it.

    A v1 query on the N side of a one-to-N relationship could only say "the
    messages of one host" with ``"filter": {"host_id": "eq"}``, a name that
    exists only when the engine picks a parent reference. The first such
    filter of a query (the name ``parent_ref_field`` gives, and not a field the
    entity declares) becomes ``"scope": <relationship id>``; everything else is
    unchanged.
    """
    entities = {e["id"]: e for e in _objects(data.get("entities")) if isinstance(e.get("id"), str)}
    refs: dict[tuple[str, str], str] = {}  # (N entity id, parent-reference name) -> relationship id
    for rel in _objects(data.get("relationships")):
        one, many = entities.get(rel.get("one")), rel.get("many")
        if one is None or not isinstance(many, str) or not isinstance(one.get("name"), str):
            continue
        if rel.get("cardinality") == "many-to-many" or not isinstance(rel.get("id"), str):
            continue  # its N holds an array of references, not one parent reference
        inverse = rel.get("inverse")
        name = parent_ref_name(inverse if isinstance(inverse, str) else None, one["name"])
        refs.setdefault((many, name), rel["id"])
    for query in _objects(data.get("queries")):
        entity = entities.get(query.get("entity"))
        filters = query.get("filter")
        if entity is None or not isinstance(filters, dict) or "scope" in query:
            continue
        declared = {f.get("name") for f in _objects(entity.get("fields"))}
        for key, op in filters.items():
            rel_id = refs.get((entity["id"], key))
            if op == "eq" and rel_id is not None and key not in declared:
                del filters[key]
                if not filters:
                    del query["filter"]
                query["scope"] = rel_id
                break
    return data


def _objects(value: Any) -> list[dict[str, Any]]:
    """The JSON objects of a list (anything else is left for validation to report)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
