"""The test server itself: real pymongo reaches it over TCP and the commands inference uses answer."""

from __future__ import annotations

import pymongo
from live_support import LiveServer, print_server


def test_the_server_answers_the_commands_inference_uses(live_db: tuple[LiveServer, str]) -> None:
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        db = client[name]
        assert db.command("ping")["ok"] == 1
        db.create_collection("things", validator={"$jsonSchema": {"bsonType": "object", "required": ["n"]}})
        db.things.insert_many([{"n": i} for i in range(20)])
        db.things.create_index([("n", 1)], unique=True, name="n_unique")
        assert db.things.estimated_document_count() == 20
        assert len(list(db.things.aggregate([{"$sample": {"size": 5}}]))) == 5
        options = {c["name"]: c.get("options", {}) for c in db.list_collections()}
        assert options["things"]["validator"]["$jsonSchema"]["required"] == ["n"]
        indexes = {ix["name"]: ix for ix in db.things.list_indexes()}
        assert indexes["n_unique"]["unique"] is True
    finally:
        client.close()
