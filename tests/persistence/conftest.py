"""Fixtures for the project-file tests."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from persistence_fixtures import TINY


@pytest.fixture
def tiny() -> dict[str, Any]:
    """A fresh copy of a small valid project, as JSON data, for a test to break."""
    return copy.deepcopy(TINY)
