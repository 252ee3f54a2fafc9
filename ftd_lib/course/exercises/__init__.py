"""Self-check functions for the course's exercises, one module per notebook, and their hints
and worked solutions.

Each check compares a student's answer with the library's and prints a short verdict (✅ or
❌); it returns ``True``/``False`` so a notebook (or a test) can use it too. An exercise cell
starts with the placeholder ``None`` (``answer = None``); every check first asks
:func:`missing`, which prints the one message :data:`MISSING` while the placeholder is still
there.

Hints and worked solutions: every exercise has a :class:`Solution` in the ``SOLUTIONS`` of its
notebook's module, under a key such as ``"nb03.ex2"``. The cell under an exercise calls
:func:`solution` with that key, which shows two collapsed boxes, a hint and the worked solution:
a student opens them only by choice. The one mechanism in every notebook. A solution's
``code`` is what a student could type: it computes the answer and calls the exercise's check,
and ``tests/course/test_solutions.py`` runs every one of them and fails unless each check
says ✅.
"""

from __future__ import annotations

import importlib
import textwrap
from dataclasses import dataclass

import numpy as np


def verdict(ok: bool, good: str, bad: str) -> bool:
    """Print one line (✅ good / ❌ bad) and return ``ok``."""
    print(("✅ " + good) if ok else ("❌ " + bad))
    return bool(ok)


#: what a check says while the answer is still the placeholder ``None``
MISSING = ("No answer yet: replace None with your answer and run the cell again "
           "(a hint and a worked solution wait, folded, in the cell below).")


def missing(answer) -> bool:
    """Is the exercise still unanswered (the placeholder ``None``)? If so, say so."""
    if answer is None:
        verdict(False, "", MISSING)
        return True
    return False


def check_close(answer, expected, *, name: str = "answer", rtol: float = 1e-6,
                atol: float = 1e-9, hint: str = "") -> bool:
    """Is ``answer`` numerically equal to ``expected`` (same shape, within tolerance)?"""
    try:
        a = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return verdict(False, "", f"{name} must be a number or an array of numbers. {hint}")
    e = np.asarray(expected, dtype=float)
    if a.shape != e.shape:
        return verdict(False, "", f"{name} has shape {a.shape}, expected {e.shape}. {hint}")
    ok = bool(np.allclose(a, e, rtol=rtol, atol=atol))
    return verdict(ok, f"Correct: {name} is right.", f"Not yet: {name} is off. {hint}".strip())


# ------------------------------------------------------------------------ hints and solutions


@dataclass(frozen=True)
class Solution:
    """The hint and worked solution of one exercise.

    ``hint`` and ``worked`` are Markdown (with $math$); ``code`` is Python a student can run in
    the notebook, after its earlier cells: it computes the answer and ends with the exercise's
    check. ``setup`` is what the test runs before ``code`` in place of the notebook's earlier
    cells (imports, data); it is not shown. ``checks`` says in a few words what the self-check
    tests, and ``wrong`` lists common wrong answers and what they reveal (both for
    INSTRUCTORS.md).
    """

    key: str
    title: str
    hint: str
    worked: str
    code: str
    setup: str = ""
    checks: str = ""
    wrong: tuple = ()


#: the notebooks that have exercises: key prefix -> module of this package
MODULES = ("nb01", "nb02", "nb03", "nb04", "nb05", "nb06", "nb07")


def solutions(prefix: str | None = None) -> dict[str, Solution]:
    """Every :class:`Solution` (of one notebook with ``prefix="nb03"``), by key, in order."""
    out: dict[str, Solution] = {}
    for name in MODULES if prefix is None else (prefix,):
        if name not in MODULES:
            raise ValueError(f"prefix must be one of {', '.join(MODULES)}, got {name!r}")
        module = importlib.import_module(f"{__name__}.{name}")
        for s in module.SOLUTIONS:
            out[s.key] = s
    return out


def get(key: str) -> Solution:
    """The :class:`Solution` of ``key`` (``"nb03.ex2"``); a ``ValueError`` names the keys."""
    prefix = key.split(".", 1)[0]
    if prefix not in MODULES:
        raise ValueError(f"key must start with one of {', '.join(MODULES)}, got {key!r}")
    table = solutions(prefix)
    if key not in table:
        raise ValueError(f"no exercise {key!r}; known: {', '.join(table)}")
    return table[key]


def solution_markdown(key: str) -> str:
    """The two folded boxes (HTML ``<details>``, closed) that :func:`solution` shows."""
    s = get(key)
    code = textwrap.dedent(s.code).strip()
    return (f"<details><summary><b>💡 Hint</b> ({s.title}): click to open</summary>\n\n"
            f"{textwrap.dedent(s.hint).strip()}\n\n</details>\n\n"
            f"<details><summary><b>📖 Worked solution</b> ({s.title}): open it after you "
            f"have tried</summary>\n\n{textwrap.dedent(s.worked).strip()}\n\n"
            f"```python\n{code}\n```\n\n</details>\n")


def solution(key: str):
    """Show the hint and the worked solution of exercise ``key``, both folded: a student opens
    them only by choice. Returns an ``IPython.display.Markdown`` (the notebook shows it)."""
    from IPython.display import Markdown

    return Markdown(solution_markdown(key))
