"""The block lambda-return study: its figure definition, and its computed reading (paired
differences, verdicts, where a block length beats forward TD(lambda)) on scripted numbers."""

import math

import numpy as np
import pytest

from ftd_lib.repro import report
from ftd_lib.repro.definitions import FIGURES, STUDIES, figure
from ftd_lib.repro.paper import block_study
from ftd_lib.repro.results import load_results
from ftd_lib.repro.runs import run_figure


def test_definition():
    f = figure("block-lambda", "paper")
    assert "block-lambda" in STUDIES and "block-lambda" not in FIGURES  # not in "all"
    assert (f.runs, f.episodes, f.env, f.x) == (50, 50, "mountain_car", "alpha")
    assert f.methods == ["td_lambda", "forward_td_lambda", "block_lambda_return"]
    blocks = {c.k_max for c in f.cells if c.method == "block_lambda_return"}
    assert blocks == {4, 16, 44, 128}
    assert {c.lam for c in f.cells} == {0.9} and {c.gamma for c in f.cells} == {1.0}
    # Fig. 3 left's step sizes for every curve
    alphas = {c.alpha for c in figure("fig3-left", "paper").cells}
    for curve in f.curves:
        assert {c.alpha for c in f.cells if c.curve == curve} == alphas
    assert not figure("block-lambda", "quick").at_paper_scale


def test_paired_difference_by_hand():
    d, se = block_study.paired_difference([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    assert d == pytest.approx(2.0) and se == pytest.approx(1 / math.sqrt(3))
    assert block_study.paired_difference([1.0, math.inf], [0.0, 0.0]) == (math.inf, math.inf)


def scripted(task, *, device, progress):
    """Per-run error = base(curve, alpha) + a run's common noise + a little cell noise:
    block B = 16 is better than forward TD(lambda) at alpha = 0.01 only, B = 128 is worse
    everywhere, TD(lambda) diverges at alpha = 0.03."""
    v = np.empty((task.rows, task.n_episodes))
    d = np.zeros(task.rows, bool)
    for i, (s, r) in enumerate(zip(task.settings, task.run_ids, strict=True)):
        alpha, block = s[0], s[4]
        g = np.random.default_rng(int(r) * 1000 + int(alpha * 1e4) + int(block))
        common = 0.1 * np.random.default_rng(int(r)).random()
        if task.method == "td_lambda":
            base = math.inf if alpha > 0.02 else 0.8
            d[i] = alpha > 0.02
        elif task.method == "forward_td_lambda":
            base = 0.5
        else:
            base = (0.45 if alpha == 0.01 else 0.6) if block == 16 else 0.7
        v[i] = base + common + 0.001 * g.random()
    return {"values": v, "diverged": d}


scripted.name = "scripted-block"


def test_reading_follows_the_numbers(tmp_path):
    fig = figure("block-lambda", "quick", runs=8)
    run_figure(fig, tmp_path, runner=scripted, progress=False, plot=False)
    res = load_results("block-lambda", tmp_path)
    rows = {r["curve"]: r for r in block_study.compare(res)}
    assert rows["forward_td_lambda"]["verdict"] == "reference"
    assert rows["block, B = 16"]["verdict"] == "better"
    assert rows["block, B = 16"]["alpha"] == 0.01
    assert rows["block, B = 16"]["diff"] == pytest.approx(-0.05, abs=0.002)
    assert rows["block, B = 128"]["verdict"] == "worse"
    assert rows["td_lambda"]["verdict"] == "worse"  # its best alpha is finite
    assert block_study.wins_per_alpha(res, "block, B = 16") == [0.01]
    assert block_study.wins_per_alpha(res, "block, B = 128") == []
    text = "\n".join(block_study.reading(res))
    assert "Lowest error at the best step size: block, B = 16" in text
    assert "Runner-up: forward TD(λ)" in text and "a clear difference" in text
    assert "block, B = 16: better than forward TD(λ)" in text
    assert "block, B = 128: worse than forward TD(λ)" in text
    # the report shows the study's section, with the comparison its file asks for
    # ([report] compare_with), only when it has data
    rendered = report.render(tmp_path)
    assert "## Block λ-return" in rendered
    assert "against forward TD(λ) at its best" in rendered
    rows = [x for x in rendered.splitlines() if x.startswith("| block, B = 16 | 0.01 |")]
    assert [r for r in rows if r.endswith("| better |")] == rows[-1:]  # the comparison's row
    assert "Block λ-return" not in report.render(tmp_path / "empty")
