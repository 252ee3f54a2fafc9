"""Words per projected slide (ftd_lib.publish.slide_words): the counter against hand counts, and
every notebook of the course held to the limit a hall can read."""

import glob
import statistics

import nbformat
import pytest

from ftd_lib.publish import slide_words as sw

NOTEBOOKS = sorted(glob.glob("notebooks/0*.ipynb"))


def _md(src, t=None):
    c = nbformat.v4.new_markdown_cell(src)
    if t:
        c.metadata["slideshow"] = {"slide_type": t}
    return c


def _code(src, t=None, outputs=()):
    c = nbformat.v4.new_code_cell(src)
    c.outputs = list(outputs)
    if t:
        c.metadata["slideshow"] = {"slide_type": t}
    return c


def test_markdown_words_by_hand():
    assert sw.markdown_words("## 1. The task: *mountain* car") == 5   # "1." "The" "task:" ...
    assert sw.markdown_words("a $\\alpha T > 2$ b") == 3              # inline formula: one word
    assert sw.markdown_words("x\n$$\na = b\\\\\nc = d\n$$\ny") == 4     # display: one per line
    assert sw.markdown_words("<!-- hidden words here -->one") == 1
    folded = "<details><summary>Open me</summary>\nmany words are folded away here\n</details>"
    assert sw.markdown_words(folded) == 2
    assert sw.markdown_words("| a | b |\n|---|---|\n| 1 | 2 |") == 4
    listing = "two words\n\n```text\n 1  If γλ > 0 then: K = 1\n\n 2  θ ← θ_init\n```\n"
    assert sw.markdown_words(listing) == 4                            # a listing: one per line
    assert sw.markdown_words('<pre class="x"><span>a b c\nd e</span>\n</pre>') == 2


def test_code_and_output_words_by_hand():
    out = [nbformat.v4.new_output("stream", name="stdout", text="RMS error 0.25 at step 3\n"),
           nbformat.v4.new_output("display_data", data={"image/png": "AAAA",
                                                        "text/plain": "<Figure size>"})]
    cell = _code("# NBVAL_CHECK_OUTPUT\nx = 1\n\nprint(x)\n", outputs=out)
    assert sw.code_lines(cell.source) == 2
    assert sw.output_words(cell) == 6          # the picture's text/plain is not projected
    assert sw.cell_words(cell) == 6            # the deck shows the output alone
    cell.metadata["tags"] = ["show-code"]
    assert sw.cell_words(cell) == 8            # ... and the code where it is the point
    cell.metadata["tags"] = ["exercise"]
    assert sw.cell_words(cell) == 0            # an answer cell is never on a slide


def test_slides_open_continue_and_hide():
    nb = nbformat.v4.new_notebook(cells=[
        _md("# Title words", "slide"),                 # 2
        _code("import numpy", "skip"),                 # not projected
        _md("## One two three", "slide"),              # 3
        _md("four five", "fragment"),                  # 2, same slide
        _md("### Sub", "subslide"),                    # 1, new slide
        _md("speaker notes are not projected", "notes"),
        _code("a = 1\nb = 2"),                         # no type: continues, code not shown
    ])
    slides = sw.projected_slides(nb)
    assert [s.cells for s in slides] == [(0,), (2, 3), (4, 6)]
    assert [s.words for s in slides] == [2, 5, 1]
    assert sw.summary(nb) == {"slides": 3, "median": 2, "largest": 5, "over": 0, "over_120": 0}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.split("/")[-1])
def test_every_projected_slide_fits_a_hall(path):
    nb = nbformat.read(path, as_version=4)
    slides = sw.projected_slides(nb)
    over = [(s.cells[0], s.words) for s in slides if s.words > sw.LIMIT]
    assert not over, f"slides (first cell, words) over {sw.LIMIT} words: {over}"
    assert statistics.median(s.words for s in slides) <= sw.MEDIAN_LIMIT
