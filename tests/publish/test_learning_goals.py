"""The learning goals the site and the landing page read from a notebook
(:func:`ftd_lib.publish.landing.learning_goals`): the numbered list after "After this notebook
you can", passing over a cell that says it in a sentence (a title slide's summary)."""

import nbformat

from ftd_lib.publish import landing


def _nb(*sources):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(s) for s in sources])


def test_the_list_after_the_phrase_even_below_a_title_that_says_it_in_a_sentence():
    title = "# 07\n\n**After this notebook you can** derive GAE; tell a horizon from a block."
    goals = ("**Learning goals.** After this notebook you can\n\n1. derive **GAE** from\n"
             "   eq. (2);\n2. read a block λ-return experiment.")
    assert landing.learning_goals(_nb(title, "notes", goals)) == [
        "derive **GAE** from eq. (2)", "read a block λ-return experiment"]
    # the sentence alone is no list; the first cell's numbered list is the fallback
    assert landing.learning_goals(_nb(title)) == []
    assert landing.learning_goals(_nb("# 01\n\n1. one goal\n2. two goals", "x")) == [
        "one goal", "two goals"]
