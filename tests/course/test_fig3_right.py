"""Figure 3 right read closely (notebook 05): the 1 - λ axis and the learning curves behind the
points, on the stored data and on a small hand-made result."""

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from ftd_lib.course import live as figures  # noqa: E402
from ftd_lib.course.fig3_right import (  # noqa: E402
    ONE_AT,
    format_lambda_profile,
    lambda_profile,
    one_minus_lambda,
    plot_against_one_minus_lambda,
)


def test_one_minus_lambda():
    x = one_minus_lambda([0.0, 0.9, 0.99, 1.0])
    assert np.allclose(x, [1.0, 0.1, 0.01, ONE_AT])
    # equal ratios of horizons are equal distances on the log axis
    d = -np.diff(np.log(one_minus_lambda([0.9, 0.95, 0.975, 0.99])))
    assert d[0] == pytest.approx(d[1]) == pytest.approx(np.log(2))
    # ... but 0.99 is not on that spacing (notebook 05 §5 says so): 1 - λ shrinks by 2.5
    assert d[2] == pytest.approx(np.log(2.5)) and d[2] > 1.3 * d[1]
    with pytest.raises(ValueError, match="lams"):
        one_minus_lambda([1.2])


def _fake(curves):
    """A Results-like object: the cells of ``curves`` ({(lam, eta, k_max): curve_mean})."""
    keys = list(curves)
    cm = np.array([curves[k] for k in keys], dtype=float)
    arrays = dict(lam=np.array([k[0] for k in keys]), eta=np.array([k[1] for k in keys]),
                  k_max=np.array([k[2] for k in keys]), curve_mean=cm)
    stats = dict(mean=cm.mean(axis=1), se=np.full(len(keys), 0.01),
                 n_diverged=np.zeros(len(keys), int))
    return SimpleNamespace(arrays=arrays, cell_stats=lambda: stats,
                           meta={"figure": "fig3-right"})


def test_lambda_profile_reads_the_right_cells():
    res = _fake({(0.0, 0.01, 0): [1.0, 0.5, 0.25], (0.3, 0.01, 0): [1.0, 0.8, 0.9],
                 (0.3, 0.01, 50): [9.0, 9.0, 9.0], (0.3, 0.1, 0): [7.0, 7.0, 7.0]})
    rows = lambda_profile(res, lams=(0.0, 0.3), eta=0.01, k_max=0, episodes=(1, 3))
    assert [r["lam"] for r in rows] == [0.0, 0.3]
    assert rows[1]["score"] == pytest.approx(0.9) and rows[1]["after"] == {1: 1.0, 3: 0.9}
    assert lambda_profile(res, lams=(0.3,), eta=0.01, k_max=50)[0]["score"] == 9.0
    text = format_lambda_profile(rows)
    assert "0.3   0.900 ± 0.010" in text and text.splitlines()[0].endswith("1     3")
    with pytest.raises(ValueError, match="lam=0.5"):
        lambda_profile(res, lams=(0.5,))
    some = format_lambda_profile(rows, episodes=(3,)).splitlines()
    assert some[0].endswith("episode     3") and some[2].split()[-1] == "0.90"
    assert some[1].split()[-1] == "0.25"
    assert len(some[1].split()) == len(text.splitlines()[1].split()) - 1
    with pytest.raises(ValueError, match="episodes"):
        format_lambda_profile(rows, episodes=(2,))


def test_on_the_stored_figure():
    res = figures.stored("fig3-right")
    if res is None:
        pytest.skip("no stored fig3-right in results/")
    rows = lambda_profile(res, lams=(0.0, 0.3, 0.9))
    summ = res.summary()["η = 0.01"]
    for r in rows:  # the profile's score is the plotted point
        i = int(np.argmin(np.abs(summ["x"] - r["lam"])))
        assert r["score"] == pytest.approx(float(summ["y"][i]))
    # the score is the learning curve averaged over all its episodes (no run diverged here)
    n = res.arrays["curve_mean"].shape[1]
    for r in lambda_profile(res, lams=(0.0, 0.3, 0.9), episodes=range(1, n + 1)):
        assert np.mean(list(r["after"].values())) == pytest.approx(r["score"], rel=1e-9)
    ax = plot_against_one_minus_lambda(res)
    assert ax.get_xscale() == "log"
    lo, hi = ax.get_xlim()
    assert lo > hi  # inverted: λ grows to the right
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0] == "0" and labels[-1] == "1" and "0.99" in labels
    # every stored point is drawn: the data of the lines hold all λ < 1 of each curve
    xs = np.concatenate([ln.get_xdata() for ln in ax.lines])
    assert np.any(np.isclose(xs, ONE_AT)) and np.any(np.isclose(xs, 0.01))
    plt.close(ax.figure)


def test_refuses_other_figures():
    res = _fake({(0.0, 0.01, 0): [1.0]})
    res.meta = {"figure": "fig3-left"}
    with pytest.raises(ValueError, match="fig3-right"):
        plot_against_one_minus_lambda(res)
