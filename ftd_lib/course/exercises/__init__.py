"""Self-check functions for the course's exercises, one module per notebook, and their hints.

Each check compares a student's answer with the library's and prints a short verdict (✅ or
❌); it returns ``True``/``False`` so a notebook (or a test) can use it too. An exercise cell
starts with the placeholder ``None`` (``answer = None``); every check first asks
:func:`missing`, which prints the one message :data:`MISSING` while the placeholder is still
there.

Hints: the cell under an exercise calls :func:`hint` with the exercise's key (``"nb03.ex2"``),
which shows one folded box (:mod:`.hints`). Worked solutions are not in the library: they live
in the notebooks as nbgrader solution cells (``### BEGIN SOLUTION`` / ``### END SOLUTION``,
folded), and ``python -m ftd_lib release --for students`` writes a copy of the course without
them (:mod:`ftd_lib.course.release`). ``tests/course/test_solutions.py`` runs every worked
solution through its check in its own notebook's namespace.
"""

from __future__ import annotations

import textwrap

import numpy as np


def verdict(ok: bool, good: str, bad: str) -> bool:
    """Print one line (✅ good / ❌ bad) and return ``ok``."""
    print(("✅ " + good) if ok else ("❌ " + bad))
    return bool(ok)


#: what a check says while the answer is still the placeholder ``None``
MISSING = ("No answer yet: put your answer in place of None (or fill in the skeleton) and run "
           "the cell again.")


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
    if not ok and np.allclose(a, e, rtol=5e-3, atol=atol):
        return verdict(False, "", f"Close, but {name} is rounded: don't round, give the full "
                       "number (keep the digits Python gives you).")
    return verdict(ok, f"Correct: {name} is right.", f"Not yet: {name} is off. {hint}".strip())


def not_written(fn) -> bool:
    """Is the function a student was asked to write still the placeholder (``None``) or still
    raising ``NotImplementedError`` (the skeleton)? If so, say "not answered yet"."""
    if fn is None:
        return missing(None)
    if not callable(fn):
        return not verdict(False, "", "Hand the check your function itself (its name, no "
                           "brackets).")
    return False


def borrows(fn, library_fn) -> bool:
    """Is the student's ``fn`` the library's ``library_fn``, or does its source call it? (A build
    exercise asks for the student's own code; the library's reference is visible to them.)"""
    import inspect

    if fn is library_fn:
        return True
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return False
    body = src.split(":", 1)[-1]  # not the name in the def line
    return f"{library_fn.__name__}(" in body


def run_student(fn, *args, **kwargs):
    """Call a student's function; return ``(result, None)``, or ``(None, message)`` when it
    raises (``NotImplementedError`` means the skeleton is not filled in yet)."""
    try:
        return fn(*args, **kwargs), None
    except NotImplementedError:
        return None, MISSING
    except Exception as e:  # noqa: BLE001 -- a student's code may raise anything
        return None, f"Your function raised {type(e).__name__}: {e}"


def _as_weights(got) -> np.ndarray:
    """A student's returned weights as a float array (an empty one when not numbers)."""
    try:
        return np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return np.zeros(0)


def check_weights_per_step(fn, cases, make, *, rows: str, same: str, differs,
                           as_array=_as_weights) -> bool | None:
    """The loop of a build-an-algorithm exercise: for each case ``(what, ..., usual)`` of
    ``cases``, ``make(i, case)`` gives ``(episodes, w0, kwargs, expected)``, the student's
    ``fn(episodes, w0.copy(), **kwargs)`` runs (:func:`run_student`), and its weights after every
    step must match ``expected`` to 1e-10. One verdict per case: an error, the wrong shape
    (``rows`` is inserted after "the weights after every step"), the first step that differs
    (``differs(step, episodes, expected, usual)`` says what), or ``same``. Returns whether all
    cases passed, or ``None`` (after printing :data:`MISSING`) while ``fn`` is the skeleton."""
    ok_all = True
    for i, case in enumerate(cases):
        what, usual = case[0], case[-1]
        episodes, w0, kw, expected = make(i, case)
        got, err = run_student(fn, episodes, w0.copy(), **kw)
        if err == MISSING:
            verdict(False, "", MISSING)
            return None
        if err is not None:
            ok_all = verdict(False, "", f"{what}: {err}") and ok_all
            continue
        got = as_array(got)
        if got.shape != expected.shape:
            ok_all = verdict(False, "", f"{what}: return the weights after every step{rows} "
                             f"(shape {expected.shape}), got {got.shape}.") and ok_all
            continue
        bad = np.flatnonzero(np.any(np.abs(got - expected) > 1e-10, axis=1))
        if bad.size:
            why = differs(int(bad[0]) + 1, episodes, expected, usual)
            ok_all = verdict(False, "", f"{what}: {why}") and ok_all
        else:
            verdict(True, f"{what}: {same}", "")
    return ok_all


# ------------------------------------------------------------------------------------ hints


def hint_markdown(key: str) -> str:
    """The folded box (HTML ``<details>``, closed) that :func:`hint` shows; with no hints in this
    copy of the course (a ``--no-hints`` release) a one-line note."""
    from .hints import HINTS

    prefix = key.split(".", 1)[0]
    if not (prefix.startswith("nb") and prefix[2:].isdigit()):
        raise ValueError(f"key must look like 'nb03.ex2', got {key!r}")
    if not HINTS:
        return "*(No hints in this copy of the course.)*\n"
    if key not in HINTS:
        raise ValueError(f"no exercise {key!r}; known: {', '.join(HINTS)}")
    title, text = HINTS[key]
    return (f"<details><summary><b>💡 Hint</b> ({title}): click to open</summary>\n\n"
            f"{textwrap.dedent(text).strip()}\n\n</details>\n")


def hint(key: str):
    """Show the hint of exercise ``key`` folded: a student opens it only by choice. Returns an
    ``IPython.display.Markdown`` (the notebook shows it)."""
    from IPython.display import Markdown

    return Markdown(hint_markdown(key))
