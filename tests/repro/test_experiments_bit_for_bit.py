"""Every committed experiment (``experiments/*.toml``) run against the committed ``results/``
computes nothing and reassembles the committed arrays bit for bit: the files define exactly
the chunks that are stored (their identities are today's: ``scripts/migrate_runner_names.py``
renamed the chunks of Figs. 3 left and right), and both stages of the step-size protocol
(pilot, widenings, final) are re-derived from the stored numbers.

About 10 s on 2 shared cores (every chunk is read and checked once per experiment).
"""

import shutil

import numpy as np
import pytest

from ftd_lib.repro import chunks
from ftd_lib.repro.experiment import experiments_dir, load_experiment
from ftd_lib.repro.launch import out_dir, run_experiment
from ftd_lib.repro.results import load_results, repo_results_dir

pytestmark = pytest.mark.slow  # committed experiments reassembled

RESULTS = repo_results_dir()
FILES = sorted(p for p in experiments_dir().glob("*.toml")
               if load_results(load_experiment(p)[0].name,
                               RESULTS.parent / out_dir(load_experiment(p)[1])) is not None)


def test_every_paper_figure_and_study_has_a_committed_experiment():
    names = {p.stem for p in FILES}
    assert {"fig3-left", "fig3-right", "fig4-left", "fig4-right", "block-lambda",
            "claim5-study", "fig4-left-small-weights"} <= names


def _refuse(job, progress=False):
    raise AssertionError(f"computed a chunk of {job[1].figure} ({job[1].method}): the "
                         "experiment file does not define the stored chunks, or their code "
                         "changed (after a change the golden tests show keeps every number: "
                         "python scripts/rekey_code_digest.py --changed)")


def _same(old, new) -> list[str]:
    """The names of the arrays that differ (bit for bit; nan equals nan)."""
    bad = [k for k in old.arrays if k != "__meta__" and not np.array_equal(
        old.arrays[k], new.arrays[k], equal_nan=old.arrays[k].dtype.kind == "f")]
    return bad + sorted(set(new.arrays) - set(old.arrays))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_committed_experiment_reassembles_committed_arrays(path, tmp_path, monkeypatch):
    fig, run = load_experiment(path)
    rel = out_dir(run)  # e.g. results/variants/small-weights
    src = RESULTS.parent / rel
    copy = tmp_path / rel
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns("variants"))
    monkeypatch.setattr(chunks, "chunk_result", _refuse)
    res = run_experiment(path, out=copy, progress=False, plot=False)
    stages = [""] + (["pilot"] if fig.two_stage else [])
    for stage in stages:
        old = load_results(fig.name, src / stage)
        new = res if stage == "" else load_results(fig.name, copy / stage)
        assert _same(old, new) == [], f"{path.name} {stage or 'final'}"
    assert res.meta["chunks"]["computed"] == 0
