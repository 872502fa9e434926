"""The published JSON Schema of a project file, generated from the pydantic models.

Regenerate after any model change with::

    .venv/bin/python -m modeller.persistence.schema

``--check`` exits 1 when ``resources/schema/project.schema.json`` is stale
(the test suite does the same comparison).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "resources" / "schema" / "project.schema.json"
SCHEMA_ID = "https://modeller.invalid/schema/project.schema.json"
REGENERATE = ".venv/bin/python -m modeller.persistence.schema"


def project_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of format_version ``FORMAT_VERSION``."""
    schema = Project.model_json_schema(mode="validation")
    props = schema["properties"]
    props["format"] = {"const": FORMAT_NAME, "title": "Format", "description": "Identifies a Modeller project file."}
    props["format_version"] = {
        "const": FORMAT_VERSION,
        "title": "Format Version",
        "description": "Version of this file format; older versions are migrated on load.",
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Modeller project file",
        "description": (
            f"A MongoDB schema design (format {FORMAT_NAME!r}, version {FORMAT_VERSION}). "
            "Cross-object rules (unique ids, references, field paths) are checked by the program, not this schema."
        ),
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }


def schema_text() -> str:
    """The schema as written to disk: model order, two-space indent, trailing newline."""
    return json.dumps(project_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write (or --check) resources/schema/project.schema.json")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file on disk is stale")
    parser.add_argument("--out", type=Path, default=SCHEMA_PATH, help="where to write (default: %(default)s)")
    args = parser.parse_args(argv)
    text = schema_text()
    current = args.out.read_text(encoding="utf-8") if args.out.exists() else None
    if args.check:
        if current != text:
            print(f"{args.out} is stale; regenerate with: {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    if current != text:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
