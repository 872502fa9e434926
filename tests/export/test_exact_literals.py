"""``js_exact``: a value holding BSON types written into a script keeps each type and value when mongosh reads it
(a whole double stays a double, a long beyond 2**53 keeps every digit), and a hostile key stays a key."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest
from bson import Decimal128, Int64, json_util
from js_harness import ROOT, node_binary

from modeller.export.literals import js_exact

pytestmark = pytest.mark.node

HOSTILE = 'to"wn</script>\u2028${x}'


def test_a_typed_value_comes_out_of_node_with_its_bson_types(tmp_path: Path) -> None:
    value = {
        "$set": {
            "double": 3.0,
            "int": 7,
            "long": Int64(2**53 + 1),
            "decimal": Decimal128("12.50"),
            "date": dt.datetime(2024, 5, 1, tzinfo=dt.UTC),
            HOSTILE: [0.0, Int64(0)],
        }
    }
    text = js_exact(value)
    assert HOSTILE not in text and "</script>" not in text, "the key is escaped in the script text"
    script = tmp_path / "exact.js"
    modules = os.environ.get("MODELLER_NODE_MODULES", str(ROOT / ".cache" / "node" / "node_modules"))
    script.write_text(
        f"const {{ EJSON }} = require({json_util.dumps(str(Path(modules) / 'bson'))});\n"
        f"const value = {text};\n"
        "process.stdout.write(EJSON.stringify(value, { relaxed: false }));\n",
        encoding="utf-8",
    )
    proc = subprocess.run([node_binary(), str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    back = json_util.loads(
        proc.stdout, json_options=json_util.CANONICAL_JSON_OPTIONS.with_options(tz_aware=True, tzinfo=dt.UTC)
    )
    inner = back["$set"]
    assert [type(inner[k]).__name__ for k in ("double", "int", "long", "decimal")] == [
        "float",
        "int",
        "Int64",
        "Decimal128",
    ]
    assert inner == value["$set"]
    assert [type(v).__name__ for v in inner[HOSTILE]] == ["float", "Int64"]
