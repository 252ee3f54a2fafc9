"""One look for every figure of the course: readable when projected, the same everywhere.

Colours and line styles per method are fixed here so that TD(lambda) is always the same
colour in every notebook. Diverged values are drawn "off the chart": clipped to just above the
top of the axes with a marker, never left out silently and never an error.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

METHOD_STYLE = {
    "td0": dict(color="#7f7f7f", ls=":", label="TD(0)"),
    "td_lambda": dict(color="#d62728", ls="-", label="TD(λ)"),
    "online_lambda_return": dict(color="#1f77b4", ls="-", label="online λ-return"),
    "offline_lambda_return": dict(color="#2ca02c", ls="--", label="offline λ-return"),
    "forward_td_lambda": dict(color="#ff7f0e", ls="-", label="forward TD(λ)"),
    "true_online_td_lambda": dict(color="#9467bd", ls="-.", label="true online TD(λ)"),
    "lambda_return": dict(color="#1f77b4", ls="-", label="λ-return"),
    "sarsa_lambda": dict(color="#d62728", ls="-", label="Sarsa(λ)"),
    "forward_sarsa_lambda": dict(color="#ff7f0e", ls="-", label="forward Sarsa(λ)"),
}

RC = {
    "figure.figsize": (7.0, 4.2),
    "figure.dpi": 100,
    "savefig.dpi": 120,
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.labelsize": 12,
    "legend.fontsize": 11,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 2.0,
}


def use_style() -> None:
    """Apply the course style to matplotlib (call once at the top of a notebook)."""
    mpl.rcParams.update(RC)


def style(method: str) -> dict:
    """Keyword arguments (color, ls, label) for ``ax.plot`` of a method."""
    return dict(METHOD_STYLE.get(method, dict(label=method)))


def plot_off_chart(ax, x, y, ymax: float, ymin: float | None = None, **kw):
    """Plot ``y`` against ``x``; values beyond the chart are drawn "off the chart".

    Values above ``ymax`` (and ``+inf``/``nan``: a diverged run) are pinned just above the top
    edge with an upward triangle; with ``ymin`` given, values below it (and ``-inf``) are pinned
    just under the bottom edge with a downward one (values that blow up with alternating sign).
    Without ``ymin`` the top margin is relative to ``ymax`` (errors, returns >= 0). Returns the
    line.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if ymin is None:
        top, bottom, lim_top = ymax * 1.04, None, ymax * 1.08
    else:
        span = ymax - ymin
        top, bottom, lim_top = ymax + 0.04 * span, ymin - 0.04 * span, ymax + 0.08 * span
    up = ~np.isfinite(y) | (y > ymax) if ymin is None else np.isnan(y) | (y > ymax)
    down = np.zeros_like(up) if ymin is None else (y < ymin)
    y_clip = np.where(up, top, np.where(down, bottom if bottom is not None else 0.0, y))
    (line,) = ax.plot(x, y_clip, **kw)
    for mask, marker, yy in ((up, "^", top), (down, "v", bottom)):
        if mask.any():
            ax.plot(x[mask], np.full(mask.sum(), yy), ls="none", marker=marker, ms=8,
                    color=line.get_color(), clip_on=False)
    if ymin is None:
        ax.set_ylim(top=lim_top)
    else:
        ax.set_ylim(ymin - 0.08 * span, lim_top)
    return line


def new_axes(title: str = "", xlabel: str = "", ylabel: str = "", figsize=None):
    """A fresh figure and axes in the course style."""
    use_style()
    fig, ax = plt.subplots(figsize=figsize)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    return fig, ax
