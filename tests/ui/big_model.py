"""The generated projects the scale tests share: 2,000 entities by default (issue 16: large enough to show a step
that grows with the model, small enough for CI); each size generated once per test process."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project

ENTITIES = 2000


@cache
def big_project(entities: int = ENTITIES) -> Project:
    return generate_project(entities, 1.5, 0.5, seed=0)
