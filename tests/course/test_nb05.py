"""Notebook 05 (mountain car evaluation, Figure 3): ftd_lib.course.nb05_nn_prediction, Figure 3
through ftd_lib.course.live, the learning-curve explorer's callback (without a kernel) and
the exercise checks."""

import math
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ftd_lib import engine
from ftd_lib.course import exercises, widgets
from ftd_lib.course import live as figures
from ftd_lib.course import nb05_nn_prediction as prediction
from ftd_lib.course.exercises import nb05
from ftd_lib.envs import mountain_car as mc
from ftd_lib.repro.chunks import cut_chunks
from ftd_lib.repro.definitions import ALPHA_FIG3_RIGHT, ALPHAS_FIG3, figure
from ftd_lib.repro.results import reproduce_command
from ftd_lib.repro.runs import run_figure

pytestmark = pytest.mark.slow  # mountain-car runs

PNG = b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------------------------------
# the task


def test_rollout_steps_are_the_true_values():
    starts = [(-0.55, 0.0), (-0.9, 0.02), (0.2, -0.03), (0.45, 0.05)]
    states, steps = prediction.rollout([s[0] for s in starts], [s[1] for s in starts])
    for (x, v), n in zip(starts, steps, strict=True):
        assert -n == mc.true_value(x, v)
    assert states.shape == (steps.max() + 1, len(starts), 2)
    assert np.all(states[-1, :, 0] >= mc.X_MAX)  # everyone at the goal
    # a car that arrived stays put
    i = int(np.argmin(steps))
    assert np.all(states[steps[i]:, i] == states[steps[i], i])


def test_rollout_raises_when_the_policy_never_arrives():
    with pytest.raises(RuntimeError, match="did not reach the goal"):
        prediction.rollout([-0.5], [0.0], policy=lambda x, v: np.ones_like(x, dtype=int),
                     max_steps=300)


def test_policy_trajectories_follow_the_dynamics():
    trs = prediction.policy_trajectories((-0.6, -0.4))
    for tr in trs:
        x, v = tr[0]
        assert v == 0.0
        for (x1, v1) in tr[1:]:
            x, v, term = mc.mountain_car_step(x, v, mc.evaluation_policy(x, v))
            assert (x, v) == (x1, v1)
        assert term
    assert [len(t) - 1 for t in trs] == [-mc.true_value(-0.6, 0), -mc.true_value(-0.4, 0)]


def test_value_grid_matches_true_value_and_policy():
    g = prediction.value_grid(n_x=9, n_v=7)
    assert g["value"].shape == g["action"].shape == (7, 9)
    for i in (0, 3, 6):
        for j in (0, 4, 8):
            assert g["value"][i, j] == mc.true_value(g["x"][j], g["v"][i])
            assert g["action"][i, j] == mc.evaluation_policy(g["x"][j], g["v"][i])
    assert g["x"].max() < mc.X_MAX and np.all(g["value"] <= -1)


def test_policy_summary_numbers():
    p = prediction.policy_summary(n_starts=6, resolution=150, n_eval=200)
    rep = mc.policy_optimality_report(n_starts=6, resolution=150)
    assert p["policy_mean"] == rep["policy_mean"] and p["best_mean"] == rep["best_mean"]
    assert 1.0 <= p["ratio"] < p["velocity_rule_ratio"]
    _, values = mc.evaluation_states(200, prediction.EVAL_SEED)
    assert p["eval_n"] == 200 and p["eval_mean"] == pytest.approx(values.mean())
    assert p["eval_rms"] == pytest.approx(np.sqrt(np.mean(values**2)))
    assert p["eval_max"] == values.max() <= -1 and p["eval_min"] == values.min()


def test_evaluation_sample_is_the_engines():
    s = prediction.evaluation_sample(50, 3)
    obs, values = mc.evaluation_states(50, 3)
    np.testing.assert_array_equal(s["obs"], obs)
    np.testing.assert_array_equal(s["values"], values)
    np.testing.assert_allclose(mc.scale_obs(s["states"][:, 0], s["states"][:, 1]), obs)


def test_plot_task_draws_two_panels():
    g = prediction.value_grid(n_x=20, n_v=15)
    fig = prediction.plot_task(starts=(-0.5,), grid=g, sample=prediction.evaluation_sample(30))
    a1, a2 = fig.axes[:2]
    assert len(a1.get_lines()) >= 3 and a2.collections  # trajectory, switching curve, sample
    labels = a1.get_legend_handles_labels()[1]
    assert any(f"{-int(mc.true_value(-0.5, 0))} steps" in label for label in labels)
    plt.close(fig)


# ------------------------------------------------------------------------------------------
# Figure 3: definitions, live runs, reading


def test_live_figure_definitions():
    left = figures.live_figure("fig3-left", runs=2, episodes=3, alphas=(0.001, 0.01),
                            methods=("td_lambda", "forward_td_lambda"))
    assert left.runs == 2 and left.episodes == 3 and not left.at_paper_scale
    assert {(c.method, c.alpha, c.lam, c.eta) for c in left.cells} == {
        (m, a, 0.9, 0.01) for m in ("td_lambda", "forward_td_lambda") for a in (0.001, 0.01)}
    assert len(cut_chunks(left)) == 2  # one batch per method
    right = figures.live_figure("fig3-right", runs=2, episodes=3, lams=(0.0, 0.9))
    paper = figure("fig3-right", "paper")
    assert right.curves == paper.curves and len(right.cells) == 4 * 2
    assert {(c.eta, c.k_max) for c in right.cells} == {(c.eta, c.k_max) for c in paper.cells}
    assert all(c.alpha == ALPHA_FIG3_RIGHT for c in right.cells)
    assert len(cut_chunks(right)) == 1
    # live step sizes lie on the paper-scale grid 0.015 * sqrt(2)**k
    k = 2 * np.log2(np.array(figures.LIVE_ALPHAS) / ALPHA_FIG3_RIGHT)
    np.testing.assert_allclose(k, np.round(k), atol=1e-4)
    with pytest.raises(ValueError, match="figure"):
        figures.live_figure("fig5-left")
    with pytest.raises(ValueError, match="runs"):
        figures.live_figure("fig3-left", runs=0)


@pytest.fixture(scope="module")
def tiny_left():
    return figures.live("fig3-left", alphas=(0.002, 0.03),
                        methods=("td_lambda", "forward_td_lambda"), runs=2, episodes=2)


def test_live_fig3_left_equals_direct_engine_runs(tiny_left):
    res = tiny_left
    assert res.path is None and res.meta["runs"] == 2 and res.meta["episodes"] == 2
    for i, (m, a) in enumerate(zip(res["method"], res["alpha"], strict=True)):
        s = engine.Settings.make(alpha=[a, a], lam=0.9, gamma=1.0, eta=0.01)
        direct = engine.run_prediction(m, s, figures.SEED, [0, 1], 2)
        err = np.where(np.isfinite(direct.errors), direct.errors, np.inf)
        expect = np.where(direct.diverged | ~np.isfinite(err).all(1), np.inf, err.mean(1))
        np.testing.assert_allclose(res["metric"][i], expect, rtol=1e-12)


def test_learning_curves_match_engine_and_live_figure(tiny_left):
    d = prediction.learning_curves(0.03, 0.9, runs=2, episodes=2)
    assert set(d) == {"td_lambda", "forward_td_lambda"}
    assert d["forward_td_lambda"]["K"] == 44 and d["td_lambda"]["K"] is None
    for m, v in d.items():
        assert v["errors"].shape == (2, 2)
        i = int(np.flatnonzero((tiny_left["method"] == m) & (tiny_left["alpha"] == 0.03))[0])
        np.testing.assert_allclose(v["metric"], tiny_left["metric"][i], rtol=1e-12)
        np.testing.assert_allclose(v["mean"], v["errors"].mean(0))
    with pytest.raises(ValueError):
        prediction.learning_curves(0.01, 0.9, runs=0)


def test_learning_curves_mark_divergence_as_inf():
    d = prediction.learning_curves(0.06, 1.0, runs=2, episodes=3, methods=("td_lambda",))
    v = d["td_lambda"]
    assert v["diverged"].all()  # TD(1) with a large step: every run blows up
    assert np.all(np.isinf(v["metric"])) and np.isinf(v["errors"][:, -1]).all()
    assert "diverged 2 of 2 runs (first in episode" in prediction.format_curves(d)


def _fake_left(ys: dict, diverged: dict | None = None):
    """A Fig. 3 left Results with chosen per-cell means, through the runner contract."""
    alphas = (0.001, 0.01, 0.1)
    fig = figures.live_figure("fig3-left", runs=2, episodes=2, alphas=alphas,
                           methods=tuple(ys))

    def runner(task, *, device, progress):
        vals = np.array([ys[task.method][alphas.index(a)] for a in task.settings[:, 0]])
        values = np.repeat(vals[:, None], task.n_episodes, axis=1)
        div = np.asarray((diverged or {}).get(task.method, ()), dtype=float)
        dmask = np.isin(task.settings[:, 0], div)
        values[dmask] = np.inf
        return {"values": values, "diverged": dmask}

    with tempfile.TemporaryDirectory() as d:
        return run_figure(fig, d, runner=runner, progress=False, plot=False)


def test_best_points_and_format_best_skip_diverged_points():
    res = _fake_left({"td_lambda": [0.6, 0.4, 0.3], "forward_td_lambda": [0.7, 0.5, 0.45]},
                     diverged={"td_lambda": [0.1]})
    b = figures.best_points(res)
    assert b["td_lambda"]["x"] == 0.01 and b["td_lambda"]["y"] == pytest.approx(0.4)
    assert b["td_lambda"]["n_x_diverged"] == 1 and b["forward_td_lambda"]["n_x_diverged"] == 0
    assert b["forward_td_lambda"]["x"] == 0.1
    text = figures.format_best(res)
    assert "TD(λ)                  best α = 0.01     error 0.400" in text
    assert "α with diverged runs: 1 of 3" in text


def test_best_side_by_side_puts_live_and_stored_best_points_in_one_row():
    """The slide's table (notebook 05 §3, §5): per curve the best x, its error and the number
    of x with diverged runs, live beside stored, equal to best_points of each; a curve the
    live run lacks shows a dash."""
    stored = _fake_left({"td_lambda": [0.6, 0.4, 0.3], "forward_td_lambda": [0.7, 0.5, 0.45],
                         "online_lambda_return": [0.9, 0.35, 0.8]},
                        diverged={"td_lambda": [0.1]})
    live = _fake_left({"td_lambda": [0.5, 0.7, 0.8], "forward_td_lambda": [0.9, 0.6, 0.2]})
    text = prediction.best_side_by_side(figures.Comparison("fig3-left", stored, live))
    head, cols, *rows = text.splitlines()
    assert "live, 2 runs × 2 episodes" in head and "stored, 2 runs × 2 episodes" in head
    assert cols.split() == ["best", "α", "error", "diverged"] * 2
    by = {r[:21].strip(): r[21:].split() for r in rows}
    assert by["TD(λ)"] == ["0.001", "0.500", "0", "of", "3", "0.01", "0.400", "1", "of", "3"]
    assert by["forward TD(λ)"] == ["0.1", "0.200", "0", "of", "3", "0.1", "0.450", "0", "of", "3"]
    assert by["online λ-return"] == ["–", "0.01", "0.350", "0", "of", "3"]
    no_store = prediction.best_side_by_side(figures.Comparison("fig3-left", None, live))
    assert "stored, no data" in no_store and "0.500" in no_store


def test_claims_brief_markdown_keeps_number_claim_and_verdict():
    res = _fake_left({"td_lambda": [0.6, 0.5, 0.9], "forward_td_lambda": [0.7, 0.4, 0.45],
                      "online_lambda_return": [0.65, 0.45, 0.5]})
    rows = figures.claims_side_by_side({"fig3-left": res, "fig3-right": None})
    md = prediction.claims_brief_markdown(rows)
    lines = md.splitlines()
    assert len(lines) == 2 + len(rows)
    for r, line in zip(rows, lines[2:], strict=True):
        assert line == f"| {r['number']} | {r['claim']} | **{r['verdict']}** |"
    assert "no data" in lines[-1]  # claim 4 needs Fig. 3 right


def test_choices_left_open_sorts_every_item_by_what_the_paper_says():
    text = prediction.choices_left_open()
    groups = [line.split(":**")[1].strip(" .").split(", ") for line in text.split("\n\n")]
    given, named, missing = groups
    rows = {c.get("given", c["item"]): c["paper"] for c in prediction.choices()}
    assert sorted(given + named + missing) == sorted(rows)
    assert "runs" in given and "runs and seeds" not in text  # the paper gives no seeds
    assert all(rows[i].startswith("not given") for i in missing)
    assert all(rows[i].startswith("“") for i in named)
    assert {"initialisation", "discount", "step-size grid"} <= set(missing)
    assert "evaluation policy" in named and "network" in given


def test_format_profile_picks_episode_columns():
    rows = [dict(alpha=0.001, score=0.5, se=0.01, n_diverged=0, runs=50,
                 after={1: 0.9, 6: 1.25, 50: 0.3}),
            dict(alpha=0.085, score=math.inf, se=math.nan, n_diverged=34, runs=50,
                 after={1: math.inf, 6: math.inf, 50: math.inf})]
    full = prediction.format_profile(rows).splitlines()
    some = prediction.format_profile(rows, episodes=(1, 50)).splitlines()
    assert full[0].split()[-3:] == ["1", "6", "50"] and some[0].split()[-2:] == ["1", "50"]
    assert some[1].split()[-2:] == ["0.90", "0.30"] and full[1].split()[-3:] == [
        "0.90", "1.25", "0.30"]
    assert some[2].split()[-2:] == ["∞", "∞"] and "34 of 50" in some[2]
    with pytest.raises(ValueError, match="episodes"):
        prediction.format_profile(rows, episodes=(2,))


def test_claims_side_by_side():
    rows = figures.claims_side_by_side({"fig3-left": None, "fig3-right": None})
    assert [r["number"] for r in rows] == [1, 2, 3, 4]
    assert all("no data" in r["verdict"] for r in rows)
    res = _fake_left({"td_lambda": [0.6, 0.5, 0.9], "forward_td_lambda": [0.7, 0.4, 0.45],
                      "online_lambda_return": [0.65, 0.45, 0.5]},
                     diverged={"td_lambda": [0.1]})
    rows = figures.claims_side_by_side({"fig3-left": res, "fig3-right": None})
    by = {r["number"]: r for r in rows}
    assert "agrees" in by[1]["verdict"] and "0.4" in by[1]["evidence"]
    assert "agrees" in by[2]["verdict"] and "below paper scale" in by[2]["verdict"]
    assert "agrees" in by[3]["verdict"] and "0.1" in by[3]["evidence"]
    assert "no data" in by[4]["verdict"]
    md = figures.claims_markdown(rows)
    assert md.count("\n") == 1 + len(rows) and "Surprisingly" in md


def test_plot_pair_without_stored_data_shows_the_command(tiny_left):
    fig = figures.Comparison("fig3-left", None, tiny_left).plot()
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert reproduce_command("fig3-left", "paper") in texts
    assert "live: below paper scale: 2 runs × 2 episodes" in fig.axes[1].get_title()
    plt.close(fig)
    fig = figures.Comparison("fig3-left", tiny_left, tiny_left).plot()
    assert fig.axes[0].get_title().startswith("stored:")
    plt.close(fig)


def test_results_dir_is_the_repositorys(monkeypatch, tmp_path):
    import ftd_lib

    repo = Path(ftd_lib.__file__).resolve().parent.parent
    monkeypatch.chdir(tmp_path)  # e.g. a notebook running in notebooks/
    if (repo / "results").is_dir():
        assert figures.results_dir() == repo / "results"


def test_stored_reads_load_results(tmp_path):
    assert figures.stored("fig3-left", tmp_path) is None
    fig = figures.live_figure("fig3-left", runs=1, episodes=1, alphas=(0.01,),
                           methods=("td_lambda",))

    def runner(task, *, device, progress):
        return {"values": np.full((task.rows, task.n_episodes), 0.5),
                "diverged": np.zeros(task.rows, bool)}

    run_figure(fig, tmp_path, runner=runner, progress=False, plot=False)
    res = figures.stored("fig3-left", tmp_path)
    assert res is not None and res["metric"].tolist() == [[0.5]]


def test_choices_cover_the_open_items_with_library_values():
    rows = {c["item"]: c for c in prediction.choices()}
    for item in ("network", "initialisation", "input scaling", "evaluation policy",
                 "reward noise", "discount", "episode cap", "true values", "state distribution",
                 "error metric", "divergence", "K for forward TD(λ)", "step-size grid"):
        assert item in rows and rows[item]["where"], item
    assert "201 weights" in rows["network"]["ours"]
    assert "K = 44" in rows["K for forward TD(λ)"]["ours"]
    assert f"standard deviation {mc.REWARD_STD:g}" in rows["reward noise"]["ours"]
    assert f"{len(ALPHAS_FIG3)} values" in rows["step-size grid"]["ours"]
    assert prediction.choices_markdown().count("\n") == len(rows) + 1
    short = prediction.choices_markdown(where=False)
    assert short.count("\n") == len(rows) + 1 and "ftd_lib" not in short


# ------------------------------------------------------------------------------------------
# the learning-curve explorer, without a kernel


@pytest.fixture(scope="module")
def explorer():
    return widgets.learning_curve_explorer(alpha=0.002, lam=0.9, runs=2, episodes=3)


def test_explorer_initial_state_matches_a_direct_run(explorer):
    ex = explorer
    assert not ex.errors and ex.png().startswith(PNG)
    assert "ftd-nn-readout" in ex.readout._dom_classes
    assert "ftd-nn-curves" in ex.image._dom_classes
    assert "ftd-nn-alpha" in ex.controls["alpha"]._dom_classes
    direct = prediction.learning_curves(0.002, 0.9, runs=2, episodes=3)
    for m in direct:
        np.testing.assert_array_equal(ex.state["data"][m]["errors"], direct[m]["errors"])
        metric = direct[m]["metric"].mean()
        assert f"<b>{metric:.3f}</b>" in ex.readout.value
    assert "α = 0.002, λ = 0.90" in ex.readout.value and "(K = 44)" in ex.readout.value


def test_explorer_slider_moves_recompute_and_redraw(explorer):
    ex = explorer
    png0, text0 = ex.png(), ex.readout.value
    ex.controls["alpha"].value = 0.06
    ex.controls["lam"].value = 1.0
    assert not ex.errors and ex.error.value == ""
    assert ex.png() != png0 and ex.readout.value != text0
    assert ex.state["alpha"] == 0.06 and ex.state["lam"] == 1.0
    direct = prediction.learning_curves(0.06, 1.0, runs=2, episodes=3)
    for m in direct:
        np.testing.assert_array_equal(ex.state["data"][m]["errors"], direct[m]["errors"])
    # TD(1) at alpha = 0.06 diverges in both runs: infinite metric, said in red
    assert direct["td_lambda"]["diverged"].all()
    assert "2 of 2 runs diverged" in ex.readout.value and "<b>∞</b>" in ex.readout.value
    assert "(K = ∞)" in ex.readout.value


def test_explorer_caches_settings(explorer, monkeypatch):
    ex = explorer
    calls = []
    real = prediction.learning_curves

    def counting(*a, **k):
        calls.append(a)
        return real(*a, **k)

    monkeypatch.setattr(prediction, "learning_curves", counting)
    ex.controls["alpha"].value = 0.002
    ex.controls["lam"].value = 0.9  # back to the first setting: cached
    assert calls == [(0.002, 1.0)]  # only the intermediate (0.002, 1.0) was new
    assert "α = 0.002, λ = 0.90" in ex.readout.value


def test_explorer_shows_errors_in_the_widget(monkeypatch):
    ex = widgets.learning_curve_explorer(alpha=0.002, lam=0.0, runs=1, episodes=1)
    assert not ex.errors

    def boom(*a, **k):
        raise RuntimeError("engine exploded")

    monkeypatch.setattr(prediction, "learning_curves", boom)
    ex.controls["lam"].value = 0.5
    assert ex.errors and "engine exploded" in ex.error.value


def test_readout_text():
    d = {"td_lambda": dict(errors=np.array([[0.5, np.inf]]), diverged=np.array([True]),
                           mean=np.array([0.5, np.inf]), metric=np.array([np.inf]), K=None),
         "forward_td_lambda": dict(errors=np.array([[0.5, 0.25]]), diverged=np.array([False]),
                                   mean=np.array([0.5, 0.25]), metric=np.array([0.375]), K=7)}
    text = widgets.learning_curve_readout(0.01, 0.5, d)
    assert "TD(λ): mean error over 2 episodes <b>∞</b>, last episode ∞" in text
    assert "1 of 1 runs diverged" in text
    assert "forward TD(λ) (K = 7): mean error over 2 episodes <b>0.375</b>" in text


# ------------------------------------------------------------------------------------------
# exercises


def test_check_true_value(capsys):
    def loop(x, v):  # the student's loop, as the notebook suggests it
        n, term = 0, False
        while not term:
            x, v, term = mc.mountain_car_step(x, v, mc.evaluation_policy(x, v))
            n += 1
        return -n

    assert nb05.check_true_value(loop)
    assert f"v{nb05.STATE} = {mc.true_value(*nb05.STATE):g}" in capsys.readouterr().out
    assert not nb05.check_true_value(lambda x, v: -loop(x, v))
    assert "sign" in capsys.readouterr().out
    assert not nb05.check_true_value(lambda x, v: loop(x, v) - 1)
    assert "Off by one" in capsys.readouterr().out
    assert not nb05.check_true_value(lambda x, v: loop(x, v) + 7)
    assert not nb05.check_true_value(lambda x, v: -117.0)  # right at nb05.STATE alone
    assert not nb05.check_true_value(mc.true_value(*nb05.STATE))  # a number, not a function
    assert not nb05.check_true_value(...)
    assert not nb05.check_true_value("abc")


def test_check_constant_baseline():
    _, values = mc.evaluation_states(nb05.N_EVAL, nb05.EVAL_SEED)
    ratio = values.std() / np.sqrt(np.mean(values**2))
    assert nb05.check_constant_baseline(ratio)
    assert not nb05.check_constant_baseline(round(ratio, 3))  # rounded: "don't round"
    median = np.sqrt(np.mean((values - np.median(values)) ** 2)) / np.sqrt(np.mean(values**2))
    assert not nb05.check_constant_baseline(median)  # the median is not the best constant
    assert not nb05.check_constant_baseline(1.0)
    assert not nb05.check_constant_baseline(None)
    b = nb05._constant_baselines()
    assert b["best_constant"] == pytest.approx(values.mean())
    assert 0 < b["ratio"] < 1 and math.isclose(b["ratio"], ratio)


def test_check_eta_experiment_reads_the_stored_results_itself():
    """Exercise 3's (c) is compared with the check's own reading of the stored Figure 3 right
    results at the student's λ (a grid point of them, never the paper's 0.9) over the student's
    100 runs, not with anything handed to it; without an id, λ = 0.9 and every run: the
    figure's own points."""
    res = figures.stored("fig3-right")
    a = res.arrays

    def by_hand(lam, runs):  # the cell found by its curve and λ, the runs' errors summed
        out = []
        for eta in nb05.ETAS:
            (cell,) = [i for i in range(len(a["curve"]))
                       if a["curve"][i] == f"η = {eta:g}" and a["lam"][i] == lam]
            out.append(sum(float(a["metric"][cell, r]) for r in runs) / len(runs))
        return out

    for sid in ("s1", "s2", "s3"):
        exercises.use_student(sid)
        e = nb05.given_experiment()
        assert e["lam"] in nb05.LAMS_EXPERIMENT and e["lam"] != 0.9
        assert len(e["runs"]) == 100 and e["runs"].step == 1 and 0 <= e["runs"].start <= 100
        assert nb05._fig3_right_at(**e) == pytest.approx(by_hand(**e), rel=1e-12)
    exercises.use_student(None)
    assert nb05.given_experiment() == dict(lam=0.9, runs=range(200))
    s = res.summary()
    figure = [float(s[f"η = {eta:g}"]["y"][list(s[f"η = {eta:g}"]["x"]).index(0.9)])
              for eta in nb05.ETAS]
    assert nb05._fig3_right_at(0.9, range(200)) == pytest.approx(figure, rel=1e-12)
    assert "hold 200 runs" in nb05._fig3_right_at(0.9, range(150, 250))


def test_check_eta_experiment_names_the_means_over_all_runs(capsys, monkeypatch):
    """(c): the means over all 200 runs (the figure's points) at the student's own λ are named
    as such; the right means over the student's runs pass; one run off fails."""
    monkeypatch.setattr(nb05, "_RECORDED", {})
    monkeypatch.setattr(nb05, "_SHOWN", set())
    exercises.use_student("s1")
    try:
        e = nb05.given_experiment()
        Ks = [math.ceil(math.log(eta) / math.log(e["lam"])) for eta in nb05.ETAS]
        assert nb05.record_prediction("rises", "a shorter K cuts the return like a lower lambda")
        capsys.readouterr()
        whole = nb05._fig3_right_at(e["lam"], range(200))
        assert nb05.check_eta_experiment(Ks, "rises", whole) is False
        assert "means over all 200 runs" in capsys.readouterr().out
        step = 1 if e["runs"].stop < 200 else -1  # one run off, inside the stored 200
        shifted = range(e["runs"].start + step, e["runs"].stop + step)
        assert nb05.check_eta_experiment(Ks, "rises", nb05._fig3_right_at(e["lam"], shifted)) \
            is False
        assert "errors at λ" in capsys.readouterr().out
        assert nb05.check_eta_experiment(Ks, "rises", nb05._fig3_right_at(**e)) is True
    finally:
        exercises.use_student(None)


def test_the_right_baseline_passes_where_the_median_is_the_mean(capsys):
    """Id 'solved' draws a sample whose median error equals the mean's to 2e-9 (the nbgrader
    flow found it): the right answer passes there, rather than being called the median's."""
    exercises.use_student("solved")
    try:
        b = nb05._constant_baselines(**nb05.given_sample())
        assert math.isclose(b["ratio"], b["median_ratio"], rel_tol=1e-6)
        assert nb05.check_constant_baseline(b["ratio"]) is True
    finally:
        exercises.use_student(None)
    b = nb05._constant_baselines(**nb05.given_sample())  # the paper's sample: they differ
    assert not nb05.check_constant_baseline(b["median_ratio"])
    assert "median's error" in capsys.readouterr().out
