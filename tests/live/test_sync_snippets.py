"""The sync snippets the export writes, run by the real mongosh on the live server.

A copy held by an N embedded in an array (ecommerce: Product.name copied into ``orders.items[].name``) is found by
the embedded reference (``items.product_id``) and written with ``arrayFilters``: only the elements of the renamed
Product change, in every order that holds one, and the other orders and elements stay as they were.
"""

from __future__ import annotations

import json
from pathlib import Path

import pymongo
import pytest
from bson import ObjectId
from live_support import LiveServer, print_server
from mongosh_support import mongosh, ran

from modeller.export.snippets import sync_snippet
from modeller.persistence import load_project
from modeller.rules import analyse

pytestmark = [pytest.mark.node, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_the_sync_of_a_copy_in_embedded_items_renames_only_that_products_items(
    live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, name = live_db
    print_server(server)
    design = analyse(load_project(SAMPLES / "ecommerce.modeller.json")).design
    copy = next(c for r in design.relationships for c in r.denormalized if c.path == "items.name")
    assert copy.collection == "orders"
    phone, cable = ObjectId(), ObjectId()
    orders = [
        {"_id": 1, "items": [{"product_id": phone, "name": "Phone"}, {"product_id": cable, "name": "Cable"}]},
        {"_id": 2, "items": [{"product_id": cable, "name": "Cable"}]},
        {"_id": 3, "items": [{"product_id": phone, "name": "Phone"}, {"product_id": phone, "name": "Phone"}]},
    ]
    with pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000) as client:
        client[name]["orders"].insert_many(orders)
    script = tmp_path / "sync.js"
    script.write_text(
        f"const target = db.getSiblingDB({json.dumps(name)});\n"
        "{\n"
        "  const db = target;\n"
        f'  const sourceId = ObjectId("{phone}");\n'
        '  const newValue = "Phone 2";\n'
        f"{sync_snippet(design, copy)}\n"
        "}\n",
        encoding="utf-8",
    )
    ran(mongosh(server.uri, script, home=tmp_path / "home"))
    with pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000) as client:
        after = {d["_id"]: [(i["product_id"], i["name"]) for i in d["items"]] for d in client[name]["orders"].find()}
    assert after == {
        1: [(phone, "Phone 2"), (cable, "Cable")],
        2: [(cable, "Cable")],
        3: [(phone, "Phone 2"), (phone, "Phone 2")],
    }
