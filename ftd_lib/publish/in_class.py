"""An exercise put to the room on a core slide: the numbers it works from, drawn without a
student id (:func:`given_numbers`, printed by the exercise's ``given_*`` helper), and the answer
for the lecturer's cue, worked out by the exercise's own solution on those numbers
(:func:`default_answer`); :func:`in_class_cells` makes the slide's extra cell and the cue's
answer for :func:`ftd_lib.publish.deck.lecture_notebook`.
"""

from __future__ import annotations

import re

import nbformat

from . import slide_words

_GIVEN = re.compile(r"^\s*print\((nb\d\d)\.(given_\w+)\(\)\)\s*$", re.MULTILINE)


def _number_text(v) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k} = {_number_text(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_number_text(x) for x in v) + "]"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def given_numbers(answer_source: str) -> list:
    """The numbers the exercise's answer cell prints for the student (its
    ``print(nbNN.given_x())`` lines), drawn without a student id
    (:func:`ftd_lib.course.exercises.student.default_numbers`): what a room works from."""
    from importlib import import_module

    from ..course.exercises.student import default_numbers

    return [default_numbers(getattr(import_module(f"ftd_lib.course.exercises.{mod}"), fn))
            for mod, fn in _GIVEN.findall(answer_source)]


def default_answer(solution_source: str):
    """The worked solution's ``answer`` for the numbers without a student id (the solution
    cell run with the exercises' modules, its check's verdict swallowed); ``None`` where it
    sets no number."""
    import contextlib
    import io
    from importlib import import_module

    from ..course.exercises import student

    env = {m: import_module(f"ftd_lib.course.exercises.{m}")
           for m in set(re.findall(r"\b(nb\d\d)\.", solution_source))}
    saved = student._STUDENT["id"]
    student._STUDENT["id"] = None
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(solution_source, "<solution>", "exec"), env)  # noqa: S102
    finally:
        student._STUDENT["id"] = saved
    a = env.get("answer")
    return a if isinstance(a, (int, float)) and not isinstance(a, bool) else None


def in_class_cells(nb_cells, group) -> tuple:
    """For a slide (``group``: indices into ``nb_cells``) whose exercise is put to the room:
    ``(markdown cell with the numbers to work from, the answer for the cue)``; ``(None, None)``
    where the slide has no exercise that prints numbers."""
    from ..course import roles

    answer_cell = next((i for i in group if roles.has(nb_cells[i], roles.EXERCISE)), None)
    if answer_cell is None:
        return None, None
    given = given_numbers(slide_words._src(nb_cells[answer_cell]))
    if not given:
        return None, None
    sol = next((c for c in nb_cells[answer_cell + 1:]
                if c.cell_type == "code" and roles.is_solution(c)), None)
    answer = default_answer(slide_words._src(sol)) if sol is not None else None
    text = "**The numbers** (without a student id): " + "; ".join(
        f"`{_number_text(g)}`" for g in given)
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["slideshow"] = {"slide_type": "-"}
    return cell, (None if answer is None else f"{answer:.4g}")
