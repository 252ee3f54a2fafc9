"""Numbers of one's own: the student id whose numbers the exercises use, and what a check needs
to tell an answer for someone else's numbers (:mod:`ftd_lib.course.exercises`).

The cell near the top of each notebook (tagged ``student-id``) calls :func:`use_student`; each
exercise's ``given_*`` function draws its numbers from :func:`student_rng` (a hash of the id and
the exercise key, the same on every machine), and its check recomputes from the same id.

Graded mode: while an instructor grades, the id comes from the submission, not from the
notebook. nbgrader's autograde runs the instructors' ``nbgrader_config.py``, whose pre-convert
hook (:func:`ftd_lib.course.grading.autograde_as_submitter`) puts the submitting student's id in
the environment variable :data:`GRADED_ENV` (and the class's ids in :data:`CLASS_ENV`) before
each submission's kernels start; ``python -m ftd_lib check --student ID`` does the same. Every
given number and every check then follows that id whatever the notebook's ``STUDENT_ID`` says,
and the notebook's student-id cell prints which id it is graded as. Self-study (no such
variable) keeps the notebook's id, and without one the paper's numbers.
"""

from __future__ import annotations

import os

import numpy as np

#: the environment variable that holds the submitter's id while grading (graded mode)
GRADED_ENV = "FTD_STUDENT_ID"

#: the environment variable that holds the class's ids, comma-separated, while grading: a check
#: tells an answer computed from a classmate's numbers by them
CLASS_ENV = "FTD_CLASS_IDS"

#: the id whose numbers the exercises use now (``None``: the paper's numbers), the id the
#: notebook gave, and (while :func:`numbers_of` runs) an id that overrides both
_STUDENT: dict = {"id": None, "notebook": None, "override": ()}


def graded_id() -> str | None:
    """The submitter's id while grading (:data:`GRADED_ENV`, stripped), else ``None``."""
    sid = os.environ.get(GRADED_ENV, "").strip()
    return sid or None


def _valid(student_id) -> str | None:
    if student_id is None:
        return None
    if isinstance(student_id, bool) or not isinstance(student_id, (str, int)):
        raise ValueError(f"student_id must be None, a string or a whole number, got "
                         f"{type(student_id).__name__} {student_id!r:.40}")
    sid = str(student_id).strip()
    if not sid:
        raise ValueError("student_id must not be empty: use None for the paper's numbers")
    return sid


def use_student(student_id=None) -> str | None:
    """Make the exercises use the numbers of ``student_id`` (a student number or name, a
    non-empty string or a whole number), or the paper's numbers with ``None``. The cell near
    the top of each notebook calls it; every given number and every check then follows it.
    While grading (:func:`graded_id`) the submitter's id wins: a notebook whose id is missing or
    differs is graded on the submitter's numbers all the same, and the cell says so. Returns
    the id as the exercises use it (a stripped string, or ``None``)."""
    graded = graded_id()
    if graded is None:
        sid = _valid(student_id)
    else:  # the notebook's id is only reported: an odd one does not stop the grading
        try:
            sid = _valid(student_id)
        except ValueError:
            sid = f"{student_id!r:.40}"
    _STUDENT["notebook"] = sid
    _STUDENT["id"] = sid if graded is None else graded
    if graded is not None:
        own = ("the id this notebook gives" if sid == graded else
               f"this notebook gives {'no student id' if sid is None else f'student id {sid!r}'}"
               f"; graded on the numbers of {graded!r} all the same")
        print(f"Graded as student id {graded!r} (the submission's): {own}.")
    elif os.environ.get("NBGRADER_EXECUTION") == "autograde":
        print(f"Graded without the submitter's id (the instructors' nbgrader_config.py sets "
              f"{GRADED_ENV}): the numbers of {whose()}.")
    else:
        print("Exercises: the paper's numbers (no student id)." if sid is None else
              f"Exercises: the numbers of student id {sid!r}, your own.")
    return _STUDENT["id"]


def student_id() -> str | None:
    """The id whose numbers the exercises use now (``None``: the paper's numbers): while
    grading the submitter's (:func:`graded_id`), else the notebook's."""
    if _STUDENT["override"]:
        return _STUDENT["override"][-1]
    graded = graded_id()
    return graded if graded is not None else _STUDENT["id"]


def student_rng(key: str):
    """A generator for exercise ``key`` (``"nb01.discounted_return"``) of the current student,
    the same for the same id and key on every machine; ``None`` while there is no id (the
    paper's numbers). The key is the exercise's name, so moving or inserting an exercise
    changes no other exercise's numbers."""
    import hashlib

    sid = student_id()
    if sid is None:
        return None
    digest = hashlib.sha256(f"ftd_lib exercise {key} student {sid}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def whose() -> str:
    """"student id 's123'" or "no student id (the paper's numbers)", for messages."""
    sid = student_id()
    return "no student id (the paper's numbers)" if sid is None else f"student id {sid!r}"


def numbers_of(sid, given):
    """``given()``'s numbers for student id ``sid`` (``None``: the paper's), whoever the
    current student is."""
    _STUDENT["override"] = (*_STUDENT["override"], sid)
    try:
        return given()
    finally:
        _STUDENT["override"] = _STUDENT["override"][:-1]


def default_numbers(given):
    """``given()``'s numbers without a student id (what a neighbour without an id, or the
    solution printed for self-study, would use)."""
    return numbers_of(None, given)


def classmates() -> list[str]:
    """The class's other ids while grading (:data:`CLASS_ENV`), in order, without the current
    one; empty otherwise."""
    me = student_id()
    ids = [s.strip() for s in os.environ.get(CLASS_ENV, "").split(",")]
    return list(dict.fromkeys(s for s in ids if s and s != me))


def is_others_answer(a, expected, other) -> bool:
    """Is the number(s) ``a`` the answer for the paper's numbers (``other``) while this
    student's (``expected``) differ? (Handing in the self-study answer, or the worked
    solution's printed number, for one's own numbers.)"""
    try:
        a, e, o = (np.asarray(x, dtype=float) for x in (a, expected, other))
    except (TypeError, ValueError):
        return False
    return (a.shape == o.shape == e.shape and not np.allclose(e, o, rtol=1e-9, atol=1e-12)
            and bool(np.allclose(a, o, rtol=1e-6, atol=1e-9)))


#: what a check says when the answer is the one for another id's numbers, not the student's
OTHERS_ANSWER = ("that is the answer for the numbers of {other}, not for yours ({whose}): "
                 "compute it from the numbers printed in the exercise cell.")


def others_answer(a, expected, answer_of) -> str | None:
    """When the number(s) ``a`` are not ``expected`` but the answer for another id's numbers,
    the message that says whose (:data:`OTHERS_ANSWER`); else ``None``. ``answer_of()`` computes
    the answer from the current id's given numbers; it is run for the paper's numbers and, while
    grading, for every classmate's (:func:`classmates`), only when ``a`` is not right."""
    try:
        if np.allclose(np.asarray(a, dtype=float), np.asarray(expected, dtype=float),
                       rtol=1e-9, atol=1e-12):
            return None
    except (TypeError, ValueError):
        return None
    for other in (None, *classmates()):
        if other == student_id():
            continue
        if is_others_answer(a, expected, numbers_of(other, answer_of)):
            who = ("no student id (the paper's numbers)" if other is None else
                   f"student id {other!r}")
            return OTHERS_ANSWER.format(other=who, whose=whose())
    return None
