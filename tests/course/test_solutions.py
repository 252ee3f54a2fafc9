"""Every exercise has a hint and a worked solution, shown folded by one call
(``ftd_lib.course.exercises.solution``), and every worked solution passes its own self-check.

The checks print ✅ or ❌ (``exercises.verdict``); a solution passes when its code prints at
least one ✅ and no ❌. The notebooks must show the solution of every exercise they check, and
only of those.
"""

import contextlib
import io
import re
import textwrap
from pathlib import Path

import pytest

from ftd_lib.course import exercises
from ftd_lib.course.exercises import MISSING, Solution, get, solution, solution_markdown, solutions

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted((REPO / "notebooks" / "src").glob("0*.md"))
ALL = solutions()


def run_solution(s: Solution) -> str:
    """Run a solution's setup, then its code, as a student would; return what it printed."""
    ns: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(textwrap.dedent(s.setup), f"<{s.key} setup>", "exec"), ns)
        exec(compile(textwrap.dedent(s.code), f"<{s.key} solution>", "exec"), ns)
    return out.getvalue()


@pytest.mark.parametrize("key", list(ALL))
def test_every_worked_solution_passes_its_check(key):
    printed = run_solution(ALL[key])
    assert "✅" in printed and "❌" not in printed, f"{key}: its check says\n{printed}"


@pytest.mark.parametrize("key", list(ALL))
def test_solution_is_complete_and_folded(key):
    s = ALL[key]
    assert s.key == key and s.title and s.hint.strip() and s.worked.strip() and s.code.strip()
    assert s.checks and s.wrong, f"{key}: say what the check tests and the common wrong answers"
    md = solution_markdown(key)
    # two folded boxes, none open: the student opens them only by choice
    assert md.count("<details>") == 2 and "<details open" not in md
    assert md.index("Hint") < md.index("Worked solution")
    assert textwrap.dedent(s.code).strip() in md
    assert solution(key).data == md


def test_unknown_keys_are_refused():
    with pytest.raises(ValueError, match="nb09"):
        get("nb09.ex1")
    with pytest.raises(ValueError, match="known"):
        get("nb03.ex99")


def test_missing_answer_says_the_one_message(capsys):
    assert exercises.missing(None)
    assert capsys.readouterr().out.strip() == "❌ " + MISSING


CALL = re.compile(r'solution\("(nb\d\d\.ex\d+)"\)')
CHECK = re.compile(r"\bnb\d\d\.check_\w+\(")


@pytest.mark.parametrize("src", SOURCES, ids=lambda p: p.stem)
def test_every_exercise_of_a_notebook_shows_its_solution(src):
    text = src.read_text()
    prefix = "nb" + src.stem[:2]
    shown = CALL.findall(text)
    assert len(shown) == len(set(shown)), f"{src.name}: a solution is shown twice"
    assert set(shown) == set(solutions(prefix)), (
        f"{src.name} shows {sorted(shown)}, the library has {sorted(solutions(prefix))}")
    # one exercise cell (a check with the placeholder None) per solution shown
    cells = re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, re.S)
    exercise_cells = [c for c in cells if CHECK.search(c) and "= None" in c]
    assert len(exercise_cells) == len(shown), (src.name, len(exercise_cells), len(shown))
    # the solution cell follows its exercise cell
    for c, key in zip(exercise_cells, shown, strict=True):
        after = text[text.index(c) + len(c):]
        assert after.find(f'solution("{key}")') == min(
            after.find(f'solution("{k}")') for k in shown if f'solution("{k}")' in after), (
            f"{src.name}: the cell after the exercise of {key} should show its solution")
