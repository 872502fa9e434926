"""The fuzzer reuses the exporter tests' Node harness and BSON checker (tests/export)."""

from __future__ import annotations

import sys
from pathlib import Path

EXPORT_TESTS = str(Path(__file__).resolve().parents[1] / "export")
if EXPORT_TESTS not in sys.path:
    sys.path.append(EXPORT_TESTS)
