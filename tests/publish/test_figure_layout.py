"""The figure layout check (ftd_lib/figure_layout.py): a legend over a title or over the
data, a squashed panel and cut-off text are found on figures made to have them (and not on the
same figures laid out well), and no picture the stored notebooks show (the pictures the decks,
the site and the handouts show) has any of them: each carries the check's verdict from the run
that drew it."""

from pathlib import Path

import matplotlib
import nbformat
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ftd_lib import figure_layout as FL  # noqa: E402
from ftd_lib.style import legend_off_data, legend_outside, use_style  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(autouse=True)
def _style():
    use_style()
    yield
    plt.close("all")


def _rising(figsize=(7, 4.2)):
    fig, ax = plt.subplots(figsize=figsize)
    x = np.linspace(0, 10, 50)
    ax.plot(x, x, label="rising")
    ax.plot(x, 10 - x, label="falling")
    ax.plot(x, np.full_like(x, 5.0), label="flat, in the middle")
    ax.set(title="a title", xlabel="x", ylabel="y")
    return fig, ax


def test_a_legend_over_the_data_and_its_cure():
    fig, ax = _rising()
    ax.legend(loc="center")  # on the crossing of the three lines
    assert any(p.startswith("a legend over the data") for p in FL.problems(fig))
    legend_off_data(fig)
    assert FL.problems(fig) == []


def test_legends_under_two_panels_side_by_side_grow_the_figure_once():
    """Two panels whose legends fit nowhere inside (dense data everywhere), each moved under its
    panel by its own call: the figure grows by one legend's height, not two, the panels keep
    their size in inches, each legend takes one row (the panel's width allows it), and the
    figure passes the check without a tight crop (the deck's fixed-size picture)."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
    x = np.linspace(0, 10, 400)
    for ax in axes:
        for k in range(3):
            ax.plot(x, np.sin(x * (k + 1)) + 0.2 * k, label=f"curve {k}")
        ax.fill_between(x, -1.2, 1.6, alpha=0.1)
        ax.set(title="dense", xlabel="x", ylabel="y")
        ax.legend(loc="center")
    fig.tight_layout()
    before = [ax.get_window_extent().height / fig.dpi for ax in axes]
    h0 = fig.get_size_inches()[1]
    for ax in axes:
        legend_off_data(fig, [ax])
    fig.draw_without_rendering()
    grown = fig.get_size_inches()[1] - h0
    one = axes[0].get_legend().get_window_extent().height / fig.dpi
    assert 0 < grown < 1.5 * one + 0.1, (grown, one)
    after = [ax.get_window_extent().height / fig.dpi for ax in axes]
    assert after == pytest.approx(before, abs=0.01)
    assert [ax.get_legend()._ncols for ax in axes] == [3, 3]
    assert FL.problems(fig, tight=False) == []


def test_a_legend_over_the_title_and_a_squashed_panel():
    """The block curves' legend beside a 7 x 4.2 in panel, with long labels, ate the
    panel's width and sat on its title."""
    fig, ax = _rising()
    ax.plot([0, 10], [2, 2], label="a very long label " * 3)
    ax.set_title("Cart-pole from scratch, alpha = 0.03 (faint: single episodes)")
    ax.legend()
    legend_outside(fig, [ax], where="right")
    found = FL.problems(fig)
    assert any(p.startswith("a squashed panel") for p in found), found
    fig2, ax2 = _rising()
    ax2.legend()
    legend_outside(fig2, [ax2], where="bottom")
    assert FL.problems(fig2) == []


def test_text_cut_off_only_where_the_picture_is_not_tight():
    fig, ax = _rising(figsize=(3, 2))
    ax.set_ylabel("a y label far too long for so small a figure, cut at both ends")
    assert any(p.startswith("text cut off") for p in FL.problems(fig, tight=False))
    assert not any(p.startswith("text cut off") for p in FL.problems(fig, tight=True))


def test_a_reference_line_under_the_legend_is_not_data():
    fig, ax = plt.subplots(figsize=(7, 4.2))
    x = np.linspace(0, 10, 50)
    ax.plot(x, x / 10, label="data")
    ax.axhline(0.95, color="0.4", ls=":", label="a reference")
    ax.legend(loc="upper left")
    assert FL.problems(fig) == []


def _pictures(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if "image/png" in out.get("data", {}) and WIDGET not in out.get("data", {}):
                yield i, out.get("metadata", {}).get("image/png", {})


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")),
                         ids=lambda p: p.stem[:2])
def test_every_stored_picture_passed_the_layout_check(path):
    """Every figure a stored notebook shows was checked when it was drawn (the notebooks call
    ftd_lib.style.use_style, which installs the check) and nothing was wrong with it. A widget's
    picture is drawn anew for a slide and checked there
    (ftd_lib.publish.slide_pictures.deck_png)."""
    seen = list(_pictures(path))
    unchecked = [i for i, md in seen if FL.KEY not in md]
    assert unchecked == [], (f"{path.name}: cells {unchecked} carry no layout verdict: "
                             "re-execute the notebook")
    bad = {i: md[FL.KEY] for i, md in seen if md[FL.KEY]}
    assert bad == {}, f"{path.name}: {bad}"


def test_the_decks_own_pictures_pass_the_layout_check():
    """The widget pictures and the stepper's frames the deck draws for a slide (fixed size, not
    tight: nothing may be cut either)."""
    from ftd_lib.publish import slide_pictures

    for source in ("one_state_explorer(alpha=0.15, T=10, v0=0.0)",
                   "k_explorer(eta=0.01, gl=0.9)"):
        _, md, _ = slide_pictures.widget_picture(source)
        assert md[FL.KEY] == [], (source, md[FL.KEY])
    _, md, ex = slide_pictures.widget_picture("algorithm1_stepper()", slide_pictures.FRAME_BOX)
    for k in (0, 3, len(ex.frames) - 1):
        ex.controls["frame"].value = k
        _, fig = ex.render(ex)
        assert slide_pictures.deck_png(fig, slide_pictures.FRAME_BOX)[1][FL.KEY] == [], k


def test_text_over_text_and_text_over_the_data_and_their_cures():
    """Every text artist is checked, not only legends: a suptitle struck through by a panel's
    y-label, an annotation printed across a line, two annotations on one another, two legends
    on one another; each moved away, the figure passes."""
    fig, ax = _rising()
    ax.text(5, 5.0, "written across the lines")  # where the three lines cross
    assert any(p.startswith("an annotation over the data") for p in FL.problems(fig))
    ax.texts[0].set(position=(5, 8.7), ha="center")  # above the crossing: empty
    assert FL.problems(fig) == []
    ax.text(5, 8.8, "on the first one", ha="center")
    assert "an annotation over an annotation" in FL.problems(fig)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(8, 3))
    for a in axes:
        a.plot([0, 1], [0, 1])
    axes[1].set_ylabel("a long y label of the right panel, rotated", rotation=0)
    fig.suptitle("a suptitle")
    axes[1].yaxis.set_label_coords(0.5, 1.12)  # up into the suptitle's line
    found = FL.problems(fig)
    assert any("the suptitle" in p and "axis label" in p for p in found), found
    axes[1].set_ylabel("")
    assert not any("the suptitle" in p for p in FL.problems(fig))
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot([0, 1], [5, 5], label="one")
    ax.plot([0, 1], [6, 6], label="two")
    ax.set_ylim(0, 10)
    ax.legend(handles=ax.lines[:1], loc="lower left")
    ax.add_artist(ax.get_legend())
    ax.legend(handles=ax.lines[1:], loc="lower left")
    assert "a legend over a legend" in FL.problems(fig)
