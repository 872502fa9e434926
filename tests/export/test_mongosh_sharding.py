"""``--with-sharding`` on an analysed design: the advisor's key (hashed or ranged), its index, idempotent runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from js_harness import calls, node_check, run_scripts

from modeller.export import mongosh_script
from modeller.model.project import Project
from modeller.rules import analyse


def _project(entities: list[dict[str, Any]], queries: list[dict[str, Any]] | None = None) -> Project:
    return Project.model_validate(
        {
            "format": "mongo-schema-modeller",
            "format_version": 2,
            "name": "Shards",
            "database": "shop",
            "sharded": True,
            "shards": 4,
            "entities": entities,
            "queries": queries or [],
        }
    )


def _run(tmp_path: Path, project: Project) -> tuple[str, dict[str, Any]]:
    text = mongosh_script(analyse(project).design, project, with_sharding=True)
    script = tmp_path / "setup.mongosh.js"
    script.write_text(text, encoding="utf-8")
    node_check(script)
    return text, run_scripts(script, runs=2)


def test_a_monotonic_key_is_sharded_hashed_with_its_hashed_index_and_twice_is_harmless(tmp_path: Path) -> None:
    project = _project(
        [
            {
                "id": "event",
                "name": "Event",
                "count": 100_000_000,
                "writes_per_sec": 20_000,
                "shard_key": ["seq"],
                "fields": [{"name": "seq", "type": "long", "monotonic": True}],
            }
        ],
        [{"id": "by_seq", "entity": "event", "filter": {"seq": "eq"}, "per_sec": 50}],
    )
    text, rec = _run(tmp_path, project)
    assert calls(rec, 0, "enableSharding") == [{"op": "enableSharding", "db": "shop"}]
    assert calls(rec, 0, "shardCollection") == [
        {"op": "shardCollection", "ns": "shop.event", "key": [["seq", "hashed"]]}
    ]
    hashed = [c for c in calls(rec, 0, "createIndex") if c["key"] == [["seq", "hashed"]]]
    assert [(c["collection"], c["options"]["name"]) for c in hashed] == [("event", "seq_hashed")]
    assert calls(rec, 1, "shardCollection") == []
    assert any("already sharded" in p for p in rec["runs"][1]["prints"])
    assert '//   db.adminCommand({"analyzeShardKey": "shop.event", "key": {"seq": "hashed"}});' in text
    assert '"configureQueryAnalyzer": "shop.event"' in text


def test_a_refused_user_key_is_replaced_by_the_key_the_unique_index_starts_with(tmp_path: Path) -> None:
    project = _project(
        [
            {
                "id": "user",
                "name": "User",
                "count": 1_000_000,
                "shard_key": ["continent"],
                "indexes": [{"keys": [["user_id", 1]], "unique": True}],
                "fields": [
                    {"name": "user_id", "type": "string", "unique": True},
                    {"name": "continent", "type": "string", "distinct": 7},
                ],
            }
        ],
        [{"id": "by_user", "entity": "user", "filter": {"user_id": "eq"}, "per_sec": 100}],
    )
    _text, rec = _run(tmp_path, project)
    assert calls(rec, 0, "shardCollection") == [{"op": "shardCollection", "ns": "shop.user", "key": [["user_id", 1]]}]
    # the unique index already starts with the key: no second index on user_id
    assert [c["key"] for c in calls(rec, 0, "createIndex") if c["collection"] == "user"] == [[["user_id", 1]]]


def test_collections_without_advice_are_not_sharded(tmp_path: Path) -> None:
    project = _project([{"id": "note", "name": "Note", "count": 10, "fields": [{"name": "text", "type": "string"}]}])
    text, rec = _run(tmp_path, project)
    assert calls(rec, 0, "shardCollection") == []
    assert calls(rec, 0, "enableSharding") == [{"op": "enableSharding", "db": "shop"}]
    assert "analyzeShardKey" not in text
