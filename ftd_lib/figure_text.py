"""How large a figure's text is, carried with its picture, so that a slide can say how large it
projects: every PNG of a matplotlib figure records the smallest font size of its visible text
(points) and the dots per inch it was drawn at, in its output's metadata
(``{"image/png": {"ftd_text_pt": 13.0, "ftd_dpi": 135.0}}``).

At its natural size such a picture shows that text at ``pt × dpi / 72`` pixels; a slide that
draws it ``w`` pixels wide (the picture being ``naturalWidth`` pixels) shows it at
``pt × dpi / 72 × w / naturalWidth`` (:func:`projected_px`). The deck
(:mod:`ftd_lib.publish.deck`) writes both numbers on the ``<img>`` (``data-ftd-text-pt``,
``data-ftd-dpi``), for the figures a notebook stored and for the widget pictures and stepper
frames the deck draws itself; ``tests/publish/test_deck_figures.py`` lays every lecture deck
out at 1280 × 720 in a browser and holds every picture to
:data:`ftd_lib.style.MIN_PROJECTED_PX` (16 px), the projected size the issue asks for.

:func:`install` (in an IPython kernel) makes every figure the notebook shows carry the
metadata; the test executes the lecture notebooks with it (stored notebooks need not carry it).
"""

from __future__ import annotations

KEY_PT, KEY_DPI = "ftd_text_pt", "ftd_dpi"


def min_text_pt(fig) -> float:
    """The smallest font size (points) of the visible, non-empty text of matplotlib figure
    ``fig`` (titles, labels, tick labels, legends, annotations; ``inf`` when it has none).
    The figure is laid out first (without rendering), so its tick labels exist."""
    fig.draw_without_rendering()
    sizes = [t.get_fontsize() for t in fig.findobj(
        lambda a: hasattr(a, "get_text") and hasattr(a, "get_fontsize"))
        if t.get_visible() and str(t.get_text()).strip() and _shown(t)]
    return float(min(sizes)) if sizes else float("inf")


def _shown(artist) -> bool:
    """False for text under an invisible parent (a hidden axes' tick labels)."""
    ax = getattr(artist, "axes", None)
    return ax is None or (ax.get_visible() and (ax.axison or artist in ax.texts
                                                 or artist is ax.title))


def metadata(fig, dpi: float) -> dict:
    """The metadata :func:`install` gives a figure's PNG drawn at ``dpi``."""
    return {KEY_PT: round(min_text_pt(fig), 3), KEY_DPI: float(dpi)}


def projected_px(pt: float, dpi: float, drawn_width: float, natural_width: float) -> float:
    """Text of ``pt`` points in a picture drawn at ``dpi`` that is ``natural_width`` pixels
    wide, shown ``drawn_width`` pixels wide: its height in pixels (``pt × dpi / 72 ×
    drawn / natural``)."""
    for name, v in (("pt", pt), ("dpi", dpi), ("drawn_width", drawn_width),
                    ("natural_width", natural_width)):
        if not v > 0:
            raise ValueError(f"{name} must be a positive number, got {v!r}")
    return pt * dpi / 72.0 * drawn_width / natural_width


def with_png_metadata(render, flag: str, metadata_of):
    """``render`` (IPython's ``print_figure``) whose PNGs also carry ``metadata_of(fig,
    dpi)`` (a dict, merged into any metadata the PNG has); the wrapper is marked ``flag``."""
    def print_figure(fig, fmt="png", *args, **kwargs):
        data = render(fig, fmt, *args, **kwargs)
        if fmt == "png" and data:
            md = metadata_of(fig, kwargs.get("dpi") or fig.dpi)
            if isinstance(data, tuple):
                return data[0], {**data[1], **md}
            return data, md
        return data
    setattr(print_figure, flag, True)
    return print_figure


def install_png_metadata(flag: str, metadata_of) -> None:
    """In an IPython kernel: every PNG of a matplotlib figure carries ``metadata_of(fig,
    dpi)`` -- through the formatter in place now and through ``print_figure``, which
    ``%matplotlib inline`` registers later -- beside what another hook added; ``flag`` marks
    the wrappers so that a second call adds nothing (:func:`install`,
    :func:`ftd_lib.publish.figure_alt.install`)."""
    from IPython import get_ipython
    from IPython.core import pylabtools
    from matplotlib.figure import Figure

    if not getattr(pylabtools.print_figure, flag, False):
        pylabtools.print_figure = with_png_metadata(pylabtools.print_figure, flag, metadata_of)
    ip = get_ipython()
    if ip is None:
        return
    png = ip.display_formatter.formatters["image/png"]
    try:
        current = png.lookup_by_type(Figure)
    except KeyError:
        return
    if not getattr(current, flag, False):
        png.for_type(Figure, with_png_metadata(lambda fig, fmt="png": current(fig), flag,
                                               metadata_of))


def install() -> None:
    """In an IPython kernel: every PNG of a matplotlib figure carries :func:`metadata` (its
    smallest text and dpi)."""
    install_png_metadata("ftd_text", metadata)
