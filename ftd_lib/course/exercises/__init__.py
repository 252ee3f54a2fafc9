"""Self-check functions for the course's exercises, one module per notebook, and their hints.

Each check compares a student's answer with the library's and prints a short verdict (✅ or
❌); it returns ``True``/``False`` so a notebook (or nbgrader's autograder) can use it too. It
fails closed: an answer nobody wrote (the placeholder ``None``, a skeleton that raises
``NotImplementedError`` or returns ``None``, a string such as ``'7'``, a boolean, zeros) gets
``False`` and a ❌ that names what is missing, never an exception. A build exercise may not
hand in the library's own implementation: :func:`run_student` watches the student's function
run and refuses it when the library's code runs inside (by identity, alias or wrapper).

Hints: the cell under an exercise calls :func:`hint` with the exercise's key
(``"nb03.divergence_edge"``: its name, not its place), which shows one folded box
(:mod:`.hints`). The library holds no model answer; the course's instructors' release has
them (:mod:`ftd_lib.publish.release`), ``tests/course/test_solutions.py`` runs each through
its check, and ``tests/course/test_fail_closed.py`` runs every check on answers nobody wrote.

Numbers of one's own: every exercise whose answer is a number computed from given numbers
draws those numbers from the student's id (:func:`use_student`, called by the cell near the top
of each notebook, tagged ``student-id``): two ids give different numbers, and a check
recomputes the answer from the same id, so one student's answers fail in another's notebook.
Without an id (``None``, the default for self-study) the numbers are the paper's, or the
course's own where the paper has none.

Verdicts: every line starts with a symbol *and* a word ("✅ Correct", "❌ Not yet", "❌ No answer
yet" ...), so it reads the same where no emoji font draws the symbol.
"""

from __future__ import annotations

import textwrap

import numpy as np

from .own_work import BORROWED as BORROWED
from .own_work import COPIED as COPIED
from .own_work import COPY_MIN as COPY_MIN
from .own_work import LIBRARY_ANSWER as LIBRARY_ANSWER
from .own_work import Borrowed as Borrowed
from .own_work import answer_cell_source as answer_cell_source
from .own_work import borrows as borrows
from .own_work import copies as copies
from .own_work import graded_cells as graded_cells
from .own_work import library_in_answer_cell as library_in_answer_cell
from .own_work import refuse_library_answer as refuse_library_answer
from .own_work import run_student as run_student
from .student import OTHERS_ANSWER as OTHERS_ANSWER
from .student import default_numbers as default_numbers
from .student import graded_id as graded_id
from .student import is_others_answer as is_others_answer
from .student import numbers_of as numbers_of
from .student import others_answer as others_answer
from .student import student_id as student_id
from .student import student_rng as student_rng
from .student import use_student as use_student
from .student import whose as whose
from .verdicts import BAD_WORDS as BAD_WORDS
from .verdicts import GOOD_WORDS as GOOD_WORDS
from .verdicts import MISSING as MISSING
from .verdicts import verdict as verdict


def all_parts(oks, names) -> bool:
    """After a check of several parts, each with its own verdict line: ``True`` when every part
    passed; otherwise a last ❌ line that names the parts not yet right (so a ✅ line of a
    part that passed is never the last word of a check that failed)."""
    oks = [bool(o) for o in oks]
    if all(oks):
        return True
    wrong = [n for o, n in zip(oks, names, strict=True) if not o]
    verdict(False, "", f"Not yet: {len(oks) - len(wrong)} of {len(oks)} parts right; still "
            f"to do: {', '.join(wrong)}.")
    return False



def missing(answer, name: str = "") -> bool:
    """Is the exercise still unanswered (the placeholder ``None``)? If so, say so (naming the
    answer ``name`` when given)."""
    if answer is None:
        verdict(False, "", MISSING if not name else
                f"No answer yet for {name}: put your answer in place of None and run the cell "
                "again.")
        return True
    return False


def as_numbers(answer, name: str = "the answer"):
    """``answer`` as a float array, or ``None`` after saying why it is not numbers: a string
    (``'7'``), a boolean, a function, ``None`` or anything else that is not a real number."""
    import numbers

    if callable(answer):
        verdict(False, "", f"{name} must be a number, not a function: call it, or put its "
                "result here.")
        return None
    try:
        a = np.asarray(answer)
    except Exception:  # noqa: BLE001 -- a ragged list, an odd object: not numbers
        a = np.asarray(None)
    if a.dtype.kind == "O":
        flat = list(a.ravel()) if a.ndim else [a.item()]
        if flat and all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in flat):
            a = a.astype(float)
    if a.dtype.kind in "US":
        verdict(False, "", f"{name} must be a number, not a string ({answer!r}): drop the "
                "quotes.")
        return None
    if a.dtype.kind not in "iuf":
        what = ("True/False" if a.dtype.kind == "b" else "None inside" if a.dtype.kind == "O"
                and any(x is None for x in a.ravel()) else type(answer).__name__)
        verdict(False, "", f"{name} must be a number or a list of numbers, got {what}.")
        return None
    return a.astype(float)


def one_number(answer, name: str, one: str) -> float | None:
    """``answer`` as one ``float``, or ``None`` after saying why not: not numbers
    (:func:`as_numbers`, which calls it ``name``), or more than one number (the verdict
    ``one``)."""
    a = as_numbers(answer, name)
    if a is None:
        return None
    if a.shape != ():
        return verdict(False, "", one) or None
    return float(a)


def _rounding_of(a: np.ndarray, e: np.ndarray):
    """Is ``a`` the expected ``e`` rounded (to some decimals or significant digits, and within
    5 % of it: 0 is not 0.2 "rounded")? The rounding's description, or ``None``."""
    if not np.allclose(a, e, rtol=0.05, atol=0):
        return None
    for d in range(10):
        if np.allclose(a, np.round(e, d), rtol=0, atol=1e-12):
            return f"to {d} decimals"
    for s in range(1, 10):
        sig = np.vectorize(lambda x, s=s: float(f"{x:.{s}g}"))(e) if e.size else e
        if np.allclose(a, sig, rtol=1e-12, atol=0):
            return f"to {s} significant digits"
    return None


def is_right(answer, expected, *, rtol: float = 1e-6, atol: float = 1e-9,
             decimals: int | None = None) -> bool:
    """Would :func:`check_close` with these tolerances accept ``answer``? Silent. A check asks
    it *before* looking for the usual slips: where a student's draw makes a slip's value equal
    the right answer (a value of 0, a power below the tolerance), the right answer wins."""
    import numbers

    try:
        a = np.asarray(answer)
        if a.dtype.kind == "O" and all(isinstance(x, numbers.Real) and not isinstance(x, bool)
                                       for x in a.ravel()):
            a = a.astype(float)
        if a.dtype.kind not in "iuf":
            return False
        a, e = a.astype(float), np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        return False
    if a.shape != e.shape:
        return False
    if np.allclose(a, e, rtol=rtol, atol=atol):
        return True
    return decimals is not None and bool(np.all(np.abs(a - e) <= 0.5 * 10.0 ** -decimals
                                                + 1e-12))


def check_close(answer, expected, *, name: str = "answer", rtol: float = 1e-6,
                atol: float = 1e-9, hint: str = "", decimals: int | None = None) -> bool:
    """Is ``answer`` numerically equal to ``expected`` (same shape, within tolerance)? With
    ``decimals``, an answer given to that many decimals (or more) is right too. A string, a
    boolean or a function is not a number (❌); an answer that is the right one rounded is
    called rounded."""
    a = as_numbers(answer, name)
    if a is None:
        return False
    e = np.asarray(expected, dtype=float)
    if a.shape != e.shape:
        what = ("one number, not a list" if e.shape == () else
                f"{e.size} numbers (shape {e.shape})")
        return verdict(False, "", f"Not yet: {name} must be {what}; got shape {a.shape}.")
    ok = bool(np.allclose(a, e, rtol=rtol, atol=atol))
    if not ok and decimals is not None:
        ok = bool(np.all(np.abs(a - e) <= 0.5 * 10.0 ** -decimals + 1e-12))
    is_ = "are" if e.size > 1 else "is"
    if not ok and not np.array_equal(a, e):
        how = _rounding_of(a, e)
        if how is not None:
            return verdict(False, "", f"Close, but {name} {is_} rounded ({how}): don't round, "
                           "give the full number (keep the digits Python gives you).")
    return verdict(ok, f"Correct: {name} {is_} right.", f"Not yet: {name} {is_} off. "
                   f"{hint}".strip())


def not_written(fn, name: str = "your function") -> bool:
    """Is the function a student was asked to write still the placeholder ``None``, or not a
    function at all? If so, say so (and return ``True``)."""
    if fn is None:
        return missing(None, name)
    if not callable(fn):
        return not verdict(False, "", f"Hand the check {name} itself (its name, no brackets), "
                           f"not {type(fn).__name__} {fn!r:.40}.")
    return False


def student_number(fn, *args, refuse=(), returns: str, symbol: str, name: str | None = None):
    """Run a student's ``fn(*args)`` (:func:`run_student`, refusing ``refuse``) for one number;
    return it as a ``float``, or ``None`` after a verdict that says what went wrong: the error,
    ``None`` returned ("return ``returns``"), or not one number (``symbol`` names it; ``name``
    is what :func:`as_numbers` calls the value, by default "the ``symbol`` your function
    returns")."""
    value, err = run_student(fn, *args, refuse=refuse)
    if err is not None:
        return verdict(False, "", err) or None
    if value is None:
        return verdict(False, "", f"Your function returns None: return {returns}.") or None
    v = as_numbers(value, name or f"the {symbol} your function returns")
    if v is None or v.shape != ():
        return verdict(False, "", f"Your function must return one number, {symbol}.") or None
    return float(v)


def check_weights_per_step(fn, cases, make, *, rows: str, same: str, differs,
                           refuse=()) -> bool:
    """The loop of a build-an-algorithm exercise: for each case ``(what, ..., usual)`` of
    ``cases``, ``make(i, case)`` gives ``(episodes, w0, kwargs, expected)``, the student's
    ``fn(episodes, w0.copy(), **kwargs)`` runs (:func:`run_student`, refusing the library
    functions ``refuse``), and its weights after every step must match ``expected`` to 1e-10.
    One verdict per case: an error, the wrong shape (``rows`` is inserted after "the weights
    after every step"), the first step that differs (``differs(step, episodes, expected,
    usual, case, got=got)`` says what), or ``same``. Returns whether all cases passed;
    ``False`` at once (after one message) while ``fn`` is the skeleton, returns ``None``,
    borrows, or returns rows that are one array appended again and again."""
    ok_all = True
    for i, case in enumerate(cases):
        what, usual = case[0], case[-1]
        episodes, w0, kw, expected = make(i, case)
        got, err = run_student(fn, episodes, w0.copy(), refuse=refuse, **kw)
        if err is not None and (err == MISSING or err.startswith(("Your function runs",
                                                                  "Your function is a copy"))):
            return verdict(False, "", err)
        if err is not None:
            ok_all = verdict(False, "", f"{what}: {err}") and ok_all
            continue
        if got is None:
            return verdict(False, "", "Your function returns None: return the weights after "
                           f"every step{rows} (an array of shape {expected.shape} here).")
        aliased = _aliased_rows(got)
        got = as_numbers(got, "what your function returns")
        if got is None:
            return False
        if aliased or (got.shape == expected.shape and len(got) > 1
                       and np.all(got == got[-1]) and not np.all(expected == expected[-1])
                       and not np.all(got == w0)):
            return verdict(False, "", f"{what}: all your rows are the same array, the last "
                           "weights: you append w and then change that same array in place "
                           "(w += ... or w[...] = ...), so every row you appended changes with "
                           "it. Append a copy: out.append(w.copy()), or make a new array with "
                           "w = w + ....")
        if got.shape == expected.shape and np.all(got == w0) and not np.all(expected == w0):
            return verdict(False, "", f"{what}: your weights never move: every row is w0. "
                           "Is the update written (and its result kept in w)?")
        if got.shape != expected.shape:
            ok_all = verdict(False, "", f"{what}: return the weights after every step{rows} "
                             f"(shape {expected.shape}), got {got.shape}.") and ok_all
            continue
        bad = np.flatnonzero(np.any(~(np.abs(got - expected) <= 1e-10), axis=1))
        if bad.size:
            why = differs(int(bad[0]) + 1, episodes, expected, usual, case, got=got)
            ok_all = verdict(False, "", f"{what}: {why}") and ok_all
        else:
            verdict(True, f"{what}: {same}", "")
    return ok_all


def _aliased_rows(rows) -> bool:
    """Is ``rows`` a list (or tuple) in which one array object appears more than once (the rows
    of ``w += ...; out.append(w)``)?"""
    if not isinstance(rows, (list, tuple)) or len(rows) < 2:
        return False
    arrays = [id(r) for r in rows if isinstance(r, np.ndarray)]
    return len(arrays) != len(set(arrays))


# ------------------------------------------------------------------------------------ hints


def hint_markdown(key: str) -> str:
    """The folded box (HTML ``<details>``, closed) that :func:`hint` shows; with no hints in this
    copy of the course (a ``--no-hints`` release) a one-line note."""
    from .hints import HINTS

    prefix = key.split(".", 1)[0]
    if not (prefix.startswith("nb") and prefix[2:].isdigit()):
        raise ValueError(f"key must look like 'nb03.divergence_edge', got {key!r}")
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


# Every check's result is recorded as it runs (the one hook ftd_lib.course.grading needs):
# `python -m ftd_lib check` and each notebook's last cell count them.
from .. import grading as _grading  # noqa: E402

_grading.watch(__name__)
