"""Figure text on the lecture decks, as a projector shows it: every picture on every slide of
``python -m ftd_lib slides`` (the figures a notebook stored, the widgets' pictures and the
stepper's frames, which the deck draws itself) shows its smallest text at >= 16 px
(:data:`ftd_lib.style.MIN_PROJECTED_PX`) on a 1280 × 720 slide.

How it is measured: the lecture notebooks are executed afresh (nbclient, into a temporary
folder) with :func:`ftd_lib.figure_text.install`, so every figure's PNG carries its
smallest font size and dpi; the decks are built from those copies (the deck writes both on each
``<img>``, ``data-ftd-text-pt`` and ``data-ftd-dpi``); headless Chromium lays each slide out
at 1280 × 720 with every fragment shown, after MathJax (the browser test's own
:data:`test_deck_browser.SHOW` and ``_settle``), and each picture's text is
``pt × dpi / 72 × drawn width / natural width`` (:func:`ftd_lib.figure_text.projected_px`).
A picture without the two numbers fails (every picture is measured). The smallest size per
lecture, in the full deck and on the core slides (no corner tag), is written to
``test-output/deck/figure_text.json``.

"""

import json
import os
import shutil
from pathlib import Path

import nbformat
import pytest
from conftest import built_once, needs_chromium, record_measurement
from test_deck_browser import SHOW, SLIDES, _open, _settle

from ftd_lib import figure_text
from ftd_lib.publish import deck, slide_pictures
from ftd_lib.publish import plan as P
from ftd_lib.style import MIN_PROJECTED_PX

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "test-output" / "deck"

pytestmark = needs_chromium("the deck figure test")

# every picture on the current slide: its natural and drawn width (slide pixels), its two
# numbers, the cell it comes from and whether the slide is tagged as not core
PICTURES = """() => { const s = Reveal.getCurrentSlide(), k = Reveal.getScale();
    return [...s.querySelectorAll('img')]
        .filter(i => !i.closest('aside.notes') && i.closest('section') === s
                     && getComputedStyle(i).display !== 'none')
        .map(i => { const c = i.closest('[data-ftd-cell]');
            return {natural: i.naturalWidth, drawn: i.getBoundingClientRect().width / k,
                    pt: i.dataset.ftdTextPt ? parseFloat(i.dataset.ftdTextPt) : null,
                    dpi: i.dataset.ftdDpi ? parseFloat(i.dataset.ftdDpi) : null,
                    cell: c ? c.dataset.ftdCell : (s.dataset.ftdCell || null),
                    frame: i.closest('.ftd-frame') ? i.closest('.ftd-frame').dataset.frame
                                                   : null,
                    marked: !!s.querySelector('.ftd-mark')}; }); }"""


def _execute(stem: str, folder: Path) -> None:
    from nbclient import NotebookClient

    src = P.NOTEBOOKS / f"{stem}.ipynb"
    nb = nbformat.read(src, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(
        "from ftd_lib.figure_text import install\ninstall()"))
    NotebookClient(nb, timeout=1800, kernel_name="python3",
                   resources={"metadata": {"path": str(src.parent)}}).execute()
    nb.cells.pop(0)
    nbformat.write(nb, folder / src.name)


@pytest.fixture(scope="module")
def measured_decks():
    """The lecture decks built from freshly executed notebooks whose figures carry their
    text sizes (once for this code: ``built_once``)."""
    folder = built_once("measured-decks", _measured_decks)
    names = json.loads((folder / "decks.json").read_text())
    return [folder / "decks" / n for n in names]


def _measured_decks(root: Path) -> None:
    folder = root / "executed"
    folder.mkdir()
    stems = sorted({seg.notebook for lec in P.LECTURES for seg in lec.segments})
    env = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(REPO) + (os.pathsep + env if env else "")
    try:
        for stem in stems:
            _execute(stem, folder)
    finally:
        if env is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = env
    for css in P.NOTEBOOKS.glob("*.css"):
        shutil.copyfile(css, folder / css.name)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P, "NOTEBOOKS", folder)
        names = [p.name for p in deck.write_decks(root / "decks", force=True)]
    (root / "decks.json").write_text(json.dumps(names))


def test_projected_px_by_hand():
    """13 pt at 135 dpi is 24.4 px at natural size; drawn at 1280 of its 1890 px, 16.5 px."""
    assert figure_text.projected_px(13, 135, 1890, 1890) == pytest.approx(13 * 135 / 72)
    assert figure_text.projected_px(13, 135, 1280, 1890) == pytest.approx(16.50, abs=0.01)
    with pytest.raises(ValueError, match="natural_width"):
        figure_text.projected_px(13, 135, 1280, 0)


def test_min_text_pt_reads_the_smallest_visible_text():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.set_xlabel("x", fontsize=15)
    ax.tick_params(labelsize=14)
    assert figure_text.min_text_pt(fig) == 14
    ax.text(0.5, 0.5, "note", fontsize=9)
    assert figure_text.min_text_pt(fig) == 9
    ax.text(0.5, 0.2, "hidden", fontsize=5, visible=False)
    ax.text(0.5, 0.2, "   ", fontsize=6)
    assert figure_text.min_text_pt(fig) == 9


def test_deck_draws_widget_pictures_to_fill_the_slide():
    """The deck's own picture of a widget is drawn at the dpi that fills the slide's picture
    box (no scaling in the browser), so its 13 pt text projects larger than the notebook's
    90-dpi picture (16.25 px)."""
    import io

    from matplotlib.image import imread

    png, md, _ = slide_pictures.widget_picture("one_state_explorer(alpha=0.15, T=10, v0=0.0)")
    h, w = imread(io.BytesIO(png)).shape[:2]
    box = slide_pictures.PICTURE_BOX
    assert w <= box[0] and h <= box[1]
    assert max(w / box[0], h / box[1]) == pytest.approx(1, abs=0.01)
    assert md["ftd_text_pt"] == 13 and md["ftd_dpi"] == pytest.approx(h / 4.3, rel=0.01)
    assert md["ftd_text_pt"] * md["ftd_dpi"] / 72 > 18
    assert slide_pictures.widget_picture("print(1)") is None


@pytest.mark.parametrize("number", [lec.number for lec in P.LECTURES],
                         ids=lambda n: f"lecture{n}")
def test_every_picture_projects_its_text_at_16px(browser, measured_decks, number):
    path = next(p for p in measured_decks if p.stem == f"lecture{number}")
    ctx, page = _open(browser, path)
    try:
        rows = []
        for hv in page.evaluate(SLIDES):
            page.evaluate(SHOW, hv)
            _settle(page)
            for pic in page.evaluate(PICTURES):
                pic["slide"] = hv
                ok = pic["pt"] and pic["dpi"] and pic["natural"] and pic["drawn"]
                pic["px"] = figure_text.projected_px(pic["pt"], pic["dpi"], pic["drawn"],
                                                     pic["natural"]) if ok else None
                rows.append(pic)
    finally:
        ctx.close()
    unmeasured = [r for r in rows if r["px"] is None]
    assert unmeasured == [], f"pictures without their text size: {unmeasured[:3]}"
    small = {r["cell"] or f"slide {r['slide']}": r for r in rows
             if r["px"] < MIN_PROJECTED_PX}
    summary = {"full": round(min(r["px"] for r in rows), 1),
               "core": round(min((r["px"] for r in rows if not r["marked"]), default=0), 1),
               "pictures": len(rows),
               "below": {k: round(r["px"], 1) for k, r in small.items()}}
    record_measurement(OUT / "figure_text.json", f"lecture{number}", summary)
    below = {k: f"{r['px']:.1f} px" for k, r in small.items()}
    assert below == {}, f"lecture {number}: figure text below {MIN_PROJECTED_PX} px: {below}"
