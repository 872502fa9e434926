"""``modeller infer URI`` takes a collection's count and average document size from the server's ``$collStats``.

Against the live server the numbers are the server's, not the sample's; a server that refuses ``$collStats``
(the limited stand-in) gets one warning line and the count from ``estimatedDocumentCount``, never a failure.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pymongo
from bson import Decimal128
from live_support import LiveServer, print_server
from pymongo import monitoring
from roundtrip import modeller

from modeller.live.collstats import StorageStats, describe, storage_stats
from modeller.live.source import Source

DOCS = 300
SAMPLE = 20


class _Sent(monitoring.CommandListener):
    def __init__(self) -> None:
        self.commands: list[dict] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        self.commands.append(dict(event.command))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def _fill(server: LiveServer, name: str) -> StorageStats:
    """Documents of very different sizes (so a sample's average is not the collection's); the server's numbers."""
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        db.notes.insert_many([{"n": i, "text": "x" * (i * 7 % 1500)} for i in range(DOCS)])
        db.create_collection("readings", timeseries={"timeField": "at"})
        db.readings.insert_one({"at": datetime.datetime(2026, 1, 1), "value": 1})
        stats = storage_stats(db.notes.aggregate([{"$collStats": {"storageStats": {}}}]))
    finally:
        client.close()
    assert stats is not None and stats.count == DOCS
    return stats


def _entity(project: dict, collection: str) -> dict:
    return next(e for e in project["entities"] if e.get("collection") == collection)


def test_count_and_average_size_are_the_servers(live_db: tuple[LiveServer, str], tmp_path: Path) -> None:
    server, name = live_db
    print_server(server)
    stats = _fill(server, name)
    out = tmp_path / "inferred.modeller.json"
    result = modeller("infer", server.uri, "--db", name, "--sample", str(SAMPLE), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr
    notes = _entity(json.loads(out.read_text(encoding="utf-8")), "notes")
    assert notes["count"] == DOCS
    assert notes["description"].startswith(f"{SAMPLE} documents sampled; {describe(stats)}")
    assert f"{stats.avg_bytes:,} bytes each on average" in notes["description"]

    sent = _Sent()
    with Source(server.uri, listeners=[sent]) as source:
        samples, _ = source.sample_database(name, ["notes", "readings"], SAMPLE)
    by_name = {s.name: s for s in samples}
    assert by_name["notes"].server == stats and by_name["notes"].count == DOCS
    assert by_name["readings"].server is None, "a time series' storage statistics count buckets: not asked"
    asked = [(c.get("aggregate"), c["pipeline"][0]) for c in sent.commands if "pipeline" in c]
    assert ("notes", {"$collStats": {"storageStats": {}}}) in asked
    assert not any(stage == {"$collStats": {"storageStats": {}}} for coll, stage in asked if coll == "readings")
    counted = [c.get("count") for c in sent.commands if "count" in c]
    assert counted == ["readings"], "the count of 'notes' came from $collStats, not estimatedDocumentCount"


def test_a_server_that_refuses_collstats_gets_one_warning_and_the_estimated_count(
    limited_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, name = limited_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].notes.insert_many([{"n": i} for i in range(DOCS)])
        client[name].tags.insert_many([{"tag": str(i)} for i in range(5)])
    finally:
        client.close()
    out = tmp_path / "inferred.modeller.json"
    result = modeller("infer", server.uri, "--db", name, "--sample", str(SAMPLE), "-o", str(out))
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("modeller: warning:")]
    assert warnings == [
        f"modeller: warning: the server at {server.uri} refused $collStats (Unrecognized pipeline stage name: "
        "'$collStats'); document counts are its estimates and document sizes the sample's"
    ]
    project = json.loads(out.read_text(encoding="utf-8"))
    notes = _entity(project, "notes")
    assert notes["count"] == DOCS
    assert notes["description"] == (
        f"{SAMPLE} documents sampled; no $collStats (Unrecognized pipeline stage name: '$collStats'): "
        "the count is the server's estimate"
    )
    assert _entity(project, "tags")["count"] == 5


def test_storage_stats_add_up_shards_and_ignore_what_is_not_a_number() -> None:
    shards = [
        {"shard": "a", "storageStats": {"count": 10, "size": 1000}},
        {"shard": "b", "storageStats": {"count": 30, "size": 5000.0}},
    ]
    assert storage_stats(shards) == StorageStats(40, 6000)
    assert StorageStats(40, 6000).avg_bytes == 150
    assert storage_stats([{"storageStats": {"count": True, "size": 3}}, {"ns": "x"}]) is None
    assert storage_stats([]) is None
    assert StorageStats(0, 0).avg_bytes is None
    assert describe(StorageStats(0, 0)) == "the server holds 0 documents ($collStats)"
    assert describe(StorageStats(1200, 1_200_000)) == (
        "the server holds 1,200 documents, 1,000 bytes each on average ($collStats)"
    )


def test_a_collection_whose_collstats_is_refused_falls_back_and_is_named(
    live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    """mongoeco refuses $collStats of a collection holding Decimal128: that one gets the estimate, named once."""
    server, name = live_db
    print_server(server)
    stats = _fill(server, name)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        for coll in ("prices", "refunds"):
            client[name][coll].insert_many([{"sku": f"S{i}", "price": Decimal128(f"{i}.25")} for i in range(40)])
    finally:
        client.close()
    out = tmp_path / "inferred.modeller.json"
    result = modeller("infer", server.uri, "--db", name, "--sample", str(SAMPLE), "-o", str(out))
    assert result.returncode == 0, result.stderr
    project = json.loads(out.read_text(encoding="utf-8"))
    assert _entity(project, "notes")["count"] == DOCS  # still the server's $collStats
    assert _entity(project, "notes")["description"].startswith(f"{SAMPLE} documents sampled; {describe(stats)}")
    refused = server.name == "mongoeco"  # a real server sizes Decimal128 and refuses nothing
    for coll in ("prices", "refunds"):
        entity = _entity(project, coll)
        assert entity["count"] == 40  # estimatedDocumentCount on mongoeco, $collStats on a real server
        assert {f["name"]: f["type"] for f in entity["fields"]}["price"] == "decimal"
        assert ("no $collStats (" in entity["description"]) is refused
    warnings = [line for line in result.stderr.splitlines() if line.startswith("modeller: warning:")]
    assert len(warnings) == int(refused)
    if refused:
        (line,) = warnings
        assert f"the server at {server.uri} refused $collStats of 'prices', 'refunds' (" in line
        assert line.endswith("their counts are the server's estimate and their document sizes the sample's")
