"""A plain ``pip install .`` (no extras) in a fresh venv: no PySide6, and the command line works.

The package is built from a copy of the sources (setuptools writes ``build/`` beside
``pyproject.toml``), with pip's configured sources, like a user's install would be.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "blog.modeller.json"
#: a bound on a hung pip (an unreachable index); a normal install takes about 15 s
PIP_TIMEOUT_S = 240


@pytest.mark.slow
def test_plain_install_runs_the_cli_without_pyside6(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "modeller", source / "modeller", ignore=shutil.ignore_patterns("__pycache__"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)  # pip of this interpreter installs into it (--python): no ensurepip
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PIP_NO_INPUT"] = "1"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", str(source)],
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT_S,
        env=env,
        cwd=tmp_path,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(bindir / "modeller"), *args], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path
        )

    no_qt = subprocess.run([str(python), "-c", "import PySide6"], capture_output=True, text=True, env=env)
    assert no_qt.returncode != 0, "a plain install must not pull in PySide6"
    assert (bindir / "modeller-gui").is_file()

    version = run("--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("modeller ")
    check = run("check", str(SAMPLE), "--format", "json")
    assert check.returncode == 0, check.stderr
    assert '"rule": "index-reference-fields"' in check.stdout
    design = run("design", str(SAMPLE))
    assert design.returncode == 0, design.stderr
    assert "posts" in design.stdout
    export = run("export", str(SAMPLE), "--out", str(tmp_path / "out"))
    assert export.returncode == 0, export.stderr
    assert (tmp_path / "out" / "setup.mongosh.js").is_file()
    app = run()  # the desktop app, without PySide6: how to install it, in one line
    assert app.returncode == 2
    assert app.stderr.count("\n") == 1
    assert "modeller[gui]" in app.stderr
