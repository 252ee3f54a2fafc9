"""ftd_lib.course.nb06_nn_control (imported as ``control``), task_pictures and the
self-checks of notebook 06, against slow obvious forms: greedy rollouts
against the scalar dynamics stepped by hand, the engine (with learning switched off) against the
greedy rollout, recorded trajectories against a replay, plotted data against the numbers."""

import importlib
import math

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ftd_lib.approx import MLP
from ftd_lib.course import live as figures
from ftd_lib.course import nb06_figure4 as fig4
from ftd_lib.course import nb06_greedy as greedy
from ftd_lib.course import nb06_nn_control as control
from ftd_lib.course import quick, task_pictures
from ftd_lib.course.exercises import nb06
from ftd_lib.engine import initial_weights, run_control
from ftd_lib.envs import cartpole as cp
from ftd_lib.envs import mountain_car as mc
from ftd_lib.envs.tasks import gamma
from ftd_lib.methods import label as method_label
from ftd_lib.repro.chunks import cut_chunks
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.results import reproduce_command
from ftd_lib.repro.runs import run_figure
from ftd_lib.returns import k_bound

pytestmark = pytest.mark.slow  # control runs


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _scalar_step(task, s, a):
    if task == "mountain_car":
        x, v, term = mc.mountain_car_step(s[0], s[1], a)
        return np.array([x, v]), term
    return cp.cartpole_step(s, a)


def _obs(task, s):
    return mc.scale_obs(s[0], s[1]) if task == "mountain_car" else cp.scale_obs(s)


def _greedy_by_hand(weights, task, start, max_steps):
    """One start, one step at a time: Q of every action's network, first maximum, the scalar
    dynamics."""
    n_in = 2 if task == "mountain_car" else 4
    net = MLP(n_in, 50)
    s = np.asarray(start, dtype=float)
    states, actions = [s], []
    for _ in range(max_steps):
        q = [float(net.value(w, _obs(task, s))) for w in weights]
        a = max(range(len(q)), key=lambda i: (q[i], -i))  # first of the maxima
        s, term = _scalar_step(task, s, a)
        states.append(s)
        actions.append(a)
        if term:
            break
    return np.array(states), np.array(actions), bool(term)


def _random_weights(task, seed, scale=1.0):
    n_in, A = (2, 3) if task == "mountain_car" else (4, 2)
    w = initial_weights(seed, [0], n_in, 50, n_nets=A)[0]
    return w * scale


# ------------------------------------------------------------------------ greedy rollouts


@pytest.mark.parametrize("task,cap", [("mountain_car", 300), ("cartpole", 200)])
def test_greedy_rollouts_equal_scalar_env_by_hand(task, cap):
    w = _random_weights(task, 3, scale=3.0)
    starts = control.start_states(task, 4, seed=11)
    ro = greedy.greedy_rollouts(w, task, starts, max_steps=cap)
    for i, s0 in enumerate(starts):
        states, actions, term = _greedy_by_hand(w, task, s0, cap)
        T = len(actions)
        assert ro["steps"][i] == T
        assert ro["terminal"][i] == term
        np.testing.assert_array_equal(ro["actions"][:T, i], actions)
        np.testing.assert_allclose(ro["states"][: T + 1, i], states, rtol=0, atol=1e-12)
        # a row that ended stays put and takes no more actions
        assert np.all(ro["actions"][T:, i] == -1)
        assert np.all(ro["states"][T:, i] == ro["states"][T, i])
        tr = greedy.rollout_trajectory(ro, i)
        assert len(tr["states"]) == T + 1 and len(tr["actions"]) == T
    reward = -1.0 if task == "mountain_car" else 1.0
    np.testing.assert_array_equal(ro["returns"], reward * ro["steps"])


def test_greedy_ties_go_to_the_lowest_action():
    # every network the same: all Q values tie, so the greedy action is always 0 (push left)
    w = np.tile(_random_weights("mountain_car", 0)[:1], (3, 1))
    ro = greedy.greedy_rollouts(w, "mountain_car", [[-0.5, 0.0]], max_steps=50)
    assert np.all(ro["actions"][:, 0] == 0)


def test_q_values_are_the_mlp_of_each_action():
    w = _random_weights("cartpole", 5)
    s = control.start_states("cartpole", 3)
    q = greedy.q_values(w, "cartpole", s)
    net = MLP(4, 50)
    for a in range(2):
        np.testing.assert_allclose(q[:, a], net.value(w[a], cp.scale_obs(s)), rtol=1e-14)
    with pytest.raises(ValueError, match="shape"):
        greedy.q_values(w[:1], "cartpole", s)
    with pytest.raises(ValueError, match="task"):
        greedy.q_values(w, "pendulum", s)


@pytest.mark.parametrize("task,cap", [("mountain_car", 150), ("cartpole", 1000)])
def test_engine_without_learning_plays_the_greedy_rollout(task, cap):
    """epsilon = 0 and a vanishing step size: the engine's agent acts greedily on theta_0,
    so its recorded episode must be the greedy rollout of initial_weights from the same start.
    This pins the engine's weight layout (final_weights, reference layout, one net per action)
    and its tie rule."""
    run = control.train(task, "forward_sarsa_lambda", alpha=1e-300, lam=0.5, runs=2, episodes=1,
                     max_steps=cap, epsilon=0.0, record=True)
    n_in, A = (2, 3) if task == "mountain_car" else (4, 2)
    w0 = initial_weights(control.SEED, [0, 1], n_in, 50, n_nets=A)
    np.testing.assert_allclose(run["final_weights"], w0, rtol=0, atol=1e-250)
    for r in range(2):
        ep = run["episodes"][r][0]
        ro = greedy.greedy_rollouts(w0[r], task, ep["states"][:1], max_steps=cap)
        tr = greedy.rollout_trajectory(ro, 0)
        np.testing.assert_array_equal(ep["actions"], tr["actions"])
        np.testing.assert_array_equal(ep["states"], tr["states"])
        assert run["lengths"][r, 0] == len(ep["actions"])


# ---------------------------------------------------------------------- training, recording


def test_recording_does_not_change_what_the_engine_computes():
    kw = dict(alpha=0.03, lam=0.6, runs=2, episodes=6)
    a = control.train("cartpole", "forward_sarsa_lambda", record=True, **kw)
    b = control.train("cartpole", "forward_sarsa_lambda", record=False, **kw)
    np.testing.assert_array_equal(a["returns"], b["returns"])
    # recording runs the batch, not recording the kernel: bit for bit where torch's CPU path
    # is the one the kernel emulates (engine.premises), else to rounding
    from ftd_lib.engine.premises import kernel_premises

    atol = 0.0 if kernel_premises() is None else 1e-10
    np.testing.assert_allclose(a["final_weights"], b["final_weights"], rtol=0, atol=atol)
    direct = run_control("forward_sarsa_lambda", control._settings(0.03, 0.6, 0.99, 0.01, 2),
                         control.SEED, [0, 1], 6, env="cartpole")
    np.testing.assert_array_equal(a["returns"], direct.returns)
    assert "episodes" in a and "episodes" not in b


@pytest.mark.parametrize("task,method", [("mountain_car", "forward_sarsa_lambda"),
                                         ("cartpole", "sarsa_lambda")])
def test_recorded_episodes_replay_with_the_dynamics(task, method):
    run = control.train(task, method, alpha=0.01, lam=0.8, runs=2, episodes=3, max_steps=120)
    reward = -1.0 if task == "mountain_car" else 1.0
    for r in range(2):
        eps = run["episodes"][r]
        assert len(eps) == 3
        for k, ep in enumerate(eps):
            T = len(ep["actions"])
            assert run["lengths"][r, k] == T
            assert run["returns"][r, k] == reward * T
            for t in range(T):
                s, term = _scalar_step(task, ep["states"][t], int(ep["actions"][t]))
                np.testing.assert_array_equal(s, ep["states"][t + 1])
                assert term == (t == T - 1 and ep["end"] == "terminal")
            assert ep["end"] == "terminal" or (ep["end"] == "truncated" and T == 120)
    assert control.last_episode(run, 1) is run["episodes"][1][-1]


def test_train_reports_divergence_and_summary():
    run = control.train("mountain_car", "sarsa_lambda", alpha=0.03, lam=0.9, runs=1, episodes=3,
                     max_steps=1000, record=False)
    assert run["diverged"].all()  # Sarsa(0.9) at alpha = 0.03: the traces blow up
    s = control.train_summary(run)
    assert s["n_diverged"] == 1 and math.isnan(s["mean_return"])
    assert run["K"] is None
    fwd = control.train("cartpole", "forward_sarsa_lambda", alpha=0.03, lam=0.9, runs=1,
                     episodes=2, record=False)
    assert fwd["K"] == k_bound(0.99, 0.9, 0.01) and fwd["gamma"] == gamma("cartpole")
    with pytest.raises(ValueError, match="method"):
        control.train("cartpole", "q_learning", alpha=0.1, lam=0.5)
    with pytest.raises(ValueError, match="runs"):
        control.train("cartpole", "sarsa_lambda", alpha=0.1, lam=0.5, runs=0)


def test_lambda_zero_forward_sarsa_is_sarsa_zero():
    kw = dict(alpha=0.03, lam=0.0, runs=2, episodes=15, record=False)
    f = control.train("cartpole", "forward_sarsa_lambda", **kw)
    s = control.train("cartpole", "sarsa_lambda", **kw)
    assert f["K"] == 1
    np.testing.assert_array_equal(f["returns"], s["returns"])
    np.testing.assert_allclose(f["final_weights"], s["final_weights"], rtol=0, atol=1e-12)


def test_learning_curves_plot_the_engine_returns():
    runs = {m: control.train("cartpole", m, alpha=0.03, lam=0.6, runs=2, episodes=5,
                          record=False) for m in ("sarsa_lambda", "forward_sarsa_lambda")}
    ax = control.plot_learning_curves(runs)
    for label, run in runs.items():
        line = next(ln for ln in ax.get_lines() if ln.get_label() == label)
        np.testing.assert_array_equal(line.get_ydata(), run["returns"].mean(axis=0))
        np.testing.assert_array_equal(line.get_xdata(), np.arange(1, 6))


# ------------------------------------------------------------------------------ the tasks


def test_heuristic_steps_and_trajectory_by_hand():
    x, v, n = -0.5, 0.0, 0
    while True:
        x, v, term = mc.mountain_car_step(x, v, 2 if v >= 0 else 0)
        n += 1
        if term:
            break
    assert control.heuristic_steps(-0.5) == n
    tr = control.heuristic_trajectory(-0.5)
    assert len(tr["actions"]) == n and tr["end"] == "terminal"
    assert tr["states"][-1][0] >= mc.X_MAX
    # always pushing right never gets over the hill from the valley
    assert control.heuristic_steps(-0.5, policy=lambda x, v: 2, max_steps=3000) == -1


def test_fixed_action_steps_against_the_batch_env():
    env = cp.CartPoleBatch(0, [0], max_steps=None)
    env.reset()
    env.state[0] = [0.01, 0.0, -0.02, 0.0]
    n = 0
    while True:
        _, r, term, _ = env.step(np.array([1]))
        n += int(r[0])
        if term[0]:
            break
    assert control.fixed_action_steps(1, start=[0.01, 0.0, -0.02, 0.0]) == n
    assert control.fixed_action_steps(0, max_steps=5) == 5  # capped


def test_start_states_follow_the_start_distributions():
    s = control.start_states("mountain_car", 50)
    assert np.all((s[:, 0] >= mc.START_LOW) & (s[:, 0] < mc.START_HIGH)) and np.all(s[:, 1] == 0)
    c = control.start_states("cartpole", 50)
    assert np.all(np.abs(c) <= cp.START_HIGH)
    assert not np.array_equal(c, control.start_states("cartpole", 50, seed=control.SEED))
    np.testing.assert_array_equal(c[:5], control.start_states("cartpole", 5))


def test_greedy_probability_matches_the_engines_draws():
    # the engine's rule: u1 < eps -> action floor(A * u2), else the greedy action (here 0)
    rng = np.random.default_rng(0)
    u1, u2 = rng.random(400_000), rng.random(400_000)
    for A in (2, 3):
        a = np.where(u1 < 0.05, np.floor(A * u2), 0)
        p = control.greedy_probability(0.05, A)
        assert abs(np.mean(a == 0) - p) < 4 * math.sqrt(p * (1 - p) / len(a))
    assert control.greedy_probability(0.0, 3) == 1.0
    with pytest.raises(ValueError):
        control.greedy_probability(1.5, 2)


def test_discounted_return_against_a_loop():
    assert control.discounted_return(1000, 0.99) == pytest.approx(sum(0.99**k for k in range(1000)))
    assert control.discounted_return(7, 1.0, reward=-1.0) == -7.0
    assert control.discounted_return(0, 0.5) == 0.0


def test_choices_point_at_real_places():
    rows = control.choices()
    items = [r["item"] for r in rows]
    for needed in ("network", "initialisation", "input scaling", "episode cap", "truncation",
                   "γ", "ε-greedy", "ties"):
        assert needed in items
    for r in rows:
        for ref in r["where"].replace(";", " ").replace("/", " ").split():
            if not ref.startswith("ftd_lib"):
                continue
            parts = ref.split(".")
            for cut in range(len(parts), 0, -1):  # longest importable module, then attributes
                try:
                    obj = importlib.import_module(".".join(parts[:cut]))
                    break
                except ModuleNotFoundError:
                    continue
            for name in parts[cut:]:
                obj = getattr(obj, name)
    md = control.choices_markdown(rows)
    assert md.count("\n") == len(rows) + 1
    assert f"{mc.DEFAULT_MAX_STEPS} steps" in md and f"{cp.DEFAULT_MAX_STEPS} steps" in md
    short = control.choices_markdown(rows, where=False)  # the notebook's table, without places
    assert short.count("\n") == len(rows) + 1 and "ftd_lib" not in short
    assert all(line.replace("\\|", "").count("|") == 4 for line in short.splitlines())
    two = control.choices_markdown(rows, where=False, items=("γ", "truncation"))
    assert two.splitlines()[2:] == [line for line in short.splitlines()[2:]
                                    if line.startswith(("| truncation |", "| γ |"))]
    assert len(two.splitlines()) == 4
    with pytest.raises(ValueError, match="items"):
        control.choices_markdown(rows, items=("no such choice",))


# ------------------------------------------------------------------------------ drawing


def test_snapshot_times():
    t = task_pictures.snapshot_times(100, 5)
    assert list(t) == [0, 25, 50, 75, 100]
    assert list(task_pictures.snapshot_times(3, 8)) == [0, 1, 2, 3]


def test_trajectory_figures_draw_the_states():
    tr = control.heuristic_trajectory(-0.5)
    fig = task_pictures.plot_mountain_car_trajectory(tr, "test")
    a2 = next(ax for ax in fig.axes if ax.get_title() == "position, velocity and actions")
    line = next(ln for ln in a2.get_lines() if ln.get_label() == "position x")
    np.testing.assert_array_equal(line.get_ydata(), tr["states"][:, 0])
    w = _random_weights("cartpole", 1)
    ro = greedy.greedy_rollouts(w, "cartpole", control.start_states("cartpole", 1))
    ctr = greedy.rollout_trajectory(ro, 0)
    fig = task_pictures.plot_cartpole_trajectory(ctr, "test", n_snapshots=4)
    ks = task_pictures.snapshot_times(len(ctr["states"]) - 1, 4)
    for ax, k in zip(fig.axes[: len(ks)], ks, strict=True):
        pole = ax.get_lines()[-1]  # the pole: from the cart's top to its tip
        (x0, x1), (y0, y1) = pole.get_xdata(), pole.get_ydata()
        assert x0 == pytest.approx(ctr["states"][k, 0])
        assert math.atan2(x1 - x0, y1 - y0) == pytest.approx(ctr["states"][k, 2])



def test_trajectory_figures_project_their_text_at_16px():
    """The two trajectory pictures are as wide as a slide lets 13-pt text stay >= 16 px
    (``style.projected_text_px``: 15.5 inches had shrunk it to 14.7 and 11.7 px)."""
    from ftd_lib.style import MIN_PROJECTED_PX, projected_text_px

    tr = control.heuristic_trajectory(-0.5)
    assert projected_text_px(task_pictures.plot_mountain_car_trajectory(tr, "t")) \
        >= MIN_PROJECTED_PX
    w = _random_weights("cartpole", 1)
    ro = greedy.greedy_rollouts(w, "cartpole", control.start_states("cartpole", 1))
    fig = task_pictures.plot_cartpole_trajectory(greedy.rollout_trajectory(ro, 0), "t")
    assert projected_text_px(fig) >= MIN_PROJECTED_PX

# ------------------------------------------------------------------------------ Figure 4


def _fake_runner(task, *, device, progress):
    """A cheap stand-in for the engine: return = 100 * lambda + 1000 * alpha (+ run id),
    forward Sarsa 5 better, and Sarsa(lambda >= 0.9) diverged."""
    s = task.settings
    base = 100 * s[:, 1] + 1000 * s[:, 0] + task.run_ids
    if task.method == "forward_sarsa_lambda":
        base = base + 5
    div = np.zeros(task.rows, bool)
    if task.method == "sarsa_lambda":
        div = s[:, 1] >= 0.9
    values = np.repeat(base[:, None], task.n_episodes, axis=1)
    values[div] = np.nan
    return {"values": values, "diverged": div}


def _fake_results(name="fig4-left", tmp_path=None):
    fig = figures.live_figure(name)
    return run_figure(fig, tmp_path, runner=_fake_runner, progress=False, plot=False)


def test_live_figure_definitions(monkeypatch):
    for name in ("fig4-left", "fig4-right"):
        d = figures.LIVE[name]
        f = figures.live_figure(name)
        assert f.runs == d["runs"] and f.episodes == d["episodes"] and f.max_steps == d[
            "max_steps"]
        assert len(f.cells) == 2 * len(d["lams"]) * len(d["alphas"])
        assert {c.gamma for c in f.cells} == {gamma(figure(name).env)}
        assert len(cut_chunks(f)) == 2  # one batch per method
        assert not f.at_paper_scale
    assert figures.live_figure("fig4-left", max_steps=None).max_steps is None
    with pytest.raises(ValueError, match="figure"):
        figures.live_figure("fig5-left")
    monkeypatch.setenv("CI", "true")
    assert quick()
    monkeypatch.setenv("CI", "0")
    assert not quick()


def test_best_points_and_claims_from_data(tmp_path):
    res = _fake_results("fig4-left", tmp_path)
    summ = res.summary()  # per λ, the best mean return over α
    lams = np.array(figures.LIVE["fig4-left"]["lams"])
    best_alpha = max(figures.LIVE["fig4-left"]["alphas"])
    runs = figures.LIVE["fig4-left"]["runs"]
    fwd = summ["forward_sarsa_lambda"]
    np.testing.assert_allclose(fwd["x"], lams)
    np.testing.assert_allclose(fwd["y"], 100 * lams + 1000 * best_alpha + 5 + np.mean(
        np.arange(runs)))
    assert figures.best_points(res)["forward_sarsa_lambda"]["x"] == lams.max()
    sarsa = summ["sarsa_lambda"]
    assert np.isnan(sarsa["y"][lams >= 0.9]).all() and np.isfinite(sarsa["y"][lams < 0.9]).all()
    diff = fig4.forward_minus_sarsa(res)
    assert all(diff[lam] == pytest.approx(5.0) for lam in lams if lam < 0.9)
    assert all(math.isnan(diff[lam]) for lam in lams if lam >= 0.9)
    line = fig4.format_forward_minus_sarsa(res)
    assert "λ = 0: +5.0" in line and "λ = 0.9: Sarsa(λ) diverged" in line
    text = figures.format_best(res)
    assert "a run diverged at every α" in text and f"at α = {best_alpha:<7g}" in text
    rows = figures.claims_side_by_side({"fig4-left": res, "fig4-right": None})
    assert [r["number"] for r in rows] == [5, 6, 7, 8]
    assert rows[0]["verdict"].startswith("✔ agrees") and "below paper scale" in rows[0][
        "verdict"]
    assert all(r["verdict"].startswith("— no data") for r in rows[1:])
    md = figures.claims_markdown(rows)
    assert md.count("\n") == 5


def test_plot_pair_draws_stored_and_live(tmp_path):
    res = _fake_results("fig4-right", tmp_path)
    fig = figures.Comparison("fig4-right", None, res).plot()
    a1, a2 = fig.axes
    assert reproduce_command("fig4-right", "paper") in a1.texts[0].get_text()
    summ = res.summary()
    finite_min = min(np.nanmin(s["y"]) for s in summ.values())
    for curve, s in summ.items():
        line = next(ln for ln in a2.get_lines() if ln.get_label() == method_label(curve))
        y, ok = np.asarray(line.get_ydata()), np.isfinite(s["y"])
        np.testing.assert_array_equal(line.get_xdata(), s["x"])
        np.testing.assert_allclose(y[ok], s["y"][ok])  # the best-alpha means, as summarised
        # a point whose every alpha diverged: left out (nan) or pinned below the chart
        assert np.all(~np.isfinite(y[~ok]) | (y[~ok] < finite_min))
    assert (~np.isfinite(summ["sarsa_lambda"]["y"])).any()
    fig = figures.Comparison("fig4-right", res, res).plot()
    assert len(fig.axes[0].get_lines()) > 0


def test_stored_reads_the_repository_results(tmp_path, monkeypatch):
    import ftd_lib

    root = figures.results_dir().parent
    assert (root / "ftd_lib" / "__init__.py").is_file()
    monkeypatch.chdir(root / "notebooks")  # where a notebook runs
    assert figures.results_dir() == root / "results"
    monkeypatch.chdir(tmp_path)  # outside the repository: next to the installed package
    assert figures.results_dir().parent.resolve() == (
        __import__("pathlib").Path(ftd_lib.__file__).resolve().parents[1])
    _fake_results("fig4-left", tmp_path / "res")
    assert figures.stored("fig4-left", tmp_path / "res") is not None
    assert figures.stored("fig4-right", tmp_path / "res") is None


# ------------------------------------------------------------------------------ exercises


def _my_steps(x0, v0):
    """A student's exercise 1: push in the direction of the velocity, count the steps."""
    x, v, n, terminal = x0, v0, 0, False
    while not terminal:
        x, v, terminal = mc.mountain_car_step(x, v, 2 if v >= 0 else 0)
        n += 1
    return n


def _my_k(gamma, lam, eta):
    """A student's exercise 2: the smallest K with (γλ)^K ≤ η, by counting."""
    k = 1
    while (gamma * lam) ** k > eta:
        k += 1
    return k


def test_exercise_checks(capsys):
    from ftd_lib.algorithms import epsilon_greedy

    assert nb06.check_heuristic_steps(_my_steps)
    assert not nb06.check_heuristic_steps(lambda x0, v0: _my_steps(x0, v0) + 1)  # off by one
    assert not nb06.check_heuristic_steps(control.heuristic_steps)  # the library's: refused
    assert nb06.check_k(_my_k)
    assert not nb06.check_k(lambda g, lam, eta: math.floor(math.log(eta) / math.log(g * lam))
                            if 0 < g * lam < 1 else 1)  # rounded down
    assert not nb06.check_k(k_bound)  # the library's: refused
    right = (1 - 0.05 + 0.05 / 3, 1 - 0.05 + 0.05 / 2)
    assert nb06.check_greedy_probability(*right)  # the check measures epsilon_greedy itself
    share = nb06.measure_greedy_share(nb06.Q_MOUNTAIN_CAR, 0.05, n=20_000, seed=1)
    rng = np.random.default_rng(1)
    by_hand = np.mean([epsilon_greedy(np.asarray(nb06.Q_MOUNTAIN_CAR, float), 0.05, rng) == 1
                       for _ in range(20_000)])
    assert share == by_hand and abs(share - right[0]) < 0.01
    assert not nb06.check_greedy_probability(0.95, 0.95)
    assert nb06.check_discounted_return(round(sum(0.99**k for k in range(1000)), 3))
    assert not nb06.check_discounted_return(1000)
    # one term too many adds γ^1000 ≈ 4e-5: inside the check's three decimals, so the right
    # answer wins (a slip the tolerance cannot tell from the answer is never called one) ...
    assert nb06.check_discounted_return(sum(0.99**k for k in range(1001)))
    # ... and where an episode is short enough for it to show, the slip is named
    from ftd_lib.course.exercises import student

    short = next(s for s in (f"s{i}" for i in range(500))
                 if student.numbers_of(s, nb06.given_episode_length)["n_rewards"] < 300)
    n = student.numbers_of(short, nb06.given_episode_length)["n_rewards"]
    try:
        student.use_student(short)
        capsys.readouterr()
        assert nb06.check_discounted_return(round(sum(0.99**k for k in range(n)), 3))
        assert not nb06.check_discounted_return(sum(0.99**k for k in range(n + 1)))
        assert "one term too many" in capsys.readouterr().out
    finally:
        student.use_student(None)
    for check in (nb06.check_heuristic_steps, nb06.check_k, nb06.check_discounted_return):
        assert not check(None)
    assert not nb06.check_greedy_probability(None, 0.5)
    out = capsys.readouterr().out
    assert "❌" in out and "No answer yet" in out
