"""An inferred model accepts the irregular data it came from: the tryout's shop, on the test server.

Mixed types (a zip stored as a string or an int, money as Decimal128 or double, a total sometimes a
string: each declared with its ``other_types``), a coupon code seen on a tenth of the orders, three cities, and a few orders with hundreds of
line items. Inferred, applied and compared again, the database must pass its own validators, ``drift``
must find nothing, and the generated Pydantic models must accept every document read back.
"""

from __future__ import annotations

import datetime
import importlib.util
import random
import sys
from pathlib import Path

import pymongo
from bson import Decimal128, ObjectId
from live_support import LiveServer, print_server
from pydantic import TypeAdapter
from roundtrip import modeller

from modeller.live.mixed import undeclared_paths
from modeller.persistence import load_project

NOW = datetime.datetime(2026, 1, 1)


def _fill(db: pymongo.database.Database) -> None:
    """A smaller copy of the tryout's fill.py (same irregularities, seeded)."""
    rnd = random.Random(7)
    customers = []
    for i in range(120):
        doc = {"_id": ObjectId(), "email": f"user{i}@example.com", "name": f"Customer {i}", "created_at": NOW}
        if rnd.random() < 0.9:
            zip_code = str(10000 + i) if rnd.random() < 0.8 else 10000 + i
            doc["address"] = {
                "street": f"{i} Main St",
                "city": rnd.choice(["Berlin", "Paris", "Rome"]),
                "zip": zip_code,
            }
        if rnd.random() < 0.2:
            doc["loyalty_points"] = rnd.choice([rnd.randint(0, 500), "n/a"])
        customers.append(doc)
    db.customers.insert_many(customers)
    products = []
    for i in range(60):
        price = Decimal128(f"{rnd.randint(1, 500)}.{rnd.randint(0, 99):02d}") if rnd.random() < 0.85 else 9.5
        doc = {"_id": ObjectId(), "sku": f"SKU-{i:05d}", "price": price, "stock": rnd.randint(0, 1000)}
        doc["category"] = rnd.choice(["books", "tools", "toys", "garden"])
        doc["tags"] = [f"t{k}" for k in range(400 if i < 2 else rnd.randint(0, 8))]
        products.append(doc)
    db.products.insert_many(products)
    orders = []
    for i in range(300):
        n = 160 + i if i < 4 else rnd.randint(1, 6)  # a few orders with hundreds of line items
        items = []
        for _ in range(n):
            product = rnd.choice(products)
            items.append({"product_id": product["_id"], "qty": rnd.randint(1, 5), "unit_price": product["price"]})
        total = float(rnd.randint(1, 900))
        doc = {
            "_id": ObjectId(),
            "customer_id": rnd.choice(customers)["_id"],
            "status": rnd.choice(["new", "paid", "shipped", "delivered", "cancelled"]),
            "items": items,
            "total": str(total) if i % 20 == 0 else total,
        }
        if i % 10 == 0:
            doc["coupon"] = "WELCOME10"
        orders.append(doc)
    db.orders.insert_many(orders)


def _import_models(path: Path) -> object:
    spec = importlib.util.spec_from_file_location("_irregular_models", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_irregular_models"] = module
    spec.loader.exec_module(module)
    return module


def test_an_inferred_model_accepts_the_data_it_came_from(live_db: tuple[LiveServer, str], tmp_path: Path) -> None:
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        _fill(client[name])
        out = tmp_path / "shop.modeller.json"
        inferred = modeller("infer", server.uri, "--db", name, "--timeout", "60", "-o", str(out))
        assert inferred.returncode == 0, inferred.stderr
        project = load_project(out)
        fields = {(e.id, f.name): f for e in project.entities for f in e.fields}
        # what a validator of one type would refuse is declared with all the types seen, commonest first
        address = {f.name: f for f in fields[("customer", "address")].fields or ()}
        assert (address["zip"].type, address["zip"].other_types) == ("string", ("int",))
        assert fields[("customer", "loyalty_points")].other_types == ("string",)
        assert (fields[("order", "total")].type, fields[("order", "total")].other_types) == ("double", ("string",))
        (item_entity,) = [e for e in project.entities if e.name == "Item"]
        unit_price = {f.name: f for f in item_entity.fields}["unit_price"]
        assert (unit_price.type, unit_price.other_types) == ("decimal", ("double",))
        assert (fields[("product", "price")].type, fields[("product", "price")].other_types) == ("decimal", ("double",))
        assert all(undeclared_paths(e.description) == set() for e in project.entities)
        assert all(f.description is None for f in fields.values())  # no inference note inside a validator
        # enums only on strong evidence: status and category, not the one coupon code or the three cities
        assert fields[("order", "status")].enum == ("cancelled", "delivered", "new", "paid", "shipped")
        assert fields[("order", "coupon")].enum is None
        assert address["city"].enum is None
        assert fields[("product", "tags")].max_items is None  # the longest seen is no bound
        (items,) = [r for r in project.relationships if r.name == "items"]
        assert items.max is not None and items.max >= 1.5 * 163
        # the line items' product_id is a reference of the embedded entity, not a plain field
        (bought,) = [r for r in project.relationships if r.many == item_entity.id and r.one == "product"]
        assert (bought.strategy, bought.inverse, bought.denormalize) == ("parent-ref", "product", ())
        assert "product_id" not in {f.name for f in item_entity.fields}

        # check names them, as a consultant would
        checked = modeller("check", str(out))
        assert checked.returncode == 0, checked.stderr
        (line,) = [
            ln
            for ln in checked.stdout.splitlines()
            if "mixed-types: 1 field(s) hold several types" in ln and "total" in ln
        ]
        assert "'total' (double, also string)" in line and "convert each to one type" in line

        dry = modeller("apply", str(out), server.uri, "--db", name, "--dry-run")
        assert dry.returncode == 0, dry.stderr
        assert "set the validator of 'orders'" in dry.stdout
        assert "would fail" not in dry.stdout and "still fail" not in dry.stdout, dry.stdout
        applied = modeller("apply", str(out), server.uri, "--db", name)
        assert applied.returncode == 0, applied.stderr
        for coll in ("customers", "products", "orders"):
            options = client[name].command("listCollections", filter={"name": coll})["cursor"]["firstBatch"][0]
            validator = options["options"]["validator"]
            assert client[name][coll].count_documents({"$nor": [validator]}) == 0, coll

        drift = modeller("drift", str(out), server.uri, "--db", name)
        assert drift.returncode == 0, drift.stdout + drift.stderr
        assert "matches the design" in drift.stdout

        # apply created the index on the line items' reference; inferring the database again keeps it there
        # (tryout a13 item 1: the second infer crashed on it with an AssertionError, exit 3)
        assert "items.product_id_1" in {ix["name"] for ix in client[name].orders.list_indexes()}
        again = tmp_path / "again.modeller.json"
        reinferred = modeller("infer", server.uri, "--db", name, "--timeout", "60", "-o", str(again))
        assert reinferred.returncode == 0, reinferred.stderr
        assert "left out" not in reinferred.stderr, reinferred.stderr
        (order,) = [e for e in load_project(again).entities if e.collection == "orders"]
        assert ("items.product_id_1", (("items.product_id", 1),)) in [(ix.name, ix.keys) for ix in order.indexes]
        replanned = modeller("apply", str(again), server.uri, "--db", name, "--dry-run")
        assert replanned.returncode == 0, replanned.stderr
        assert "items.product_id" not in replanned.stdout, replanned.stdout  # the index is there: nothing to do

        exported = modeller("export", str(out), "--out", str(tmp_path / "models"), "--only", "pydantic")
        assert exported.returncode == 0, exported.stderr
        models = _import_models(tmp_path / "models" / "models.py")
        collections = models.COLLECTIONS  # type: ignore[attr-defined]
        checked = 0
        for coll in ("customers", "products", "orders"):
            adapter = TypeAdapter(collections[coll])
            for doc in client[name][coll].find():
                adapter.validate_python(doc)
                checked += 1
        assert checked == 480
    finally:
        client.close()
