"""``modeller [FILE] --screenshot OUT.png``: a picture of every sample; bad input is a message, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from modeller.ui.app import main, missing_display

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


def test_no_display_is_reported_instead_of_a_qt_abort() -> None:
    # Qt aborts the whole process (SIGABRT) when xcb finds no display: the app must say what to do first
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run(
        [sys.executable, "-m", "modeller", str(SAMPLES / "task-tracker.modeller.json")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "no display" in done.stderr and "--screenshot" in done.stderr
    assert "Traceback" not in done.stderr


def test_missing_display_only_matters_on_linux_without_a_platform() -> None:
    assert missing_display({}, "linux")
    assert not missing_display({"DISPLAY": ":0"}, "linux")
    assert not missing_display({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not missing_display({"QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert not missing_display({}, "darwin")
