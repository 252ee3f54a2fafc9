"""The plan beside what a run measured: a run keeps its plan's prediction in its JSON, and the
control kernel's rates come from this CPU's stored chunks. How well the plan predicts a whole
command is a wall-clock ratio, so no test judges it (a shared machine moves it 2x from one
minute to the next): ``scripts/plan_accuracy.py`` measures it (:func:`measure_against_plan`)
and the README keeps its numbers.
"""


import dataclasses

import numpy as np
import pytest

from ftd_lib.envs import tasks

pytestmark = pytest.mark.slow  # a figure run beside its plan


def test_a_figure_keeps_the_plans_prediction_beside_its_measured_time(tmp_path):
    from ftd_lib.repro.definitions import figure
    from ftd_lib.repro.planning.cost import DEFAULT_RATES, Costing, history_dirs
    from ftd_lib.repro.planning.plan import plan_figure
    from ftd_lib.repro.runs import run_figure

    fig = figure("fig4-right", "quick")
    rates = dataclasses.replace(DEFAULT_RATES, source="calibrated (a test's)",
                                kind_load_s={"control": 0.5})
    want = plan_figure("fig4-right", "quick", 1, Costing(rates, history_dirs(tmp_path)),
                       out=tmp_path)
    res = run_figure(fig, tmp_path, progress=False, plot=False, rates=rates)
    assert res.meta["plan"] == {"workers": 1, "wall_s": want.wall_s,
                                "compute_s": want.compute_s, "rates": rates.source}
    assert want.compute_s == pytest.approx(sum(want.stages[0].seconds) + 0.5)
    assert res.meta["elapsed_s"] > 0


def test_stored_chunks_of_this_cpu_replace_a_calibrations_control_rates():
    """The control kernel's seconds per run-step: the committed chunks' median for the CPU
    they were made on (enough of them), the calibration's otherwise."""
    from ftd_lib.repro.planning.calibrate import (
        MIN_STORED_CHUNKS,
        stored_step_seconds,
        with_stored_control,
    )
    from ftd_lib.repro.planning.cost import REPO_RESULTS, Rates

    dirs = [REPO_RESULTS, REPO_RESULTS / "pilot"]
    stored = stored_step_seconds(dirs, "AMD EPYC")
    assert all(n >= MIN_STORED_CHUNKS for _s, n in stored.values()) and stored
    calibrated = Rates(control={m: 9e-6 for m in stored} | {"watkins_q_lambda": 7e-6},
                       source="calibrated")
    got = with_stored_control(calibrated, dirs, "AMD EPYC")
    assert got.control == {m: s for m, (s, _n) in stored.items()} | {"watkins_q_lambda": 7e-6}
    assert "stored chunks of this CPU" in got.source
    assert with_stored_control(calibrated, dirs, "another CPU") == calibrated


def _stage(chunks, wall):
    from ftd_lib.repro.planning.plan import StagePlan

    return StagePlan("s", None, chunks, [1.0] * len(chunks), [wall] * len(chunks), 0,
                     len(chunks), wall, 1.0, "model")


def test_the_commands_own_process_is_counted():
    """Start-up (with the engine) always; a first chunk only where the command computes
    one itself; matplotlib once and a picture per stage that computed chunks."""
    from ftd_lib.repro.planning.cost import Rates
    from ftd_lib.repro.planning.plan import FigurePlan, command_wall

    r = Rates(startup_s=1.0, engine_load_s=10.0, plot_load_s=100.0, draw_s=1000.0)
    two = FigurePlan("a", 2, [_stage(["c1", "c2"], 5.0), _stage(["c3", "c4"], 7.0)])
    assert command_wall([two], r) == 1.0 + 5.0 + 7.0 + 100.0 + 2 * 1000.0
    one = FigurePlan("a", 1, [_stage(["c1"], 5.0), _stage([], 0.0)])
    assert command_wall([one], r) == 1.0 + 10.0 + 5.0 + 100.0 + 1000.0
    stored = FigurePlan("a", 2, [_stage([], 0.0)])
    assert command_wall([stored], r) == 1.0  # nothing computed, nothing drawn


def test_early_steps_is_the_median_of_the_first_episodes():
    from ftd_lib.repro.planning.cost import early_steps

    rng = np.random.default_rng(0)
    curves = [rng.uniform(5, 500, size=n) for n in (50, 1000, 1000, 20)]
    for episodes in (1, 8, 20, 40, 1000):
        longest = [c for c in curves if len(c) >= episodes]
        want = np.median([sum(c[:episodes]) / episodes for c in longest])
        assert early_steps(curves, episodes) == pytest.approx(want, rel=1e-12)
    assert early_steps(curves, 5000) == pytest.approx(np.median([c.mean() for c in curves[1:3]]))
    assert early_steps([], 8) is None


def test_an_unseen_episode_count_is_costed_from_the_tasks_first_episodes():
    """Cart-pole's first episodes are ~10 steps, its 1000th ~400: a run of 8 episodes of a
    method with no history of its own is costed from the first 8 of the stored cells."""
    from ftd_lib.repro.chunks import cut_chunks
    from ftd_lib.repro.definitions import figure
    from ftd_lib.repro.experiment import load_experiment
    from ftd_lib.repro.planning.cost import Costing, history_dirs

    fig, _run = load_experiment("experiments/cartpole-n-step.toml", "quick")
    costing = Costing(None, history_dirs(None))
    first8 = np.median([c[:8].mean() for c in costing.history[("curves", "cartpole")]])
    paper = figure("fig4-right", "paper")
    assert fig.episodes == 8 != paper.episodes
    for t in cut_chunks(fig):
        assert costing.steps(t) == pytest.approx(t.rows * 8 * first8)
    assert not costing.notes  # nothing guessed


def test_every_engine_but_the_kernel_is_calibrated_with_the_methods_params():
    from ftd_lib.repro.experiment import load_experiment
    from ftd_lib.repro.planning.calibrate import calibrate_engine
    from ftd_lib.repro.planning.plan import methods_to_calibrate

    fig, _run = load_experiment("experiments/cartpole-n-step.toml", "quick")
    pred, ctrl, engines = methods_to_calibrate([fig])
    assert pred == [] and ctrl == [("forward_sarsa_lambda", "cartpole")]
    # n-step Sarsa, written as pieces of the kernel's extension point, is measured there
    assert set(engines) == {("kernel", "n_step_sarsa", "cartpole", (("n", 4),))}
    for engine in ("kernel", "reference"):
        a, b = calibrate_engine(engine, "n_step_sarsa", "cartpole", repeats=1,
                                params={"n": 4})
        assert a == 0.0 and 0 < b < 1.0


def test_a_network_set_up_is_planned_on_the_engine_that_runs_it():
    """A set-up of the network only (``--set network.hidden_units=10``) is a plain parameter
    of every engine (``chunks.engine_runner``), so n-step Sarsa is planned (and calibrated,
    with its ``n``) on the engine that runs it: the kernel (its extension point) on
    cart-pole, its per-run reference on a task without compiled dynamics; a set-up of
    mountain car's inputs stays in the kernel."""
    from ftd_lib.repro.experiment import load_experiment
    from ftd_lib.repro.planning.cost import chunk_engine
    from ftd_lib.repro.planning.plan import cut_chunks, methods_to_calibrate

    fig, _run = load_experiment("experiments/cartpole-n-step.toml", "quick",
                                sets=["network.hidden_units=10"])
    chunks = cut_chunks(fig)
    assert chunks and all(t.variant is not None for t in chunks)
    assert {t.method: chunk_engine(t) for t in chunks} == {
        "forward_sarsa_lambda": "kernel", "n_step_sarsa": "kernel"}
    _pred, ctrl, engines = methods_to_calibrate([fig])
    assert ctrl == [("forward_sarsa_lambda", "cartpole")]
    assert {e[:2] for e in engines} == {("kernel", "n_step_sarsa")}
    no_dynamics = dataclasses.replace(tasks.TASKS["cartpole"], compiled=None)
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(tasks.TASKS, "cartpole", no_dynamics)
        assert {t.method: chunk_engine(t) for t in chunks} == {
            "forward_sarsa_lambda": "kernel", "n_step_sarsa": "reference"}
    mc, _run = load_experiment("experiments/fig4-left.toml", "quick",
                               sets=["task.inputs=unit"])
    assert {chunk_engine(t) for t in cut_chunks(mc)} == {"kernel"}
