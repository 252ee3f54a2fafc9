"""Is a figure laid out so that a room, a reader or a handout can read it? Checked on the figure
itself (matplotlib's artists and their boxes after layout, no picture, no browser), carried with
its picture as :mod:`ftd_lib.figure_text` carries its text size.

:func:`problems` names, in words, what is wrong with a matplotlib figure, each one a fault once
found on a slide or a page of this course:

- **a legend over a title or a label** (a panel's title, the suptitle, an axis label or tick
  label, an annotation): the box of the legend and the box of the text overlap (by more than
  :data:`TOUCH` pixels);
- **a legend over the data**: a legend inside a panel that covers a drawn point of a line or a
  marker of that panel (:data:`DATA_MARGIN` pixels around the legend's box);
- **text over text**: any two texts of the figure whose boxes overlap (the suptitle, a
  figure text, a panel's title, an annotation or other text inside a panel, an axis label; tick
  labels only against the others, not against each other): the suptitle struck through by a
  panel's y-label, two annotations on one another;
- **text over the data**: an annotation or other text inside a panel that covers a drawn
  point of a line or a marker of that panel ("β = 2: diverges above" printed across a line);
- **a squashed panel**: a panel narrower than :data:`MIN_AXES_SHARE` of its share of the
  figure's width (the figure's width over the panels side by side in its row), or lower than
  that share of its share of the height: the plotting area a legend or a label ate;
- **text cut off**: a visible text whose box leaves the figure (a tight save would grow the
  picture, a slide's fixed-size picture would cut it).

:func:`install` (in an IPython kernel: :func:`ftd_lib.style.use_style` calls it) makes every
PNG of a figure carry the list in its output's metadata (``{"image/png": {"ftd_layout":
[...]}}``, empty when the figure is fine), so ``tests/publish/test_figure_layout.py`` can hold
every picture the stored notebooks show (and with them the decks, the site and the handouts,
which show those outputs) to an empty list without drawing anything again; the deck's own
pictures (:func:`ftd_lib.publish.slide_pictures.deck_png`) are checked as they are drawn.
"""

from __future__ import annotations

KEY = "ftd_layout"
#: a panel must be at least this share of its share of the figure (width and height); the
#: squashed cart-pole panels that once reached a slide had 0.38 of theirs (and less
#: on the slide); a panel over a legend of three rows keeps about half
MIN_AXES_SHARE = 0.45
#: pixels around a legend's box in which a data point counts as covered
DATA_MARGIN = 2.0


#: boxes that share less than this many pixels in either direction only touch
TOUCH = 2.0


def _overlap(a, b) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > TOUCH
            and min(a.y1, b.y1) - max(a.y0, b.y0) > TOUCH)


def _panels(fig) -> list:
    """The figure's visible panels that plot something (not a colour bar, not a hidden axes)."""
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison
            and (ax.lines or ax.collections or ax.patches or ax.images)
            and getattr(ax, "_colorbar", None) is None and ax.get_label() != "<colorbar>"]


def _tick_labels(axis) -> list:
    """The tick labels ``axis`` draws (those of ticks inside the view, visible, not empty)."""
    drawn = []
    if not axis.get_visible() or not axis.axes.axison or not axis.axes.get_visible():
        return drawn
    for tick in axis._update_ticks():
        for t in (tick.label1, tick.label2):
            if t.get_visible() and str(t.get_text()).strip():
                drawn.append(t)
    return drawn


def _shown(t) -> bool:
    return t.get_visible() and bool(str(t.get_text()).strip())


def _text_artists(fig) -> list:
    """``(name, artist, panel)`` of every visible, non-empty text of ``fig``: the suptitle and
    the figure's texts (panel None), each panel's titles, its texts and annotations, its axis
    labels and drawn tick labels."""
    out = []
    if fig._suptitle is not None and _shown(fig._suptitle):
        out.append(("the suptitle", fig._suptitle, None))
    out += [("a figure text", t, None) for t in fig.texts
            if _shown(t) and t is not fig._suptitle]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        out += [("a title", t, ax) for t in (ax.title, ax._left_title, ax._right_title)
                if _shown(t)]
        out += [("an annotation", t, ax) for t in ax.texts if _shown(t)]
        if not ax.axison:
            continue
        for axis in (ax.xaxis, ax.yaxis):
            if _shown(axis.label):
                out.append(("an axis label", axis.label, ax))
            out += [("a tick label", t, ax) for t in _tick_labels(axis)]
    return out


def _box(t, renderer):
    """The box of a text's words (an annotation's own box takes in its arrow too)."""
    from matplotlib.text import Text

    return Text.get_window_extent(t, renderer)


def _texts(fig, renderer) -> list:
    """``(name, box)`` of every visible, non-empty text (:func:`_text_artists`)."""
    return [(name, _box(t, renderer)) for name, t, _ in _text_artists(fig)]


def text_faults(fig, renderer=None) -> list:
    """Texts of ``fig`` over one another (tick labels only against the other texts) and texts
    inside a panel over its data (module docstring); the figure laid out already."""
    renderer = renderer or fig._get_renderer()
    items = [(name, t, ax, _box(t, renderer)) for name, t, ax in _text_artists(fig)]
    out = []
    for i, (n1, _, _, b1) in enumerate(items):
        for n2, _, _, b2 in items[i + 1:]:
            if n1 == n2 == "a tick label" or not _overlap(b1, b2):
                continue
            out.append(f"{n1} over {n2}")
    for name, t, ax, box in items:
        if name != "an annotation" or ax is None or not ax.axison:
            continue
        p = _data_points(ax)
        inside = ((p[:, 0] > box.x0) & (p[:, 0] < box.x1) & (p[:, 1] > box.y0)
                  & (p[:, 1] < box.y1))
        if inside.any():
            out.append(f"an annotation over the data ({str(t.get_text())[:40]!r})")
    return out


def _data_points(ax):
    """The drawn points of ``ax``'s lines and markers, in display pixels."""
    import numpy as np

    pts = []
    for line in ax.lines:
        if not line.get_visible() or line.get_alpha() is not None and line.get_alpha() < 0.3:
            continue
        xy = np.column_stack([np.asarray(line.get_xdata(), float),
                              np.asarray(line.get_ydata(), float)])
        if len(xy) == 2 and (np.all(xy[:, 0] == xy[0, 0]) or np.all(xy[:, 1] == xy[0, 1])) \
                and line.get_transform() != ax.transData:
            continue  # axhline/axvline: a reference line, not data
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if not len(xy):
            continue
        xy = line.get_transform().transform(xy)  # in pixels: a log axis draws straight there
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if len(xy) > 1:  # the segments between points, not only the points
            fine = [xy[:1]]
            for a, b in zip(xy[:-1], xy[1:], strict=True):
                fine.append(a + (b - a) * np.linspace(0, 1, 9)[1:, None])
            xy = np.vstack(fine)
        if len(xy):
            pts.append(xy)
    for coll in ax.collections:
        offsets = coll.get_offsets()
        if coll.get_visible() and len(offsets) and type(coll).__name__ == "PathCollection":
            pts.append(coll.get_offset_transform().transform(np.asarray(offsets, float)))
    if not pts:
        return np.zeros((0, 2))
    p = np.vstack(pts)
    box = ax.bbox  # a line is clipped to its panel: what lies outside is not drawn
    return p[(p[:, 0] >= box.x0) & (p[:, 0] <= box.x1) & (p[:, 1] >= box.y0)
             & (p[:, 1] <= box.y1)]


def legend_faults(fig, lg, renderer=None, texts=None) -> list:
    """What legend ``lg`` of ``fig`` covers: a title or a label, the data of its panel (a
    figure legend: of any panel). ``[]`` when nothing; the figure laid out already."""
    renderer = renderer or fig._get_renderer()
    texts = _texts(fig, renderer) if texts is None else texts
    box = lg.get_window_extent(renderer)
    out = []
    hit = sorted({name for name, t in texts if _overlap(box, t)})
    if hit:
        out.append(f"a legend over {' and '.join(hit)}")
    ax = next((a for a in fig.axes if a.get_legend() is lg), None)
    for a in ([ax] if ax is not None else _panels(fig)):
        p = _data_points(a)
        inside = ((p[:, 0] > box.x0 - DATA_MARGIN) & (p[:, 0] < box.x1 + DATA_MARGIN)
                  & (p[:, 1] > box.y0 - DATA_MARGIN) & (p[:, 1] < box.y1 + DATA_MARGIN))
        if inside.any():
            out.append(f"a legend over the data ({int(inside.sum())} points)")
            break
    return out


def problems(fig, tight: bool = True) -> list:
    """What is wrong with the layout of matplotlib figure ``fig`` (module docstring), one
    sentence each; ``[]`` when nothing is. The figure is laid out (drawn without rendering)
    first. ``tight``: the picture is saved with ``bbox_inches="tight"`` (a notebook's inline
    picture), so it is the box of everything drawn and no text is cut; without it (a slide's
    picture of fixed size, :func:`ftd_lib.publish.slide_pictures.deck_png`) it is the
    figure's box."""
    fig.draw_without_rendering()
    renderer = fig._get_renderer()
    fbox = (fig.get_tightbbox(renderer).transformed(fig.dpi_scale_trans) if tight
            else fig.bbox)
    out = []
    from matplotlib.legend import Legend

    extra = [a for ax in fig.axes for a in ax.artists if isinstance(a, Legend)]  # add_artist
    legends = [lg for lg in list(fig.legends) + [ax.get_legend() for ax in fig.axes] + extra
               if lg is not None and lg.get_visible()]
    texts = _texts(fig, renderer)
    for lg in legends:
        out += legend_faults(fig, lg, renderer, texts)
    boxes = [lg.get_window_extent(renderer) for lg in legends]
    if any(_overlap(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1:]):
        out.append("a legend over a legend")
    out += text_faults(fig, renderer)
    panels = _panels(fig)
    for ax in panels:
        b = ax.get_window_extent(renderer)
        row = [o for o in panels if _overlap(o.get_window_extent(renderer), b)
               or abs(o.get_window_extent(renderer).y0 - b.y0) < 0.25 * b.height]
        col = [o for o in panels if abs(o.get_window_extent(renderer).x0 - b.x0)
               < 0.25 * b.width]
        if fbox.width <= 0 or fbox.height <= 0:
            break
        share_w = b.width / (fbox.width / max(1, len(row)))
        share_h = b.height / (fbox.height / max(1, len(col)))
        if share_w < MIN_AXES_SHARE or share_h < MIN_AXES_SHARE:
            out.append(f"a squashed panel ({b.width:.0f} × {b.height:.0f} px of a "
                       f"{fbox.width:.0f} × {fbox.height:.0f} px figure)")
    drawn_ticks = {id(t) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
                   for t in _tick_labels(axis)}
    ticks = {id(t) for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
             for tk in axis.get_major_ticks() + axis.get_minor_ticks()
             for t in (tk.label1, tk.label2)}
    cut = [t for t in fig.findobj(lambda a: hasattr(a, "get_text") and hasattr(a, "get_fontsize"))
           if t.get_visible() and str(t.get_text()).strip()
           and (id(t) in drawn_ticks or id(t) not in ticks)]
    for t in ([] if tight else cut):
        ax = getattr(t, "axes", None)
        if ax is not None and not (ax.get_visible() and (ax.axison or t in ax.texts
                                                         or t is ax.title)):
            continue
        if t.get_clip_on() and t.get_clip_box() is not None and t in getattr(ax, "texts", []):
            continue
        b = t.get_window_extent(renderer)
        if b.width and (b.x0 < fbox.x0 - 1 or b.x1 > fbox.x1 + 1 or b.y0 < fbox.y0 - 1
                        or b.y1 > fbox.y1 + 1):
            out.append(f"text cut off: {str(t.get_text())[:40]!r}")
    return list(dict.fromkeys(out))


def metadata(fig, dpi: float, tight: bool = True) -> dict:
    """The metadata :func:`install` gives a figure's PNG: ``{"ftd_layout": problems}``. It
    never raises (a notebook must not fail on its figures' check): a check that cannot run is
    a problem named as such."""
    try:
        return {KEY: problems(fig, tight)}
    except Exception as e:  # noqa: BLE001 - reported in the verdict, never raised
        return {KEY: [f"the layout check failed: {type(e).__name__}: {e}"]}


def install() -> None:
    """In an IPython kernel: every PNG of a matplotlib figure carries :func:`metadata`."""
    from .figure_text import install_png_metadata

    install_png_metadata("ftd_layout", metadata)
