"""INSTRUCTORS.md's exercise table and its counts, written from the notebooks and the checks'
modules, so that no count or list of exercises is kept by hand.

An exercise is its answer cell in a notebook (tagged ``exercise``; ``optional-exercise`` too
when optional, :mod:`ftd_lib.course.roles`), the ``### Exercise n — title (required|optional)``
heading above it, and the hint cell after it, whose ``hint("nbNN.name")`` gives its key. Its
label (``02.3``) is its place among its notebook's exercises
(:func:`ftd_lib.publish.lectures.exercise_label`). Its row in INSTRUCTORS.md (what it asks,
what its check tests, the usual wrong answers) is in :data:`.exercise_rows.ROWS`, with the
instructors' tooling (it states answers: the students' copy leaves it out).

``python -m ftd_lib.publish.lecture_plan --write`` writes the part of INSTRUCTORS.md between
:data:`BEGIN` and :data:`END` (the counts per notebook and the table) together with the lecture
plan; ``--check`` says whether it is up to date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..course.roles import EXERCISE, OPTIONAL_EXERCISE, has, is_solution
from . import lectures as L
from . import plan as P

BEGIN = "<!-- exercises: begin (python -m ftd_lib.publish.lecture_plan --write) -->"
END = "<!-- exercises: end -->"
#: an exercise's heading: ``### Exercise n — title (required|optional)``
HEADING = re.compile(r"^### Exercise (\d+) — (.+) \((required|optional)\)\s*$", re.M)
TABLE_HEAD = ("| exercise | what its check tests | usual wrong answers (what they reveal) |\n"
              "| --- | --- | --- |")


@dataclass(frozen=True)
class Exercise:
    notebook: str  #: the notebook's stem (``02_lambda_return``)
    key: str  #: ``nb02.n_step_return`` (its hint's key)
    label: str  #: ``02.1``: the notebook and its place there
    optional: bool  #: tagged ``optional-exercise``
    title: str  #: its heading's title (``""`` without a heading)
    cell: int  #: the index of its answer cell


def notebook_exercises(stem: str, nb=None) -> list[Exercise]:
    """The exercises of notebook ``stem``, in order (answer cells, solutions left out)."""
    nb = P.read(stem) if nb is None else nb
    keys = L.exercise_keys(nb)
    out, title = [], ""
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            m = HEADING.search(cell["source"])
            if m:
                title = m.group(2)
        elif has(cell, EXERCISE) and not is_solution(cell):
            key = keys.get(i, "")
            out.append(Exercise(stem, key, f"{stem[:2]}.{len(out) + 1}",
                                has(cell, OPTIONAL_EXERCISE), title, i))
            title = ""
    return out


def exercises() -> list[Exercise]:
    """Every exercise of every notebook, notebook by notebook."""
    return [e for p in sorted(P.NOTEBOOKS.glob("0*.ipynb")) for e in notebook_exercises(p.stem)]


def counts(exs=None) -> dict:
    """``{"02": (required, optional)}`` per notebook (what the students' README's table gives,
    :func:`ftd_lib.course.roles.exercise_counts`)."""
    exs = exercises() if exs is None else exs
    out = {p.stem[:2]: (0, 0) for p in sorted(P.NOTEBOOKS.glob("0*.ipynb"))}
    for e in exs:
        req, opt = out[e.notebook[:2]]
        out[e.notebook[:2]] = (req, opt + 1) if e.optional else (req + 1, opt)
    return out


def counts_sentence(exs=None) -> str:
    """The sentence that gives the counts per notebook, with the optional exercises named."""
    exs = exercises() if exs is None else exs
    parts = []
    for nb, (req, opt) in counts(exs).items():
        named = [f"{e.label} {e.title}" for e in exs if e.optional and e.notebook[:2] == nb]
        parts.append(f"{nb}: {req} + {opt}" + (f" ({', '.join(named)})" if named else ""))
    req = sum(not e.optional for e in exs)
    return (f"Per notebook (required + optional = all {len(exs)}): " + "; ".join(parts)
            + f" — {req} required, {len(exs) - req} optional.")


#: where the rows are written (named in the messages that ask for one)
ROWS_FILE = "ftd_lib/publish/exercise_rows.py"


def rows_of(module_name: str) -> dict:
    """The rows of :data:`.exercise_rows.ROWS` for the exercises of checks' module
    ``module_name`` (``"nb02"``)."""
    from .exercise_rows import ROWS

    return {k: v for k, v in ROWS.items() if k.split(".", 1)[0] == module_name}


def row(e: Exercise) -> str:
    """INSTRUCTORS.md's table row of exercise ``e``; ValueError naming the file to edit when
    its module has no row for it."""
    module = e.key.split(".", 1)[0] if e.key else f"nb{e.notebook[:2]}"
    rows = rows_of(module)
    if e.key not in rows:
        raise ValueError(
            f"exercise {e.label} ({e.key or 'no hint key'}, notebooks/{e.notebook}.ipynb) has no "
            f"row for INSTRUCTORS.md: add {e.key!r}: (what it asks, what its check tests, the "
            f"usual wrong answers) to ROWS in {ROWS_FILE}, "
            "then run python -m ftd_lib.publish.lecture_plan --write")
    what, tests, slips = rows[e.key]
    return f"| `{e.key}` {'(optional) ' if e.optional else ''}{what} | {tests} | {slips} |"


def table_markdown(exs=None) -> str:
    """The generated part of INSTRUCTORS.md: the counts sentence and the table; ValueError when a
    row of :data:`.exercise_rows.ROWS` is for no exercise of the notebooks."""
    exs = exercises() if exs is None else exs
    known = {e.key for e in exs}
    for module in sorted({f"nb{e.notebook[:2]}" for e in exs}):
        extra = sorted(set(rows_of(module)) - known)
        if extra:
            raise ValueError(f"ROWS in {ROWS_FILE} has {module} rows "
                             f"for {extra}, which no exercise of the notebooks has as its key "
                             "(its hint cell's hint(...)): rename or remove them")
    return "\n".join([BEGIN, "", counts_sentence(exs), "", TABLE_HEAD]
                     + [row(e) for e in exs] + ["", END])


def render(text: str) -> str:
    """INSTRUCTORS.md's text with the exercise block rewritten."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"INSTRUCTORS.md has no {BEGIN!r} … {END!r} block")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + table_markdown() + tail
