"""What each notebook cell is for, said once in its metadata, and what every way out shows of it.

The notebooks are written for self-study; the deck, the site, the handouts and the releases
show them to other readers. Each cell carries its role as cell tags (Jupyter's own
``metadata.tags``, which JupyterLab, nbval, nbgrader, RISE and MyST-NB all read), and every
way out asks this module, never the cell's text:

===================== ==========================================================================
tag                   meaning
===================== ==========================================================================
``show-code``         the code is the point (the library's TD(0), an exercise's signature): the
                      deck, the handouts and the site show its source; every other code cell
                      is shown there by its output alone
``exercise``          a student's answer cell (the scaffold and its check): a static way out
                      shows neither its source nor its output (an unrun verdict); the question
                      is the markdown cell before it
``optional-exercise`` beside ``exercise``: this exercise is optional homework (an exercise
                      without it is required); its heading says "(optional)" too; the
                      students' README counts it apart, ``python -m ftd_lib check`` names it
                      but does not fail on it
``student-id``        the cell near the top where a student writes their id
                      (``STUDENT_ID = None``), from which the exercises draw their numbers
                      (:func:`ftd_lib.course.exercises.use_student`); a release may write it
``hint``              a folded hint (``hint("nb03.beta_td_lambda")``)
``solution``          a worked solution (also nbgrader's ``solution``): never in a students'
                      copy, never on a slide
``nbval-check-output`` nbval's own tag: CI compares this cell's (rounded, seeded) output
``lecture-optional``  a lecturer may skip it live
``self-check``        the notebook's last cell: "n of m pass" for its exercises
                      (:mod:`ftd_lib.course.grading`)
``colab-install``     the notebook's first code cell: on Colab only, installs the course's copy
                      (:mod:`ftd_lib.course.colab`); no static way out shows it
``written-answer``    a box (Markdown) for a written answer, graded by hand (nbgrader's
                      manually graded answer): in every copy, empty in the source
``cell-<name>``       not a role but the cell's name, unique in its notebook: what the lecture
                      plan (:mod:`ftd_lib.publish.plan`) calls a section's heading or a slide
                      by, so that a retitle or a renumbering changes no lecture
===================== ==========================================================================

nbval reads ``nbval-check-output`` as it reads a ``# NBVAL_CHECK_OUTPUT`` first line, so no
reader sees a test marker.
"""

from __future__ import annotations

SHOW_CODE = "show-code"
EXERCISE = "exercise"
HINT = "hint"
SOLUTION = "solution"
CHECK_OUTPUT = "nbval-check-output"
OPTIONAL = "lecture-optional"
OPTIONAL_EXERCISE = "optional-exercise"
STUDENT_ID = "student-id"
SELF_CHECK = "self-check"
#: a written answer's box (Markdown, an nbgrader manually graded answer): kept, empty, in the
#: students' copy, though nbgrader marks it a solution cell
WRITTEN_ANSWER = "written-answer"
COLAB = "colab-install"

ROLES = (SHOW_CODE, EXERCISE, HINT, SOLUTION, CHECK_OUTPUT, OPTIONAL, OPTIONAL_EXERCISE,
         STUDENT_ID, SELF_CHECK, COLAB, WRITTEN_ANSWER)


#: the prefix of a cell's name (a tag ``cell-<name>``; :func:`cell_name`)
NAME_PREFIX = "cell-"


def is_name(tag: str) -> bool:
    """True when ``tag`` is a cell's name (``cell-<name>``), not a role."""
    return tag.startswith(NAME_PREFIX) and len(tag) > len(NAME_PREFIX)


def cell_names(cell) -> list[str]:
    """The names the cell carries (its tags ``cell-<name>``)."""
    return [t for t in tags(cell) if is_name(t)]


def tags(cell) -> list[str]:
    """The cell's tags (an empty list where it has none)."""
    return list(cell.get("metadata", {}).get("tags", []))


def has(cell, role: str) -> bool:
    """True when ``cell`` is tagged ``role`` (one of :data:`ROLES`)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, got {role!r}")
    return role in tags(cell)


def is_solution(cell) -> bool:
    """A worked solution: tagged ``solution``, or marked by nbgrader as a solution cell and not
    a written answer's box (:data:`WRITTEN_ANSWER`, which holds no answer in the source)."""
    return has(cell, SOLUTION) or (not has(cell, WRITTEN_ANSWER) and bool(
        cell.get("metadata", {}).get("nbgrader", {}).get("solution", False)))


def is_required_exercise(cell) -> bool:
    """An exercise's answer cell that is required homework (tagged ``exercise`` and not
    ``optional-exercise``)."""
    return has(cell, EXERCISE) and not has(cell, OPTIONAL_EXERCISE)


def exercise_counts(nb) -> tuple[int, int]:
    """``(required, optional)``: how many exercises notebook ``nb`` (an nbformat notebook or
    a dict with ``cells``) asks, counted by their answer cells (solutions left out)."""
    cells = [c for c in nb["cells"] if has(c, EXERCISE) and not is_solution(c)]
    optional = sum(has(c, OPTIONAL_EXERCISE) for c in cells)
    return len(cells) - optional, optional


def on_slide(cell) -> bool:
    """False for a cell no static slide shows at all: an exercise's answer cell, a hint, a
    worked solution (the question is the markdown before them), the self-check count, the
    student's id, the Colab install."""
    return not (is_solution(cell) or has(cell, EXERCISE) or has(cell, HINT)
                or has(cell, SELF_CHECK) or has(cell, STUDENT_ID) or has(cell, COLAB))


def shows_code(cell) -> bool:
    """True when a static way out (deck, handouts, site) shows this code cell's source."""
    return cell.get("cell_type") == "code" and has(cell, SHOW_CODE)
