"""More runs of a figure whose chunks hold all its runs (a file's default: ``[chunks] runs``
= ``runs``): the stored runs are read, only the new ones computed, and the figure is bit for
bit the one a fresh run of all the runs gives (ftd_lib.repro.chunks.grown_chunk)."""

import numpy as np
import pytest

from ftd_lib.repro import runs as runs_module
from ftd_lib.repro.chunks import cut_chunks
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.runs import _compute_chunk, run_figure
from ftd_lib.rng import run_generator

CALLS: list = []


def fake_runner(task, *, device, progress):
    """Each row's numbers depend only on (seed, run id, settings), as the engine's do; not
    integers, so a sum in another order would show in the last bits."""
    CALLS.append(task)
    v = np.empty((task.rows, task.n_episodes))
    d = np.zeros(task.rows, bool)
    ep = np.arange(1, task.n_episodes + 1)
    for i, (s, r) in enumerate(zip(task.settings, task.run_ids, strict=True)):
        alpha, lam, _gamma, eta, _k = s
        g = run_generator(task.seed, int(r), 7)
        v[i] = np.exp(-20 * alpha * ep) + g.random(task.n_episodes) / 3 + 0.01 * lam + eta
        if task.method == "td_lambda" and alpha > 0.02 and r == 2:  # a run that diverges
            v[i, 1:] = np.inf
            d[i] = True
    return {"values": v, "diverged": d}


fake_runner.name = "fake-grown-v1"


def _fig(runs: int, episodes: int = 5):
    # chunk_rows >= runs: one block of all the runs per chunk, so more runs re-cut every chunk
    return figure("fig3-left", "quick", runs=runs, episodes=episodes, chunk_rows=1000)


def _run(fig, out, **kw):
    return run_figure(fig, out, runner=fake_runner, progress=False, plot=False, **kw)


def _computed_runs():
    return sorted({int(r) for t in CALLS for r in t.run_ids})


def _assert_same(a, b):
    for k in ("metric", "diverged", "curve_mean"):
        np.testing.assert_array_equal(a.arrays[k], b.arrays[k], err_msg=k)
    assert a.meta["checksum"] == b.meta["checksum"]


def test_the_cut_of_all_runs_in_one_block_changes_with_the_runs():
    """(Why growing needs more than the run blocks: 2 runs and 3 share no chunk.)"""
    two, three = cut_chunks(_fig(2)), cut_chunks(_fig(3))
    assert {tuple(t.run_ids) for t in two} != {tuple(t.run_ids) for t in three}
    assert all(set(t.run_ids) == {0, 1, 2} for t in three)


@pytest.mark.parametrize("grow", [(2, 3), (1, 4)])
def test_growing_runs_computes_only_the_new_runs_and_gives_a_fresh_runs_numbers(
        tmp_path, capsys, grow):
    first, then = grow
    CALLS.clear()
    _run(_fig(first), tmp_path / "grown")
    assert _computed_runs() == list(range(first))
    CALLS.clear()
    grown = _run(_fig(then), tmp_path / "grown", force=True)
    assert _computed_runs() == list(range(first, then))  # only the new runs
    assert grown.meta["chunks"]["grown"] == grown.meta["chunks"]["computed"] > 0
    rows = sum(t.rows for t in CALLS)
    assert rows == len(_fig(then).cells) * (then - first)
    assert f"runs {'0' if first == 1 else f'0..{first - 1}'} read from the store" \
        in capsys.readouterr().err
    CALLS.clear()
    fresh = _run(_fig(then), tmp_path / "fresh")
    assert _computed_runs() == list(range(then))
    _assert_same(grown, fresh)
    # a rerun reads the grown chunks as they are (stored under the whole chunk's identity)
    CALLS.clear()
    again = _run(_fig(then), tmp_path / "grown")
    assert CALLS == [] and again.meta["chunks"]["computed"] == 0
    _assert_same(again, fresh)


def test_growing_with_several_workers_cut_by_cost(tmp_path, monkeypatch):
    """Several workers cut the new rows by cells; each piece still continues its cells'
    stored sums, and the figure is read back bit for bit."""
    def in_process(jobs, workers, threads, finished):
        for k, job in enumerate(jobs):
            _compute_chunk(job)
            finished(k)

    monkeypatch.setattr(runs_module, "_compute_in_processes", in_process)
    _run(_fig(2), tmp_path / "grown", workers=2)
    CALLS.clear()
    grown = _run(_fig(5), tmp_path / "grown", workers=2, force=True)
    assert len(CALLS) > 1 and _computed_runs() == [2, 3, 4]
    assert all(t.prefix_runs == (0, 1) for t in CALLS)
    fresh = _run(_fig(5), tmp_path / "fresh")
    _assert_same(grown, fresh)


def test_a_single_episode_is_never_grown(tmp_path):
    """numpy sums one episode's runs pairwise, so its sum cannot be continued: recomputed."""
    _run(_fig(2, episodes=1), tmp_path)
    CALLS.clear()
    _run(_fig(3, episodes=1), tmp_path, force=True)
    assert _computed_runs() == [0, 1, 2]


@pytest.mark.parametrize("episodes", [2, 3, 20, 1000])
def test_numpy_sums_the_rows_of_a_curve_one_after_another(episodes):
    """What grown_chunk relies on: ``values.sum(axis=0)`` of ``(runs, episodes >= 2)`` is
    ``((v0 + v1) + v2) + ...``, for any number of runs (pairwise sums would differ)."""
    rng = np.random.default_rng(episodes)
    for n in (2, 3, 9, 17, 130, 300):
        v = rng.standard_normal((n, episodes)) * 1e6
        acc = v[0].copy()
        for row in v[1:]:
            acc += row
        np.testing.assert_array_equal(v.sum(axis=0), acc)
    one = rng.standard_normal((130, 1)) * 1e6  # one episode: pairwise, not in order
    acc = one[0].copy()
    for row in one[1:]:
        acc += row
    assert not np.array_equal(one.sum(axis=0), acc)


@pytest.mark.slow  # (three runs of a file on the engines: ~20 s on 2 shared cores)
def test_an_experiment_file_grown_from_2_to_3_runs_on_the_engines(tmp_path, monkeypatch):
    """A file grown from 2 to 3 runs, on the real engines (the kernel and n-step Sarsa's per-run
    reference): ``cartpole-n-step`` at quick scale (its chunks hold 4 runs) with runs 2,
    then 3: only run 2 is computed, and the numbers are a fresh 3-run's, bit for bit."""
    from ftd_lib import engine
    from ftd_lib.repro.experiment import load_experiment
    from ftd_lib.repro.launch import run_experiment
    from ftd_lib.repro.planning.cost import DEFAULT_RATES, Costing
    from ftd_lib.repro.planning.plan import plan_experiment, stage_line

    asked: list = []
    real = engine.run_control

    def counting(method, settings, **kw):
        asked.append(sorted(set(np.asarray(kw["run_ids"]).tolist())))
        return real(method, settings, **kw)

    monkeypatch.setattr(engine, "run_control", counting)
    small = ["episodes=3", "task.cap=40"]

    def run(runs, out, **kw):
        return run_experiment("cartpole-n-step", "quick", [f"runs={runs}", *small],
                              out=tmp_path / out, progress=False, plot=False, **kw)

    run(2, "grown")
    assert asked and all(a == [0, 1] for a in asked)
    # the plan of 3 runs counts run 2 alone (what the run then computes)
    fig3, run3 = load_experiment("cartpole-n-step", "quick", ["runs=3", *small])
    plan = plan_experiment(fig3, tmp_path / "grown", 1, Costing(DEFAULT_RATES),
                           seed=run3["seed"])
    work = [t for s in plan.stages for t in s.chunks]
    assert work and all(set(t.run_ids.tolist()) == {2} for t in work)
    assert sum(t.rows for t in work) == len(fig3.cells)
    assert f"in {len(work)} pieces ({len(work)} of them grown: only their new runs)" in stage_line(
        plan, plan.stages[0])
    asked.clear()
    grown = run(3, "grown", force=True)
    assert asked and all(a == [2] for a in asked)
    assert grown.meta["chunks"]["pieces"] == grown.meta["chunks"]["grown"] == len(asked)
    asked.clear()
    fresh = run(3, "fresh")
    assert all(a == [0, 1, 2] for a in asked)
    _assert_same(grown, fresh)
