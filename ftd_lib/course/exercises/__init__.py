"""Self-check functions for the course's exercises, one module per notebook.

Each check compares a student's answer with the library's and prints a short verdict; it
returns ``True``/``False`` so a notebook (or a test) can use it too. An exercise cell starts
with the placeholder ``None`` (``answer = None``); every check first asks :func:`missing`,
which prints the one message :data:`MISSING` while the placeholder is still there.
"""

from __future__ import annotations

import numpy as np


def verdict(ok: bool, good: str, bad: str) -> bool:
    """Print one line (✅ good / ❌ bad) and return ``ok``."""
    print(("✅ " + good) if ok else ("❌ " + bad))
    return bool(ok)


#: what a check says while the answer is still the placeholder ``None``
MISSING = "No answer yet: replace None with your answer and run the cell again."


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
