"""The static view every way out shows (ftd_lib/publish/present.py): roles, not text, decide."""

from pathlib import Path

import nbformat
import pytest

from ftd_lib.course import roles
from ftd_lib.course.exercises import hint_markdown
from ftd_lib.publish import present

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("0*.ipynb"))


def _nb():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    return nbformat.v4.new_notebook(cells=[
        md("# T"),
        code("x = td0(...)", metadata={"tags": [roles.SHOW_CODE]}),
        code("plot(x)"),
        md("**Exercise 1.** the question"),
        code("answer = None\nnb01.check_return(answer);", metadata={"tags": [roles.EXERCISE]},
             outputs=[nbformat.v4.new_output("stream", name="stdout", text="No answer yet")]),
        code('hint("nb01.discounted_return")', metadata={"tags": [roles.HINT]}),
        code("answer = 1", metadata={"tags": [roles.SOLUTION]}),
        code("grading.session_summary()", metadata={"tags": [roles.SELF_CHECK]}),
    ])


def test_the_deck_shows_the_question_and_outputs_and_code_only_where_it_is_the_point():
    view = present.present(_nb(), "deck")
    sources = [c.source for c in view.cells]
    assert sources == ["# T", "x = td0(...)", "plot(x)", "**Exercise 1.** the question"]
    assert [present.shown_source(c) for c in view.cells] == [True, True, False, True]
    assert view.cells[2].metadata["transient"]["remove_source"] is True


@pytest.mark.parametrize("way", ["handout", "site"])
def test_a_page_says_where_to_run_an_exercise_and_shows_its_hint_folded(way):
    view = present.present(_nb(), way)
    texts = [c.source for c in view.cells if c.cell_type == "markdown"]
    assert present.RUN_IT in texts
    hint = next(t for t in texts if "<details" in t)
    body = hint_markdown("nb01.discounted_return").split("</summary>")[1]
    assert "💡" not in hint and body in hint
    assert ("<details open>" in hint) == (way == "handout")
    # the words 'click to open' only while folded: none on paper, hidden once open on a page
    folded = f'<span class="ftd-when-folded">{present.FOLDED}</span>'
    assert (folded in hint, present.FOLDED in hint) == ((True, True) if way == "site"
                                                         else (False, False))
    assert not any("No answer yet" in str(c.get("outputs", "")) for c in view.cells
                   if "remove-cell" not in roles.tags(c))
    assert "answer = 1" not in [c.source for c in view.cells]


def test_the_site_keeps_a_removed_cell_for_the_build_to_run():
    view = present.present(_nb(), "site")
    kept = {c.source: roles.tags(c) for c in view.cells if c.cell_type == "code"}
    assert "remove-cell" in kept["answer = None\nnb01.check_return(answer);"]
    assert "hide-input" in kept["plot(x)"] and "hide-input" not in kept["x = td0(...)"]


def test_the_deck_shows_an_exercise_signature_where_it_is_the_point():
    """An answer cell tagged show-code as well (the GAE exercise): on the deck its signature
    and docstring, never the scaffold's check call or its output; elsewhere as any answer."""
    nb = _nb()
    src = 'def my_f(x):\n    """y = 2x."""\n    return None\n\nnb01.check_f(my_f);'
    nb.cells[4].source = src
    nb.cells[4].metadata["tags"] = [roles.EXERCISE, roles.SHOW_CODE]
    view = present.present(nb, "deck")
    shown = [c for c in view.cells if c.cell_type == "code" and present.shown_source(c)]
    assert [c.source for c in shown] == ["x = td0(...)", 'def my_f(x):\n    """y = 2x."""']
    assert shown[1].outputs == [] and shown[1].metadata["slideshow"]["slide_type"] == "-"
    assert src not in [c.source for c in present.present(nb, "handout").cells]


def test_a_signature_leaves_out_the_stub_below_the_docstring():
    """The GAE exercise's own cell (notebook 07): its signature and two-line docstring, not
    the stub line under them (``advantages = None  # your code``) nor the check call; a
    function without a docstring, or a cell that does not parse: up to the first blank line."""
    nb = nbformat.read(REPO / "notebooks" / "07_modern_lambda_returns.ipynb", as_version=4)
    src = next(c.source for c in nb.cells if c.source.startswith("def my_gae("))
    got = present.signature(src)
    assert got.startswith("def my_gae(") and got.endswith('A_{t+1}, backwards from A_T = 0."""')
    assert "your code" not in got and "check_gae" not in got and got.count("\n") == 2
    assert present.signature("def f(x):\n    return x\n\ncheck(f)") == "def f(x):\n    return x"
    assert present.signature("def f(:\n    pass\n\nmore") == "def f(:\n    pass"


def test_an_unknown_way_is_refused():
    with pytest.raises(ValueError, match="way"):
        present.present(_nb(), "poster")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_static_view_of_a_course_notebook_shows_an_unrun_verdict(notebook):
    nb = nbformat.read(notebook, as_version=4)
    for way in ("deck", "handout"):
        view = present.present(nb, way)
        shown = " ".join(str(c.get("outputs", "")) for c in view.cells)
        assert "No answer yet" not in shown and "NotImplementedError" not in shown, way
        assert not any(roles.has(c, roles.EXERCISE) and not (way == "deck"
                                                            and roles.shows_code(c))
                       or roles.is_solution(c) for c in view.cells), way
        assert all(c.outputs == [] for c in view.cells if roles.has(c, roles.EXERCISE)), way
