"""The review tests reuse the exporters' Node harness (tests/export/js_harness.py)."""

from __future__ import annotations

import sys
from pathlib import Path

EXPORT_TESTS = str(Path(__file__).resolve().parent.parent / "export")
if EXPORT_TESTS not in sys.path:
    sys.path.insert(0, EXPORT_TESTS)
