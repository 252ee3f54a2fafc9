"""ftd_lib.repro: figure definitions, chunks, resumable runs (Ctrl-C and kill -9, parallel
workers), the loader, the report's verdicts."""

import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from ftd_lib.repro import report
from ftd_lib.repro import store as chunk_store
from ftd_lib.repro.chunks import cut_chunks
from ftd_lib.repro.definitions import FIGURES, LAMBDAS, figure
from ftd_lib.repro.paper import claims
from ftd_lib.repro.results import (
    Results,
    load_results,
    missing_message,
    reproduce_command,
    results_paths,
)
from ftd_lib.repro.runs import ScaleConflict, run_figure

pytestmark = pytest.mark.slow  # figures run with workers

# A cheap stand-in for the engine: each row's numbers depend only on (seed, run id, settings),
# like the engine's. FAKE_DELAY (seconds per chunk) makes it slow enough to kill mid-run.
FAKE_SRC = '''
import os, time
import numpy as np
from ftd_lib.rng import run_generator

CALLS = []

def values(task):
    v = np.empty((task.rows, task.n_episodes))
    d = np.zeros(task.rows, bool)
    ep = np.arange(1, task.n_episodes + 1)
    for i, (s, r) in enumerate(zip(task.settings, task.run_ids)):
        alpha, lam, gamma, eta, k_max = s
        g = run_generator(task.seed, int(r), 7)
        v[i] = np.exp(-20 * alpha * ep) + 0.05 * g.random(task.n_episodes) + 0.01 * lam + eta
        if task.method == "td_lambda" and alpha > 0.02:
            v[i, 1:] = np.inf
            d[i] = True
    return {"values": v, "diverged": d}

def runner(task, *, device, progress):
    CALLS.append(task)
    time.sleep(float(os.environ.get("FAKE_DELAY", "0")))
    return values(task)

runner.name = "fake-v1"
'''


@pytest.fixture
def fake(tmp_path):
    path = tmp_path / "fake_runner.py"
    path.write_text(FAKE_SRC)
    spec = importlib.util.spec_from_file_location("fake_runner", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _assert_same(a: Results, b: Results):
    assert set(a.arrays) == set(b.arrays)
    for k in a.arrays:
        np.testing.assert_array_equal(a.arrays[k], b.arrays[k], err_msg=k)
        assert a.arrays[k].dtype == b.arrays[k].dtype


def _chunk_files(out, name):
    d = results_paths(name, out)["chunks"]
    if not d.is_dir():
        return {}
    return {p.name: p.stat().st_mtime_ns for p in d.glob("*.npz")
            if not p.name.startswith(chunk_store.TMP_PREFIX)}


# ----------------------------------------------------------------------------- definitions


def test_paper_scale_definitions_match_the_paper():
    f = figure("fig3-left", "paper")
    assert (f.runs, f.episodes) == (50, 50) and f.at_paper_scale
    assert f.methods == ["td_lambda", "forward_td_lambda", "online_lambda_return",
                         "offline_lambda_return"]
    assert {c.lam for c in f.cells} == {0.9} and {c.eta for c in f.cells} == {0.01}
    assert {c.gamma for c in f.cells} == {1.0}
    alphas = sorted({c.alpha for c in f.cells})
    assert 0.015 in alphas and len(alphas) >= 10
    ratios = np.diff(np.log(alphas))
    assert np.allclose(ratios, ratios[0], rtol=1e-3)  # log-spaced

    f = figure("fig3-right", "paper")
    assert (f.runs, f.episodes) == (200, 50)
    assert {c.alpha for c in f.cells} == {0.015} and f.methods == ["forward_td_lambda"]
    assert {(c.eta, c.k_max) for c in f.cells} == {(0.01, None), (0.1, None), (0.3, None),
                                                    (0.01, 50)}
    assert {c.lam for c in f.cells} >= set(LAMBDAS) | {0.95, 0.975, 0.99}

    for side, env, eps, gamma in (("left", "mountain_car", 50, 1.0),
                                  ("right", "cartpole", 1000, 0.99)):
        f = figure(f"fig4-{side}", "paper")
        assert (f.runs, f.episodes, f.env) == (200, eps, env)
        assert f.epsilon == 0.05 and f.optimise == "alpha"
        assert {c.eta for c in f.cells} == {0.01} and {c.gamma for c in f.cells} == {gamma}
        assert f.methods == ["sarsa_lambda", "forward_sarsa_lambda"]
        assert len({c.alpha for c in f.cells}) >= 6


def test_quick_scale_is_small_and_below_paper_scale():
    for name in FIGURES:
        f = figure(name, "quick")
        assert not f.at_paper_scale
        assert len(f.cells) * f.runs <= 32 and f.episodes <= 20
    assert not figure("fig3-left", "paper", runs=10).at_paper_scale


def test_bad_figure_arguments():
    with pytest.raises(ValueError, match="figure"):
        figure("fig5", "quick")
    with pytest.raises(ValueError, match="scale"):
        figure("fig3-left", "huge")
    with pytest.raises(ValueError, match="runs"):
        figure("fig3-left", "quick", runs=0)


def test_chunks_cover_every_cell_and_run_once():
    f = figure("fig4-left", "paper")
    seen = np.zeros((len(f.cells), f.runs), int)
    tasks = cut_chunks(f)
    for t in tasks:
        assert {f.cells[i].method for i in t.cell_index} == {t.method}
        np.add.at(seen, (t.cell_index, t.run_ids), 1)
        np.testing.assert_array_equal(t.settings, [f.cells[i].row() for i in t.cell_index])
    assert (seen == 1).all()
    # more runs later: the chunks of the first runs keep their identity (and are reused)
    more = cut_chunks(figure("fig4-left", "paper", runs=100))
    ids = {chunk_store.chunk_key(t.identity("r", "cpu")) for t in more}
    ids2 = {chunk_store.chunk_key(t.identity("r", "cpu")) for t in tasks}
    assert ids <= ids2


@pytest.mark.parametrize("rows", [1, 7, 150, 100_000])
def test_chunk_rows_override_still_covers_everything_once(rows):
    f = figure("fig3-right", "paper", chunk_rows=rows)
    seen = np.zeros((len(f.cells), f.runs), int)
    for t in cut_chunks(f):
        assert t.rows <= max(rows, 1)
        np.add.at(seen, (t.cell_index, t.run_ids), 1)
    assert (seen == 1).all()
    assert "--chunk-rows" in reproduce_command("fig3-right", chunk_rows=rows)


# ----------------------------------------------------------------------------- resume


def test_interrupted_run_resumes_to_identical_numbers(tmp_path, fake):
    fig = figure("fig3-left", "quick", runs=6)  # one chunk per method and block of runs
    n_chunks = len(cut_chunks(fig))
    assert n_chunks == len(fig.methods) * fig.runs // fig.runs_per_chunk
    ref = run_figure(fig, tmp_path / "a", runner=fake.runner, progress=False)
    assert len(fake.CALLS) == n_chunks

    calls = []

    def interrupting(task, *, device, progress):
        if len(calls) == 5:
            raise KeyboardInterrupt
        calls.append(task)
        return fake.values(task)

    interrupting.name = fake.runner.name
    out = tmp_path / "b"
    with pytest.raises(KeyboardInterrupt):
        run_figure(fig, out, runner=interrupting, progress=False)
    before = _chunk_files(out, fig.name)
    assert len(before) == 5
    assert not results_paths(fig.name, out)["npz"].exists()

    fake.CALLS.clear()
    res = run_figure(fig, out, runner=fake.runner, progress=False)
    assert len(fake.CALLS) == n_chunks - 5  # finished chunks were loaded, not recomputed
    done_keys = {k.removesuffix(".npz") for k in before}
    for t in fake.CALLS:
        assert chunk_store.chunk_key(t.identity(fake.runner.name, "cpu")) not in done_keys
    after = _chunk_files(out, fig.name)
    assert all(after[k] == v for k, v in before.items())  # not rewritten either
    assert res.meta["chunks"] == {"total": 12, "loaded": 5, "computed": 7, "pieces": 7}
    _assert_same(ref, res)
    _assert_same(ref, load_results(fig.name, out))


def test_killed_process_resumes_to_identical_numbers(tmp_path, fake):
    """kill -9 in the middle of a run (possibly mid-write), then resume."""
    fig = figure("fig3-left", "quick", runs=6)
    ref = run_figure(fig, tmp_path / "a", runner=fake.runner, progress=False)
    out = tmp_path / "b"
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import fake_runner; "
            "from ftd_lib.repro.definitions import figure; "
            "from ftd_lib.repro.runs import run_figure; "
            f"run_figure(figure('fig3-left', 'quick', runs=6), {str(out)!r}, "
            f"runner=fake_runner.runner, progress=False)")
    env = dict(os.environ, FAKE_DELAY="0.25")
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    try:
        t0 = time.time()
        while len(_chunk_files(out, fig.name)) < 3 and time.time() - t0 < 60:
            time.sleep(0.02)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    before = _chunk_files(out, fig.name)
    n_chunks = len(cut_chunks(fig))
    assert 3 <= len(before) < n_chunks, "the run should have been killed part-way"
    assert not results_paths(fig.name, out)["npz"].exists()

    fake.CALLS.clear()
    res = run_figure(fig, out, runner=fake.runner, progress=False)
    assert len(fake.CALLS) == n_chunks - len(before)
    assert all(_chunk_files(out, fig.name)[k] == v for k, v in before.items())
    _assert_same(ref, res)
    chunk_dir = results_paths(fig.name, out)["chunks"]
    assert not [p for p in chunk_dir.iterdir() if p.name.startswith(chunk_store.TMP_PREFIX)]


def test_workers_give_the_numbers_of_one_process(tmp_path):
    """The engine at quick scale, cut into 6 chunks: 2 worker processes and 1 process store
    the same chunks and assemble bit for bit the same arrays; a second call loads them all."""
    fig = figure("fig3-right", "quick", chunk_rows=4)  # 2 cells x 2 runs a chunk
    assert len(cut_chunks(fig)) == len(fig.cells) * fig.runs // 4
    one = run_figure(fig, tmp_path / "one", progress=False, plot=False, workers=1)
    two = run_figure(fig, tmp_path / "two", progress=False, plot=False, workers=2)
    assert two.meta["chunks"] == {"total": 6, "loaded": 0, "computed": 6, "pieces": 6}
    _assert_same(one, two)
    assert _chunk_files(tmp_path / "one", fig.name).keys() == _chunk_files(tmp_path / "two",
                                                                           fig.name).keys()
    again = run_figure(fig, tmp_path / "two", progress=False, plot=False, workers=2)
    assert again.meta["chunks"]["computed"] == 0
    _assert_same(one, again)


def test_bad_workers(tmp_path, fake):
    with pytest.raises(ValueError, match="workers"):
        run_figure(figure("fig3-right", "quick"), tmp_path, runner=fake.runner,
                     progress=False, plot=False, workers=0)


def test_other_seed_runner_or_device_are_other_chunks(tmp_path, fake):
    fig = figure("fig3-right", "quick")
    run_figure(fig, tmp_path, runner=fake.runner, progress=False, plot=False)
    n = len(fake.CALLS)
    run_figure(fig, tmp_path, runner=fake.runner, progress=False, plot=False)
    assert len(fake.CALLS) == n  # everything loaded
    run_figure(fig, tmp_path, runner=fake.runner, progress=False, plot=False, seed=1)
    assert len(fake.CALLS) == 2 * n
    run_figure(fig, tmp_path, runner=fake.runner, progress=False, plot=False, device="cuda:0")
    assert len(fake.CALLS) == 3 * n


# ----------------------------------------------------------------------------- results


def test_results_metadata_divergence_and_plot(tmp_path, fake):
    fig = figure("fig3-left", "quick")
    res = run_figure(fig, tmp_path, runner=fake.runner, progress=False)
    p = results_paths("fig3-left", tmp_path)
    assert p["png"].stat().st_size > 1000 and p["json"].is_file()
    meta = json.loads(p["json"].read_text())
    for k in ("seed", "runs", "episodes", "scale", "git", "elapsed_s", "compute_s", "machine",
              "definition", "command"):
        assert k in meta
    assert meta["machine"]["cpu_count"] == os.cpu_count()
    assert meta["command"] == ("python -m ftd_lib reproduce fig3-left --scale quick --out "
                               f"{tmp_path}")
    # TD(lambda) at alpha = 0.03 diverged: infinite error, flagged, and drawn without error
    i = [k for k, c in enumerate(fig.cells) if c.method == "td_lambda" and c.alpha == 0.03][0]
    assert res["diverged"][i].all() and np.isinf(res["metric"][i]).all()
    assert np.isinf(res.summary()["td_lambda"]["y"][-1])
    assert res["curve_mean"].shape == (len(fig.cells), fig.episodes)


def test_load_results_and_commands(tmp_path, fake):
    assert load_results("fig4-right", tmp_path) is None
    assert "reproduce fig4-right --scale paper" in missing_message("fig4-right", tmp_path)
    run_figure(figure("fig4-right", "quick"), tmp_path, runner=fake.runner, progress=False,
                 plot=False)
    res = load_results("fig4-right", tmp_path)
    assert res.scale == "quick" and not res.at_paper_scale
    assert load_results("fig4-right", tmp_path, scale="paper") is None
    assert res["metric"].shape == (len(figure("fig4-right", "quick").cells), 2)
    assert reproduce_command("fig3-left") == "python -m ftd_lib reproduce fig3-left --scale paper"
    assert reproduce_command("fig3-left", "quick", "out", runs=3, seed=5, device="cuda") == (
        "python -m ftd_lib reproduce fig3-left --scale quick --runs 3 --seed 5 --out out "
        "--device cuda")


def test_quick_run_does_not_overwrite_paper_data(tmp_path, fake):
    run_figure(figure("fig3-right", "quick"), tmp_path, runner=fake.runner, progress=False,
                 plot=False)
    _mark_paper_scale(tmp_path, "fig3-right")
    with pytest.raises(ScaleConflict, match="paper-scale"):
        run_figure(figure("fig3-right", "quick"), tmp_path, runner=fake.runner,
                     progress=False, plot=False)
    run_figure(figure("fig3-right", "quick"), tmp_path, runner=fake.runner, progress=False,
                 plot=False, force=True)


def _mark_paper_scale(d, name):
    """Pretend stored data was made at paper scale (to test what depends on that)."""
    p = results_paths(name, d)["npz"]
    arrays = chunk_store.load_npz(p)
    meta = json.loads(str(arrays.pop("__meta__")))
    meta["definition"]["at_paper_scale"] = meta["at_paper_scale"] = True
    meta["scale"] = "paper"
    chunk_store.save_npz_atomic(p, __meta__=np.array(json.dumps(meta)), **arrays)


# ----------------------------------------------------------------------------- report


def _scripted_runner(agree: bool):
    """Numbers shaped like the paper's findings (agree=True) or their opposite."""

    def runner(task, *, device, progress):
        from ftd_lib.rng import run_generator

        v = np.empty((task.rows, task.n_episodes))
        d = np.zeros(task.rows, bool)
        for i, (s, r) in enumerate(zip(task.settings, task.run_ids, strict=True)):
            alpha, lam, gamma, eta, _ = s
            noise = 0.001 * run_generator(task.seed, int(r), 3).random(task.n_episodes)
            if task.task == "prediction":
                base = {"td_lambda": 0.5, "online_lambda_return": 0.4,
                        "offline_lambda_return": 0.45, "forward_td_lambda": 0.3}[task.method]
                if not agree and task.method == "forward_td_lambda":
                    base = 0.6
                # eta matters only when the claim should fail
                val = base + 0.1 * (lam - 0.5) ** 2 + (0 if agree else eta)
                v[i] = val + noise
                if agree and task.method == "td_lambda" and alpha > 0.02:
                    v[i] = np.inf
                    d[i] = True
            else:
                fwd = task.method == "forward_sarsa_lambda"
                if task.env == "mountain_car":
                    val = -200 + (50 if fwd == agree else -50) * (1 - lam)
                else:
                    peak = 0.5 if agree else 0.0
                    top = 300 if agree else 150
                    val = (top - 200 * abs(lam - peak) if fwd
                           else 200 - 100 * lam * (1 if agree else -1))
                v[i] = val + alpha + 10 * noise
        return {"values": v, "diverged": d}

    runner.name = f"scripted-{agree}"
    return runner


@pytest.mark.parametrize("agree", [True, False])
def test_report_verdicts_follow_the_numbers(tmp_path, agree):
    for n in FIGURES:
        run_figure(figure(n, "quick", runs=3), tmp_path, runner=_scripted_runner(agree),
                   progress=False, plot=agree)  # pictures once is enough
    results = {n: load_results(n, tmp_path) for n in FIGURES}
    verdicts = claims.claims(results)
    assert [v.number for v in verdicts] == list(range(1, 9))
    want = claims.AGREES if agree else claims.DISAGREES
    assert [v.status for v in verdicts] == [want] * 8, [(v.number, v.evidence)
                                                         for v in verdicts]
    assert all(v.below_paper_scale for v in verdicts)
    text = report.write_report(tmp_path).read_text()
    assert "Below paper scale" in text
    for n in FIGURES:
        assert (f"]({n}.png)" in text) == agree
    assert text.count("✔ agrees" if agree else "✘ disagrees") >= 16  # table + sections


def test_report_with_missing_and_paper_scale_data(tmp_path, fake):
    text = report.render(tmp_path)  # an empty folder: only what it holds, nothing
    assert "No stored data" not in text and "no data" not in text and "## " not in text
    run_figure(figure("fig3-left", "quick"), tmp_path, runner=fake.runner, progress=False)
    _mark_paper_scale(tmp_path, "fig3-left")
    text = report.render(tmp_path)
    section = text.split("## Mountain car evaluation")[1].split("## ")[0]
    assert "Below paper scale" not in section
    assert "How it was made" in section and "AMD" in section or "machine:" in section
    # numbers in the report are the stored numbers
    best = load_results("fig3-left", tmp_path).summary()["forward_td_lambda"]
    k = int(np.argmin(best["y"]))
    assert f"{best['y'][k]:.3g}" in section


class _Curves:
    """A stand-in for stored results: ``summary()`` of two control curves over λ."""

    def __init__(self, fwd, sarsa, lams=(0.0, 0.5, 0.9)):
        x, se = np.array(lams), np.full(len(lams), 1.0)
        self.s = {"forward_sarsa_lambda": dict(x=x, y=np.array(fwd, float), se=se),
                  "sarsa_lambda": dict(x=x, y=np.array(sarsa, float), se=se)}
        self.at_paper_scale = True

    def summary(self):
        return self.s


@pytest.mark.parametrize("fwd,sarsa,status,words", [
    ([-300, -200, -100], [-300, -900, -800], claims.AGREES, "λ = 0 is not counted"),
    ([-310, -200, -100], [-300, -900, -800], claims.AGREES, "all 2 λ < 1 but 0"),
    ([-300, -950, -100], [-300, -900, -800], claims.DISAGREES, "λ ∈ {0.5}"),
    ([-300, -200, -900], [-300, -900, -800], claims.DISAGREES, "λ ∈ {0.9}"),
])
def test_claim_5_leaves_out_lambda_0(fwd, sarsa, status, words):
    """At λ = 0 forward Sarsa(λ) is Sarsa(0) (K = 1): the same algorithm, whose numbers differ
    at most by rounding, is no evidence for or against "forward beats Sarsa"."""
    (v,) = claims._claims_fig4_left(_Curves(fwd, sarsa))
    assert v.status == status and words in v.evidence, v.evidence


def test_spearman():
    assert claims.spearman([0, 1, 2, 3], [4, 3, 2, 1]) == pytest.approx(-1)
    assert claims.spearman([0, 1, 2], [1, 1, 1]) != claims.spearman([0, 1, 2], [1, 1, 1])  # nan
    assert math.isnan(claims.spearman([0, 1], [1, 2]))
