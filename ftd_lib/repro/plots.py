r"""A stored figure drawn: :func:`plot_results` (the look of :mod:`ftd_lib.style`, diverged
points off the chart), :func:`plot_stored_and_live` (the stored figure beside a live run, or the
command that makes it), :func:`save_plot` (the PNG next to the data, written atomically).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..methods import style
from ..style import (
    CURVE_STYLE,
    RC,
    log_alpha_axis,
    new_axes,
    off_chart_handle,
    plot_off_chart,
    use_style,
)
from . import store
from .definitions import figure
from .results import DEFAULT_RESULTS, Results, groups, reproduce_command, scale_label

_MORE_LS = ("--", ":", "-.", (0, (5, 1, 1, 1)))


def curve_styles(res: Results) -> dict[str, dict]:
    """Each curve's look: the method's colour and line (:func:`ftd_lib.methods.style`), the
    curve's own name as its label; a method's second and later curves take other lines."""
    a = res.arrays
    method_of = dict(zip(a["curve"].tolist(), a["method"].tolist(), strict=True))
    out, seen = {}, {}
    for curve, m in method_of.items():
        st = style(curve) if curve == m else dict(style(m), label=curve)
        k = seen[m] = seen.get(m, -1) + 1
        if k:
            st["ls"] = _MORE_LS[(k - 1) % len(_MORE_LS)]
        out[curve] = st
    return out


#: characters of a title's line above one figure's axes (at the course style's size)
TITLE_CHARS = 60


def plot_results(res: Results, ax=None):
    """Draw a stored figure in the course style. Diverged points are off the chart (▲)."""
    d = res.meta["definition"]
    if ax is None:
        fig, ax = new_axes()
    else:
        fig = ax.figure
    summ = res.summary()
    import textwrap

    # the title and the scale label, each wrapped so that it fits above the axes
    title = "\n".join(textwrap.wrap(d["title"], TITLE_CHARS))
    if not res.at_paper_scale:
        title += "\n" + "\n".join(textwrap.wrap(f"[{scale_label(res)}]", TITLE_CHARS))
    ax.set_title(title, fontsize="medium")
    xlabel = "step size α" if d["x"] == "alpha" else "λ"
    if d["optimise"]:
        xlabel += " (best α per point)"
    ax.set_xlabel(xlabel)
    ax.set_ylabel(d["ylabel"].replace("first episodes", f"first {res.meta['episodes']} episodes"))
    if d["task"] == "prediction":
        finite = np.concatenate([s["y"][np.isfinite(s["y"])] for s in summ.values()])
        top = float(finite.max()) * 1.05 if finite.size else 1.0
        ymax = min(max(top, 0.1), 1.5)  # above 1.5x the initial error: off the chart
        for curve, s in summ.items():
            kw = CURVE_STYLE.get(curve) or style(curve)
            kw = dict(kw, label=kw.get("label", curve), marker="o", ms=4)
            plot_off_chart(ax, s["x"], s["y"], ymax, **kw)
        ax.set_ylim(bottom=0)
        if any(not np.all(np.isfinite(s["y"]) & (s["y"] <= ymax)) for s in summ.values()):
            handles, _ = ax.get_legend_handles_labels()
            ax.legend(handles=[*handles, off_chart_handle()], loc="best")
    else:
        # returns: higher is better, so a point whose every alpha diverged is drawn off the
        # chart at the *bottom* (▼), never left out
        finite = np.concatenate([s["y"][np.isfinite(s["y"])] for s in summ.values()])
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        pad = 0.08 * (hi - lo) if hi > lo else max(1.0, 0.1 * abs(hi))
        edge = lo - pad  # the bottom of the axes
        pinned = edge - 0.5 * pad  # just below it, like plot_off_chart's top
        any_off = any_edge = False
        looks = curve_styles(res)
        for curve, s in summ.items():
            kw = dict(looks[curve], marker="o", ms=4)
            off = ~np.isfinite(s["y"])
            y = np.where(off, pinned, s["y"])
            (line,) = ax.plot(s["x"], y, **kw)
            se = np.where(np.isfinite(s["se"]) & ~off, s["se"], 0.0)
            ax.fill_between(s["x"], y - se, y + se, color=line.get_color(), alpha=0.15, lw=0)
            if off.any():
                any_off = True
                ax.plot(s["x"][off], y[off], ls="none", marker="v", ms=8,
                        color=line.get_color(), clip_on=False)
            at_edge = s.get("alpha_edge", np.zeros(len(y), dtype=str)) != ""
            if at_edge.any():
                any_edge = True
                ax.plot(s["x"][at_edge], y[at_edge], ls="none", marker="s", ms=11, mfc="none",
                        mew=1.6, color=line.get_color())
        ax.set_ylim(bottom=edge)
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        handles, _ = ax.get_legend_handles_labels()
        handles.append(Patch(color="0.3", alpha=0.15, label="band: ±1 SE over runs"))
        if any_edge:
            handles.append(Line2D([], [], ls="none", marker="s", ms=11, mfc="none", mew=1.6,
                                  color="0.3", label="best α at the grid's edge"))
        if any_off:
            handles.append(Line2D([], [], ls="none", marker="v", ms=8, color="0.3",
                                  label="off the chart: diverged" if d["x"] == "alpha"
                                  else "off the chart: every α diverged"))
        ax.legend(handles=handles, loc="best")
    if d["x"] == "alpha":
        log_alpha_axis(ax)
    if ax.get_legend() is None:
        ax.legend(loc="best")
    fig.tight_layout()
    return fig, ax


def plot_stored_and_live(stored_res, live_res, figure_name: str,
                         results_dir=DEFAULT_RESULTS, figsize=(14.0, 4.9)):
    """Two panels: the stored figure (or, when there is none, the command that makes it) and
    the live run (``figsize`` in inches). Returns the matplotlib figure."""
    import matplotlib.pyplot as plt

    use_style()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=figsize)
    if stored_res is not None:
        plot_results(stored_res, ax=a1)
        a1.set_title(f"stored: {scale_label(stored_res)}", fontsize=12)
    else:
        a1.axis("off")
        a1.text(0.5, 0.5, f"no stored data for {figure_name} yet\n\ncompute it with\n"
                f"{reproduce_command(figure_name, 'paper', results_dir)}",
                ha="center", va="center", fontsize=12, family="monospace",
                transform=a1.transAxes)
    plot_results(live_res, ax=a2)
    a2.set_title(f"live: {scale_label(live_res)}", fontsize=12)
    fig.suptitle(figure(figure_name, "paper").title, fontsize=14)
    fig.tight_layout()
    return fig


def save_plot(res: Results, path) -> Path:
    """Render the figure to PNG and write it atomically.

    Uses a bare :class:`matplotlib.figure.Figure` (Agg canvas, no pyplot), so it neither needs
    a display nor touches a notebook's figures or backend.
    """
    import io

    import matplotlib as mpl
    from matplotlib.figure import Figure as MplFigure

    with mpl.rc_context(RC):
        if len(groups(res)) > 1:  # several set-ups: one panel each
            fig = MplFigure(figsize=(11, 8), layout="constrained")
            plot_setups(res, fig)
        else:
            fig = MplFigure(figsize=RC["figure.figsize"])
            plot_results(res, ax=fig.subplots())
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=RC["savefig.dpi"])
    return store.atomic_write_bytes(path, buf.getvalue())


def plot_setups(res: Results, fig) -> None:
    """Small multiples on the matplotlib figure ``fig`` for an experiment with several
    set-ups (``[[setups]]``): one panel per set-up, every method's points against the x axis
    (each at its best alpha where the experiment optimises it), ± 1 SE."""
    parts = groups(res)
    d = res.meta["definition"]
    ncol = 3
    axes = fig.subplots((len(parts) + ncol - 1) // ncol, ncol, sharex=True, sharey=True,
                        squeeze=False)
    for ax, (name, sub) in zip(axes.flat, parts, strict=False):
        for m, s in sub.summary().items():
            st = style(m)
            ax.errorbar(s["x"], s["y"], yerr=s["se"], color=st.get("color"),
                        ls=st.get("ls", "-"), marker="o", ms=3, capsize=2, label=st["label"])
        ax.set_title(name, fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(parts):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel(d.get("xlabel") or d["x"])
    for ax in axes[:, 0]:
        ax.set_ylabel(d.get("ylabel", ""))
    axes.flat[0].legend(fontsize=8, loc="lower left")
    fig.suptitle(f"{res.meta.get('title', res.figure)} ({scale_label(res)})", fontsize=10)
