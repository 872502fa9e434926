"""Icons and stylesheets shipped inside the package (package data), read with ``importlib.resources``.

They live beside this module so a wheel or a non-editable install carries
them; ``resources/`` at the repository root only holds the generated file
schema. ``MODELLER_RESOURCES`` points at another folder with the same
``icons/`` and ``styles/`` layout (a designer trying new icons).
"""

from __future__ import annotations

import os
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path


def resources_dir() -> Traversable:
    """The folder holding ``icons/*.svg`` and ``styles/*.qss``."""
    override = os.environ.get("MODELLER_RESOURCES")
    if override:
        return Path(override)
    return files(__name__)


def read_text(*parts: str) -> str | None:
    """The text of a resource file (``read_text("icons", "new.svg")``), or None when it is missing."""
    node = resources_dir()
    for part in parts:
        node = node / part
    if not node.is_file():
        return None
    return node.read_text(encoding="utf-8")
