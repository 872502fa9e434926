"""Saving is atomic, keeps a .bak of the previous file, and never leaves a temporary file behind."""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path
from typing import Any

import pytest
from killing import kill_at_random, needs_fork
from persistence_fixtures import pretty

from modeller.persistence import ProjectSaveError, backup_path, dumps_project, load_project, loads_project, save_project
from modeller.persistence import save as save_module


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_new_file_is_canonical_and_has_no_backup(tmp_path: Path, tiny: dict[str, Any]) -> None:
    project = loads_project(pretty(tiny))
    path = tmp_path / "plan.modeller.json"
    save_project(project, path)
    assert path.read_bytes() == dumps_project(project).encode("utf-8")
    assert not backup_path(path).exists()
    assert leftovers(tmp_path) == []


def test_new_file_gets_ordinary_permissions(tmp_path: Path, tiny: dict[str, Any]) -> None:
    umask = os.umask(0o022)
    try:
        save_project(loads_project(pretty(tiny)), tmp_path / "p.modeller.json")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "p.modeller.json").stat().st_mode) == 0o644


def test_overwrite_keeps_previous_version_as_bak(tmp_path: Path, tiny: dict[str, Any]) -> None:
    path = tmp_path / "plan.modeller.json"
    path.write_text(pretty(tiny))
    before = path.read_bytes()
    path.chmod(0o640)
    project = loads_project(before)
    project = project.model_copy(update={"name": "Renamed"})
    save_project(project, path)
    assert backup_path(path) == tmp_path / "plan.modeller.json.bak"
    assert backup_path(path).read_bytes() == before
    assert load_project(path).name == "Renamed"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_second_save_replaces_the_bak(tmp_path: Path, tiny: dict[str, Any]) -> None:
    path = tmp_path / "plan.modeller.json"
    project = loads_project(pretty(tiny))
    save_project(project, path)
    project = project.model_copy(update={"name": "Two"})
    save_project(project, path)
    project = project.model_copy(update={"name": "Three"})
    save_project(project, path)
    assert load_project(backup_path(path)).name == "Two"
    assert load_project(path).name == "Three"


def test_backup_can_be_turned_off(tmp_path: Path, tiny: dict[str, Any]) -> None:
    path = tmp_path / "plan.modeller.json"
    path.write_text(pretty(tiny))
    save_project(loads_project(pretty(tiny)), path, backup=False)
    assert not backup_path(path).exists()


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_failure_midway_leaves_original_intact_and_no_temp_file(
    tmp_path: Path, tiny: dict[str, Any], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    path = tmp_path / "plan.modeller.json"
    path.write_text(pretty(tiny))
    original = path.read_bytes()
    project = loads_project(original)
    project = project.model_copy(update={"name": "Changed"})

    def half_write(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    def fail(*args: Any) -> None:
        raise OSError(5, "Input/output error")

    if where == "write":
        monkeypatch.setattr(save_module, "_write_all", half_write)
    elif where == "fsync":
        monkeypatch.setattr(save_module.os, "fsync", fail)
    else:
        monkeypatch.setattr(save_module.os, "replace", fail)

    with pytest.raises(ProjectSaveError) as info:
        save_project(project, path)
    assert path.read_bytes() == original
    assert leftovers(tmp_path) == []
    message = str(info.value)
    assert message.startswith(f"{path}: cannot save: ")
    assert message.endswith("; the file on disk is unchanged")
    assert ("No space left on device" in message) == (where == "write")


def test_save_into_missing_folder(tmp_path: Path, tiny: dict[str, Any]) -> None:
    with pytest.raises(ProjectSaveError, match="does not exist"):
        save_project(loads_project(pretty(tiny)), tmp_path / "nope" / "p.modeller.json")


def test_save_onto_a_folder(tmp_path: Path, tiny: dict[str, Any]) -> None:
    with pytest.raises(ProjectSaveError, match="is a folder"):
        save_project(loads_project(pretty(tiny)), tmp_path)


def test_unstorable_value_fails_before_touching_disk(tmp_path: Path, tiny: dict[str, Any]) -> None:
    path = tmp_path / "plan.modeller.json"
    path.write_text(pretty(tiny))
    original = path.read_bytes()
    project = loads_project(original)
    entity = project.entities[0]
    field = entity.fields[0].model_copy(update={"example": float("nan")})
    entity = entity.model_copy(update={"fields": (field, *entity.fields[1:])})
    project = project.model_copy(update={"entities": (entity, *project.entities[1:])})
    with pytest.raises(ProjectSaveError, match="a value JSON cannot store"):
        save_project(project, path)
    assert path.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.modeller.json"]


def test_symlink_is_written_through(tmp_path: Path, tiny: dict[str, Any]) -> None:
    real = tmp_path / "real.modeller.json"
    real.write_text(pretty(tiny))
    link = tmp_path / "link.modeller.json"
    link.symlink_to(real)
    project = loads_project(pretty(tiny))
    project = project.model_copy(update={"name": "Through"})
    save_project(project, link)
    assert link.is_symlink()
    assert load_project(real).name == "Through"


def test_a_stale_temporary_file_of_a_dead_save_is_removed_by_the_next_save(
    tmp_path: Path, tiny: dict[str, Any]
) -> None:
    path = tmp_path / "plan.modeller.json"
    other = tmp_path / "plan.modeller.json.old"
    # left by a killed save (no lock held, pid of no live process), one of its .bak copy, one of another file
    dead = 2**22 + 12345
    (tmp_path / f".plan.modeller.json.{dead}.0123abcd.tmp").write_text("half")
    (tmp_path / f".plan.modeller.json.bak.{dead}.89abcdef.tmp").write_text("")
    (tmp_path / f".{other.name}.{dead}.0123abcd.tmp").write_text("not this file's")
    (tmp_path / ".plan.modeller.json.mine.tmp").write_text("not a name saves use")
    save_project(loads_project(pretty(tiny)), path)
    assert leftovers(tmp_path) == [".plan.modeller.json.mine.tmp", f".{other.name}.{dead}.0123abcd.tmp"]


def test_a_temporary_file_of_a_running_save_is_left_alone(tmp_path: Path, tiny: dict[str, Any]) -> None:
    path = tmp_path / "plan.modeller.json"
    name, fd = save_module._create_temp(path)  # another save, still writing (it holds the lock)
    try:
        os.write(fd, b"in progress")
        assert save_module.remove_stale_temps(path) == []
        save_project(loads_project(pretty(tiny)), path)
        assert Path(name).read_bytes() == b"in progress"
    finally:
        os.close(fd)
    # an empty one of a live process may be between creating and locking it: kept too
    Path(name).write_bytes(b"")
    assert save_module.remove_stale_temps(path) == []
    Path(name).write_bytes(b"x")
    assert save_module.remove_stale_temps(path) == [Path(name).name]


@needs_fork
@pytest.mark.slow
def test_kill_9_during_saves_leaves_old_or_new_and_the_next_save_cleans_up(
    tmp_path: Path, tiny: dict[str, Any]
) -> None:
    path = tmp_path / "plan.modeller.json"
    versions = []
    for name in ("Old", "New"):
        versions.append(loads_project(pretty(tiny)).model_copy(update={"name": name}))
    texts = {dumps_project(p).encode("utf-8") for p in versions}
    save_project(versions[0], path)
    save_project(versions[1], path)  # and a .bak
    rng = random.Random(1717)
    stale_seen = 0
    for _ in range(120):
        kill_at_random(lambda n: save_project(versions[n % 2], path), rng, 0.02)
        assert path.read_bytes() in texts
        assert backup_path(path).read_bytes() in texts
        stale_seen += bool(leftovers(tmp_path))
        save_project(versions[rng.randrange(2)], path)
        assert leftovers(tmp_path) == []
    assert stale_seen > 0, "no kill landed inside a save: the loop tests nothing"
