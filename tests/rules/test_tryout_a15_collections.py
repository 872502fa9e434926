"""Tryout a15 item 6: ``massive-number-of-collections`` reads the varying parts of collection names (a tenant, a
region, a date) as one family with the parts as fields, and never reads an entity number as a year."""

from __future__ import annotations

from typing import Any

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse
from modeller.rules.framework.findings import Finding

FIELDS = [
    {"name": "tenant_id", "type": "string"},
    {"name": "region", "type": "string"},
    {"name": "day", "type": "date"},
    {"name": "payload", "type": "string"},
]


def _project(entities: list[dict[str, Any]]) -> Project:
    return Project.model_validate(
        {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "name": "t", "entities": entities}
    )


def per_tenant() -> Project:
    """``events_<tenant>_<region>_<date>`` (3 x 2 x 2) and ``logs_<tenant>``, as the tryout's probe has them."""
    entities: list[dict[str, Any]] = []
    for tenant in ("acme", "globex", "initech"):
        for region in ("eu", "us"):
            for day in ("2024_05_10", "2024_05_11"):
                name = f"events_{tenant}_{region}_{day}"
                entities.append({"id": name, "name": name, "collection": name, "fields": FIELDS})
    for tenant in ("acme", "globex", "initech"):
        name = f"logs_{tenant}"
        entities.append({"id": name, "name": name, "collection": name, "fields": FIELDS})
    return _project(entities)


def _massive(project: Project) -> list[Finding]:
    return [f for f in analyse(project).findings if f.rule == "massive-number-of-collections"]


def test_a_family_split_by_tenant_region_and_date_is_one_finding_with_the_parts_as_fields() -> None:
    events, logs = _massive(per_tenant())
    assert events.subject.id == "events_acme_eu_2024_05_10"
    assert len(events.numbers["collections"]) == 12
    assert events.numbers["varying"] == [["acme", "globex", "initech"], ["eu", "us"]]
    assert "what varies: acme, globex, initech; eu, us; and the date" in events.message
    assert "keep one events collection with tenant_id, region and the date in day as indexed fields" in events.message
    assert "lead its compound indexes and its shard key with tenant_id" in events.message
    assert "expire old documents with a TTL index" in events.message
    assert "10,000 collections per replica set" in events.message
    assert "events_acme_eu collection" not in events.message
    assert logs.subject.id == "logs_acme"
    assert logs.numbers["collections"] == ["logs_acme", "logs_globex", "logs_initech"]
    assert "keep one logs collection with tenant_id as an indexed field" in logs.message
    assert "TTL" not in logs.message


def test_entity_numbers_are_not_read_as_years() -> None:
    """The generated big model: Store 16, Store 36, ..., Store 1996 hold the same fields and differ by a number."""
    stores = [
        {"id": f"s{n}", "name": f"Store {n}", "fields": FIELDS} for n in (16, 36, 56, 1916, 1936, 1956, 1976, 1996)
    ]
    assert _massive(_project(stores)) == []


def test_a_date_series_still_warns_with_its_stem() -> None:
    days = [{"id": f"d{d}", "name": f"Readings 2024-05-{d}", "fields": FIELDS} for d in (10, 11, 12)]
    (finding,) = _massive(_project(days))
    assert finding.message.startswith("3 collections differ only by a date in their name (readings_2024_05_10, ")
    assert "keep one readings collection with the date in an indexed field" in finding.message
