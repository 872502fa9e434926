"""Ordered upgrades of old project files, one registered function per version step.

Modelled on napari's ``settings/_migrations.py``: each step is a small
function on plain JSON data, registered with ``@migrator(from, to)``, applied
in order until the data reaches the version this program writes. Format 1 is
the first published format, so the default registry is still empty; the
first format change adds ``@migrator(1, 2)`` here, bumps
``modeller.model.vocabulary.FORMAT_VERSION``, and adds a sample file of
version 1 to the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
