"""What the palette's tools create: a plain entity, an event stream, a lookup table.

Presets carry the annotations that make the engine's advice right from the
start (an event stream is append-only with time-series settings; a lookup is
small and read-mostly), so a beginner gets sensible advice without knowing the
keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from modeller.model import Entity, Field, TimeSeries


@dataclass(frozen=True)
class Template:
    key: str
    label: str
    icon: str
    tooltip: str
    #: what a new card of this kind is called (and, through it, its placeholder id)
    default_name: str


TEMPLATES: tuple[Template, ...] = (
    Template(
        "entity",
        "Entity",
        "entity",
        "Entity: a kind of thing the application stores (Person, Task).\nDrag onto the canvas or double-click.",
        "Entity",
    ),
    Template(
        "event_stream",
        "Event stream",
        "event-stream",
        "Event stream: append-only timestamped events or measurements (log lines, sensor readings),\n"
        "preset as a time series. Drag onto the canvas or double-click.",
        "Event",
    ),
    Template(
        "lookup",
        "Lookup / catalog",
        "lookup",
        "Lookup / catalog: a small, read-mostly list (countries, product categories).\n"
        "Drag onto the canvas or double-click.",
        "Lookup",
    ),
)

TEMPLATE_KEYS = tuple(t.key for t in TEMPLATES)
_BY_KEY = {t.key: t for t in TEMPLATES}


def make_entity(key: str, entity_id: str, name: str) -> Entity:
    """A new entity of the palette kind ``key`` (``ValueError`` for an unknown kind)."""
    if key == "entity":
        return Entity(id=entity_id, name=name, fields=[])
    if key == "event_stream":
        return Entity(
            id=entity_id,
            name=name,
            append_only=True,
            writes_per_sec=100,
            timeseries=TimeSeries(time_field="time", meta_field="source"),
            fields=[
                Field(name="time", type="date", required=True),
                Field(name="source", type="string", required=True),
                Field(name="value", type="double"),
            ],
        )
    if key == "lookup":
        return Entity(
            id=entity_id,
            name=name,
            count=100,
            reads_per_sec=50,
            writes_per_sec=0,
            fields=[
                Field(name="code", type="string", required=True, unique=True),
                Field(name="label", type="string", required=True),
            ],
        )
    raise ValueError(f"unknown palette item {key!r}")


def default_name(key: str) -> str:
    """The name of a new card of palette kind ``key`` (``KeyError`` for an unknown kind)."""
    return _BY_KEY[key].default_name
