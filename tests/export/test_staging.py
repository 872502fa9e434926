"""``Staging``: files created at flush (one thread per folder), whole-folder moves and merges, write errors."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from modeller.export import files as files_module
from modeller.export.files import ExportError, Staging


def listing(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


CONTENT = {
    "setup.mongosh.js": "// script\n",
    "samples/people.json": '[\n  {"_id": 1, "name": "Zoë \\"Q\\""}\n]\n',
    "samples/tasks.json": "[]\n",
    "validators/people.json": "{}\n",
    "deep/er/file.txt": "nested\n",
}


@pytest.mark.parametrize("extra", [0, 100])
def test_new_folders_move_whole_and_text_is_utf8_with_lf(tmp_path: Path, extra: int) -> None:
    """Few files are written inline, many by the folder threads: the same result."""
    out = tmp_path / "out"
    staging = Staging(out)
    for relative, text in CONTENT.items():
        staging.write(relative, text)
    for number in range(extra):
        staging.write(f"schema/c{number}.schema.json", f"{number}\n")
    staging.write("raw.bin", b"\x00\xff")
    files, _ = staging.commit()
    expected = {relative: text.encode("utf-8") for relative, text in CONTENT.items()} | {"raw.bin": b"\x00\xff"}
    expected |= {f"schema/c{number}.schema.json": f"{number}\n".encode() for number in range(extra)}
    assert listing(out) == expected
    assert sorted(files) == sorted(out / relative for relative in expected)
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_existing_folders_are_merged_file_by_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "samples").mkdir(parents=True)
    (out / "samples" / "people.json").write_text("old\n")
    (out / "samples" / "mine.json").write_text("keep me\n")
    (out / "notes.txt").write_text("mine too\n")
    staging = Staging(out)
    for relative, text in CONTENT.items():
        staging.write(relative, text)
    staging.commit()
    got = listing(out)
    assert got["samples/people.json"] == CONTENT["samples/people.json"].encode("utf-8")
    assert got["samples/mine.json"] == b"keep me\n" and got["notes.txt"] == b"mine too\n"
    assert set(got) == {*CONTENT, "samples/mine.json", "notes.txt"}


def test_flush_makes_staged_files_readable_before_commit(tmp_path: Path) -> None:
    staging = Staging(tmp_path / "out")
    staging.write("diagram.dot", "digraph {}\n")
    assert not (staging.path / "diagram.dot").exists()
    staging.flush()
    assert (staging.path / "diagram.dot").read_text() == "digraph {}\n"
    staging.write("after.txt", "written at the next flush\n")
    staging.commit()
    assert listing(tmp_path / "out") == {
        "diagram.dot": b"digraph {}\n",
        "after.txt": b"written at the next flush\n",
    }


@pytest.mark.parametrize("extra", [0, 100])
def test_a_failing_write_fails_the_commit_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: int
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    real_open = open

    def quota(path: object, *args: object, **kwargs: object) -> object:
        if str(path).endswith("tasks.json"):
            raise OSError(errno.EDQUOT, "Disk quota exceeded")
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(files_module, "open", quota, raising=False)
    staging = Staging(out)
    for relative, text in CONTENT.items():
        staging.write(relative, text)
    for number in range(extra):
        staging.write(f"validators/c{number}.json", "{}\n")
    with pytest.raises(ExportError, match="the disk quota is exceeded"):
        staging.commit()
    assert listing(out) == {"keep.txt": b"mine"}
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_discard_with_unwritten_files_removes_the_staging_folder(tmp_path: Path) -> None:
    staging = Staging(tmp_path / "out")
    for number in range(200):
        staging.write(f"samples/c{number}.json", "[]\n")
    staging.discard()
    assert list(tmp_path.iterdir()) == []
