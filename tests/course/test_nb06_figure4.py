"""ftd_lib.course.nb06_figure4: Figure 4 read from the data. Every number of the readings is
checked against a hand-built figure whose answers are known, the plots against the arrays they
draw, and the live run against the stored runs it claims to repeat."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from ftd_lib.course import live as figures
from ftd_lib.course import nb06_figure4 as fig4
from ftd_lib.course import nb06_time_limits as time_limits
from ftd_lib.course.nb06_nn_control import train
from ftd_lib.repro.paper.claims import PEAK_RANGE
from ftd_lib.repro.results import Results


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _fake(cells, runs=4, episodes=6, env="mountain_car", max_steps=5000):
    """A Figure 4 from ``cells``: (method, lam, alpha, per-run returns or a constant)."""
    method, lam, alpha, metric = [], [], [], []
    for m, la, a, v in cells:
        method.append(m)
        lam.append(la)
        alpha.append(a)
        metric.append(np.broadcast_to(np.asarray(v, dtype=float), (runs,)))
    metric = np.array(metric)
    arrays = dict(method=np.array(method), curve=np.array(method), alpha=np.array(alpha),
                  lam=np.array(lam), metric=metric, diverged=np.zeros(metric.shape, bool),
                  curve_mean=np.repeat(metric.mean(axis=1)[:, None], episodes, axis=1))
    meta = dict(definition=dict(x="lam", task="control", optimise="alpha", env=env,
                                max_steps=max_steps, title="fake",
                                ylabel="average return, first episodes", at_paper_scale=True),
                episodes=episodes)
    return Results("fig4-left" if env == "mountain_car" else "fig4-right", arrays, meta)


S, F = "sarsa_lambda", "forward_sarsa_lambda"
SMALL, BIG = 1e-6, 1e-3
#: Sarsa(λ) best at the smallest α (-3000 and -3100 at λ = 0, 0.5), learns at λ = 0.9
#: (-2000); forward Sarsa(λ) learns at λ = 0.5 and 0.9; λ = 1: forward at -4900
CELLS = [(S, 0.0, SMALL, -3000), (S, 0.0, BIG, -3500), (F, 0.0, SMALL, -3000),
         (F, 0.0, BIG, -3500), (S, 0.5, SMALL, -3100), (S, 0.5, BIG, -4000),
         (F, 0.5, SMALL, -3050), (F, 0.5, BIG, -1000), (S, 0.9, SMALL, -3050),
         (S, 0.9, BIG, -2000), (F, 0.9, SMALL, -3000), (F, 0.9, BIG, -300),
         (S, 1.0, SMALL, -3800), (F, 1.0, BIG, -4900), (F, 1.0, SMALL, -4950)]


def test_no_learning_level_is_the_mean_at_the_smallest_alpha_below_lambda_one():
    nl = fig4.no_learning_level(_fake(CELLS))
    by_hand = [v for m, la, a, v in CELLS if a == SMALL and la < 1]
    assert nl["alpha"] == SMALL and len(nl["cells"]) == len(by_hand) == 6
    assert nl["level"] == pytest.approx(np.mean(by_hand))


def test_learners_and_reading_left():
    res = _fake(CELLS)
    level = fig4.no_learning_level(res)["level"]  # -3025
    who = fig4.learners(res, level)
    assert who == {S: [(0.9, -2000.0)], F: [(0.5, -1000.0), (0.9, -300.0)]}
    # a margin above every gain leaves nobody
    assert fig4.learners(res, level, margin=10.0) == {S: [], F: []}
    text = fig4.reading_left(res)
    assert f"{level:.0f}" in text and "λ = 0.5, 0.9 (-1000, -300)" in text
    # Sarsa(λ) at λ = 0.9 clears the bar too (-2000 is 34 % above -3025), and the headline says so
    assert "clears the bar at λ = 0.9: -2000 (34% above the line)" in text
    assert ("forward Sarsa(λ) learns at λ = 0.5, 0.9, Sarsa(λ) at λ = 0.9 only; at λ ≤ 0 "
            "neither does") in text
    assert "level at the smallest α" in text and "too small to learn" not in text
    assert "(-4900) is the worst point" in text and "5000 steps" in text
    assert "at λ ≤ 0 nobody learns" in text
    brief = fig4.reading_left(res, brief=True)
    assert brief.startswith(text.split("\n")[0]) and len(brief) < len(text) / 2
    # the level's own cells: a constant curve per cell, so first episode = after the fifth
    lc = fig4.level_curve(res)
    assert lc["first"] == pytest.approx(level) and lc["after_fifth"] == pytest.approx(level)


def test_level_curve_by_hand():
    res = _fake(CELLS, episodes=8)
    cm = res.arrays["curve_mean"]
    small = [i for i, (m, la, a, v) in enumerate(CELLS) if a == SMALL and la < 1]
    cm[small] = np.arange(8.0) * 10 - 100  # episodes 1..8: -100, -90, ..., -30
    lc = fig4.level_curve(res)
    assert lc["first"] == pytest.approx(-100) and lc["after_fifth"] == pytest.approx(-40)


def test_compact_table_carries_the_plotted_points():
    res = _fake(CELLS)
    lines = fig4.format_best_compact(res).splitlines()
    s = res.summary()
    assert len(lines) == len(s[S]["x"]) + 2
    for k, line in enumerate(lines[1:-1]):
        cols = line.split()
        assert float(cols[0]) == s[S]["x"][k]
        for col, m in zip(cols[1:], (S, F), strict=True):
            assert float(col.rstrip("*")) == round(s[m]["y"][k])
            # starred exactly where the best α is at an edge of the grid tried
            assert col.endswith("*") == bool(s[m]["alpha_edge"][k])
    assert lines[-1] == "(* best α at the grid's edge)"


def test_curves_reading_by_hand():
    res = _fake(CELLS, episodes=20)
    cm = res.arrays["curve_mean"]
    i = fig4.best_cell(res, F, 0.9)
    cm[i] = np.r_[np.full(10, -500.0), np.full(10, -200.0)]
    j = fig4.best_cell(res, S, 0.5)
    cm[j] = np.r_[np.full(10, -2000.0), np.full(10, -2600.0)]
    text = fig4.curves_reading(res, lams=(0.5, 0.9), first=10)
    assert "episodes 1–10 → 11–20" in text
    assert "forward Sarsa(0.9) -500 → -200 (better)" in text
    assert "Sarsa(0.5) -2000 → -2600 (worse)" in text


def test_claims_compact_keeps_the_words_the_verdict_and_the_rule():
    rows = [dict(number=6, paper="“higher λ hurts”", verdict="✔ agrees",
                 evidence="returns ...; Spearman ρ(λ, return) = -0.97 (rule: ≤ -0.5)"),
            dict(number=8, paper="“substantially higher”", verdict="✔ agrees",
                 evidence="424 vs 390 (rule: higher by more than two standard errors)"),
            dict(number=5, paper="“all λ”", verdict="✘ disagrees", evidence="no rule here")]
    lines = fig4.claims_compact(rows).splitlines()
    # claims 6 and 8 hold thresholds of the course's own (notebook A1, section 5)
    assert lines[2] == ("| 6 | “higher λ hurts” | **✔ agrees** | Spearman ρ(λ, return) ≤ -0.5 "
                        "*(ours)* |")
    assert lines[3].endswith("| higher by more than two standard errors *(ours)* |")
    assert lines[4].endswith("| **✘ disagrees** | — |")


def test_forward_minus_sarsa_digits():
    res = _fake(CELLS)
    assert "λ = 0.5: +2100," in fig4.format_forward_minus_sarsa(res, digits=0)
    assert "λ = 0.5: +2100.0" in fig4.format_forward_minus_sarsa(res)


def test_best_cell_alpha_and_bad_input():
    res = _fake(CELLS)
    assert fig4.best_alpha(res, F, 0.5) == BIG and fig4.best_alpha(res, S, 0.5) == SMALL
    assert res.arrays["metric"][fig4.best_cell(res, F, 0.9)][0] == -300
    with pytest.raises(ValueError, match="lam"):
        fig4.best_cell(res, F, 0.7)
    with pytest.raises(ValueError, match="method"):
        fig4.best_cell(res, "td_lambda", 0.5)


def test_lambda_zero_gap_counts_the_runs_that_differ():
    cells = [(S, 0.0, SMALL, [10, 20, 30, 40]), (F, 0.0, SMALL, [10, 20, 31, 40]),
             (S, 0.5, SMALL, 5), (F, 0.5, SMALL, 6)]
    gap = fig4.lambda_zero_gap(_fake(cells, env="cartpole"))
    assert gap == dict(diff=pytest.approx(0.25), same_alpha=True, runs_differ=1, runs=4)


def test_peak_note_names_the_peak_and_our_window():
    cells = [(F, lam, SMALL, v) for lam, v in ((0.2, 300), (0.4, 420), (0.6, 410), (0.8, 100))]
    cells += [(S, 0.0, SMALL, 390)]
    note = fig4.peak_note(_fake(cells, env="cartpole"))
    assert "peaks at λ = 0.4 (420;" in note and "300 at λ = 0.2" in note
    assert "410 at λ = 0.6" in note and "100 at λ = 0.8" not in note
    assert f"[{PEAK_RANGE[0]:g}, {PEAK_RANGE[1]:g}]" in note and "our threshold" in note


def test_block_band_against_a_loop():
    rng = np.random.default_rng(0)
    r = rng.normal(size=(3, 10))
    b = fig4.block_band(r, 4)  # two blocks, the last two episodes dropped
    per_run = np.array([[r[i, 0:4].mean(), r[i, 4:8].mean()] for i in range(3)])
    np.testing.assert_allclose(b["per_run"], per_run)
    np.testing.assert_allclose(b["mean"], per_run.mean(axis=0))
    np.testing.assert_allclose(b["se"], per_run.std(axis=0, ddof=1) / np.sqrt(3))
    np.testing.assert_allclose(b["mid"], [2.5, 6.5])
    with pytest.raises(ValueError, match="block"):
        fig4.block_band(r, 11)


def test_plot_block_curves_draws_the_block_means_and_references():
    run = train("cartpole", "forward_sarsa_lambda", alpha=0.03, lam=0.6, runs=2, episodes=40,
                record=False)
    ax = fig4.plot_block_curves({"fwd": run}, 10, refs={"random": 22.8},
                                stored={"stored": np.arange(40.0)})
    line = next(ln for ln in ax.get_lines() if ln.get_label().startswith("fwd ("))
    np.testing.assert_allclose(line.get_ydata(), fig4.block_band(run["returns"], 10)["mean"])
    stored = next(ln for ln in ax.get_lines() if ln.get_label() == "stored")
    np.testing.assert_allclose(stored.get_ydata(), [4.5, 14.5, 24.5, 34.5])
    assert any(ln.get_label() == "random" and ln.get_ydata()[0] == 22.8 for ln in ax.get_lines())
    faded = [ln for ln in ax.get_lines() if ln.get_alpha() is not None and ln.get_alpha() < 0.2]
    assert len(faded) == 2  # every run's episodes, faded


def test_plot_figure4_and_stored_curves_draw_the_data():
    left = _fake(CELLS)
    right = _fake(CELLS, env="cartpole")
    axes = fig4.plot_figure4(left, right)
    level = fig4.no_learning_level(left)["level"]
    assert any(np.allclose(ln.get_ydata(), level) for ln in axes[0].get_lines())
    ax = fig4.plot_stored_curves(left, (0.5, 0.9), level=level, block=2)
    line = next(ln for ln in ax.get_lines() if ln.get_label() == "forward Sarsa(λ), λ = 0.9")
    np.testing.assert_allclose(line.get_ydata(), [-300.0] * 3)
    assert ax.get_ylabel().startswith("return (−steps")


def test_readings_of_section_5_carry_the_numbers():
    runs = {"a": dict(returns=np.array([[5.0, 5, 30, 30], [5, 5, 30, 30]]))}
    text = fig4.scratch_reading(runs, 2, 9.3, 22.8)
    assert "starts at 5.0 steps" in text and "first 2 episodes" in text
    assert "below the random policy's line for the first 2 episodes" in text
    assert "ends at 30.0" in text and "9.3" in text and "22.8" in text
    text = time_limits.cap_reading({"bootstrap": [12, 123], "terminal": [17, 11]}, 26.0)
    assert "[12, 123] steps (1 of 2 beyond" in text and "[17, 11] (0 of 2)" in text
    text = time_limits.cap_reading({"bootstrap": [12, 123], "terminal": [17, 11]}, 26.0,
                                   brief=True, cap=10)
    assert "Beyond the 10 steps trained on: 2 of 2 bootstrapped learners, 2 of 2 terminal" in text
    text = fig4.scratch_reading(runs, 2, 9.3, 22.8, brief=True)
    assert "**a** 5.0 → 30.0" in text and "(9.3)" in text and "(22.8)" in text


def test_time_limit_study_against_the_loop_it_replaces():
    """The helper against the notebook's former cell, written out (small sizes)."""
    from ftd_lib.course.nb06_greedy import greedy_rollouts, start_value
    from ftd_lib.course.nb06_nn_control import start_states

    cap = dict(alpha=0.03, lam=0.6, runs=2, episodes=6, max_steps=12)
    study = time_limits.time_limit_study("cartpole", "forward_sarsa_lambda", n_starts=3,
                                         greedy_steps=200, **cap)
    assert study["bound"] == pytest.approx(sum(0.99 ** k for k in range(12)))
    starts = start_states("cartpole", 3)
    for how in ("bootstrap", "terminal"):
        run = train("cartpole", "forward_sarsa_lambda", truncation=how, record=False, **cap)
        greedy = [greedy_rollouts(run["final_weights"][r], "cartpole", starts,
                                  max_steps=200)["steps"].mean() for r in range(2)]
        assert study[how]["greedy"].tolist() == np.round(greedy).astype(int).tolist()
        assert study[how]["last50"] == pytest.approx(run["returns"][:, -50:].mean())
        assert study[how]["start_value"] == pytest.approx(start_value(run))
    text = time_limits.format_time_limit(study)
    assert f"{study['bound']:.1f}" in text and str(study["terminal"]["greedy"].tolist()) in text
    with pytest.raises(ValueError, match="max_steps"):
        time_limits.time_limit_study("cartpole", alpha=0.03, lam=0.6)


def test_live_at_best_repeats_the_stored_runs():
    right = figures.stored("fig4-right")
    if right is None:
        pytest.skip("no stored fig4-right")
    lam = 0.4
    cell = fig4.best_cell(right, "forward_sarsa_lambda", lam)
    if right.meta["definition"]["runs"] < 2 or right.meta["episodes"] != 1000:
        pytest.skip("stored fig4-right is not the paper-scale run")
    run = fig4.live_at_best(right, "forward_sarsa_lambda", lam, runs=2, episodes=1000)
    assert run["alpha"] == right.arrays["alpha"][cell]
    # the metric of a run is its mean return over the 1000 episodes: the same runs, the same
    # numbers
    np.testing.assert_array_equal(run["returns"].mean(axis=1), right.arrays["metric"][cell, :2])


def test_peak_borderline_sees_a_tie_on_the_window_edge_only():
    lo, hi = PEAK_RANGE
    below = round(lo - 0.1, 1)

    def res(edge, outside, spread):
        runs = [[edge - spread, edge + spread] * 2, [outside - spread, outside + spread] * 2]
        cells = [(F, lo, SMALL, runs[0]), (F, below, SMALL, runs[1]), (F, 0.6, SMALL, 100),
                 (S, 0.0, SMALL, 390)]
        return _fake(cells, env="cartpole")

    # 424 against 423 with a standard error of ~6 each: a tie, as the stored Figure 4 right
    assert fig4.peak_borderline(res(424.0, 423.0, 12.0))
    # the same peak far above its neighbour outside the window: a clear verdict
    assert not fig4.peak_borderline(res(424.0, 300.0, 12.0))
    # a peak inside the window, not on its edge: never borderline
    inside = [(F, lo, SMALL, 300), (F, 0.6, SMALL, 424), (F, below, SMALL, 299)]
    assert not fig4.peak_borderline(_fake(inside + [(S, 0.0, SMALL, 1)], env="cartpole"))
    rows = [dict(number=7, paper="“around 0.6”", verdict="✔ agrees",
                 evidence="best λ = 0.4 (rule: in [0.4, 0.8])")]
    assert "| **✔ agrees**, borderline *(ours)* |" in fig4.claims_compact(rows, borderline=(7,))
    assert "borderline" not in fig4.claims_compact(rows)


def test_summary_says_where_forward_sarsa_learns_as_the_stored_figure_does():
    """Notebook 06's Summary (a slide of lecture 3, and INSTRUCTORS.md's goals) names the λs at
    which forward Sarsa(λ) clears the bar on mountain car; the stored Figure 4 left decides
    them (at λ = 1 it ends below the level, so "λ ≥ 0.6" was false)."""
    import re
    from pathlib import Path

    left = figures.stored("fig4-left")
    got = [lam for lam, _ in fig4.learners(left, fig4.no_learning_level(left)["level"])[F]]
    repo = Path(__file__).resolve().parents[2]
    for path in (repo / "notebooks" / "src" / "06_nn_control.md", repo / "INSTRUCTORS.md"):
        text = path.read_text()
        assert "λ ≥ 0.6" not in text, path
        spans = re.findall(r"forward Sarsa\(λ\)[^.;]*?λ = (\d\.\d)–(\d\.\d)", text)
        assert spans, f"{path.name}: no 'forward Sarsa(λ) ... λ = a–b' sentence"
        for a, b in spans:
            assert got == pytest.approx(list(np.arange(float(a), float(b) + 0.05, 0.1))), \
                (path.name, a, b, got)
