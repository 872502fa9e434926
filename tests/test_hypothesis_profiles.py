"""The suite's Hypothesis profile: the same examples on every CI run, new ones on a developer's."""

from __future__ import annotations

import os

from hypothesis import settings
from hypothesis_profiles import profile_name


def test_ci_draws_the_same_examples_and_keeps_no_database() -> None:
    assert profile_name({"CI": "true"}) == "ci"
    ci = settings.get_profile("ci")
    assert ci.derandomize is True and ci.database is None and ci.deadline is None


def test_a_developer_run_draws_new_examples_and_a_name_overrides() -> None:
    assert profile_name({}) == "dev" and profile_name({"CI": "false"}) == "dev"
    assert profile_name({"CI": "true", "HYPOTHESIS_PROFILE": "dev"}) == "dev"
    dev = settings.get_profile("dev")
    assert dev.derandomize is False and dev.database is not None and dev.deadline is None


def test_this_run_uses_the_profile_its_environment_names() -> None:
    wanted = settings.get_profile(profile_name(os.environ))
    assert settings.default.derandomize == wanted.derandomize
    assert (settings.default.database is None) == (wanted.database is None)
