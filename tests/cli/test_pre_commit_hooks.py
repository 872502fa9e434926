""".pre-commit-hooks.yaml: each hook's entry, run the way pre-commit runs it (entry + args + file names)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from model_edits import changed

from modeller.persistence import dumps_project, load_project

ROOT = Path(__file__).resolve().parents[2]
HOOKS = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
SAMPLES = sorted((ROOT / "samples").glob("*.modeller.json"))


def run_hook(hook_id: str, files: list[Path], args: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """What pre-commit does: ``shlex.split(entry) + args + filenames``, with the hook's environment on PATH."""
    hook = HOOKS[hook_id]
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    command = [*shlex.split(hook["entry"]), *args, *map(str, files)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_hooks_are_declared_for_project_files() -> None:
    assert set(HOOKS) == {"modeller-fmt", "modeller-check"}
    for hook in HOOKS.values():
        assert hook["language"] == "python"
        assert hook["files"] == r"\.modeller\.json$"


@pytest.mark.slow
def test_samples_pass_both_hooks() -> None:
    for hook_id in HOOKS:
        result = run_hook(hook_id, SAMPLES)
        assert result.returncode == 0, (hook_id, result.stdout, result.stderr)
    checked = run_hook("modeller-check", SAMPLES[:2]).stdout
    assert checked.count(" findings: ") == 2  # every file is checked, not only the first


@pytest.mark.slow
def test_hooks_fail_on_a_bad_file_among_good_ones(tmp_path: Path) -> None:
    good = tmp_path / "good.modeller.json"
    good.write_bytes((ROOT / "samples" / "ecommerce.modeller.json").read_bytes())
    ugly = tmp_path / "ugly.modeller.json"
    ugly.write_text(good.read_text(encoding="utf-8").replace("\n", "\n  ", 3), encoding="utf-8")
    fmt = run_hook("modeller-fmt", [good, ugly])
    assert fmt.returncode == 1
    assert "ugly.modeller.json" in fmt.stdout + fmt.stderr
    assert "good.modeller.json" not in fmt.stdout + fmt.stderr

    project = load_project(good)
    warned = changed(
        project, next(r for r in project.relationships if r.id == "product_reviews"), strategy="child-refs"
    )
    risky = tmp_path / "risky.modeller.json"
    risky.write_text(dumps_project(warned), encoding="utf-8")
    assert run_hook("modeller-check", [good, risky]).returncode == 0  # a warning is not an error
    failed = run_hook("modeller-check", [risky, good], ("--fail-on=warning",))
    assert failed.returncode == 1
    assert "unbounded-array" in failed.stdout
    assert failed.stdout.count(" findings: ") == 2  # the good file after the failing one is still checked
    # each file is named before its own findings
    head_risky, head_good = failed.stdout.index(f"{risky}:\n"), failed.stdout.index(f"\n{good}:\n")
    assert failed.stdout.startswith(f"{risky}:\n") and head_risky < failed.stdout.index("unbounded-array") < head_good
    broken = tmp_path / "broken.modeller.json"
    broken.write_text("{", encoding="utf-8")
    missing = run_hook("modeller-check", [broken, good])
    assert missing.returncode == 2  # a file that cannot be read is bad input, and fails the hook
    assert "broken.modeller.json" in missing.stderr
    assert missing.stdout.count(" findings: ") == 1 and f"\n{good}:\n" in missing.stdout
