"""INSTRUCTORS.md's exercise table and counts are derived (ftd_lib/publish/exercise_table.py):
on a small hand-made notebook, and the message a contributor sees names the file to edit."""

import nbformat
import pytest

from ftd_lib.course.roles import EXERCISE, HINT, OPTIONAL_EXERCISE
from ftd_lib.publish import exercise_table as E


def _nb():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell

    def tagged(src, *tags):
        c = code(src)
        c.metadata["tags"] = list(tags)
        return c

    return nbformat.v4.new_notebook(cells=[
        md("## 1. A"),
        md("### Exercise 1 — one return (required)"),
        tagged("answer = None", EXERCISE), tagged('hint("nb02.n_step_return")', HINT),
        md("### Exercise 2 — a side trip (optional)"),
        tagged("answer = None", EXERCISE, OPTIONAL_EXERCISE),
        tagged('hint("nb02.not_a_real_one")', HINT)])


def test_exercises_counts_and_sentence_by_hand():
    exs = E.notebook_exercises("02_lambda_return", _nb())
    assert [(e.key, e.label, e.optional, e.title, e.cell) for e in exs] == [
        ("nb02.n_step_return", "02.1", False, "one return", 2),
        ("nb02.not_a_real_one", "02.2", True, "a side trip", 5)]
    counts = E.counts(exs)
    assert counts["02"] == (1, 1) and counts["01"] == (0, 0)
    s = E.counts_sentence(exs)
    assert s.startswith("Per notebook (required + optional = all 2): 01: 0 + 0; 02: 1 + 1 "
                        "(02.2 a side trip);") and s.endswith("— 1 required, 1 optional.")
    assert E.row(exs[0]).startswith("| `nb02.n_step_return` an n-step return | ")


def test_a_missing_row_names_the_file_and_the_command():
    exs = E.notebook_exercises("02_lambda_return", _nb())
    with pytest.raises(ValueError, match=r"ROWS in ftd_lib/publish/exercise_rows\.py"
                       r".*lecture_plan --write"):
        E.row(exs[1])


def test_the_real_notebooks_give_the_pages_table():
    text = (E.P.REPO / "INSTRUCTORS.md").read_text()
    assert E.table_markdown() in text, (
        "INSTRUCTORS.md's exercise table is stale: python -m ftd_lib.publish.lecture_plan --write")
