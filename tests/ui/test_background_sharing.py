"""Background work and the UI thread share the interpreter: the collector pause is counted across threads,
and the short GIL switch interval lasts exactly while some background work runs."""

from __future__ import annotations

import gc
import sys
import threading

from modeller.runtime.gc_pause import collector_paused
from modeller.ui.gil_share import SHARED_INTERVAL_S, ui_gets_the_gil_back


def test_the_collector_comes_back_when_the_last_overlapping_pause_ends() -> None:
    assert gc.isenabled()
    inside, release = threading.Event(), threading.Event()

    def worker() -> None:
        with collector_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=worker)
    with collector_paused():
        thread.start()
        assert inside.wait(10)
    # the UI thread's pause ended first: the worker's still holds
    assert not gc.isenabled()
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_short_switch_interval_lasts_while_any_worker_runs() -> None:
    default = sys.getswitchinterval()
    assert default > SHARED_INTERVAL_S
    inside, release = threading.Event(), threading.Event()

    def worker() -> None:
        with ui_gets_the_gil_back():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=worker)
    with ui_gets_the_gil_back():
        assert sys.getswitchinterval() == SHARED_INTERVAL_S
        thread.start()
        assert inside.wait(10)
    assert sys.getswitchinterval() == SHARED_INTERVAL_S  # the other worker still runs
    release.set()
    thread.join(10)
    assert sys.getswitchinterval() == default
