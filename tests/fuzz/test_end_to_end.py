"""End-to-end fuzzing: mutated sample projects through load, analyse, every exporter, mongosh and the validators.

Every sample project is mutated at the data level (fuzz_mutations.py). A
mutated project that the loader refuses must be refused with the loader's
documented error; one that loads must be analysed without an exception,
exported (all kinds) or refused with a one-line ``ExportError``, and its
export must hold together: each sample document passes its collection's
exported validator, no two samples break a unique index, the setup script
(then the index script) runs twice in the recording stand-in of ``db``
without an error, creates exactly the exported validators and inserts exactly
the exported samples. Node runs once per few hundred projects.

The run is reproducible (derandomized). ``MODELLER_FUZZ_EXAMPLES`` sets the
total number of examples (default 2,100: 300 per sample); with
``MODELLER_FUZZ_SEED=N`` the examples come from seed N instead of the fixed one (a
campaign split into runs with different seeds); with
``MODELLER_FUZZ_COLLECT=1`` a new failure does not stop the run and every
failure is counted; ``MODELLER_FUZZ_SUMMARY=FILE`` appends each
sample's counts to FILE as one JSON line; ``MODELLER_FUZZ_FAILURES=DIR`` keeps
the failing projects there (file names end in the samples' seed). There is no
list of tolerated failures: every kind the fuzzer found was fixed at its cause
and left a project in regressions/, which runs on every test run.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fuzz_mutations import changes, mutated
from fuzz_pipeline import Exported, Failure, load, run_node, run_python
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "samples").glob("*.modeller.json"))
REGRESSIONS = sorted((Path(__file__).resolve().parent / "regressions").glob("*.modeller.json"))
TOTAL = int(os.environ.get("MODELLER_FUZZ_EXAMPLES", "2100"))
COLLECT = os.environ.get("MODELLER_FUZZ_COLLECT") == "1"
SEED = os.environ.get("MODELLER_FUZZ_SEED")
#: Below this share of loading projects (about 0.65 today) the mutations mostly test the loader: the fuzzer is blind.
MIN_LOADED_SHARE = 0.4


class Campaign:
    """The examples of one test: loads, exports waiting for Node, failures by kind."""

    def __init__(self, work: Path, name: str, base: dict[str, Any] | None = None) -> None:
        self.work = work
        self.name = name
        self.base = base
        self.examples = 0
        self.loaded = 0
        self.refused_export = 0
        self.exports: list[Exported] = []
        self.counts: Counter[str] = Counter()
        self.new: list[tuple[str, Failure]] = []

    def example(self, doc: dict[str, Any], seed: int) -> None:
        self.examples += 1
        label = f"e{self.examples:05d}-seed{seed}"
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        project = load(text)
        if project is None:
            return
        self.loaded += 1
        out = self.work / label
        failures, exported = run_python(project, text, out, label, seed)
        if exported is None and not failures:
            self.refused_export += 1
        if exported is not None and not failures:
            keep = self.work / "scripts" / label
            keep.mkdir(parents=True)
            exported.scripts = [Path(shutil.copy(path, keep)) for path in exported.scripts]
            self.exports.append(exported)
        shutil.rmtree(out, ignore_errors=True)
        self.triage(failures, label, doc, text)

    def triage(self, failures: list[Failure], label: str, doc: dict[str, Any], text: str) -> None:
        """Count failures by kind; each fails the example (the message lists the mutation) unless collecting."""
        for failure in failures:
            self.counts[f"NEW {failure.stage}: {failure.message[:100]}"] += 1
            saved = self.save(label, text)
            self.new.append((saved, failure))
            if not COLLECT:
                changed = "\n".join(changes(self.base, doc)[:40]) if self.base is not None else text[:6000]
                raise AssertionError(f"{failure}\nproject written to {saved}; changes to the sample:\n{changed}")

    def save(self, label: str, text: str) -> str:
        folder = Path(os.environ.get("MODELLER_FUZZ_FAILURES") or self.work / "failures")
        path = folder / f"{self.name}-{label}.modeller.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return str(path)

    def describe(self, path: str, failure: Failure) -> str:
        """A new failure, where its project is, and what the mutation changed in the sample."""
        if self.base is None:
            return f"{failure} ({path})"
        changed = changes(self.base, json.loads(Path(path).read_text(encoding="utf-8")))[:20]
        return f"{failure} ({path}); changes to the sample:\n  " + "\n  ".join(changed)

    def finish(self, name: str) -> None:
        """Run Node over the exports, report the counts, fail on any new failure."""
        for exported, failure in run_node(self.exports, self.work):
            self.counts[f"NEW {failure.stage}: {failure.message[:100]}"] += 1
            self.new.append((self.save(exported.label, exported.project_text), failure))
        summary = {
            "sample": name,
            "examples": self.examples,
            "loaded": self.loaded,
            "export_refused": self.refused_export,
            "node_runs": len(self.exports),
            "failures": dict(sorted(self.counts.items())),
            "first_new": {f"{failure.stage}: {failure.message[:100]}": path for path, failure in reversed(self.new)},
        }
        print(json.dumps(summary, ensure_ascii=False))
        if os.environ.get("MODELLER_FUZZ_SUMMARY"):
            with open(os.environ["MODELLER_FUZZ_SUMMARY"], "a", encoding="utf-8") as out:
                out.write(json.dumps(summary, ensure_ascii=False) + "\n")
        assert not self.new, "new failures:\n" + "\n".join(
            self.describe(path, failure) for path, failure in self.new[:10]
        )
        assert self.loaded >= MIN_LOADED_SHARE * self.examples, summary


@pytest.mark.slow
@pytest.mark.node
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name.removesuffix(".modeller.json"))
def test_mutated_samples_end_to_end(sample: Path, tmp_path: Path) -> None:
    base = json.loads(sample.read_text(encoding="utf-8"))
    campaign = Campaign(tmp_path, sample.name.removesuffix(".modeller.json"), base)

    @settings(
        max_examples=math.ceil(TOTAL / len(SAMPLES)),
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: minutes per failure; the message lists the changes
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        campaign.example(mutated(base, data), seed=data.draw(st.integers(0, 2**31 - 1)))

    (run if SEED is None else seed(int(SEED))(run))()
    campaign.finish(sample.name)


@pytest.mark.node
@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.name)
def test_regression_projects(path: Path, tmp_path: Path) -> None:
    """Projects the fuzzer once broke: they load, and go through everything without a new failure (samples from
    three seeds: some breakages showed only in some samples)."""
    campaign = Campaign(tmp_path, path.name.removesuffix(".modeller.json"))
    for sample_seed in range(3):
        campaign.example(json.loads(path.read_text(encoding="utf-8")), seed=sample_seed)
    assert campaign.loaded == 3, f"{path.name} no longer loads"
    campaign.finish(path.name)


def test_there_are_regression_projects() -> None:
    """The fuzzer's past findings stay checked: regressions/ holds projects, each with a description of what it reproduces."""
    assert len(REGRESSIONS) >= 10, "tests/fuzz/regressions/ lost its projects"
    for path in REGRESSIONS:
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc.get("description", "").strip(), path.name
