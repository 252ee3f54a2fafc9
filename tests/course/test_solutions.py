"""Every exercise has a hint (in the library) and a worked solution (in its notebook, as nbgrader
solution cells, folded), and every worked solution passes its own check in its own notebook's
namespace, after the notebook's earlier cells.

How the last point is tested: the notebooks are saved with the outputs of a fresh top-to-bottom
run, and the test below fails unless every solution cell's saved output is a ✅ with no ❌ and no
error; in CI, ``tests/publish/test_release.py`` runs every notebook afresh (the instructors'
version, against the students' copy of the library) and requires the same, and the nbval pass of
``./test.sh`` runs every cell. (A solution that needs a name its notebook lacks, as five did,
raises there.) The solution cells are not ``# NBVAL_CHECK_OUTPUT``: nbval runs cells without
storing them in IPython's history, so a check call's ``;`` would not hide its True there.
"""

import re
from pathlib import Path

import nbformat
import pytest

from ftd_lib.course import exercises
from ftd_lib.course.exercises import MISSING, hint, hint_markdown
from ftd_lib.course.exercises.hints import HINTS
from ftd_lib.course.roles import HINT, has, is_solution

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("0*.ipynb"))
CHECK = re.compile(r"\bnb\d\d\.check_\w+\(")
KEY = re.compile(r'hint\("(nb\d\d\.[a-z][a-z0-9_]*)"\)')  # a key is a name: nb02.n_step_return


def _cells(path):
    return nbformat.read(path, as_version=4).cells


def _text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def exercises_of(path):
    """(key, hint cell, worked Markdown cell, solution code cell) of every exercise of a
    notebook, in order: the three cells follow one another."""
    cells = _cells(path)
    out = []
    for i, c in enumerate(cells):
        m = KEY.search(c.source) if c.cell_type == "code" and has(c, HINT) else None
        if m:
            out.append((m.group(1), c, cells[i + 1], cells[i + 2]))
    return out


ALL = [(p.stem[:2], *e) for p in NOTEBOOKS for e in exercises_of(p)]
IDS = [e[1] for e in ALL]


def test_every_exercise_has_a_hint_and_a_solution():
    keys = [e[1] for e in ALL]
    assert len(keys) == len(set(keys)) and set(keys) == set(HINTS), (
        sorted(set(keys) ^ set(HINTS)))
    for path in NOTEBOOKS:
        cells = _cells(path)
        answer_cells = [c for c in cells if c.cell_type == "code" and CHECK.search(c.source)
                        and not is_solution(c)]
        assert len(answer_cells) == len(exercises_of(path)), path.name


@pytest.mark.parametrize("nb,key,hint_cell,worked,code", ALL, ids=IDS)
def test_solution_cells_follow_nbgrader_and_are_folded(nb, key, hint_cell, worked, code):
    assert key.startswith(f"nb{nb}.")
    for cell, kind in ((worked, "markdown"), (code, "code")):
        assert cell.cell_type == kind and is_solution(cell), f"{key}: a {kind} solution cell"
        meta = cell.metadata["nbgrader"]
        assert meta["schema_version"] == 3 and meta["grade_id"].startswith(key.replace(".", "-"))
        assert meta["locked"] is False and "solution" in cell.metadata.get("tags", [])
        # nbgrader's v3 rules: a Markdown solution cell is a grade cell, with points
        if kind == "markdown":
            assert meta["grade"] is True and meta["points"] == 0
    # folded: the code by JupyterLab's metadata, the explanation in a closed <details> box
    assert code.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert worked.source.startswith("<details><summary>") and "<details open" not in worked.source
    assert worked.source.rstrip().endswith("</details>")
    src = code.source
    assert src.index("### BEGIN SOLUTION") < src.index("### END SOLUTION")
    assert CHECK.search(src.split("### END SOLUTION")[1]), f"{key}: the check follows the region"


@pytest.mark.parametrize("nb,key,hint_cell,worked,code", ALL, ids=IDS)
def test_every_worked_solution_passed_its_check_in_its_notebook(nb, key, hint_cell, worked,
                                                                 code):
    out = _text(code)
    assert not [o for o in code.outputs if o.output_type == "error"], f"{key} raised"
    assert "✅" in out and "❌" not in out, f"{key}: its check says\n{out}"


def test_grade_ids_are_unique():
    for path in NOTEBOOKS:
        ids = [c.metadata["nbgrader"]["grade_id"] for c in _cells(path)
               if "nbgrader" in c.metadata]
        assert len(ids) == len(set(ids)), path.name


def test_the_library_holds_no_worked_solution():
    lib = REPO / "ftd_lib" / "course" / "exercises"
    for path in lib.glob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*### BEGIN SOLUTION", text, re.M), path.name
        assert "SOLUTIONS" not in text and "worked=" not in text, path.name


def test_hint_is_folded_and_unknown_keys_are_refused():
    md = hint_markdown("nb01.discounted_return")
    assert md.startswith("<details><summary>") and md.count("<details>") == 1
    assert hint("nb01.discounted_return").data == md
    with pytest.raises(ValueError, match="nb03.ex99"):
        hint_markdown("nb03.ex99")
    with pytest.raises(ValueError, match="key"):
        hint_markdown("exercise 1")


def test_missing_answer_says_the_one_message(capsys):
    assert exercises.missing(None)
    assert capsys.readouterr().out.strip() == "❌ " + MISSING
