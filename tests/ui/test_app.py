"""``modeller [FILE] --screenshot OUT.png``: a picture of every sample; bad input is a message, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from modeller.ui.app import main

from .conftest import SAMPLES


def distinct_colours(image: QImage, step: int = 7) -> int:
    seen = set()
    for y in range(0, image.height(), step):
        for x in range(0, image.width(), step):
            seen.add(image.pixel(x, y))
    return len(seen)


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.modeller.json")), ids=lambda p: p.name.split(".")[0])
def test_screenshot_of_every_sample(qapp, path: Path, tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    assert main([str(path), "--screenshot", str(out), "--size", "1200x800"]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 800)
    assert distinct_colours(image) > 40  # cards, text, lines, docks: far from a blank window


def test_screenshot_needs_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["--screenshot", str(tmp_path / "x.png")]) == 2
    assert "needs a project FILE" in capsys.readouterr().err


def test_bad_size_is_reported(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main([str(SAMPLES / "blog.modeller.json"), "--screenshot", str(tmp_path / "x.png"), "--size", "huge"]) == 2
    err = capsys.readouterr().err
    assert "is not WIDTHxHEIGHT" in err and "Traceback" not in err


def test_broken_file_is_reported_with_place(qapp, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.modeller.json"
    bad.write_text('{"format": "mongo-schema-modeller", "format_version": 1, "name": "x", "entitys": []}\n')
    assert main([str(bad), "--screenshot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "bad.modeller.json" in err and "entitys" in err and "Traceback" not in err
    assert not (tmp_path / "x.png").exists()


def test_missing_file_is_reported(qapp, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main([str(tmp_path / "none.modeller.json"), "--screenshot", str(tmp_path / "x.png")]) == 2
    assert "none.modeller.json" in capsys.readouterr().err
