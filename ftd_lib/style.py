"""One look for every figure, in the course and in ``results/``: readable when projected, the
same everywhere.

- :data:`OKABE_ITO`: the palette (Okabe & Ito 2008), distinguishable under the common
  colour-vision deficiencies; each method's colour and line style is in :mod:`ftd_lib.methods`
  (``methods.style(id)``), each curve of Fig. 3 right's in :data:`CURVE_STYLE`.
- :data:`RC`: fonts, sizes, dpi (:func:`use_style` applies them); :data:`WIDGET_DPI` for the
  PNGs of the live widgets.
- :func:`plot_off_chart`: diverged values drawn "off the chart", clipped to just above the
  top of the axes with a marker, never left out silently and never an error.
- :func:`log_alpha_axis`: a step-size axis on a log scale with plain tick labels.
- :func:`legend_outside`: a figure's legend moved off the data (beside or below the axes).
- :func:`projected_text_px`: the smallest text of a figure as a projected slide shows it
  (a picture at most :data:`SLIDE_IMAGE` pixels, ``notebooks/rise.css``), to hold every
  figure of a lecture to :data:`MIN_PROJECTED_PX`.
"""

from __future__ import annotations

import numpy as np  # matplotlib only inside the functions: ftd_lib.methods imports the palette

#: the Okabe-Ito palette (plus a neutral grey for "nothing"): every colour of the course
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "grey": "#999999",
}

#: curves of a figure that are not methods: Fig. 3 right (one line per eta), the block study
CURVE_STYLE = {
    "η = 0.01": dict(color=OKABE_ITO["blue"], ls="-"),
    "η = 0.1": dict(color=OKABE_ITO["orange"], ls="-"),
    "η = 0.3": dict(color=OKABE_ITO["bluish_green"], ls="-"),
    "η = 0.01, K_max = 50": dict(color=OKABE_ITO["vermillion"], ls="--"),
    # the block lambda-return study: one line per block length B
    "block, B = 4": dict(color=OKABE_ITO["sky_blue"], ls="--"),
    "block, B = 16": dict(color=OKABE_ITO["orange"], ls="--"),
    "block, B = 44": dict(color=OKABE_ITO["reddish_purple"], ls="--"),
    "block, B = 128": dict(color=OKABE_ITO["bluish_green"], ls="--"),
}

#: matplotlib settings of every figure (:func:`use_style`; the report's PNGs use them as
#: well). Sized for a large lecture hall: a single 7-inch panel is shown about 950 px wide (at
#: 100 dpi it was 700 px, about 620 px of it the axes) and every text at least 13 pt, so that a
#: 14-inch, slide-wide figure (1890 px, shown 1280 px wide) still projects its smallest text at
#: 13 pt x 135/72 x 1280/1890 = 16.5 px (:func:`projected_text_px`; tests: test_style.py)
RC = {
    "figure.figsize": (7.0, 4.2),
    "figure.dpi": 135,
    "savefig.dpi": 135,
    "font.size": 14,
    "axes.titlesize": 15,
    "axes.labelsize": 14,
    "legend.fontsize": 13,
    "xtick.labelsize": 13,
    "ytick.labelsize": 13,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 2.0,
}

#: dpi of the PNGs the live widgets send: they are drawn 9-12 inches wide, 810-1080 px, a
#: slide wide
WIDGET_DPI = 90


#: the largest a figure is shown on a 1280 x 720 slide (notebooks/rise.css: max-width 100 %
#: of the slide, max-height 440 px), and the smallest text it may project there
SLIDE_IMAGE = (1280, 440)
MIN_PROJECTED_PX = 16.0


def projected_text_px(fig, dpi: float | None = None, box=SLIDE_IMAGE) -> float:
    """The smallest visible text of matplotlib figure ``fig`` in pixels as a slide projects it:
    font size (pt) x dpi / 72 x the scale at which the saved picture fits ``box`` (never
    enlarged)."""
    dpi = RC["savefig.dpi"] if dpi is None else dpi
    w, h = fig.get_size_inches() * dpi
    scale = min(1.0, box[0] / w, box[1] / h)
    fig.canvas.draw()
    sizes = [t.get_fontsize() for t in fig.findobj(lambda a: hasattr(a, "get_text")
                                                   and hasattr(a, "get_fontsize"))
             if t.get_visible() and t.get_text().strip()]
    return min(sizes) * dpi / 72 * scale if sizes else float("inf")


def legend_outside(fig, axes=None, where: str = "right", ncol: int | None = None):
    """Move the legends of ``axes`` (default: all of ``fig``'s) off the data: one figure
    legend (the entries of every legend, each label once) beside the axes (``"right"``) or
    under them (``"bottom"``), the figure laid out again (constrained) to make room. Returns
    the legend (None when there was none)."""
    if where not in ("right", "bottom"):
        raise ValueError(f"where must be 'right' or 'bottom', got {where!r}")
    axes = list(fig.axes if axes is None else axes)
    handles, labels = [], []
    for ax in axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        for h, t in zip(leg.legend_handles, leg.get_texts(), strict=False):
            if t.get_text() not in labels:
                handles.append(h)
                labels.append(t.get_text())
        leg.remove()
    if not handles:
        return None
    fig.set_layout_engine("constrained")
    if where == "right":
        return fig.legend(handles, labels, loc="outside right upper", ncol=ncol or 1)
    return fig.legend(handles, labels, loc="outside lower center",
                      ncol=ncol or min(len(labels), 3))


def _legend_again(ax, lg, **where):
    """``ax``'s legend ``lg`` drawn afresh at ``where`` (its entries, font size, title and
    frame kept): matplotlib lays a legend's columns out when it is made, so a new column count
    takes a new legend."""
    title = lg.get_title().get_text()
    return ax.legend(lg.legend_handles, [t.get_text() for t in lg.get_texts()],
                     fontsize=lg._fontsize, title=title or None,
                     frameon=lg.get_frame_on(), **where)


def _hangs_below(ax, renderer) -> bool:
    lg = ax.get_legend()
    return lg is not None and lg.get_window_extent(renderer).y1 < ax.bbox.y0


def _place_below(fig, ax, ncol, own_panel: bool) -> float:
    """Put ``ax``'s legend under the panel, below its lowest label, centred on the figure or
    (``own_panel``) on the panel, in the fewest rows that fit; the pixels it hangs below the
    figure's bottom edge."""
    from matplotlib.transforms import blended_transform_factory

    renderer = fig._get_renderer()
    lg = ax.get_legend()
    fig.draw_without_rendering()
    boxes = [ax.xaxis.label.get_window_extent(renderer)] + [
        t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
    lowest = min([b.y0 for b in boxes if b.height] + [ax.bbox.y0])
    y = ax.transAxes.inverted().transform((0.0, lowest))[1]
    room, frame = ((1.15 * ax.bbox.width, ax.transAxes) if own_panel
                   else (fig.bbox.width, fig.transFigure))
    where = blended_transform_factory(frame, ax.transAxes)
    n = len(lg.get_texts())
    for cols in ([ncol] if ncol else range(n, 0, -1)):  # fewest rows that fit the room
        lg = _legend_again(ax, lg, ncols=cols, loc="upper center",
                           bbox_to_anchor=(0.5, y - 0.02), bbox_transform=where)
        fig.draw_without_rendering()
        if lg.get_window_extent(renderer).width <= 0.98 * room:
            break
    return fig.bbox.y0 + 0.05 * fig.dpi - lg.get_window_extent(renderer).y0


def legend_off_data(fig, axes=None, ncol: int | None = None):
    """Put each legend of ``axes`` (default: all of ``fig``'s panels) where it covers neither
    the panel's data nor a title or label (:func:`ftd_lib.figure_layout.legend_faults`):
    matplotlib's ``loc="best"`` (the place with the least data under it) in one, two or three
    columns where that covers nothing, else under the panel, below its lowest label, in as few
    rows as the figure's width allows (centred on the figure; each under its own panel where a
    panel beside it has a legend under it too). The figure grows only by what such a legend
    hangs below its bottom edge (a second call for a panel beside the first reuses the room the
    first made), and the panels keep their size in inches, so a picture scaled to a slide keeps
    its text size as far as the slide's height allows (no change of layout engine: a figure
    with a colour bar keeps its own). Call it once the figure is drawn and laid out in full
    (after ``tight_layout``). Returns the figure."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    from .figure_layout import _panels, legend_faults

    axes = list(fig.axes if axes is None else axes)
    crowded = []
    for ax in axes:
        lg = ax.get_legend()
        if lg is None:
            continue
        fig.draw_without_rendering()
        if not legend_faults(fig, lg):
            continue
        lg.set_bbox_to_anchor(None)
        lg.set_loc("best")  # matplotlib's own search for the corner with the least data
        fig.draw_without_rendering()
        n = len(lg.get_texts())
        for cols in range(2, min(n, 3) + 1):  # wider and lower: a free corner may hold it
            if not legend_faults(fig, lg):
                break
            lg = _legend_again(ax, lg, ncols=cols, loc="best")
            fig.draw_without_rendering()
        if legend_faults(fig, lg):
            crowded.append(ax)
    if not crowded:
        return fig
    renderer = fig._get_renderer()
    hang = 0.0  # pixels the lowest legend reaches below the figure's bottom edge
    for ax in crowded:  # under the panel, below its lowest label
        # the figure's whole width (the legend centred on the figure) unless a panel beside
        # this one has a legend under it already: then each under its own panel (centred on
        # the figure, the first ran into the second)
        beside = [o for o in _panels(fig) if o is not ax and _hangs_below(o, renderer)
                  and min(o.bbox.y1, ax.bbox.y1) - max(o.bbox.y0, ax.bbox.y0) > 0]
        for o in beside:
            hang = max(hang, _place_below(fig, o, ncol, own_panel=True))
        hang = max(hang, _place_below(fig, ax, ncol, own_panel=bool(beside)))
    if hang <= 0:
        return fig
    extra = hang / fig.dpi
    w, h = fig.get_size_inches()
    placed = [(ax, ax.get_position()) for ax in fig.axes]
    fig.set_size_inches(w, h + extra)
    engine = fig.get_layout_engine()  # tight_layout() leaves a place holder that lays out nothing
    if engine is None or isinstance(engine, PlaceHolderLayoutEngine):
        # keep each panel's inches: every panel moves up by `extra`
        for ax, pos in placed:
            ax.set_position([pos.x0, (pos.y0 * h + extra) / (h + extra), pos.width,
                             pos.height * h / (h + extra)])
    return fig


def use_style() -> None:
    """Apply the course style to matplotlib (call once at the top of a notebook); in a
    notebook, every figure's PNG also carries what is wrong with its layout
    (:mod:`ftd_lib.figure_layout`: a legend over a title or the data, a squashed panel,
    text cut off), which ``tests/publish/test_figure_layout.py`` reads from the stored
    outputs."""
    import matplotlib as mpl

    mpl.rcParams.update(RC)
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with every notebook
        return
    if get_ipython() is not None:
        from . import figure_layout

        figure_layout.install()


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
    import matplotlib as mpl

    cmap = mpl.colormaps["viridis"]
    return [cmap(x) for x in np.linspace(0.2, 0.85, max(int(n), 1))][: int(n)]


def log_alpha_axis(ax) -> None:
    """The x axis on a log scale, ticks at 1, 2, 5 x 10^k labelled as plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    ax.set_xscale("log")
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def new_axes(title: str = "", xlabel: str = "", ylabel: str = "", figsize=None):
    """A fresh figure and axes in the course style."""
    import matplotlib.pyplot as plt

    use_style()
    fig, ax = plt.subplots(figsize=figsize)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    return fig, ax
