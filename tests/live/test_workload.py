"""The observed workload: profiler shapes and ``$indexStats`` as declared queries (recorded fixtures, then live)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pymongo
from bson import ObjectId, json_util
from live_support import LiveServer, print_server
from roundtrip import modeller

from modeller.live.infer import CollectionSample, infer_project
from modeller.live.stats import CollectionStats
from modeller.live.workload import Workload, add_queries, filter_shape, from_index_stats, from_profile, merge
from modeller.model.checks import check_project

FIXTURES = Path(__file__).with_name("fixtures")
NOW = datetime.datetime(2026, 11, 24, 11, 0, tzinfo=datetime.UTC)


def _fixture(name: str) -> list[dict]:
    return json_util.loads((FIXTURES / name).read_text(encoding="utf-8"))


def test_filter_shapes_name_the_test_not_the_value() -> None:
    shape = filter_shape(
        {
            "a": 1,
            "b": {"$in": [1]},
            "c": {"$gte": 1, "$lt": 5},
            "d": {"$regex": "^x"},
            "e": {"$near": {}},
            "$and": [{"f": {"$eq": 2}}],
            "$or": [{"g": 1}],
            "h": {"$elemMatch": {"k": 1}},
            "i": {"x": 1},  # a whole sub-document compared
        }
    )
    assert shape == {"a": "eq", "b": "in", "c": "range", "d": "regex", "e": "geo", "f": "eq", "h.k": "eq", "i": "eq"}


def test_recorded_profile_entries_become_counted_shapes() -> None:
    shapes = {
        (q.collection, tuple(q.filter.items()), q.sort, q.limit): q
        for q in from_profile(_fixture("profile-mongodb7.json"), "shop")
    }
    assert set(shapes) == {
        ("orders", (("status", "eq"), ("created_at", "range")), (("created_at", -1),), 20),
        ("users", (("email", "eq"),), (), None),  # findOne: a single batch, not a limit the user chose
        ("orders", (("user_id", "in"),), (("created_at", 1),), 5),
    }  # no update, getMore, our own reads (appName modeller) or other databases
    paid = shapes[("orders", (("status", "eq"), ("created_at", "range")), (("created_at", -1),), 20)]
    assert (paid.count, paid.millis) == (3, 12.0)
    assert paid.per_sec == 3 / 60  # the profile spans 10:00:00 to 10:01:00


def test_recorded_index_stats_become_rates_and_merge_behind_the_profile() -> None:
    used = from_index_stats("orders", _fixture("indexstats-orders-mongodb7.json"), NOW)
    assert [(q.index, q.filter, q.per_sec) for q in used] == [
        ("status_1_created_at_-1", {"status": "eq", "created_at": "eq"}, 1.0),  # 7,200 ops in 2 hours
        ("user_id_1", {"user_id": "eq"}, 0.5),
        ("loc_2dsphere", {"loc": "geo"}, 0.005),
    ]  # _id_ and the unused sku_1 left out
    profiled = from_profile(_fixture("profile-mongodb7.json"), "shop")
    merged = merge(profiled, used)
    assert [q.index for q in merged if q.source == "indexStats"] == ["loc_2dsphere"]  # the others are profiled


def test_observed_queries_are_declared_on_the_collections_entity_and_marked() -> None:
    docs = [{"_id": ObjectId(), "status": "paid", "created_at": datetime.datetime(2026, 1, 1), "user_id": ObjectId()}]
    project = infer_project([CollectionSample(CollectionStats("orders").add_all(docs))], name="shop")
    used = from_index_stats("orders", _fixture("indexstats-orders-mongodb7.json"), NOW)
    workload = Workload(merge(from_profile(_fixture("profile-mongodb7.json"), "shop"), used), ["the profiler is on"])
    result = add_queries(project, workload)
    assert check_project(result) == []
    names = [(q.id, q.entity, q.name) for q in result.queries]
    assert names == [
        ("observed_1", "order", "observed: 3 times in the profiler, 4.0 ms each"),
        ("observed_3", "order", "observed: 1 times in the profiler, 7.0 ms each"),
    ]  # users is not a sampled collection; loc is a field no document holds
    assert "1 observed query shape(s) name fields no sampled document holds" in (result.description or "")
    assert (result.description or "").startswith(
        "Inferred by `modeller infer` from sampled documents; relationship strategies are the ones found in the "
        "data; the profiler is on; "
    )  # sentences joined once, never ".;"
    assert result.queries[0].per_sec == 0.05 and result.queries[0].sort == (("created_at", -1),)


def test_infer_workload_reads_the_live_profiler_and_index_use(live_db: tuple[LiveServer, str]) -> None:
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        db.orders.insert_many([{"status": "new", "user": i % 5, "at": i} for i in range(50)])
        db.orders.create_index([("user", 1), ("at", -1)], name="user_at")
        db.command("profile", 2)
        for _ in range(4):
            list(db.orders.find({"status": "new", "at": {"$gt": 3}}).sort("at", -1).limit(10))
        list(db.orders.aggregate([{"$match": {"user": {"$in": [1, 2]}}}, {"$sort": {"at": 1}}, {"$limit": 5}]))
    finally:
        client.close()
    try:
        result = modeller("infer", server.uri, "--db", name, "--workload")
    finally:  # mongoeco cannot drop a database while its profiler is on
        client = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
        try:
            client[name].command("profile", 0)
        finally:
            client.close()
    assert result.returncode == 0, result.stderr
    queries = json.loads(result.stdout)["queries"]
    shapes = {(tuple(q["filter"].items()), tuple(map(tuple, q.get("sort", []))), q.get("limit")): q for q in queries}
    four = shapes[((("status", "eq"), ("at", "range")), (("at", -1),), 10)]
    assert four["name"].startswith("observed: 4 times in the profiler") and four["per_sec"] > 0
    assert ((("user", "in"),), (("at", 1),), 5) in shapes
    assert len(queries) == 2  # each operation counted once, none of modeller's own reads


def test_modellers_own_reads_of_an_earlier_run_are_not_observed_queries(live_db: tuple[LiveServer, str]) -> None:
    """Tryout a13 item 12: an earlier infer's `_id $in` look-ups came back as observed queries (the stand-in records
    no appName); every command modeller sends carries the comment "modeller", which the profile keeps."""
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        users = [{"_id": ObjectId(), "name": f"u{i}"} for i in range(5)]
        db.users.insert_many(users)
        db.orders.insert_many([{"user_id": users[i % 5]["_id"], "at": i} for i in range(30)])
        db.command("profile", 2)
        for _ in range(3):
            list(db.orders.find({"user_id": users[0]["_id"]}).sort("at", -1).limit(10))
    finally:
        client.close()
    try:
        earlier = modeller("infer", server.uri, "--db", name)  # sampled and looked up while the profiler records
        assert earlier.returncode == 0, earlier.stderr
        client = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
        try:
            profiled = list(client[name]["system.profile"].find({"command.comment": "modeller"}))
        finally:
            client.close()
        assert any("$in" in str(entry["command"].get("filter")) for entry in profiled)  # the look-ups, marked
        result = modeller("infer", server.uri, "--db", name, "--workload")
    finally:
        client = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
        try:
            client[name].command("profile", 0)
        finally:
            client.close()
    assert result.returncode == 0, result.stderr
    queries = json.loads(result.stdout)["queries"]
    assert [(q["filter"], q.get("sort"), q.get("limit")) for q in queries] == [({"user_id": "eq"}, [["at", -1]], 10)], (
        queries
    )
