r"""Figure 3 right read closely (notebook 05): the curves against :math:`1-\lambda` on a log
scale, and the learning curves behind single points.

On a linear λ axis everything that happens above λ = 0.9 -- where the curves part and have
their minima -- is squeezed into the right tenth of the plot. :func:`plot_against_one_minus_lambda`
draws the same points with :math:`1-\lambda` on a log axis (λ grows to the right, tick labels in
λ): λ = 0.9, 0.95, 0.99 are evenly spread, as the horizon :math:`1/(1-\lambda)` they stand for.
λ = 1 has :math:`1 - \lambda = 0`, no place on a log axis: it is drawn at the right edge, past a
break in the axis. :func:`lambda_profile` reads the learning curves behind the points of one
curve (``curve_mean`` of the stored data): whether a bump is noise (its standard error) or a
learning curve that first falls, then rises again.
"""

from __future__ import annotations

import math

import numpy as np

from ..style import (  # one look
    CURVE_STYLE,
    legend_off_data,
    off_chart_handle,
    plot_off_chart,
    use_style,
)

#: where λ = 1 sits on the 1 - λ axis: a factor 3 past the smallest 1 - λ of the grid (0.01)
ONE_AT = 0.003
TICKS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 1.0)


def one_minus_lambda(lams) -> np.ndarray:
    """The x coordinate of each λ: :math:`1-\\lambda`, with λ = 1 at :data:`ONE_AT`."""
    lams = np.asarray(lams, dtype=float)
    if np.any((lams < 0) | (lams > 1)) or not np.all(np.isfinite(lams)):
        raise ValueError(f"lams must lie in [0, 1], got {lams!r}")
    return np.where(lams >= 1.0, ONE_AT, 1.0 - lams)


def plot_against_one_minus_lambda(res, ax=None, ymax: float | None = None,
                                  figsize=(9.0, 4.6)):
    """The curves of a stored (or live) Figure 3 right against :math:`1-\\lambda`, log scale,
    λ increasing to the right, ±1 SE bands; diverged points off the chart (``figsize`` in
    inches, when ``ax`` is None). Returns the axes."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    if res.meta.get("figure") != "fig3-right":
        raise ValueError("res must be the results of fig3-right")
    summ = res.summary()
    if ax is None:
        use_style()
        _, ax = plt.subplots(figsize=figsize)
    finite = np.concatenate([s["y"][np.isfinite(s["y"])] for s in summ.values()])
    top = float(ymax) if ymax is not None else min(float(finite.max()) * 1.05, 1.5)
    for curve, s in summ.items():
        kw = dict(CURVE_STYLE.get(curve, {}), label=curve, marker="o", ms=5)
        x = one_minus_lambda(s["x"])
        one = s["x"] >= 1.0
        line = plot_off_chart(ax, x[~one], s["y"][~one], top, **kw)
        se = np.where(np.isfinite(s["se"]), s["se"], 0.0)[~one]
        ax.fill_between(x[~one], s["y"][~one] - se, s["y"][~one] + se, color=line.get_color(),
                        alpha=0.15, lw=0)
        if one.any():  # λ = 1 past the break, not joined to the rest
            plot_off_chart(ax, x[one], s["y"][one], top, ls="none", marker="o", ms=7,
                           color=line.get_color())
    ax.set_xscale("log")
    ax.set_xlim(1.5, ONE_AT / 1.6)  # inverted: λ grows to the right
    ax.axvspan(0.0063, 0.0048, color="0.85", lw=0)  # the break before λ = 1
    ax.xaxis.set_major_locator(FixedLocator(one_minus_lambda(TICKS)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{t:g}" for t in TICKS])
    ax.set_ylim(bottom=0)
    ax.set_xlabel("λ   (axis: 1 − λ on a log scale; λ = 1 past the grey break)")
    ax.set_ylabel("normalised RMS error,\nfirst 50 episodes")
    handles, _ = ax.get_legend_handles_labels()
    if any(np.any(~np.isfinite(s["y"]) | (s["y"] > top)) for s in summ.values()):
        handles.append(off_chart_handle())
    ax.legend(handles=handles, loc="lower left", fontsize=13)
    legend_off_data(ax.figure, [ax])
    return ax


def lambda_profile(res, lams=(0.0, 0.1, 0.3, 0.5, 0.9), eta: float = 0.01, k_max: int = 0,
                   episodes=(1, 3, 5, 10, 20, 30, 50)) -> list[dict]:
    """Behind the points of one curve of Figure 3 right (forward TD(λ) with ``eta``;
    ``k_max`` 0: no cap): per λ, the plotted score (the error averaged over the first
    episodes) with its standard error, and the mean error after the given episodes (1-based),
    read from ``res.arrays["curve_mean"]``."""
    a = res.arrays
    st = res.cell_stats()
    rows = []
    for lam in lams:
        hit = np.flatnonzero((np.abs(a["lam"] - float(lam)) < 1e-9)
                             & (np.abs(a["eta"] - float(eta)) < 1e-12)
                             & (a["k_max"] == int(k_max)))
        if hit.size != 1:
            raise ValueError(f"no single cell with lam={lam}, eta={eta}, k_max={k_max} "
                             f"in these results ({hit.size} found)")
        i = int(hit[0])
        curve = a["curve_mean"][i]
        rows.append(dict(lam=float(lam), score=float(st["mean"][i]), se=float(st["se"][i]),
                         after={int(e): float(curve[int(e) - 1]) for e in episodes
                                if int(e) <= len(curve)}))
    return rows


def format_lambda_profile(rows: list[dict], episodes=None) -> str:
    """:func:`lambda_profile` as a table for people (``episodes``: only these columns of the
    learning curve, e.g. ``(1, 5, 20, 50)`` for a slide; default all of them)."""
    eps = list(rows[0]["after"]) if episodes is None else [int(e) for e in episodes]
    missing = [e for e in eps if e not in rows[0]["after"]]
    if missing:
        raise ValueError(f"episodes {missing} are not in the profile (it has "
                         f"{list(rows[0]['after'])})")
    lines = ["   λ    score ± SE       error after episode " + " ".join(f"{e:>5d}" for e in eps)]
    for r in rows:
        after = " ".join(f"{r['after'][e]:5.2f}" if math.isfinite(r["after"][e]) else "    ∞"
                         for e in eps)
        lines.append(f"{r['lam']:4g}   {r['score']:.3f} ± {r['se']:.3f}"
                     f"                      {after}")
    return "\n".join(lines)
