"""``modeller drift`` names sampled values the design's allowed values refuse (a migration's default of ``""``,
a client's typo); ``true`` is not the allowed ``1``."""

from __future__ import annotations

import json
from pathlib import Path

import pymongo
import pytest
from bson import ObjectId
from live_support import LiveServer, print_server
from roundtrip import modeller

SHOP = Path(__file__).resolve().parents[2] / "samples" / "ecommerce.modeller.json"

pytestmark = pytest.mark.slow


def test_drift_names_values_outside_the_allowed_ones(live_db: tuple[LiveServer, str]) -> None:
    server, name = live_db
    print_server(server)
    assert modeller("apply", str(SHOP), server.uri, "--db", name).returncode == 0
    in_sync = modeller("drift", str(SHOP), server.uri, "--db", name)
    assert in_sync.returncode == 0, in_sync.stdout + in_sync.stderr
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        orders = client[name].orders
        for status in ("", "", "Paid"):
            orders.insert_one({"_id": ObjectId(), "status": status}, bypass_document_validation=True)
    finally:
        client.close()
    result = modeller("drift", str(SHOP), server.uri, "--db", name, "--format", "json")
    assert result.returncode == 1, result.stderr
    values = [d for d in json.loads(result.stdout)["drift"] if d["kind"] == "field-value"]
    assert [(d["collection"], d["path"]) for d in values] == [("orders", "status")]
    assert values[0]["message"] == "'orders' 'status': 3 sampled value(s) outside the allowed values: '', 'Paid'"
