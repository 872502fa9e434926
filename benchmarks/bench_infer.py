"""Inference throughput: 100,000 generated order-like documents, next to MongoDB's and a Python schema analyser.

All three read the same documents, decoded beforehand (each with its own
BSON library), so the figure is the inference alone:

- ``infer.modeller``: ``CollectionStats.add_all`` (everything the design needs:
  presence, types, sizes, bounded values for enums and reference candidates,
  array-length percentiles, insertion order), then ``infer_project``;
- ``infer.mongodb_schema``: npm ``mongodb-schema`` 12.7 (Compass's inference),
  ``parseSchema`` with its defaults and with ``storeValues: false``;
- ``infer.pymongo_schema``: PyPI ``pymongo-schema`` 0.4.2, the loop of
  ``extract_collection_schema`` (``add_document_to_object_schema`` per
  document, then ``post_process_schema``), in its own venv.

``scripts/setup-bench-deps.sh`` installs the other two (about 4 minutes the
first time). Each is timed in CPU seconds of its own process (best of 3), so a
machine shared with other work still compares them fairly; figures are
microseconds per document (lower is better) and the target of Modeller's is the
fastest other tool's figure in the same run.
"""

from __future__ import annotations

import datetime
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bson import BSON, Decimal128, ObjectId

from modeller.live.infer import CollectionSample, infer_project
from modeller.live.stats import CollectionStats

ROOT = Path(__file__).resolve().parents[1]
NODE_PREFIX = ROOT / ".cache" / "node"
BENCH_VENV = ROOT / ".cache" / "bench-venv"
DOCUMENTS = 100_000
REPEAT = 3
STATUSES = ("new", "paid", "shipped", "delivered", "cancelled", "returned")
CITIES = ("Berlin", "Paris", "Lyon", "Porto", "Oslo", "Riga", "Turin", "Cork")


def order_documents(count: int = DOCUMENTS, seed: int = 12) -> list[dict[str, Any]]:
    """Order-like documents: ids, an enum, money, dates, a reference, a customer copy, line items, tags."""
    rng = random.Random(seed)
    users = [ObjectId(f"{i:024x}") for i in range(1, 5001)]
    products = [ObjectId(f"{10**6 + i:024x}") for i in range(1, 2001)]
    start = datetime.datetime(2025, 1, 1)
    docs = []
    for n in range(count):
        items = [
            {
                "product_id": rng.choice(products),
                "name": f"product {rng.randrange(2000)}",
                "qty": rng.randrange(1, 5),
                "price": Decimal128(f"{rng.randrange(100, 10000) / 100:.2f}"),
            }
            for _ in range(rng.randrange(1, 9))
        ]
        doc: dict[str, Any] = {
            "_id": ObjectId(f"{n + 10**9:024x}"),
            "status": rng.choice(STATUSES),
            "amount": round(rng.uniform(5, 900), 2),
            "created_at": start + datetime.timedelta(seconds=n * 30),
            "user_id": rng.choice(users),
            "customer": {"name": f"user {rng.randrange(5000)}", "email": f"u{rng.randrange(5000)}@example.com"},
            "shipping": {"city": rng.choice(CITIES), "zip": f"{rng.randrange(10000, 99999)}"},
            "items": items,
            "tags": rng.sample(["gift", "express", "fragile", "b2b", "promo"], rng.randrange(0, 4)),
        }
        if n % 7 == 0:
            doc["note"] = "leave at the door"
        docs.append(doc)
    return docs


def _modeller(docs: list[dict[str, Any]]) -> tuple[float, float]:
    """(seconds to collect, seconds to build the project), best of REPEAT."""
    collect, build = [], []
    for _ in range(REPEAT):
        t0 = time.process_time()
        stats = CollectionStats("orders").add_all(docs)
        t1 = time.process_time()
        infer_project([CollectionSample(stats)], name="bench")
        t2 = time.process_time()
        collect.append(t1 - t0)
        build.append(t2 - t1)
    return min(collect), min(build)


_NODE = """
const fs = require("fs");
const { deserialize } = require(process.env.PREFIX + "/node_modules/bson");
const { parseSchema } = require(process.env.PREFIX + "/node_modules/mongodb-schema");
const data = fs.readFileSync(process.argv[2]);
const docs = [];
for (let at = 0; at < data.length; ) {
  const size = data.readInt32LE(at);
  docs.push(deserialize(data.subarray(at, at + size), { promoteValues: false }));
  at += size;
}
(async () => {
  const out = {};
  for (const [name, options] of [["default", {}], ["no_values", { storeValues: false }]]) {
    let best = Infinity;
    for (let i = 0; i < %d; i++) {
      const t0 = process.cpuUsage();
      await parseSchema(docs, options);
      const used = process.cpuUsage(t0);
      best = Math.min(best, (used.user + used.system) / 1e6);
    }
    out[name] = best;
  }
  console.log(JSON.stringify({ ...out, node: process.version }));
})();
"""

_PYMONGO_SCHEMA = """
import json, sys, time
from bson import decode_all
from pymongo_schema.extract import add_document_to_object_schema, init_empty_object_schema, post_process_schema
docs = decode_all(open(sys.argv[1], "rb").read())
best = float("inf")
for _ in range(%d):
    t0 = time.process_time()
    schema = {"count": len(docs), "object": init_empty_object_schema()}
    for doc in docs:
        add_document_to_object_schema(doc, schema["object"])
    post_process_schema(schema)
    best = min(best, time.process_time() - t0)
print(json.dumps({"seconds": best}))
"""


def _external(command: list[str], env: dict[str, str] | None = None) -> dict[str, Any] | None:
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run() -> list[dict[str, Any]]:
    docs = order_documents()
    rows: list[dict[str, Any]] = []
    collect, build = _modeller(docs)
    per_doc = {"modeller": collect}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "orders.bson"
        path.write_bytes(b"".join(BSON.encode(d) for d in docs))
        if (NODE_PREFIX / "node_modules" / "mongodb-schema").exists():
            script = Path(tmp) / "bench.js"
            script.write_text(_NODE % REPEAT, encoding="utf-8")
            node = _external(["node", str(script), str(path)], env={**os.environ, "PREFIX": str(NODE_PREFIX)})
            if node:
                per_doc["mongodb_schema"] = node["default"]
                per_doc["mongodb_schema_no_values"] = node["no_values"]
        if (BENCH_VENV / "bin" / "python").exists():
            script = Path(tmp) / "bench_pymongo_schema.py"
            script.write_text(_PYMONGO_SCHEMA % REPEAT, encoding="utf-8")
            other = _external([str(BENCH_VENV / "bin" / "python"), str(script), str(path)])
            if other:
                per_doc["pymongo_schema"] = other["seconds"]
    others = [seconds for name, seconds in per_doc.items() if name != "modeller"]
    for name, seconds in per_doc.items():
        rows.append(
            {
                "name": f"infer.{name}.docs_per_s",
                "value": round(len(docs) / seconds),
                "unit": "docs/s",
                "target": None,
            }
        )
    rows.append(
        {
            "name": "infer.modeller.us_per_doc",
            "value": round(collect / len(docs) * 1e6, 2),
            "unit": "us",
            "target": round(min(others) / len(docs) * 1e6, 2) if others else None,  # ahead of the fastest other
        }
    )
    rows.append({"name": "infer.modeller.build_project", "value": round(build * 1000, 1), "unit": "ms", "target": None})
    for name, seconds in per_doc.items():
        if name != "modeller":
            rows.append(
                {
                    "name": f"infer.ratio.modeller_vs_{name}",
                    "value": round(seconds / collect, 2),
                    "unit": "x",
                    "target": None,
                }
            )
    if not others:
        print("bench_infer: run scripts/setup-bench-deps.sh to compare with mongodb-schema and pymongo-schema")
    return rows


if __name__ == "__main__":
    for row in run():
        print(json.dumps(row))
