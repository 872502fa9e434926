"""The ``modeller`` program's dispatch: commands without Qt, the app (or how to install it), the menu launcher."""

from __future__ import annotations

import configparser
import os
from pathlib import Path

import pytest

from modeller import entry
from modeller.ui import desktop_entry


def test_without_pyside6_the_app_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(entry, "gui_available", lambda: False)
    for args in ([], ["samples/blog.modeller.json"]):
        assert entry.main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert "pip install 'modeller[gui]'" in err
    assert entry.gui_main([]) == 2
    assert "PySide6" in capsys.readouterr().err


def test_commands_do_not_need_the_gui(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(entry, "gui_available", lambda: False)
    blog = Path(__file__).resolve().parents[1] / "samples" / "blog.modeller.json"
    assert entry.main(["validate", str(blog)]) == 0
    assert "valid (3 entities" in capsys.readouterr().out


def read_desktop(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(path.read_text(encoding="utf-8"))
    return parser["Desktop Entry"]


def test_install_desktop_writes_launcher_and_icon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert entry.main(["--install-desktop"]) == 0
    launcher = tmp_path / "applications" / "modeller.desktop"
    icon = tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "modeller.svg"
    assert str(launcher) in capsys.readouterr().out
    entry_keys = read_desktop(launcher)
    assert entry_keys["Type"] == "Application"
    assert entry_keys["Icon"] == "modeller"
    program, field_code = entry_keys["Exec"].rsplit(" ", 1)
    assert field_code == "%f"
    assert Path(program.split(" ")[0]).is_file()  # modeller-gui of this install, or this Python
    assert icon.read_text(encoding="utf-8").startswith("<svg")
    assert entry.main(["--uninstall-desktop"]) == 0
    assert not launcher.exists() and not icon.exists()


def test_relative_xdg_data_home_is_ignored(tmp_path: Path) -> None:
    home = Path.home() / ".local" / "share"
    assert desktop_entry.data_home({"XDG_DATA_HOME": "relative/dir"}) == home
    assert desktop_entry.data_home({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path


@pytest.mark.parametrize(
    ("arg", "quoted"),
    [
        ("/usr/bin/modeller-gui", "/usr/bin/modeller-gui"),
        ("/home/a b/bin/modeller-gui", '"/home/a b/bin/modeller-gui"'),
        ('/x/$HOME"`\\/y', '"/x/\\$HOME\\"\\`\\\\/y"'),
        ("/x/100%/y", "/x/100%%/y"),
    ],
)
def test_exec_quoting_follows_the_desktop_entry_spec(arg: str, quoted: str) -> None:
    assert desktop_entry.exec_quote(arg) == quoted


def test_unwritable_data_home_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    assert entry.main(["--install-desktop"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("modeller: error: --install-desktop: cannot write the launcher")
    assert err.count("\n") == 1
    assert os.listdir(tmp_path) == ["file"]
