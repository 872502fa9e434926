"""Compare a design with the design inferred back from its sample documents (the round-trip acceptance test).

Both projects are resolved by the engine and compared as physical designs:
collections; per collection every path of the document shape with its BSON
type, its role (field, embedded, parent-ref, child-refs, extended-ref...) and the
collection a reference points to; and, for embedded arrays, the cardinality
class (the bound the design was drawn with against the lengths seen).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymongo
from bson import json_util
from live_support import LiveServer

from modeller.model.project import Project
from modeller.rules import analyse


@dataclass
class Agreement:
    """What matched and what did not, in words a reviewer reads."""

    sample: str
    compared: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def agreed(self) -> int:
        return self.compared - len(self.mismatches)

    def line(self) -> str:
        head = f"{self.sample}: {self.agreed}/{self.compared} agree"
        return head if not self.mismatches else head + "; " + "; ".join(self.mismatches)


def _flatten(nodes: list[dict[str, Any]], prefix: str, out: dict[str, tuple[Any, ...]]) -> None:
    for node in nodes:
        path = f"{prefix}{node['name']}"
        out[path] = (node["bson_type"], node.get("role"), node.get("ref_collection"), node.get("relationship"))
        if node.get("items"):
            items = node["items"]
            out[path + "[]"] = (items["bson_type"], items.get("role"), items.get("ref_collection"), None)
            _flatten(items.get("children") or [], path + "[].", out)
        _flatten(node.get("children") or [], path + ".", out)


def shapes(project: Project) -> dict[str, dict[str, tuple[Any, ...]]]:
    """collection -> path -> (bson type, role, referenced collection, relationship id)."""
    out: dict[str, dict[str, tuple[Any, ...]]] = {}
    for coll in analyse(project).design.to_json()["collections"]:
        paths: dict[str, tuple[Any, ...]] = {}
        _flatten(coll["shape"], "", paths)
        out[coll["name"]] = paths
    return out


def compare(sample: str, original: Project, inferred: Project) -> Agreement:
    result = Agreement(sample)
    want, got = shapes(original), shapes(inferred)
    result.compared += 1
    if set(want) != set(got):
        result.mismatches.append(f"collections {sorted(want)} vs {sorted(got)}")
    cards_want = {r.id: r.cardinality for r in original.relationships}
    cards_got = {r.id: r.cardinality for r in inferred.relationships}
    for coll in sorted(set(want) & set(got)):
        for path in sorted(set(want[coll]) | set(got[coll])):
            result.compared += 1
            a, b = want[coll].get(path), got[coll].get(path)
            if a is None or b is None:
                result.mismatches.append(f"{coll}.{path} {'only inferred' if a is None else 'not inferred'}")
            elif a[:3] != b[:3]:
                result.mismatches.append(f"{coll}.{path} {a[:3]} vs {b[:3]}")
            elif a[1] == "embedded" and a[3] and b[3] and cards_want.get(a[3]) != cards_got.get(b[3]):
                result.mismatches.append(f"{coll}.{path} {cards_want.get(a[3])} vs {cards_got.get(b[3])}")
    return result


def modeller(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "modeller", *args], capture_output=True, text=True, timeout=300, check=False
    )


def load_samples(source: Path, server: LiveServer, database: str, tmp_path: Path, count: int = 200) -> Path:
    """Export ``count`` sample documents per collection of ``source`` and insert them into ``database``."""
    exported = modeller(
        "export", str(source), "--out", str(tmp_path / "out"), "--only", "samples", "--samples", str(count)
    )
    assert exported.returncode == 0, exported.stderr
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        for path in sorted((tmp_path / "out" / "samples").glob("*.json")):
            client[database][path.stem].insert_many(json_util.loads(path.read_text(encoding="utf-8")))
    finally:
        client.close()
    return source
