"""Shared test setup: Qt runs offscreen; paths to the samples."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from hypothesis import settings
from hypothesis_profiles import profile_name

settings.load_profile(profile_name(os.environ))

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES


def sample_paths() -> list[Path]:
    return sorted(SAMPLES.glob("*.modeller.json"))


@pytest.fixture(autouse=True)
def _crash_reports_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that provokes an internal error must not leave crash reports in the real ~/.cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
