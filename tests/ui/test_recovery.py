"""One recovery copy per instance: a running instance's copy is never offered nor deleted by another; the copies
of two crashed instances are both kept and offered one by one; dead instances are real processes here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from killing import needs_fork

from modeller.ui.recovery import RECOVERY_FILE, RecoveryStore


def crashed_instance(directory: Path, text: str) -> None:
    """A child process autosaves ``text`` and dies without cleaning up (as a crash would)."""
    pid = os.fork()
    if pid == 0:
        try:
            RecoveryStore(directory).write(text, Path("/work/plan.modeller.json"))
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def copies(directory: Path) -> list[str]:
    return sorted(p.read_text() for p in directory.glob("recovery-*.modeller.json"))


def test_a_running_instances_copy_is_neither_offered_nor_deleted(tmp_path: Path) -> None:
    running, starting = RecoveryStore(tmp_path), RecoveryStore(tmp_path)
    running.write("running's work", None)
    assert starting.read() is None
    starting.clear()  # what "Discard" does
    starting.write("starting's work", None)
    assert copies(tmp_path) == ["running's work", "starting's work"]
    assert running.read() is None  # and the other way round
    running.clear()
    assert copies(tmp_path) == ["starting's work"]


@needs_fork
def test_a_dead_instances_copy_is_offered_once_and_discarded(tmp_path: Path) -> None:
    crashed_instance(tmp_path, "unsaved edits")
    first, second = RecoveryStore(tmp_path), RecoveryStore(tmp_path)
    found = first.read()
    assert found is not None and found.text == "unsaved edits"
    assert found.original == Path("/work/plan.modeller.json")
    assert first.path.read_text() == "unsaved edits"
    assert second.read() is None  # claimed by the first while it is being offered
    first.clear()
    assert second.read() is None and list(tmp_path.iterdir()) == []


@needs_fork
def test_two_crashed_instances_both_keep_their_edits(tmp_path: Path) -> None:
    crashed_instance(tmp_path, "edits of one")
    crashed_instance(tmp_path, "edits of two")
    one, two = RecoveryStore(tmp_path), RecoveryStore(tmp_path)
    got = [one.read(), two.read()]
    assert sorted(r.text for r in got if r is not None) == ["edits of one", "edits of two"]
    # restoring means autosaving the restored work as one's own: the dead copy goes, the work stays
    assert got[0] is not None
    one.write(got[0].text, None)
    two.clear()  # the other one is discarded
    assert copies(tmp_path) == [got[0].text]
    assert RecoveryStore(tmp_path).read() is None  # the owner (one) is alive


@needs_fork
def test_an_instance_that_dies_while_offering_leaves_the_copy_for_the_next(tmp_path: Path) -> None:
    crashed_instance(tmp_path, "still here")
    pid = os.fork()
    if pid == 0:
        try:
            assert RecoveryStore(tmp_path).read() is not None  # offered, then the process dies
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    found = RecoveryStore(tmp_path).read()
    assert found is not None and found.text == "still here"


def test_the_shared_copy_of_earlier_versions_is_still_offered(tmp_path: Path) -> None:
    (tmp_path / RECOVERY_FILE).write_text("from an older Modeller")
    store = RecoveryStore(tmp_path)
    found = store.read()
    assert found is not None and found.text == "from an older Modeller" and found.saved_at == "an earlier session"
    store.clear()
    assert list(tmp_path.iterdir()) == []


def test_a_clean_close_leaves_no_file_and_stray_locks_are_removed(tmp_path: Path) -> None:
    store = RecoveryStore(tmp_path)
    store.write("work", None)
    store.clear()
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "recovery-123-0123abcd.lock").write_text("")  # an instance that died before its first copy
    assert RecoveryStore(tmp_path).read() is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_a_linked_copy_is_not_offered(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.json").write_text("secret")
    (tmp_path / "recovery-99-0123abcd.modeller.json").symlink_to(tmp_path / "elsewhere.json")
    assert RecoveryStore(tmp_path).read() is None
