"""The study time a notebook's page states under its title (ftd_lib/publish/study_time.py):
its counts against a notebook made here and counted by hand, and on the course's notebooks
against other ways of counting the same things."""

from pathlib import Path

import nbformat
import pytest

from ftd_lib.publish import closing, lectures, study_time

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


def _png_output():
    return nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo=",
                                                        "text/plain": "<Figure>"})


def test_a_small_notebook_counted_by_hand():
    widget = nbformat.v4.new_output("display_data", data={
        "image/png": "iVBORw0KGgo=", "application/vnd.jupyter.widget-view+json": {}})
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title\n\nSix words of text here, $x$ too."),  # 1+7
        nbformat.v4.new_markdown_cell("$$a = b$$\n\nand $$c$$"),  # 2 formulas: 1+1 lines, +1
        nbformat.v4.new_markdown_cell("### Exercise 1 — one (required)"),  # 4 words: no "—"
        nbformat.v4.new_code_cell("f(1)", metadata={"tags": ["exercise"]},
                                  outputs=[_png_output()]),
        nbformat.v4.new_markdown_cell("### Exercise 2 — two (optional)"),  # 4 words
        nbformat.v4.new_code_cell("g(1)", metadata={"tags": ["exercise"]},
                                  outputs=[_png_output(), widget]),
    ])
    c = study_time.counts(nb)
    assert c == dict(words=8 + 3 + 4 + 4, formulas=2, figures=2, exercises=2, required=1)
    # 19 / 120 + 2 * 1 + 2 * 1.5 = 5.16 min -> 10 (rounded up to 5 min)
    assert study_time.reading_minutes(c) == 10
    assert study_time.study_text(nb) == (
        "This notebook: about 10 min of reading (19 words, 2 display formulas, 2 figures); "
        "2 exercises, 1 of them required.")
    nb.cells = nb.cells[:4]
    assert study_time.study_text(nb).endswith("; 1 exercise, required.")
    nb.cells = nb.cells[:2]
    assert study_time.study_text(nb).endswith("(11 words, 2 display formulas, 0 figures); "
                                              "no exercises.")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebooks_exercises_counted_two_ways(path):
    """Every exercise's answer cell has its hint after it (the lecture plan's count), and the
    required ones are those whose title, read back from the heading before the answer cell,
    says so."""
    nb = nbformat.read(path, as_version=4)
    c = study_time.counts(nb)
    keys = lectures.exercise_keys(nb)
    assert c["exercises"] == len(keys)
    required = 0
    for i in keys:
        head = next(nb.cells[j].source for j in range(i - 1, -1, -1)
                    if nb.cells[j].cell_type == "markdown" and "Exercise" in nb.cells[j].source)
        required += "(required)" in head
        assert closing.exercise_title(nb, i)  # the same heading the plan reads
    assert c["required"] == required
    assert c["words"] > 500 and 5 <= study_time.reading_minutes(c) <= 90
