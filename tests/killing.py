"""Kill a forked worker with SIGKILL at a random moment, as ``kill -9`` would (POSIX only)."""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable

import pytest

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="kill -9 loops need os.fork (POSIX)")


def kill_at_random(work: Callable[[int], None], rng: random.Random, longest_s: float) -> None:
    """Fork a child that runs ``work(0)``, ``work(1)``, … until killed; SIGKILL it after 0..``longest_s`` s.

    The child starts from this process's state (modules already imported), so
    one round costs milliseconds and a loop of 100 stays within seconds.
    """
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            round_ = 0
            while True:
                work(round_)
                round_ += 1
        finally:
            os._exit(0)
    time.sleep(rng.uniform(0.0, longest_s))
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"the worker ended early: {status}"
