"""Run generated mongosh scripts under Node: ``node --check`` and the recording stand-in.

Node and the ``bson`` npm package are required (``scripts/setup-node-deps.sh``
installs the latter): tests fail, never skip, when they are missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).resolve().parent / "js" / "harness.js"
SETUP_HINT = "run scripts/setup-node-deps.sh (installs the npm package 'bson' into .cache/node)"


def node_binary() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed; the exporter tests need Node.js 18+ (Debian: apt-get install nodejs)")
    return node


def node_check(script: Path) -> None:
    """``node --check``: the script is valid JavaScript (no ``use``, no top-level ``await``)."""
    proc = subprocess.run([node_binary(), "--check", str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"node --check {script.name} failed:\n{proc.stderr}"


def run_scripts(
    *scripts: Path, runs: int = 2, seeds: tuple[Path, ...] = (), kill_after: int | None = None
) -> dict[str, Any]:
    """Run the scripts ``runs`` times against one stateful stand-in; return its recording.

    ``seeds`` run once before, against the same stand-in (e.g. the OLD design's setup script with samples);
    ``kill_after`` makes the first run die before its (N+1)th data write (``updateMany``, or ``updateOne`` outside
    the migration markers): a run killed between batches or inside one.
    """
    seed_args = [arg for seed in seeds for arg in ("--seed", str(seed))]
    if kill_after is not None:
        seed_args += ["--kill-after", str(kill_after)]
    env = dict(os.environ)
    env.setdefault("MODELLER_NODE_MODULES", str(ROOT / ".cache" / "node" / "node_modules"))
    proc = subprocess.run(
        [node_binary(), str(HARNESS), "--runs", str(runs), *seed_args, *map(str, scripts)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    if proc.returncode == 3:
        pytest.fail(f"{proc.stderr.strip()} -- {SETUP_HINT}")
    assert proc.returncode == 0, f"the script failed in the stand-in:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout)


def calls(recording: dict[str, Any], run: int, op: str | None = None) -> list[dict[str, Any]]:
    """The calls of one run (optionally only one operation), in order."""
    out = recording["runs"][run]["calls"]
    return [c for c in out if op is None or c["op"] == op]
