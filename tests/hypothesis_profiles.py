"""Hypothesis profiles: CI draws the same examples on every run; a developer's run draws new ones.

``ci`` (chosen when ``CI`` is set, as CI services set it): ``derandomize`` makes the examples a function of
each test alone, and no example database is read or written, so a CI run never depends on an earlier one.
``dev`` (otherwise): Hypothesis's defaults, random examples and the ``.hypothesis`` example database, so a
failure found locally is replayed first next time. Neither has a deadline. ``HYPOTHESIS_PROFILE=dev`` or ``=ci`` picks one by name.
"""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import settings

#: both from Hypothesis's own defaults (not from whatever profile it chose itself: recent versions pick their own
#: "ci" one when CI is set), and with no deadline: a test here never fails on time (a busy machine is slow)
_DEFAULT = settings.get_profile("default")
settings.register_profile("ci", parent=_DEFAULT, derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile("dev", parent=_DEFAULT, deadline=None)


def profile_name(env: Mapping[str, str]) -> str:
    """The profile for an environment: ``HYPOTHESIS_PROFILE`` if set, else ``ci`` under CI, else ``dev``."""
    chosen = env.get("HYPOTHESIS_PROFILE", "").strip()
    if chosen:
        return chosen
    return "ci" if env.get("CI", "").strip().lower() not in ("", "0", "false") else "dev"
