"""Every reference to an exercise resolves, and none goes stale when exercises are inserted or
reordered: an exercise is named by its title or its key, never by its place.

- In a notebook's text, "exercise 4" or "four exercises" (a number kept by hand) appears only in
  an exercise's own heading and its worked solution's label (``test_exercise_layout`` checks
  those follow the order); another exercise is named by its heading's title in italics,
  ``exercise *β with replacing traces*``, which must be the title of an exercise of that
  notebook.
- In the checks' modules (``ftd_lib/course/exercises/nbNN.py``), the hints and the lecture plan's
  texts, an exercise is named by its key in double backquotes (exercise ``nb03.replacing_traces``),
  which must be an exercise's key; no "Exercise 3" or "exercises 2-4" (the hints' titles, shown
  beside the heading, are checked by ``test_exercise_layout``).
- An exercise whose question says "printed below" prints its numbers (``print(nbNN.given_…())``
  in its cells), and "your λ" (ε, η, γ, α) is a number its printed or named ``given_*`` holds.
"""

import importlib
import re
from pathlib import Path

import nbformat
import pytest

from ftd_lib.course import roles
from ftd_lib.course.exercises import default_numbers
from ftd_lib.publish import exercise_table, lectures

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("0*.ipynb"))
MODULES = sorted((REPO / "ftd_lib" / "course" / "exercises").glob("*.py"))

#: an exercise's heading: "### Exercise 5 — the horizon-extension identity (optional)"
HEAD = re.compile(r"(?m)^#+\s*Exercise\s+(\d+)\s*[—-]+\s*([^\n(]+)")
#: an exercise's own labels, which follow its place (checked by test_exercise_layout): its
#: heading, and its worked solution's "(Exercise 3)" / "Worked solution of Exercise 3"
OWN = re.compile(r"(?m)^#+\s*Exercise\s+\d+\s*—|\(Exercise \d+\)|Worked solution of Exercise \d+")
NUMBERS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|both|all \\d+|\\d+")
#: a place or a count: "exercise 4", "Exercises 1 and 2", "exercises 2-4", "Four exercises"
PLACE = re.compile(r"(?i)\bexercises?\s+\d+|\b(?:" + NUMBERS + r")\s+(?:required\s+|optional\s+)?"
                   r"exercises\b")
#: a reference by title, in a notebook: exercise *the ρ-recursion*
BY_TITLE = re.compile(r"(?i)\bexercise\s+\*([^*]+)\*")
#: a reference by key, in code and docstrings: exercise ``nb03.replacing_traces``
BY_KEY = re.compile(r"(?i)\bexercises?\s+``([^`]+)``")
#: a symbol a question calls "your ..." and the key of the given numbers that holds it
SYMBOLS = {"λ": "lam", "ε": "epsilon", "η": "eta", "γ": "gamma", "α": "alpha"}
GIVEN = re.compile(r"(nb\d\d)\.(given_\w+)\(\)")
#: a hint's title in hints.py ('Exercise 2, one row of …'): test_exercise_layout checks its number
HINT_TITLE = re.compile(r"(?m)^\s+['\"]Exercise \d+, ")


def sections(nb) -> list[tuple[int, str, str]]:
    """(number, question, code) per exercise: the Markdown and the code (hints and worked
    solutions left out) from its heading to the next heading."""
    out, cur = [], None
    for c in nb.cells:
        if roles.is_solution(c) or roles.has(c, roles.HINT):
            continue
        if c.cell_type == "markdown" and re.search(r"(?m)^#", c.source):
            m = HEAD.search(c.source)
            cur = [int(m.group(1)), "", ""] if m else None
            if cur:
                out.append(cur)
        if cur is not None:
            cur[1 if c.cell_type == "markdown" else 2] += c.source + "\n"
    return [tuple(s) for s in out]


def given_keys(names) -> set[str]:
    keys = set()
    for module, fn in names:
        mod = importlib.import_module(f"ftd_lib.course.exercises.{module}")
        keys |= set(default_numbers(getattr(mod, fn)))
    return keys


def _md(path: Path) -> str:
    return f"notebooks/src/{path.stem}.md"


def _line(path: Path, snippet: str) -> str:
    """``file:line`` of ``snippet`` in the notebook's source (the file to edit)."""
    src = REPO / _md(path)
    text = src.read_text() if src.exists() else ""
    i = text.find(snippet.strip().splitlines()[0]) if snippet.strip() else -1
    return f"{_md(path)}:{text.count(chr(10), 0, i) + 1}" if i >= 0 else _md(path)


def places(text: str) -> list[str]:
    """The places and hand-kept counts of exercises ``text`` names (its own labels left out)."""
    return [m.group(0) for m in PLACE.finditer(OWN.sub("", text))]


def titles(nb) -> set[str]:
    """The titles of the notebook's exercises, as their headings give them."""
    return {m.group(2) for c in nb.cells if c.cell_type == "markdown"
            for m in exercise_table.HEADING.finditer(c.source)}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_no_exercise_is_named_by_its_place(path):
    nb = nbformat.read(path, as_version=4)
    for c in nb.cells:
        for said in places(c.source):
            i = c.source.index(said)
            raise AssertionError(
                f"{_line(path, c.source[i:i + 80])}: {said!r} names an exercise by its place or "
                "counts them by hand, which goes stale when one is inserted or moved: name it by "
                "its title (exercise *the ρ-recursion*) or say 'the exercises below' "
                f"(…{c.source[max(0, i - 60):i + 60]!r}…)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_every_exercise_named_by_title_is_an_exercise_of_the_notebook(path):
    nb = nbformat.read(path, as_version=4)
    known = titles(nb)
    for c in nb.cells:
        for m in BY_TITLE.finditer(c.source):
            assert m.group(1).strip() in known, (
                f"{_line(path, m.group(0))}: {m.group(0)!r} names no exercise of "
                f"{path.stem}: its headings' titles are {sorted(known)}")


def _module_texts():
    """(file, text) of every text that names exercises outside the notebooks: the checks'
    modules and hints, and the lecture plan's descriptions of its lectures."""
    for p in MODULES:
        yield str(p.relative_to(REPO)), p.read_text()
    for lec in lectures.LECTURES:
        yield "ftd_lib/publish/plan.py", " ".join(
            [lec.title, lec.written] + [s.what for s in lec.segments])


def test_the_checks_modules_name_exercises_by_key():
    keys = {e.key for e in exercise_table.exercises()}
    for where, text in _module_texts():
        said = places(HINT_TITLE.sub("", text))
        assert not said, (f"{where}: {said} name exercises by place: write exercise "
                          "``nbNN.key`` (the key in the notebook's hint cell) or the title")
        for m in BY_KEY.finditer(text):
            for key in re.findall(r"nb\d\d\.\w+", m.group(1)):
                assert key in keys, f"{where}: {m.group(0)!r}: no exercise has the key {key!r}"


def test_the_rules_catch_what_went_stale():
    """A reference by place, a hand count, a title or a key that names nothing are each
    caught, where a sentence that names an exercise correctly is not."""
    text = (REPO / "notebooks" / "src" / "03_one_state_divergence.md").read_text()
    assert not places(text)
    assert places(text.replace("(exercise *β with replacing traces*)", "(exercise 4)"))
    assert places("Four exercises, each checked in the notebook")
    assert places("numbers of exercises 2-4 are the student's own")
    assert places("Exercise 3(b)'s run") and places("Both exercises check themselves")
    assert not places("### Exercise 4 — β with replacing traces (optional)\n(Exercise 4)")
    nb = nbformat.read(REPO / "notebooks" / "03_one_state_divergence.ipynb", as_version=4)
    assert "β with replacing traces" in titles(nb)
    assert "β with accumulating traces" not in titles(nb)
    m = BY_KEY.search("Exercise ``nb03.replacing_trace``: β of one episode")
    assert m and m.group(1) not in {e.key for e in exercise_table.exercises()}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_printed_below_and_your_numbers_resolve(path):
    for n, question, code in sections(nbformat.read(path, as_version=4)):
        printed = re.findall(r"print\((nb\d\d)\.(given_\w+)\(\)\)", code)
        if re.search(r"printed (below|by the cell below)", question):
            assert printed, f"{path.name} exercise {n}: 'printed below', nothing printed"
        keys = given_keys(printed + GIVEN.findall(question))
        for sym, key in SYMBOLS.items():
            if re.search(rf"\byour {sym}", question):
                assert key in keys, f"{path.name} exercise {n}: 'your {sym}' is not printed"
