"""Tryout a15 item 3: shard-key advice for a multi-tenant event stream (append-only, 40,000 inserts/s, reads of one
tenant's events by day), sharded by the user on ``created_at``."""

from __future__ import annotations

from typing import Any

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse
from modeller.rules.framework.findings import Finding


def events(append_only: bool = True, created_at: dict[str, Any] | None = None) -> Project:
    """Tenant -> Event as the tryout drew it; ``created_at`` is not marked monotonic unless ``created_at`` says so."""
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "tenant-shard",
            "server_version": "7.0",
            "sharded": True,
            "shards": 8,
            "entities": [
                {"id": "tenant", "name": "Tenant", "count": 5000, "fields": [{"name": "name", "type": "string"}]},
                {
                    "id": "event",
                    "name": "Event",
                    "count": 30_000_000_000,
                    "reads_per_sec": 3000,
                    "writes_per_sec": 40000,
                    "append_only": append_only,
                    "shard_key": ["created_at"],
                    "fields": [
                        {"name": "tenant_id", "type": "string"},
                        {"name": "region", "type": "string"},
                        {"name": "day", "type": "date"},
                        {"name": "created_at", "type": "date", **(created_at or {})},
                    ],
                },
            ],
            "relationships": [
                {
                    "id": "tenant_events",
                    "one": "tenant",
                    "many": "event",
                    "cardinality": "one-to-squillions",
                    "typical": 6_000_000,
                    "max": 3_000_000_000,
                }
            ],
            "queries": [
                {
                    "id": "by_day",
                    "entity": "event",
                    "name": "events of a tenant by day",
                    "scope": "tenant_events",
                    "filter": {"region": "eq", "created_at": "range"},
                    "sort": [["created_at", -1]],
                    "per_sec": 3000,
                }
            ],
        }
    )


def _shard_findings(project: Project) -> list[Finding]:
    return [f for f in analyse(project).findings if f.rule == "shard-key-distribution"]


def test_an_append_only_entitys_time_field_is_a_monotonic_immutable_key_and_the_tenant_time_compound_is_offered() -> (
    None
):
    advice = analyse(events()).design.shard_advice["event"]
    by_label = {c.label: c for c in advice.candidates}
    user = advice.user
    assert user is not None and user.monotonic and all(f.immutable for f in user.fields)
    compound = by_label["tenant_id, created_at"]
    assert compound.keys == [("tenant_id", 1), ("created_at", 1)]
    assert compound.targeted == 1.0 and compound.score > user.score
    # the reference the user keeps counts its Tenants (5,000 values), as a drawn reference would
    assert by_label["tenant_id"].key_cardinality == 5000


def test_a_users_key_hashed_below_a_better_key_is_a_warning_naming_the_tenant_time_key() -> None:
    findings = _shard_findings(events())
    warnings = [f for f in findings if f.severity == "warning"]
    assert len(warnings) == 1, [f.message for f in findings]
    text = warnings[0].message
    assert "only grows and takes 40,000 inserts/s" in text
    assert 'the design hashes your key ({created_at: "hashed"})' in text
    assert "the 3,000 range reads/s of it go to every shard" in text
    assert "{tenant_id: 1, created_at: 1} scores 1.00 against 0.60" in text
    assert "jumbo chunk, created_at splits it" in text
    assert warnings[0].numbers["better_key"] == "tenant_id, created_at"
    # the fix shards on that key, after which nothing is left to do
    fix = warnings[0].fix
    assert fix is not None and fix.description == "shard Event on {tenant_id: 1, created_at: 1}"
    (change,) = fix.changes
    assert (change.op, change.subject.id, change.key, change.value) == (
        "set",
        "event",
        "shard_key",
        ["tenant_id", "created_at"],
    )
    data = events().model_dump(mode="json", exclude_none=True)
    data["entities"][1]["shard_key"] = change.value
    after = _shard_findings(Project.model_validate(data))
    assert [f.severity for f in after] == ["info"]
    assert after[0].message.startswith("shard Event on {tenant_id: 1, created_at: 1} (ranged; your key;")


def test_a_marked_monotonic_key_gets_the_same_warning() -> None:
    warnings = _shard_findings(events(append_only=False, created_at={"monotonic": True}))
    assert [f.severity for f in warnings].count("warning") == 1
    (warning,) = [f for f in warnings if f.severity == "warning"]
    # created_at may change here (not append-only): the tenant with the unique _id after it scores best
    assert "{tenant_id: 1, _id: 1} scores 1.00 against 0.55" in warning.message


def test_a_field_nothing_marks_is_not_said_to_not_grow() -> None:
    """An entity that is not append-only, created_at not marked: the engine does not know, and says so."""
    findings = _shard_findings(events(append_only=False))
    (summary,) = [f for f in findings if f.severity == "info"]
    assert "do not only grow" not in summary.message
    assert "nothing marks its values as only growing (Monotonic)" in summary.message
    assert summary.message.startswith("shard Event on {created_at: 1} (ranged; your key;")
