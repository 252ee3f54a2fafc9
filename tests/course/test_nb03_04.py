"""The library behind notebooks 03 and 04: Figure 2 right, the brute-force forward TD(lambda),
the rounding experiment, the cost measurement and the exercises' self-checks."""

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

from ftd_lib import algorithms
from ftd_lib.approx import MLP, Linear
from ftd_lib.course import nb03_one_state_divergence, nb04_forward_td_lambda, quick
from ftd_lib.course.exercises import nb02, nb03, nb04
from ftd_lib.envs import one_state_episode, random_walk_episodes
from ftd_lib.returns import bounded_returns_by_definition, k_bound
from ftd_lib.rng import run_generator

REPO = Path(__file__).resolve().parents[2]

# ------------------------------------------------------------------------------------------
# Figure 2 (notebook 03)


@pytest.mark.parametrize("method,ref", [("td_lambda", algorithms.td_lambda),
                                        ("online_lambda_return", algorithms.online_lambda_return)])
def test_values_per_episode_equal_reference_runs(method, ref):
    alpha, T, v0 = 0.35, 5, -0.5  # beta_TD = 1.75: converges with oscillation
    eps = [one_state_episode(T)] * 6
    W = ref(eps, np.array([v0]), approx=Linear(1), alpha=alpha, lam=1.0, gamma=1.0)
    got = nb03_one_state_divergence.values_per_episode(alpha, T, v0, 6, method)
    np.testing.assert_allclose(got, np.r_[v0, W[T - 1 :: T, 0]], rtol=1e-10, atol=1e-12)


def students_own(nb, check):
    """The student's function of ``check``'s exercise: the notebook's worked solution (the
    checks refuse the library's own, so it cannot stand in for a student's)."""
    from test_fail_closed import _solution

    ns = _solution(nb, check)
    return next(v for k, v in ns.items() if k.startswith("my_") and callable(v))


def test_error_first_episodes_equals_reference_runs_with_random_lengths():
    lengths = nb03_one_state_divergence.episode_length_table(runs=4, n_episodes=10,
                                                             p_continue=0.8, seed=11)
    assert lengths.shape == (4, 10) and lengths.min() >= 1
    for alpha in (0.1, 0.3):
        errs = {"td_lambda": [], "online_lambda_return": []}
        for row in lengths:
            eps = [one_state_episode(int(t)) for t in row]
            ends = np.cumsum(row) - 1
            kw = dict(approx=Linear(1), alpha=alpha, lam=1.0, gamma=1.0)
            w_td = algorithms.td_lambda(eps, np.zeros(1), **kw)
            errs["td_lambda"].append(np.abs(1 - w_td[ends, 0]))
            # the online and the offline lambda-return algorithm coincide at episode ends here
            errs["online_lambda_return"].append(
                np.abs(1 - algorithms.offline_lambda_return(eps, np.zeros(1), **kw)[ends, 0]))
        for method, e in errs.items():
            got = nb03_one_state_divergence.error_first_episodes(alpha, lengths, method)[0]
            assert got == pytest.approx(np.mean(e), rel=1e-9)
            rms = nb03_one_state_divergence.error_first_episodes(alpha, lengths, method,
                                                                 metric="rms")[0]
            assert rms == pytest.approx(np.sqrt(np.mean(np.square(e))), rel=1e-9)
            assert rms >= got  # root mean square >= mean of absolute values


def test_episode_lengths_per_run_do_not_depend_on_the_number_of_runs():
    a = nb03_one_state_divergence.episode_length_table(runs=3, seed=5)
    b = nb03_one_state_divergence.episode_length_table(runs=7, seed=5)
    np.testing.assert_array_equal(a, b[:3])
    assert not np.array_equal(a, nb03_one_state_divergence.episode_length_table(runs=3, seed=6))


def test_figure2_random_length_resembles_the_paper():
    data = nb03_one_state_divergence.figure2_data(runs=2000)
    assert 0.1 <= data["best_alpha_td_lambda"] <= 0.2  # the paper: about 0.15
    assert data["best_alpha_online_lambda_return"] == 1.0  # the paper: alpha = 1
    assert data["best_error_online_lambda_return"] == 0.0  # beta = 1 for every T at alpha = 1
    assert data["best_error_td_lambda"] > 0.05  # the variance of beta_TD = alpha T costs
    assert data["td_lambda"][-1] > 1000  # TD diverges at alpha = 1
    assert np.all(np.isfinite(data["online_lambda_return"]))  # the lambda-return never does
    assert data["mean_length"] == pytest.approx(5.0, rel=0.05)  # 1 / (1 - 0.8)


def test_figure2_fixed_length_best_td_alpha_is_one_over_t():
    data = nb03_one_state_divergence.figure2_data(T=5, runs=1)
    assert data["best_alpha_td_lambda"] == pytest.approx(0.2)
    assert data["best_error_td_lambda"] == pytest.approx(0.0, abs=1e-12)
    assert data["td_lambda"][39] == pytest.approx(1.0)  # alpha 0.4: beta = 2, |1 - beta| = 1
    assert data["td_lambda"][40] > 1.0  # beyond: diverges


def test_figure2_plots_draw_off_chart_markers():
    data = nb03_one_state_divergence.figure2_data(runs=50, alphas=[0.05, 0.1, 0.5, 1.0])
    ax = nb03_one_state_divergence.plot_figure2(data)
    assert isinstance(ax.figure, Figure)
    assert any(line.get_marker() == "^" for line in ax.lines)  # TD off the chart
    ax = nb03_one_state_divergence.plot_beta_curves(10, alpha=0.5)
    assert any(line.get_marker() == "^" for line in ax.lines)  # beta_TD = 5 > 4
    ax = Figure().subplots()
    nb03_one_state_divergence.plot_values(ax, 1.0, 100, 0.0)
    markers = {line.get_marker() for line in ax.lines}
    assert {"^", "v"} <= markers  # diverges both ways, alternating sign


def test_figure2_bad_input():
    with pytest.raises(ValueError, match="method"):
        nb03_one_state_divergence.values_per_episode(0.1, 5, method="td0")
    with pytest.raises(ValueError, match="metric"):
        nb03_one_state_divergence.error_first_episodes(0.1, [[3]], "td_lambda", metric="max")
    with pytest.raises(ValueError, match="alpha"):
        nb03_one_state_divergence.values_per_episode(0.0, 5)


# ------------------------------------------------------------------------------------------
# Forward TD(lambda) by definition (notebook 04)


@pytest.mark.parametrize("lam,eta,k_max", [(0.9, 0.01, None), (0.5, 0.1, None), (1.0, 0.01, None),
                                           (0.9, 0.01, 3), (0.0, 0.01, None)])
def test_algorithm1_equals_brute_force_definition_tabular(lam, eta, k_max):
    eps = random_walk_episodes(4, run_generator(1, 0))
    lin = Linear(10)
    kw = dict(approx=lin, alpha=0.1, lam=lam, gamma=1.0, eta=eta, k_max=k_max)
    W1 = algorithms.forward_td_lambda(eps, np.zeros(10), **kw)
    W2 = algorithms.forward_td_lambda_by_definition(eps, np.zeros(10), **kw)
    assert W1.shape == W2.shape == (sum(len(r) for _, r in eps), 10)
    assert np.max(np.abs(W1 - W2)) < 1e-10
    assert np.max(np.abs(W1[-1])) > 0.5


def test_algorithm1_equals_brute_force_definition_mlp():
    mlp = MLP(2, 50)
    w0 = mlp.init(run_generator(0, 0, 1))
    eps = [nb04_forward_td_lambda.timing_episode(T) for T in (7, 30, 25)]
    kw = dict(approx=mlp, alpha=0.01, lam=0.8, gamma=0.99, eta=0.01)
    W1 = algorithms.forward_td_lambda(eps, w0, **kw)
    W2 = algorithms.forward_td_lambda_by_definition(eps, w0, **kw)
    assert np.max(np.abs(W1 - W2)) < 1e-10
    # and it is not some other method: TD(lambda) and the online lambda-return differ
    assert np.max(np.abs(W1 - algorithms.td_lambda(eps, w0, **{k: kw[k] for k in
                                                        ("approx", "alpha", "lam", "gamma")}))) \
        > 1e-4


def test_algorithm1_targets_and_rounding_errors():
    data = nb04_forward_td_lambda.rounding_errors(T=300)
    assert data["K"] == 7 == k_bound(1.0, 0.5, 0.01)
    assert np.max(data["err_algorithm1"]) < 1e-8  # resync keeps rounding errors tiny
    assert data["err_rho"][:20].max() < 1e-9  # the bare recursion starts exact ...
    assert np.argmax(data["err_rho"] > 1.0) < 100  # ... and grows like 2^t
    # ... until it overflows
    assert np.isinf(nb04_forward_td_lambda.rounding_errors(T=2000)["err_rho"][-1])


def test_algorithm1_targets_from_trace_cover_every_state():
    (x, r), = random_walk_episodes(1, run_generator(2, 0))
    trace = []
    algorithms.forward_td_lambda([(x, r)], np.zeros(10), approx=Linear(10), alpha=0.2, lam=0.8,
                        gamma=1.0, eta=0.05, trace=trace)
    targets = algorithms.algorithm1_targets(trace)
    values = algorithms.trace_values(trace)
    assert len(targets) == len(r) and not np.isnan(targets).any()
    K = k_bound(1.0, 0.8, 0.05)
    np.testing.assert_allclose(targets, bounded_returns_by_definition(r, values, K, 1.0, 0.8),
                               atol=1e-12)


# ------------------------------------------------------------------------------------------
# Cost per step (notebook 04)


def test_evaluations_per_step_are_exact():
    T = 40
    c = nb04_forward_td_lambda.evaluations_per_step(T)
    for m in ("td0", "td_lambda", "forward_td_lambda"):
        assert c[m]["grad"] == 1.0  # one gradient per step
    assert c["forward_td_lambda"]["value"] == pytest.approx((2 * T - 1) / T)
    # online lambda-return: at step t, t updates -> (T + 1) / 2 per step on average
    assert c["online_lambda_return"]["grad"] == pytest.approx((T + 1) / 2)


def test_cost_per_step_quick_has_the_stored_files_shape(monkeypatch):
    """The quick measurement's form (what ``plot_cost`` and ``cost_claims`` read). Its numbers
    are wall-clock ratios, so no test judges them (a busy machine moves them): the claims are
    judged on the stored measurement, ``results/cost_per_step.json``, above."""
    monkeypatch.setenv("CI", "true")
    assert quick()
    data = nb04_forward_td_lambda.cost_per_step(lengths=(5, 30), repeats=3)
    assert data["quick"] and list(data["lengths"]) == [5, 30]
    np.testing.assert_allclose(data["ratio"]["td0"], 1.0)  # TD(0) over itself: exactly 1
    assert set(data["ratio"]) == {"td0", "td_lambda", "forward_td_lambda",
                                  "online_lambda_return"}
    assert all(np.shape(v) == (2,) and np.all(np.asarray(v) > 0)
               for v in data["ratio"].values())
    ax = nb04_forward_td_lambda.plot_cost(data)
    assert len(ax.lines) == 4
    monkeypatch.setenv("CI", "0")
    assert not quick()


def test_cost_summary_is_the_median_of_each_rounds_ratio():
    rng = np.random.default_rng(0)
    rounds = {m: rng.uniform(1, 2, size=(3, 5)) for m in ("td0", "td_lambda")}
    data = nb04_forward_td_lambda.cost_summary([10, 20, 40], rounds)
    for m, v in rounds.items():
        for i in range(3):  # slow and obvious: per length, the ratio of each round, sorted
            ratios = sorted(v[i, r] / rounds["td0"][i, r] for r in range(5))
            assert data["ratio"][m][i] == pytest.approx(ratios[2])
            assert data["seconds"][m][i] == min(v[i])
    assert data["repeats"] == 5
    with pytest.raises(ValueError, match="repeats"):
        nb04_forward_td_lambda.cost_per_step(lengths=(5,), repeats=0)


def test_cost_record_round_trip(tmp_path):
    rounds = {"td0": [[1.0, 2.0], [3.0, 4.0]], "forward_td_lambda": [[2.0, 2.0], [3.0, 8.0]]}
    data = nb04_forward_td_lambda.cost_summary([10, 20], rounds, lam=0.8)
    rec = nb04_forward_td_lambda.cost_record(data, {"cpu": "X", "cpu_count": 2},
                                             date="2026-01-01", command="c")
    path = tmp_path / "cost.json"
    path.write_text(json.dumps(rec))
    back = nb04_forward_td_lambda.stored_cost(path)
    np.testing.assert_allclose(back["ratio"]["forward_td_lambda"], [1.5, 1.5])
    assert back["machine"]["cpu"] == "X" and back["lam"] == 0.8 and back["repeats"] == 2
    assert "measured 2026-01-01 on X (2 CPUs" in nb04_forward_td_lambda.format_cost(back)


def test_the_stored_cost_is_the_scripts_and_what_notebook_04_says_holds_for_it():
    """Notebook 04 (and so the website) shows the stored measurement of
    scripts/measure_cost_per_step.py, with its machine, and says of it only what holds."""
    rec = json.loads(nb04_forward_td_lambda.COST_FILE.read_text())
    data = nb04_forward_td_lambda.stored_cost()
    # made by the script at the course's scale: every method, every length, every round
    assert rec["command"].startswith("scripts/measure_cost_per_step.py")
    assert rec["lengths"] == [10, 20, 40, 60] and not rec["quick"]
    assert set(rec["rounds"]) == set(nb04_forward_td_lambda.COST_METHODS)
    repeats = int(rec["command"].split("--repeats ")[1].split()[0])
    assert all(np.shape(v) == (4, repeats) for v in rec["rounds"].values()) and repeats >= 15
    assert {"cpu", "cpu_count", "python", "platform"} <= set(rec["machine"])
    # the ratios the notebook draws are the median of each round's ratio to TD(0)
    td0 = np.array(rec["rounds"]["td0"])
    for m, v in rec["rounds"].items():
        np.testing.assert_allclose(data["ratio"][m], np.median(np.array(v) / td0, axis=1))
    claims = nb04_forward_td_lambda.cost_claims(data)
    assert claims and all(claims.values()), claims
    # the claims can fail: a measured 2.03 x TD(0) is not "about what TD(0) costs"
    worse = dict(data, ratio=dict(data["ratio"], td_lambda=np.array([2.03, 1, 1, 1])))
    assert not all(nb04_forward_td_lambda.cost_claims(worse).values())
    flat = dict(data, ratio=dict(data["ratio"], online_lambda_return=np.array([5, 5, 5, 5.])))
    assert not all(nb04_forward_td_lambda.cost_claims(flat).values())
    # the notebook loads it, measures nothing on the machine that runs it, and says the claim
    src = (REPO / "notebooks" / "src" / "04_forward_td_lambda.md").read_text()
    assert "cost = stored_cost()" in src and "cost_per_step()\n" not in src
    assert "cost about what TD(0) costs per step (within\nhalf as much again)" in src
    assert nb04_forward_td_lambda.ABOUT == 1.5  # "half as much again"
    assert "CI=true" not in src  # no plumbing on the page


def test_measure_cost_script_writes_what_stored_cost_reads(tmp_path):
    import runpy

    out = tmp_path / "cost.json"
    main = runpy.run_path(str(REPO / "scripts" / "measure_cost_per_step.py"))["main"]
    assert main(["--repeats", "2", "--min-time", "0.0001", "--out", str(out)]) == 0
    data = nb04_forward_td_lambda.stored_cost(out)
    assert data["repeats"] == 2 and list(data["lengths"]) == [10, 20, 40, 60]
    np.testing.assert_allclose(data["ratio"]["td0"], 1.0)
    assert data["command"] == "scripts/measure_cost_per_step.py --repeats 2 --min-time 0.0001"
    assert data["machine"]["cpu_count"] == os.cpu_count()
    with pytest.raises(SystemExit):
        main(["--repeats", "0", "--out", str(out)])


# ------------------------------------------------------------------------------------------
# Exercises: the checks accept the right answer and reject wrong ones


def test_nb03_checks(capsys):
    def closed_form(a, lam, T):
        return a * (1 - lam**T) / (1 - lam)

    assert nb03.check_beta_lambda(closed_form)
    for wrong, says in ((lambda a, lam, T: a * T, "λ = 1's β"),
                        (lambda a, lam, T: a / (1 - lam), "infinite sum"),
                        (lambda a, lam, T: a * (1 - lam ** (T + 1)) / (1 - lam), "too many"),
                        (lambda a, lam, T: 1 - (1 - a) ** T, "λ-return algorithm's β"),
                        (lambda a, lam, T: 2 * a, "a run gives")):
        capsys.readouterr()
        assert not nb03.check_beta_lambda(wrong)
        assert says in capsys.readouterr().out, says
    assert not nb03.check_beta_lambda(None)
    edge = 2 * (1 - 0.9) / (1 - 0.9**25)
    assert nb03.check_max_alpha_lambda(edge)
    capsys.readouterr()
    for wrong, says in ((2 / 25, "λ = 1's edge"), (0.2, "T → ∞"), (round(edge, 3), "don't round"),
                        (0.1, "Not yet")):
        assert not nb03.check_max_alpha_lambda(wrong)
        assert says in capsys.readouterr().out, says
    assert not nb03.check_max_alpha_lambda("?")


def test_nb04_checks(capsys):
    assert nb04.check_next_target((2.0 - 0.8) / 0.5 + 0.5**3 * 0.5)
    assert not nb04.check_next_target((2.0 - 0.8) / 0.5)
    assert nb04.check_first_update(3) and not nb04.check_first_update(4)
    out = capsys.readouterr().out
    assert "K = 4 is right, but the answer is a time step" in out and "K − 1" not in out
    assert nb04.check_first_update(3, 4) and not nb04.check_first_update(3, 3)
    assert "✅" in capsys.readouterr().out
    assert math.isinf(k_bound(1.0, 1.0, 0.1))


def test_algorithm1_check_names_the_failing_case(capsys):
    from ftd_lib import algorithms

    right = students_own("04", nb04.check_algorithm1)  # the notebook's worked solution
    assert nb04.check_algorithm1(right)
    assert capsys.readouterr().out.count("✅") == len(nb04.ALGORITHM1_CASES)
    assert not nb04.check_algorithm1(algorithms.forward_td_lambda)  # the library's own: refused
    assert "runs the library's own" in capsys.readouterr().out
    # the case "episodes shorter than K" really has episodes shorter than K
    from ftd_lib.envs.random_walk import random_walk_episodes
    from ftd_lib.rng import run_generator

    i = next(k for k, c in enumerate(nb04.ALGORITHM1_CASES) if "shorter" in c[0])
    lengths = [len(r) for _, r in random_walk_episodes(4, run_generator(18, i))]
    assert sum(n < 44 for n in lengths) > len(lengths) / 2, lengths

    fwd = right  # the mistakes below are made on top of a student's own code
    td = students_own("02", nb02.check_td_lambda)

    def frozen(episodes, w0, **kw):  # the right shape, but the weights never move
        W = fwd(episodes, w0, **kw)
        return np.broadcast_to(np.asarray(w0, dtype=float), W.shape)

    assert not nb04.check_algorithm1(frozen)
    assert "your weights never move" in capsys.readouterr().out

    def def_with_k1_bug(episodes, w0, *, approx, alpha, lam, gamma, eta=0.01, k_max=None):
        if lam <= eta:  # K = 1 done as TD(lambda) instead of TD(0)
            return td(episodes, w0, approx=approx, alpha=alpha, lam=0.5,
                                        gamma=gamma)
        return fwd(episodes, w0, approx=approx, alpha=alpha, lam=lam,
                                            gamma=gamma, eta=eta, k_max=k_max)

    assert not nb04.check_algorithm1(def_with_k1_bug)
    out = capsys.readouterr().out
    assert "❌ Not yet: K = 1 (λ = η)" in out and out.count("✅") == len(nb04.ALGORITHM1_CASES) - 1

    def wrong_shape(episodes, w0, **kw):
        return np.zeros(3)

    assert not nb04.check_algorithm1(wrong_shape)
    assert "one row per step" in capsys.readouterr().out


def test_rho_and_next_target_checks_name_the_usual_mistakes(capsys):
    assert nb04.check_rho(lambda R, V, g, lam: R + g * (1 - lam) * V)
    for wrong, says in ((lambda R, V, g, lam: R + g * V, "TD target"),
                        (lambda R, V, g, lam: R + g * lam * V, "γλ on V̂"),
                        (lambda R, V, g, lam: R, "the reward alone")):
        capsys.readouterr()
        assert not nb04.check_rho(wrong)
        assert says in capsys.readouterr().out, says
    for wrong, says in ((2.4, "horizon step"), (2.525, "one too small"),
                        (2.4 + 0.5**4 * 0.5, "one too large"),
                        (2.0 + 0.5**3 * 0.5, "without the ρ-step"),
                        ((2.0 - 0.8) * 0.5 + 0.5**3 * 0.5, "read eq. (7)"), (9.9, "is off")):
        assert not nb04.check_next_target(wrong)
        out = capsys.readouterr().out
        assert says in out, says
        assert "(γλ)^(K−1)" not in out and "/γλ" not in out  # the message gives no answer away


@pytest.mark.parametrize("T,K,gamma,lam", [(30, 5, 0.9, 0.7), (30, 50, 1.0, 0.9), (20, 1, 1.0, 0.5),
                                           (25, 25, 0.95, 0.0), (25, 3, 1.0, 1.0),
                                           (12, math.inf, 1.0, 1.0)])
def test_vectorised_bounded_returns_equal_the_definition(T, K, gamma, lam):
    rng = np.random.default_rng(T + int(100 * lam))
    r, v = rng.normal(size=T), np.r_[rng.normal(size=T), 0.0]
    fast = nb04_forward_td_lambda.bounded_returns_vectorised(r, v, K, gamma, lam)
    slow = bounded_returns_by_definition(r, v, K if K != math.inf else T, gamma, lam)
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)


def test_rounding_errors_at_high_lambda_is_exact():
    """λ = 0.99 (K = 459): the vectorised form (about 0.1 s; the one-by-one definition took
    about 70 s) agrees with Algorithm 1 to rounding."""
    d = nb04_forward_td_lambda.rounding_errors(T=2000, lam=0.99)
    assert d["K"] == 459 and d["err_algorithm1"].max() < 1e-8


# ------------------------------------------------------------------------------------------
# notebook 04 on slides: the listing in parts, the stepper's table, memory and cost tables


def test_algorithm1_listing_in_parts_is_the_whole_listing():
    from ftd_lib.course.stepper import ALGORITHM1, algorithm1_markdown

    def body(md):
        return md.split("```text\n")[1].split("\n```")[0].splitlines()

    parts = [algorithm1_markdown(1, 9), algorithm1_markdown(10, 22), algorithm1_markdown(23, 33)]
    assert sum((body(p) for p in parts), []) == body(algorithm1_markdown())
    assert body(parts[1])[0] == f"10  {ALGORITHM1[9]}" and "lines 10–22" in parts[1]
    assert "lines" not in algorithm1_markdown().splitlines()[0]
    for bad, name in ((dict(first=0), "first"), (dict(first=34), "first"),
                      (dict(first=5, last=4), "last"), (dict(last=34), "last"),
                      (dict(first=1.0), "first")):
        with pytest.raises(ValueError, match=name):
            algorithm1_markdown(**bad)


def test_stepper_table_rows_are_the_frames_updates():
    """Notebook 04 §3: with V(s) = s, λ = 0.5, η = 0.1 (K = 4) the first update comes at
    t = 3, for S_0, with target 10 + 0.5² · 2 = 10.5 (δ′ = 10 at t = 0, 2 at the right step
    t = 2, 0 otherwise); every row's target equals the definition's."""
    from ftd_lib.course.stepper import algorithm1_stepper, stepper_table

    frames = algorithm1_stepper().frames
    lines = stepper_table(frames).splitlines()
    assert lines[0] == "t = 0..2: the queue fills, no update"
    rows = [line.split() for line in lines[2:-1]]
    updates = [f for f in frames if not f["end"] and f["updated"] is not None]
    assert len(rows) == len(updates)
    assert rows[0] == ["3", "S_(t=0)", "4", "10.5000", "10.5000"]
    for row, f in zip(rows, updates, strict=True):
        assert int(row[0]) == f["t"] and int(row[2]) == f["horizon"]
        assert float(row[3]) == pytest.approx(f["target"], abs=5e-5)
        assert float(row[4]) == pytest.approx(f["definition"], abs=5e-5)
    end = frames[-1]
    assert lines[-1].startswith(f"end, h = {end['T']}:")
    assert lines[-1].count("S_(t=") == len(end["flushed"]) == 3


def test_format_memory_puts_the_capped_table_beside_the_free_one():
    from ftd_lib.course.nb04_forward_td_lambda import format_memory

    lines = format_memory(2, 201, k_max=50).splitlines()
    assert "201 numbers" in lines[0]
    rows = {float(line.split()[0]): line.split()[1:] for line in lines[2:]}
    assert rows[0.9] == ["44", "132", "44", "132"]          # K = ceil(log .01 / log .9) = 44
    assert rows[0.99] == ["459", "1377", "50", "150"]       # 459 * 3 numbers; capped: 50 * 3
    assert rows[1.0] == ["inf", "episode", "50", "150"]


def test_format_cost_one_row_per_method():
    from ftd_lib.course.nb04_forward_td_lambda import format_cost

    data = dict(lengths=np.array([10, 20]),
                ratio={"td0": np.array([1.0, 1.0]), "online_lambda_return": np.array([1.5, 2.25])})
    lines = format_cost(data).splitlines()
    assert lines[0].split()[-6:] == ["T", "=", "10", "T", "=", "20"]
    assert lines[2].split() == ["online_lambda_return", "1.50", "2.25"]
