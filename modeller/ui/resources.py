"""Where the icons and stylesheets live: ``resources/`` next to the package (a source checkout
or an editable install), overridable with ``MODELLER_RESOURCES``."""

from __future__ import annotations

import os
from pathlib import Path


def resources_dir() -> Path:
    override = os.environ.get("MODELLER_RESOURCES")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent.parent / "resources"
