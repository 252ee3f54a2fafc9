"""The pictures a lecture deck draws itself, at the size a slide shows them: a widget's
picture drawn anew with the widget's own callback at the values the cell made it with
(:func:`widget_picture`; the notebook keeps its 90-dpi picture, sized for a page, which a slide
showed at 15-16 px), at the dpi that fills the slide's picture box (:func:`fit_dpi`,
:func:`deck_png`), each with its smallest text size, dpi and layout problems in its metadata
(``tests/publish/test_deck_figures.py`` holds its projected text to 16 px); the stepper's
recorded frames (:func:`stepper_frames_html`); and a notebook made ready for a static deck
(:func:`deck_notebook`: widget views dropped, their pictures redrawn).
"""

from __future__ import annotations

import copy

WIDGET = "application/vnd.jupyter.widget-view+json"
#: the most a picture the deck draws takes on a slide, in slide pixels: the slide's width less
#: the section's padding, and 10 px under the 440 px ``notebooks/rise.css`` allows a figure
#: (at 440 the widget slides of 04 §1 and 05 §4 ran 2-3 px past 720); a stepper frame shares
#: its slide with the frame's readout (:data:`FRAME_BOX`, :data:`DECK_CSS`)
PICTURE_BOX = (1270, 430)
FRAME_BOX = (1270, 340)


def fit_dpi(fig, box=PICTURE_BOX) -> float:
    """The dots per inch at which matplotlib figure ``fig`` fills ``box`` (width, height in
    slide pixels) without the browser scaling it: the widest a picture is drawn on a slide."""
    w, h = fig.get_size_inches()
    return min(box[0] / w, box[1] / h)


def deck_png(fig, box=PICTURE_BOX) -> tuple:
    """``(PNG bytes, metadata)`` of a figure the deck draws itself (a widget's picture, a
    stepper frame): at :func:`fit_dpi` for ``box``, so that its text projects as large as the
    slide allows, with its smallest text size and dpi
    (:func:`ftd_lib.figure_text.metadata`) and its layout's problems
    (:func:`ftd_lib.figure_layout.metadata`)."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from .. import figure_layout
    from ..figure_text import metadata

    dpi = fit_dpi(fig, box)
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue(), {**metadata(fig, dpi), **figure_layout.metadata(fig, dpi, tight=False)}


def widget_picture(source: str, box=PICTURE_BOX, values=None):
    """The picture of the widget a code cell's ``source`` makes (one of
    :data:`ftd_lib.publish.static_explorers.SPECS`, called with the cell's literal keyword
    arguments; ``values``: its control sliders' values, e.g. the stepper's ``frame``), drawn
    for a slide (:func:`deck_png`): ``(PNG bytes, metadata, explorer)``, or None when the cell
    makes none. The notebook's saved picture is drawn at the widgets' 90 dpi for a notebook
    page (:data:`ftd_lib.style.WIDGET_DPI`), which a slide shows at 15 px; the live widget
    stays as it is."""
    from .static_explorers import _explorer, find_call

    call = find_call(source)
    if call is None:
        return None
    factory, kwargs = call
    ex = _explorer(factory, values or {}, kwargs)
    _, fig = ex.render(ex)
    png, md = deck_png(fig, box)
    return png, md, ex


def deck_notebook(nb):
    """A copy of ``nb`` for a static deck: a widget output keeps only its picture (the view
    needs a kernel), drawn anew for the slide by :func:`widget_picture` (the saved PNG where
    the cell's widget cannot be rebuilt), and the notebook's widget state is dropped (nothing
    loads a widget manager)."""
    import base64

    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET in data:
                del data[WIDGET]
                if "image/png" in data:
                    data.pop("text/plain", None)
                    drawn = widget_picture(cell.get("source", ""))
                    if drawn is not None:
                        data["image/png"] = base64.b64encode(drawn[0]).decode("ascii")
                        out.setdefault("metadata", {})["image/png"] = drawn[1]
    nb.metadata.pop("widgets", None)
    return nb


def stepper_frames_html(source: str = "algorithm1_stepper()") -> str:
    """The stepper's key frames (:func:`ftd_lib.course.stepper.key_frames`: t = 0, where
    Algorithm 1 first updates, first resynchronises, takes in new information, and the
    episode's end) drawn by the live stepper that the code ``source`` makes
    (:func:`ftd_lib.course.stepper.algorithm1_stepper` with the cell's arguments, its frame
    slider set to each key frame in turn, each picture drawn for the slide by :func:`deck_png`
    in :data:`FRAME_BOX`), stacked as reveal.js fragments: the slide opens on t = 0 and each
    key press shows the next key frame, its readout above its picture."""
    import base64

    from ..course.stepper import key_frames
    from ..figure_text import KEY_DPI, KEY_PT

    _, _, ex = widget_picture(source, FRAME_BOX)
    keys = key_frames(ex.frames)
    parts = []
    for k in keys:
        ex.controls["frame"].value = k
        _, fig = ex.render(ex)
        png, md = deck_png(fig, FRAME_BOX)
        png = base64.b64encode(png).decode("ascii")
        cls = "" if k == keys[0] else (" fragment fade-in-then-out" if k != keys[-1]
                                       else " fragment")
        parts.append(f'<div class="ftd-frame{cls}" data-frame="{k}">'
                     f'<div class="ftd-step-readout">{ex.readout.value}</div>'
                     f'<img src="data:image/png;base64,{png}" alt="Algorithm 1, frame {k}" '
                     f'data-ftd-text-pt="{md[KEY_PT]}" data-ftd-dpi="{md[KEY_DPI]}">'
                     "</div>")
    return '<div class="r-stack ftd-frames">' + "".join(parts) + "</div>"
