"""The two-stage step-size protocol of the control figures (ftd_lib.repro.protocol)."""

import numpy as np
import pytest

from ftd_lib.repro import chunks, protocol
from ftd_lib.repro.definitions import FIG4_METHODS, figure

pytestmark = pytest.mark.slow  # the two-stage protocol run


def _metric(fig, best_alpha_of):
    """A metric (cells, runs) peaked at best_alpha_of(method, lam), in log2 distance."""
    m = np.array([-abs(np.log2(c.alpha / best_alpha_of(c.method, c.lam))) for c in fig.cells])
    return np.repeat(m[:, None], 3, axis=1)


def test_the_pilot_is_the_paper_grid_with_20_runs():
    p = protocol.pilot_figure("fig4-right")
    full = figure("fig4-right", "paper")
    assert p.runs == protocol.PILOT_RUNS == 20 and p.episodes == full.paper_episodes == 1000
    assert p.cells == full.cells and not p.at_paper_scale
    assert protocol.two_stage(full) and not protocol.two_stage(figure("fig4-right", "quick"))
    assert not protocol.two_stage(figure("fig3-left", "paper"))


def test_a_best_inside_the_grid_is_not_widened_and_the_final_centres_on_it():
    p = protocol.pilot_figure("fig4-left")
    grid = sorted({c.alpha for c in p.cells})
    best = grid[5]
    m = _metric(p, lambda meth, lam: best)
    assert protocol.widened(p, m) is None
    f = protocol.final_figure("fig4-left", p, m)
    assert f.runs == 200 and f.at_paper_scale
    n_lams = len({c.lam for c in p.cells})
    assert len(f.cells) == len(p.methods) * n_lams * protocol.FINAL_ALPHAS
    for key, info in protocol.best_alphas(f, _metric(f, lambda meth, lam: best)).items():
        assert list(info["alphas"]) == grid[3:8], key  # two on each side of the best
        assert info["alphas"][info["best"]] == best


def test_a_best_at_an_edge_widens_that_curve_only_and_keeps_the_old_chunks():
    p = protocol.pilot_figure("fig4-right")
    grid = sorted({c.alpha for c in p.cells})

    def best(meth, lam):  # Sarsa(0) wants a step size below the grid
        return grid[0] / 4 if (meth, lam) == ("sarsa_lambda", 0.0) else grid[6]

    w = protocol.widened(p, _metric(p, best))
    assert len(w.cells) == len(p.cells) + 1
    new = w.cells[-1]
    assert (new.method, new.lam) == ("sarsa_lambda", 0.0)
    assert new.alpha == pytest.approx(grid[0] / 2, rel=1e-5)
    # widening appends a chunk: every chunk of the narrower grid is still there, same identity
    old = {str(t.identity("r", "cpu")) for t in chunks.cut_chunks(p, 1)}
    now = {str(t.identity("r", "cpu")) for t in chunks.cut_chunks(w, 1)}
    assert old < now and len(now - old) == 1
    # the best (a quarter of the smallest step size) is the new edge once more, then inside
    w2 = protocol.widened(w, _metric(w, best))
    w3 = protocol.widened(w2, _metric(w2, best))
    assert min(c.alpha for c in w3.cells) == pytest.approx(grid[0] / 8, rel=1e-5)
    assert protocol.widened(w3, _metric(w3, best)) is None


def test_the_final_window_shifts_inwards_at_an_edge_and_skips_diverged_cells():
    p = protocol.pilot_figure("fig4-right")
    grid = sorted({c.alpha for c in p.cells})
    m = _metric(p, lambda meth, lam: grid[1])
    top = [i for i, c in enumerate(p.cells) if c.alpha == grid[0]]
    m[top] = np.nan  # the smallest step size diverged somewhere: never the best
    f = protocol.final_figure("fig4-right", p, m)
    for info in protocol.best_alphas(f, _metric(f, lambda meth, lam: grid[1])).values():
        assert list(info["alphas"]) == grid[:5]
    info = protocol.best_alphas(p, m)[("sarsa_lambda", 0.5)]
    assert info["alphas"][info["best"]] == grid[1]


def test_final_chunks_hold_every_cell_of_a_method_times_50_runs():
    p = protocol.pilot_figure("fig4-right")
    f = protocol.final_figure("fig4-right", p, _metric(p, lambda meth, lam: 0.015))
    cut = chunks.cut_chunks(f, 1)
    per_method = len({c.lam for c in p.cells}) * protocol.FINAL_ALPHAS
    assert len(cut) == len(p.methods) * f.runs // protocol.RUNS_PER_FINAL_CHUNK
    assert {t.rows for t in cut} == {per_method * protocol.RUNS_PER_FINAL_CHUNK}
    assert [t.method for t in cut[::len(cut) // len(p.methods)]] == p.methods


def _peaked_runner(task, *, device, progress):
    """Returns peaked at alpha = 0.0075 * 2**-3 for Sarsa(0) (below the pilot grid's centre),
    0.0075 elsewhere: a smooth, noiseless landscape."""
    a, lam = task.settings[:, 0], task.settings[:, 1]
    want = np.where((lam == 0) & (task.method == "sarsa_lambda"), 0.0075 / 8, 0.0075)
    score = 100 - 10 * np.abs(np.log2(a / want))
    return {"values": np.repeat(score[:, None], task.n_episodes, axis=1),
            "diverged": np.zeros(len(a), bool)}


_peaked_runner.name = "peaked-v1"


def test_run_protocol_stores_both_stages_and_finds_the_best(tmp_path):
    res = protocol.run_protocol("fig4-left", tmp_path, runs=3, runner=_peaked_runner,
                                progress=False, plot=False)
    pilot = (tmp_path / "pilot" / "fig4-left.json")
    assert pilot.exists() and (tmp_path / "fig4-left.json").exists()
    assert res.meta["runs"] == 3
    a = np.asarray(res["alpha"])
    lam, meth = np.asarray(res["lam"]), np.asarray(res["method"])
    metric = np.asarray(res["metric"]).mean(1)
    for m in FIG4_METHODS:
        for lv in (0.0, 0.5):
            sel = (meth == m) & (lam == lv)
            assert sel.sum() == protocol.FINAL_ALPHAS
            want = 0.0075 / 8 if (m, lv) == ("sarsa_lambda", 0.0) else 0.0075
            assert a[sel][np.argmax(metric[sel])] == pytest.approx(want, rel=1e-3)


def test_the_pilot_is_one_chunk_per_method():
    p = protocol.pilot_figure("fig4-right")
    cut = chunks.cut_chunks(p, 1)
    assert [t.method for t in cut] == p.methods == list(FIG4_METHODS)
    n_grid = len({c.lam for c in p.cells}) * len({c.alpha for c in p.cells})
    assert {t.rows for t in cut} == {n_grid * protocol.PILOT_RUNS}


def test_the_report_shows_the_pilot_and_flags_a_best_at_the_grid_edge(tmp_path):
    from ftd_lib.repro.report import render

    protocol.run_protocol("fig4-left", tmp_path, runs=3, runner=_peaked_runner,
                          progress=False, plot=False)
    text = render(tmp_path)
    assert "Step sizes, stage 1: the pilot (20 runs" in text
    # Sarsa(0)'s pilot best, inside the grid: no edge mark in its pilot row
    row0 = next(line for line in text.splitlines() if line.startswith("| 0 | ")
                and "α = 0.0009375" in line)
    assert "edge" not in row0
    # the final's cells around 0.0075 hold it in the middle: no grid-edge mark anywhere
    assert ", grid edge]" not in text


def test_a_final_best_at_the_edge_of_its_window_is_flagged():
    from ftd_lib.repro import sections
    from ftd_lib.repro.results import Results

    # curve a is best at its largest alpha, b in the middle of its three
    metric = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [1.0, 1.0], [5.0, 5.0],
                       [2.0, 2.0]])
    arrays = {"curve": np.array(["a"] * 3 + ["b"] * 3), "method": np.array(["a"] * 6),
              "lam": np.array([0.5] * 6), "alpha": np.array([0.1, 0.2, 0.4] * 2),
              "metric": metric, "diverged": np.zeros((6, 2), bool),
              "curve_mean": metric.copy()}
    res = Results("x", arrays, {"definition": {"x": "lam", "task": "control",
                                               "optimise": "alpha"}})
    assert sections._point(res, "a", 0, True).endswith("[α = 0.4, grid edge] (learns)")
    assert sections._point(res, "b", 0, True).endswith("[α = 0.2] (learns)")


def test_a_curve_that_diverges_at_every_step_size_is_widened_downwards():
    p = protocol.pilot_figure("fig4-left")
    m = _metric(p, lambda meth, lam: 0.015)
    dead = [i for i, c in enumerate(p.cells) if (c.method, c.lam) == ("sarsa_lambda", 1.0)]
    m[dead, 0] = np.nan  # one run diverged in every cell of Sarsa(1)
    info = protocol.best_alphas(p, m)[("sarsa_lambda", 1.0)]
    assert info["best"] is None and protocol.at_edge(info) == "low"
    w = protocol.widened(p, m)
    assert len(w.cells) == len(p.cells) + 1
    new = w.cells[-1]
    assert (new.method, new.lam) == ("sarsa_lambda", 1.0)
    assert new.alpha == pytest.approx(min(c.alpha for c in p.cells) / 2, rel=1e-5)


def test_returns_are_printed_as_plain_numbers():
    from ftd_lib.repro.paper.claims import fmt_number

    assert fmt_number(-3650.4) == "-3650" and fmt_number(-999.6) == "-1000"
    assert fmt_number(-223.4) == "-223" and fmt_number(0.2894) == "0.289"
    assert fmt_number(float("nan")) == "diverged"
