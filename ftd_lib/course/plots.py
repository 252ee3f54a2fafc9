"""One look for every figure of the course: readable when projected, the same everywhere.

Colours, line styles and labels per method come from the one table of methods
(:mod:`ftd_lib.methods`), so TD(λ) is the same colour in every notebook and every stored
figure. Diverged values are drawn "off the chart": clipped to just above the top of the axes
with a marker, never left out silently and never an error.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np

from ..methods import OKABE_ITO, style

__all__ = ["OKABE_ITO", "RC", "new_axes", "off_chart_handle", "plot_off_chart",
           "sequential_colours", "style", "use_style"]

#: The course style. Sized for a large lecture hall: a single 7-inch panel is shown about
#: 950 px wide (at 100 dpi it was 700 px, about 620 px of it the axes) and every text at
#: least 12 pt, so labels and legends stay readable from the back of the room
#: (tests/course/test_plots.py)
RC = {
    "figure.figsize": (7.0, 4.2),
    "figure.dpi": 135,
    "savefig.dpi": 135,
    "font.size": 13,
    "axes.titlesize": 14,
    "axes.labelsize": 13,
    "legend.fontsize": 12,
    "xtick.labelsize": 12,
    "ytick.labelsize": 12,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 2.0,
}


def use_style() -> None:
    """Apply the course style to matplotlib (call once at the top of a notebook)."""
    mpl.rcParams.update(RC)


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


def off_chart_handle(label: str = "off the chart: diverged (or beyond the axis)",
                     marker: str = "^"):
    """A legend entry for the markers :func:`plot_off_chart` pins to the edge of the axes."""
    from matplotlib.lines import Line2D

    return Line2D([], [], ls="none", marker=marker, ms=8, color="0.3", label=label)


def sequential_colours(n: int) -> list:
    """``n`` colours from a sequential colour map (viridis, its ends cut off): for lines that
    are one family ordered by a number (α, λ, episodes), not different methods."""
    cmap = mpl.colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.2, 0.85, max(int(n), 1))][: int(n)]


def new_axes(title: str = "", xlabel: str = "", ylabel: str = "", figsize=None):
    """A fresh figure and axes in the course style."""
    use_style()
    fig, ax = plt.subplots(figsize=figsize)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    return fig, ax
