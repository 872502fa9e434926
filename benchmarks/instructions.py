"""Instructions per analysis, counted by valgrind: a figure that does not move with the machine's load.

On a shared 2-core VM, CPU milliseconds of the same call swing by a factor of
two from one minute to the next; the number of instructions it executes does
not. Use this to compare two versions of the engine:

    .venv/bin/python benchmarks/instructions.py full --size 1000
    .venv/bin/python benchmarks/instructions.py incremental --size 1000

Each figure is (instructions of a run with 1 + K measured calls - instructions
of a run with 1) / K: start-up, imports, generating the project, the warm-up
call and what the interpreter frees at exit are in both runs and cancel out.
On this machine about 7 M instructions take 1 ms. Needs ``valgrind`` (Debian
package ``valgrind``); not part of ``run.py``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_COLLECTED = re.compile(r"Collected : (\d+)")


def child(mode: str, calls: int, size: int) -> None:
    """The measured program: one warm-up analysis, then ``calls`` more (full, or after one edit each)."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.bench_analyse import change_cardinality, rename_field
    from benchmarks.generate import generate_project
    from modeller.rules import analyse
    from modeller.rules.engine import Analyser

    project = generate_project(size)
    if mode == "full":
        analyse(project)
        for _ in range(calls):
            analyse(project)
        return
    analyser = Analyser()
    analyser.analyse(project)
    for k in range(calls):
        project = (rename_field if k % 2 else change_cardinality)(project, k * 101 + 7)
        analyser.analyse(project)


def count(mode: str, calls: int, size: int) -> int:
    """Instructions of one run of :func:`child` under callgrind."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # hash order changes dict layouts and so the count
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--child",
        mode,
        "--calls",
        str(calls),
        "--size",
        str(size),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"valgrind failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("full", "incremental"))
    parser.add_argument("--size", type=int, default=1000, help="entities of the generated project (default 1000)")
    parser.add_argument("--calls", type=int, default=3, help="measured calls K (default 3)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.mode, args.calls, args.size)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    base = count(args.mode, 1, args.size)
    more = count(args.mode, 1 + args.calls, args.size)
    per_call = (more - base) / args.calls / 1e6
    print(f"{args.mode} analysis of {args.size} entities: {per_call:.0f} M instructions per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
