"""ftd_lib.course.nb01_td_basics, nb02_lambda_return and the self-checks of notebooks 01-02,
against slow obvious forms and hand numbers."""

import inspect
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pytest
from conftest import random_episodes

from ftd_lib import algorithms
from ftd_lib.approx import MLP, Linear
from ftd_lib.course import nb01_td_basics, nb02_lambda_return
from ftd_lib.course.exercises import nb01, nb02
from ftd_lib.envs.random_walk import (
    features,
    random_walk_episodes,
    random_walk_states,
    rms_error,
    true_values,
)
from ftd_lib.returns import interim_lambda_return, n_step_return
from ftd_lib.rng import run_generator


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ---------------------------------------------------------------------------- notebook 01


def students_own(nb, check):
    """The student's function of ``check``'s exercise: the notebook's worked solution (the
    checks refuse the library's own, so it cannot stand in for a student's)."""
    from test_fail_closed import _solution

    ns = _solution(nb, check)
    return next(v for k, v in ns.items() if k.startswith("my_") and callable(v))


def test_discounted_return_by_hand():
    assert nb01_td_basics.discounted_return([1, 1, 1, 1, 1], 0.9) == pytest.approx(4.0951)
    assert nb01_td_basics.discounted_return([1.0, 0.0, 2.0], 0.5) == pytest.approx(1.5)
    assert nb01_td_basics.discounted_return(np.ones(26), 1.0) == 26.0


def test_monte_carlo_values_near_true_values():
    v = nb01_td_basics.monte_carlo_values(2000, seed=0)
    assert np.all(np.abs(v - true_values()) < 0.05 * true_values() + 0.2)
    # seeded: the same call gives the same numbers, another seed others
    assert np.array_equal(v, nb01_td_basics.monte_carlo_values(2000, seed=0))
    assert not np.array_equal(v, nb01_td_basics.monte_carlo_values(2000, seed=1))


def test_monte_carlo_values_one_episode_by_hand():
    s = random_walk_states(np.random.default_rng(5))
    T = len(s) - 1
    v = nb01_td_basics.monte_carlo_values(1, seed=5)
    assert s[T - 1] == 1  # the last step leaves state 1, with return 1
    for state in range(1, 11):  # a walk from 10 to the end passes every state
        returns = [T - t for t in range(T) if s[t] == state]  # one per visit
        assert v[state - 1] == pytest.approx(np.mean(returns))
    assert v[0] != 1.0  # this walk left state 1 to the right once: two visits


def test_source_without_docstring_keeps_the_code_and_its_comments():
    full = inspect.getsource(algorithms.td0)
    short = nb01_td_basics.source_without_docstring(algorithms.td0)
    doc = algorithms.td0.__doc__
    assert doc.splitlines()[0] in full and doc.splitlines()[0] not in short
    # every line of the code is kept, in order: the full source less the docstring's lines
    code = [ln for ln in full.splitlines() if ln not in short.splitlines()]
    assert len(code) == len(doc.splitlines()) and '"""' in code[0] and '"""' in code[-1]
    assert "# terminal: value 0" in short and short.startswith("def td0(")
    compile(short, "<td0>", "exec")  # still a valid function

    def no_doc(x):
        return x  # a comment

    assert nb01_td_basics.source_without_docstring(no_doc) == textwrap.dedent(
        inspect.getsource(no_doc))
    with pytest.raises(ValueError, match="func"):
        nb01_td_basics.source_without_docstring(len)


def test_td0_tabular_rejects_bad_alpha():
    with pytest.raises(ValueError, match="alpha"):
        nb01_td_basics.td0_tabular([np.array([2, 1, 0])], alpha=-0.1)


def test_td0_tabular_equals_td0_with_one_hot_features():
    rng = np.random.default_rng(3)
    states = [random_walk_states(rng) for _ in range(6)]
    V = nb01_td_basics.td0_tabular(states, alpha=0.3)
    eps = [(features(s), np.ones(len(s) - 1)) for s in states]
    W = algorithms.td0(eps, np.zeros(10), approx=Linear(10), alpha=0.3, gamma=1.0)
    ends = np.cumsum([len(s) - 1 for s in states]) - 1
    assert V.shape == (7, 10)
    assert np.all(V[0] == 0.0)
    assert np.max(np.abs(V[1:] - W[ends])) < 1e-12


def test_td0_snapshots_match_a_longer_run():
    snaps = nb01_td_basics.td0_snapshots(alpha=0.1, seed=0, after=(1, 10))
    rng = np.random.default_rng(0)
    V = nb01_td_basics.td0_tabular([random_walk_states(rng) for _ in range(10)], alpha=0.1)
    assert np.array_equal(snaps[1], V[1]) and np.array_equal(snaps[10], V[10])


def test_td0_alpha_comparison_is_the_mean_of_single_runs():
    alphas = [0.05, 0.5]
    got = nb01_td_basics.td0_alpha_comparison(alphas, n_runs=3, n_episodes=4, seed=7)
    assert got.shape == (2, 5)
    # column 0: the initial error, V = 0
    assert got[:, 0] == pytest.approx([rms_error(np.zeros(10))] * 2)
    for j, a in enumerate(alphas):
        runs = []
        for i in range(3):
            g = run_generator(7, i)
            states = [random_walk_states(g) for _ in range(4)]
            runs.append(rms_error(nb01_td_basics.td0_tabular(states, a)))
        assert got[j] == pytest.approx(np.mean(runs, axis=0), abs=1e-12)
    assert got[1, -1] < got[0, -1]  # after 4 episodes the large step size is ahead


# ---------------------------------------------------------------------------- notebook 02


def test_lambda_return_weights_by_hand():
    assert nb02_lambda_return.lambda_return_weights(0.5, 3) == pytest.approx([0.5, 0.25, 0.25])
    assert nb02_lambda_return.lambda_return_weights(0.0, 4) == pytest.approx([1, 0, 0, 0])
    assert nb02_lambda_return.lambda_return_weights(1.0, 4) == pytest.approx([0, 0, 0, 1])
    assert nb02_lambda_return.lambda_return_weights(0.7, 1) == pytest.approx([1.0])
    for lam in (0.1, 0.8, 0.99):
        assert nb02_lambda_return.lambda_return_weights(lam, 12).sum() == pytest.approx(1.0)
    with pytest.raises(ValueError):
        nb02_lambda_return.lambda_return_weights(1.5, 3)


def test_weighted_n_step_returns_are_the_interim_lambda_return(rng):
    T, gamma, lam = 8, 0.9, 0.7
    r = rng.normal(size=T)
    v = np.append(rng.normal(size=T), 0.0)
    for t, h in [(0, 8), (2, 5), (3, 4)]:
        g = nb02_lambda_return.n_step_returns(r, v, t, gamma)[: h - t]
        mix = nb02_lambda_return.lambda_return_weights(lam, h - t) @ g
        assert mix == pytest.approx(interim_lambda_return(r, v, t, h, gamma, lam), abs=1e-12)


def test_n_step_returns_ends():
    s, r, v = nb02_lambda_return.demo_episode(seed=3)
    g = nb02_lambda_return.n_step_returns(r, v, 0, 1.0)
    assert len(g) == len(r)
    assert g[0] == pytest.approx(1.0 + v[1])  # the TD(0) target
    assert g[-1] == pytest.approx(len(r))  # the Monte Carlo return: T steps of reward 1
    assert np.all(v[s == 0] == 0.0)
    assert np.all(np.diff(g) > 0)  # the learned values are still far too low


def test_interim_returns_vs_horizon():
    r = np.array([1.0, 0.0, 2.0])
    v = np.array([0.7, 0.5, 1.0, 0.0])
    g0 = nb02_lambda_return.interim_returns_vs_horizon(r, v, 0, 0.9, 0.0)
    assert g0 == pytest.approx([1.45, 1.45, 1.45])  # lambda = 0: the TD(0) target for every h
    g1 = nb02_lambda_return.interim_returns_vs_horizon(r, v, 0, 0.9, 1.0)
    assert g1 == pytest.approx([1.45, 1.81, 2.62])  # lambda = 1: the (h-t)-step return


def test_eligibility_traces_by_hand():
    x = features(np.array([3, 2, 3, 3]))
    e = nb02_lambda_return.eligibility_traces(x, 1.0, 1.0)  # lambda = 1: visit counts
    assert e[-1][[1, 2]] == pytest.approx([1.0, 3.0])
    e = nb02_lambda_return.eligibility_traces(x, 1.0, 0.5)
    assert e[-1][2] == pytest.approx(1 + 0.5 + 0.125)
    assert e[-1][1] == pytest.approx(0.25)


def test_eligibility_traces_drive_the_td_lambda_update(rng):
    lin = Linear(4)
    [(x, r)] = random_episodes(rng, 4, [7])
    w0 = rng.normal(size=4)
    gamma, lam, alpha = 0.9, 0.8, 0.1
    W = algorithms.td_lambda([(x, r)], w0, approx=lin, alpha=alpha, lam=lam, gamma=gamma)
    e = nb02_lambda_return.eligibility_traces(x[:-1], gamma, lam)
    w = w0
    for t in range(7):
        v_next = 0.0 if t == 6 else w @ x[t + 1]
        delta = r[t] + gamma * v_next - w @ x[t]
        assert W[t] - w == pytest.approx(alpha * delta * e[t], abs=1e-12)
        w = W[t]


def test_online_update_count_counts_the_updates(monkeypatch):
    calls = []
    real = algorithms.td_update

    def counting(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(algorithms, "td_update", counting)
    for T in (1, 5, 13):
        calls.clear()
        x = np.eye(3)[np.arange(T + 1) % 3]
        algorithms.online_lambda_return([(x, np.ones(T))], np.zeros(3), approx=Linear(3), alpha=0.1,
                               lam=0.5, gamma=1.0)
        assert len(calls) == nb02_lambda_return.online_update_count(T) == T * (T + 1) // 2
    with pytest.raises(ValueError):
        nb02_lambda_return.online_update_count(0)


# ---------------------------------------------------------------------------- Figure 1


def test_normalised_rms_by_hand():
    v = true_values()
    W = np.array([np.zeros(10), v, v / 2])
    assert nb02_lambda_return.normalised_rms(W) == pytest.approx([1.0, 0.0, 0.5])
    W = np.array([v + 2.0, v + 1.0])
    assert nb02_lambda_return.normalised_rms(W) == pytest.approx([1.0, 0.5])


def test_figure1_data():
    d = nb02_lambda_return.figure1_data(seed=0)
    assert d["lengths"] == [26, 18, 20]
    assert len(d["t"]) == sum(d["lengths"]) + 1
    ends = d["episode_ends"]
    for m in nb02_lambda_return.FIG1_METHODS:
        assert d["curves"][m][0] == 1.0  # normalised by the initial error
        assert d["curves"][m].shape == d["t"].shape
    off = d["curves"]["offline_lambda_return"]
    # offline: no change inside an episode
    assert np.all(off[: ends[0]] == 1.0)
    assert np.all(off[ends[0]: ends[1]] == off[ends[0]])
    e = nb02_lambda_return.figure1_episode_ends(d)
    # lambda = 1: online and offline end every episode at the same weights; TD(lambda) does not
    assert e["online_lambda_return"] == pytest.approx(e["offline_lambda_return"], abs=1e-12)
    assert np.all(e["td_lambda"] - e["online_lambda_return"] > 0.01)
    # online differs from offline inside the episodes
    assert np.max(np.abs(d["curves"]["online_lambda_return"] - off)) > 0.1
    # the numbers the notebook pins
    assert e["td_lambda"] == pytest.approx([0.7475, 0.5901, 0.5224], abs=1e-4)
    assert e["online_lambda_return"] == pytest.approx([0.6679, 0.5245, 0.4610], abs=1e-4)


@pytest.mark.parametrize("lam,equal", [(1.0, True), (0.9, False)])
def test_online_equals_offline_at_episode_ends_only_for_lambda_one(lam, equal):
    """The reason figure1_average_episode_ends may leave out the online algorithm."""
    eps = random_walk_episodes(3, run_generator(1, 0))
    ends = np.cumsum([len(r) for _, r in eps]) - 1
    kw = dict(approx=Linear(10), alpha=0.2, lam=lam, gamma=1.0)
    W_on = algorithms.online_lambda_return(eps, np.zeros(10), **kw)[ends]
    W_off = algorithms.offline_lambda_return(eps, np.zeros(10), **kw)[ends]
    assert (np.max(np.abs(W_on - W_off)) < 1e-10) == equal


def test_figure1_average_episode_ends():
    avg = nb02_lambda_return.figure1_average_episode_ends(n_runs=3, seed=1)
    assert set(avg) == {"td_lambda", "offline_lambda_return"}
    lin = Linear(10)
    expect = np.zeros(3)
    for i in range(3):
        eps = random_walk_episodes(3, run_generator(1, i))
        ends = np.cumsum([len(r) for _, r in eps]) - 1
        W = algorithms.td_lambda(eps, np.zeros(10), approx=lin, alpha=0.2, lam=1.0, gamma=1.0)
        expect += rms_error(W[ends]) / rms_error(np.zeros(10)) / 3
    assert avg["td_lambda"] == pytest.approx(expect, abs=1e-12)


def test_plot_figure1_and_friends():
    ax = nb02_lambda_return.plot_figure1(nb02_lambda_return.figure1_data(seed=0))
    assert ax.get_xlabel() and ax.get_ylabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["TD(λ)", "online λ-return", "offline λ-return"]
    s, r, v = nb02_lambda_return.demo_episode()
    assert len(nb02_lambda_return.plot_n_step_and_lambda(r, v, 1.0).axes) == 2
    assert len(nb02_lambda_return.plot_traces(s, 1.0).axes) == 4  # two panels, two colour bars
    assert nb02_lambda_return.plot_lambda_weights(0.8, 8).get_legend() is not None
    assert nb01_td_basics.plot_values({"zero": np.zeros(10)}).get_ylabel()
    assert nb01_td_basics.plot_rms_vs_episodes({"a": [3.0, 2.0, 1.0]}).get_xlabel() == "episodes"


# ---------------------------------------------------------------------------- Theorem 1, App. B


def test_theorem1_ratio_shrinks_like_alpha():
    sw = nb02_lambda_return.theorem1_sweep([1e-3, 1e-4], seed=0, lam=0.9, n_hidden=20)
    r = sw["ratio"]
    assert np.all(r > 0)
    assert r[1] / r[0] == pytest.approx(0.1, rel=0.1)  # O(alpha)
    # both distances shrink like alpha too, and agree ever better
    assert sw["dist_td"][1] / sw["dist_td"][0] == pytest.approx(0.1, rel=0.05)
    assert sw["dist_lambda"][1] == pytest.approx(sw["dist_td"][1], rel=0.01)


def test_theorem1_ratio_by_direct_computation():
    rng = np.random.default_rng(4)
    eps = random_walk_episodes(1, rng)
    mlp = MLP(10, 8)
    w0 = mlp.init(rng)
    kw = dict(approx=mlp, alpha=0.01, lam=0.5, gamma=1.0)
    a = algorithms.td_lambda(eps, w0, **kw)[-1]
    b = algorithms.online_lambda_return(eps, w0, **kw)[-1]
    sw = nb02_lambda_return.theorem1_sweep([0.01], seed=4, lam=0.5, n_hidden=8)
    assert sw["ratio"][0] == pytest.approx(np.linalg.norm(a - b) / np.linalg.norm(a - w0))


def test_appendix_b_identities_hold_on_data():
    res = nb02_lambda_return.appendix_b_check(seed=0, lam=0.9, alpha=0.01, n_hidden=10)
    T = res["T"]
    assert res["n_extend"] == res["n_advance"] == T * (T - 1) // 2
    assert res["max_abs_return"] > 1.0
    assert res["max_err_extend"] < 1e-12 * res["max_abs_return"]
    assert res["max_err_advance"] < 1e-12 * res["max_abs_return"]


def test_appendix_b_check_catches_a_wrong_identity(monkeypatch):
    # forget the factor (gamma lambda)^(h-t): the check must notice
    monkeypatch.setattr(nb02_lambda_return, "extend_horizon",
                        lambda g, dp, t, h, gamma, lam: g + dp)
    res = nb02_lambda_return.appendix_b_check(seed=0, lam=0.9, alpha=0.01, n_hidden=10)
    assert res["max_err_extend"] > 1e-3
    assert res["max_err_advance"] < 1e-10  # the other identity is untouched


# ---------------------------------------------------------------------------- exercises


def _run(check, answer, capsys):
    ok = check(answer)
    out = capsys.readouterr().out
    assert out.startswith("✅" if ok else "❌")
    return ok


EXERCISES = [
    # (check, right answer by hand, wrong answer)
    (nb01.check_return, 1 + 0.9 + 0.81 + 0.729 + 0.6561, 5.0),
    (nb01.check_value_state1, 1 + 0.4 * true_values(p_left=0.6)[1],
     0.4 * true_values(p_left=0.6)[1]),
    (nb01.check_td0_update, 8 + 0.5 * (1 + 5 - 8), 8 + 0.5 * (1 + 5)),
    (nb02.check_n_step_return, 1 + 0.9 * 0 + 0.81 * 1.0, 1 + 0.9 * 0.5),
    (nb02.check_interim_lambda_return, 0.5 * 1.45 + 0.25 * 1.81 + 0.25 * 2.62,
     (1.45 + 1.81 + 2.62) / 3),
]


@pytest.mark.parametrize("check,right,wrong", EXERCISES, ids=[e[0].__name__ for e in EXERCISES])
def test_exercise_checks(check, right, wrong, capsys):
    assert _run(check, right, capsys) is True
    assert _run(check, wrong, capsys) is False
    assert _run(check, None, capsys) is False
    assert _run(check, "a number", capsys) is False
    assert _run(check, [right, right], capsys) is False  # wrong shape


def _paper_point() -> float:
    """Figure 1's point (α = 0.2, the end of episode 1), the default id's answer. (Computed
    here, outside the test that calls the check: a check refuses an answer whose own cell, or
    function, calls figure1_data.)"""
    from ftd_lib.course.nb02_lambda_return import figure1_data

    d = figure1_data()
    return float(d["curves"]["td_lambda"][d["episode_ends"][0]])


def test_td_lambda_check_names_the_usual_mistakes(capsys):
    from ftd_lib import algorithms

    point = _paper_point()
    right = students_own("02", nb02.check_td_lambda)  # the notebook's worked solution
    assert nb02.check_td_lambda(right, point)
    assert not nb02.check_td_lambda(algorithms.td_lambda, point)  # the library's own: refused
    assert "runs the library's own" in capsys.readouterr().out

    td = right  # the mistakes below are made on top of a student's own code

    def no_decay(episodes, w0, *, approx, alpha, lam, gamma):  # e <- e + grad
        return td(episodes, w0, approx=approx, alpha=alpha, lam=1.0,
                                    gamma=gamma)

    def no_reset(episodes, w0, *, approx, alpha, lam, gamma):  # one trace for all episodes
        w, out, e = np.array(w0, dtype=float), [], np.zeros(len(w0))
        for x, r in episodes:
            for t in range(len(r)):
                v_next = 0.0 if t + 1 == len(r) else approx.value(w, x[t + 1])
                delta = r[t] + gamma * v_next - approx.value(w, x[t])
                e = gamma * lam * e + approx.grad(w, x[t])
                w = w + alpha * delta * e
                out.append(w)
        return np.array(out)

    assert not nb02.check_td_lambda(no_decay, point)
    out = capsys.readouterr().out
    assert "λ = 0.5, γ = 0.9: your weights leave" in out and "decays by γλ" in out
    assert "Figure 1's setting (λ = 1, γ = 1): the same weights" in out  # the right case passes
    assert not nb02.check_td_lambda(no_reset, point)
    assert "the trace must start at 0 in every episode" in capsys.readouterr().out
    assert not nb02.check_td_lambda(right, round(point, 3))
    assert "don't round" in capsys.readouterr().out

    def skeleton(*a, **k):
        raise NotImplementedError

    assert not nb02.check_td_lambda(skeleton, point) and not nb02.check_td_lambda(None, point)
    assert "No answer yet" in capsys.readouterr().out


def test_exercise_data_matches_the_library():
    e = nb02.EPISODE
    assert n_step_return(e["rewards"], e["values"], 0, nb02.N_STEP, e["gamma"]) == pytest.approx(
        1.81)
    assert interim_lambda_return(e["rewards"], e["values"], 0, 3, e["gamma"], 0.5) == (
        pytest.approx(1.8325))


def test_same_bias_n_is_the_closest_bias_and_explains_the_early_gap():
    """Notebook 02's answer to "why does the best λ do worse than the best n early?": the n is
    the one whose bias is closest (checked against every n), and the variances it prints say
    that at equal bias the λ-return is the noisier target while V̂ is poor (5 episodes) and the
    less noisy one once V̂ is good (100 episodes)."""
    from ftd_lib.course.bias_variance import (
        lambda_return_bias_variance,
        n_step_bias_variance,
        td0_estimate,
    )

    for k, lam in ((5, 0.98), (100, 0.95)):
        v = td0_estimate(k)
        r = nb02_lambda_return.same_bias_n(v, lam)
        lr = lambda_return_bias_variance(v, [lam])
        gaps = [abs(n_step_bias_variance(v, [n])["bias"][0] - lr["bias"][0])
                for n in range(1, 101)]
        assert r["n"] == 1 + int(np.argmin(gaps))
        assert r["var_lam"] == pytest.approx(lr["variance"][0])
        assert r["var_n"] == pytest.approx(n_step_bias_variance(v, [r["n"]])["variance"][0])
        assert abs(r["bias_n"] - r["bias_lam"]) < 0.1
        if k == 5:
            assert r["var_lam"] > 2.5 * r["var_n"]
        else:
            assert r["var_lam"] < r["var_n"]
    with pytest.raises(ValueError, match="lam"):
        nb02_lambda_return.same_bias_n(np.zeros(10), 1.5)
    # the notes' numbers: after 5 episodes V lies in [0.5, 1.8], so bootstrapping adds almost
    # nothing: with V = 0 exactly (TD(0) after 0 episodes) the best n and λ are as far apart
    from ftd_lib.course.bias_variance import best_targets

    v5 = td0_estimate(5)
    assert 0.4 < v5.min() and v5.max() < 1.8
    zero, five = best_targets(episodes=(0, 5))
    assert round(zero["mse_best_n"], 1) == 31.0 and round(zero["mse_best_lam"], 1) == 56.8
    assert round(five["mse_best_n"], 1) == 31.1 and round(five["mse_best_lam"], 1) == 54.7


def test_lambda_return_with_zero_values_is_a_geometric_sum_of_the_length():
    """The notebook's reason: with V̂ = 0 and γ = 1 the λ-return of an episode of length T is
    sum_{k<T} λ^k = (1 - λ^T)/(1 - λ), and the n-step return is min(n, T)."""
    rng = np.random.default_rng(7)
    for _ in range(5):
        states = random_walk_states(rng)
        T = len(states) - 1
        rewards, values = np.ones(T), np.zeros(T + 1)
        for lam in (0.5, 0.9, 0.98):
            g = interim_lambda_return(rewards, values, 0, T, 1.0, lam)
            assert g == pytest.approx((1 - lam**T) / (1 - lam))
        for n in (1, 5, 20, 100):
            assert n_step_return(rewards, values, 0, n, 1.0) == pytest.approx(min(n, T))


def test_td0_source_is_td0_without_the_library_plumbing():
    """The slide's td0 has no private helper on it, fits 80 characters a line, and still
    computes the library's weights (run on random-walk episodes against algorithms.td0); a
    td0 whose plumbing line changed is refused by name."""
    src = nb01_td_basics.td0_source()
    assert "_check" not in src and "_rows" not in src and src.startswith("def td0(")
    assert max(len(line) for line in src.splitlines()) <= 80
    space = dict(vars(algorithms))
    exec(compile(src, "<td0 on the slide>", "exec"), space)
    from ftd_lib.approx import Linear
    from ftd_lib.envs.random_walk import random_walk_episodes
    from ftd_lib.rng import run_generator

    episodes = random_walk_episodes(3, run_generator(2, 0))
    kw = dict(approx=Linear(10), alpha=0.1, gamma=0.9)
    got = np.array(space["td0"](episodes, np.zeros(10), **kw))
    want = algorithms.td0(episodes, np.zeros(10), **kw)
    assert got.shape == want.shape and np.array_equal(got, want)
    def plain(episodes, w0, *, approx, alpha, gamma):  # a td0 without the plumbing lines
        return w0

    real = algorithms.td0
    try:
        algorithms.td0 = plain
        with pytest.raises(ValueError, match="_TD0_PLUMBING"):
            nb01_td_basics.td0_source()
    finally:
        algorithms.td0 = real
