"""Numbers of one's own: the student id whose numbers the exercises use, and what a check needs
to tell an answer for someone else's numbers (:mod:`ftd_lib.course.exercises`).

The cell near the top of each notebook (tagged ``student-id``) calls :func:`use_student`; each
exercise's ``given_*`` function draws its numbers from :func:`student_rng` (a hash of the id and
the exercise key, the same on every machine), and its check recomputes from the same id.
"""

from __future__ import annotations

import numpy as np

#: the id whose numbers the exercises use now (``None``: the paper's numbers)
_STUDENT: dict = {"id": None}


def use_student(student_id=None) -> str | None:
    """Make the exercises use the numbers of ``student_id`` (a student number or name, a
    non-empty string or a whole number), or the paper's numbers with ``None``. The cell near
    the top of each notebook calls it; every given number and every check then follows it.
    Returns the id as the exercises use it (a stripped string, or ``None``)."""
    if student_id is None:
        _STUDENT["id"] = None
    elif isinstance(student_id, bool) or not isinstance(student_id, (str, int)):
        raise ValueError(f"student_id must be None, a string or a whole number, got "
                         f"{type(student_id).__name__} {student_id!r:.40}")
    else:
        sid = str(student_id).strip()
        if not sid:
            raise ValueError("student_id must not be empty: use None for the paper's numbers")
        _STUDENT["id"] = sid
    sid = _STUDENT["id"]
    print("Exercises: the paper's numbers (no student id)." if sid is None else
          f"Exercises: the numbers of student id {sid!r}, your own.")
    return _STUDENT["id"]


def student_id() -> str | None:
    """The id whose numbers the exercises use now (``None``: the paper's numbers)."""
    return _STUDENT["id"]


def student_rng(key: str):
    """A generator for exercise ``key`` (``"nb01.discounted_return"``) of the current student,
    the same for the same id and key on every machine; ``None`` while there is no id (the
    paper's numbers). The key is the exercise's name, so moving or inserting an exercise
    changes no other exercise's numbers."""
    import hashlib

    sid = _STUDENT["id"]
    if sid is None:
        return None
    digest = hashlib.sha256(f"ftd_lib exercise {key} student {sid}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def whose() -> str:
    """"student id 's123'" or "no student id (the paper's numbers)", for messages."""
    sid = _STUDENT["id"]
    return "no student id (the paper's numbers)" if sid is None else f"student id {sid!r}"


def default_numbers(given):
    """``given()``'s numbers without a student id (what a neighbour without an id, or the
    solution printed for self-study, would use)."""
    saved = _STUDENT["id"]
    _STUDENT["id"] = None
    try:
        return given()
    finally:
        _STUDENT["id"] = saved


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


#: what a check says when the answer is the one for the paper's numbers, not the student's
OTHERS_ANSWER = ("that is the answer for the paper's numbers (no student id), not for yours "
                 "({whose}): compute it from the numbers printed in the exercise cell.")
