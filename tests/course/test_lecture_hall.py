"""The helpers added for the lecture hall and notebook 06's live parts:
replacing traces, Algorithm 1's listing, memory, the online lambda-return profile, the fresh
cart-pole network, the random policy, block means, truncation, the scale label and the
grid-edge flag."""

import math

import numpy as np
import pytest

from ftd_lib import algorithms
from ftd_lib.approx import Linear
from ftd_lib.course import live as figures
from ftd_lib.course.nb03_one_state_divergence import beta_measured, td_lambda_replacing
from ftd_lib.course.nb04_forward_td_lambda import memory_table
from ftd_lib.course.nb05_nn_prediction import format_profile, learning_curve_profile
from ftd_lib.course.nb06_greedy import fresh_greedy_report, random_policy_steps, start_value
from ftd_lib.course.nb06_nn_control import block_means, train
from ftd_lib.course.stepper import ALGORITHM1, algorithm1_markdown
from ftd_lib.envs import random_walk_episodes
from ftd_lib.repro.results import scale_label
from ftd_lib.rng import run_generator


@pytest.mark.parametrize("alpha,T", [(0.3, 8), (0.05, 30), (1.0, 3)])
def test_replacing_traces_beta_is_alpha(alpha, T):
    assert beta_measured("td_lambda_replacing", alpha, T) == pytest.approx(alpha)
    assert beta_measured("td_lambda", alpha, T) == pytest.approx(alpha * T)
    assert beta_measured("online_lambda_return", alpha, T) == pytest.approx(1 - (1 - alpha) ** T)


def test_replacing_traces_equal_accumulating_when_no_state_repeats():
    # lambda = 0: the trace is the gradient alone, whatever its kind
    eps = random_walk_episodes(3, run_generator(4, 0))
    kw = dict(alpha=0.1, lam=0.0, gamma=1.0)
    W_rep = td_lambda_replacing(eps, np.zeros(10), **kw)
    W_acc = algorithms.td_lambda(eps, np.zeros(10), approx=Linear(10), **kw)
    np.testing.assert_allclose(W_rep, W_acc, atol=1e-12)
    with pytest.raises(ValueError, match="binary"):
        td_lambda_replacing([(np.full((3, 1), 0.5), np.ones(2))], np.zeros(1), **kw)
    with pytest.raises(ValueError, match="v0"):
        beta_measured("td_lambda", 0.1, 5, v0=1.0)


def test_algorithm1_listing_is_the_papers():
    assert len(ALGORITHM1) == 33
    md = algorithm1_markdown()
    assert " 8  " in md and "V_current ← 0" in ALGORITHM1[7]
    assert ALGORITHM1[3].startswith("K = min(K_max, K)")
    assert ALGORITHM1[25].strip() == "update θ using S_p and U"


def test_memory_table():
    rows = {r["lam"]: r for r in memory_table(2, 201)}
    assert rows[0.9]["K"] == 44 and rows[0.9]["queue_numbers"] == 44 * 3
    assert math.isinf(rows[1.0]["K"]) and math.isinf(rows[1.0]["queue_numbers"])
    capped = {r["lam"]: r for r in memory_table(2, 201, k_max=50)}
    assert capped[1.0]["K"] == 50 and capped[0.9]["K"] == 44


def test_online_lambda_return_profile_reads_the_stored_data():
    res = figures.stored("fig3-left")
    if res is None:
        pytest.skip("no stored fig3-left")
    rows = learning_curve_profile(res, "online_lambda_return", alphas=(0.03,), episodes=(1, 50))
    (r,) = rows
    assert r["alpha"] == pytest.approx(0.03)
    st = res.cell_stats()
    i = int(np.flatnonzero((res.arrays["method"] == "online_lambda_return")
                           & np.isclose(res.arrays["alpha"], 0.03))[0])
    assert r["score"] == st["mean"][i] and r["se"] == st["se"][i]
    # the plotted score is the mean of the learning curve over the episodes
    assert np.mean(res.arrays["curve_mean"][i]) == pytest.approx(r["score"], rel=1e-9)
    assert "0.03000" in format_profile(rows)
    with pytest.raises(ValueError, match="method"):
        learning_curve_profile(res, "nope")


def test_fresh_network_collapses_below_random():
    fresh = fresh_greedy_report("cartpole", runs=20, n_starts=20)
    rand = random_policy_steps("cartpole", n=2000)
    assert 8.0 < fresh["median_steps"] < 11.0 and fresh["runs_one_way"] >= 10
    assert 20.0 < rand["mean_steps"] < 25.0
    assert fresh["median_steps"] < rand["mean_steps"] - 10 * rand["se"]


def test_train_truncation_and_block_means():
    kw = dict(alpha=0.03, lam=0.6, runs=2, episodes=40, max_steps=20, record=False)
    boot = train("cartpole", "forward_sarsa_lambda", truncation="bootstrap", **kw)
    term = train("cartpole", "forward_sarsa_lambda", truncation="terminal", **kw)
    assert boot["truncation"] == "bootstrap" and term["truncation"] == "terminal"
    assert np.all(boot["lengths"] <= 20) and np.all(term["lengths"] <= 20)
    b = block_means(boot, 10)
    assert b.shape == (4,) and b[0] == pytest.approx(boot["returns"][:, :10].mean())
    with pytest.raises(ValueError, match="block"):
        block_means(boot, 41)
    assert np.isfinite(start_value(boot)) and np.isfinite(start_value(term, 0))
    with pytest.raises(ValueError):
        train("cartpole", "sarsa_lambda", truncation="sometimes", **kw)


def test_one_scale_label_and_grid_edges():
    res = figures.stored("fig4-right")
    if res is None:
        pytest.skip("no stored fig4-right")
    label = scale_label(res)
    assert label.startswith("paper scale:" if res.at_paper_scale else "below paper scale:")
    assert "paper scale," not in label
    s = res.summary()
    for curve in s.values():
        assert set(curve["alpha_edge"].tolist()) <= {"", "low", "high"}
        grid = sorted(set(res.arrays["alpha"].tolist()))
        for a, e in zip(curve["alpha"], curve["alpha_edge"], strict=True):
            if e == "low":
                assert a == min(grid)
    text = figures.format_best(res)
    assert ("⚠" in text) == any((c["alpha_edge"] != "").any() for c in s.values())
