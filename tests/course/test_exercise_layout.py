"""Every exercise sits under a `### Exercise n — title (required|optional)` heading, numbered
1..m in its notebook's order, after the section it needs; required or optional is said in the
heading and, machine-readably, by the `optional-exercise` role beside `exercise`
(:func:`ftd_lib.course.roles.exercise_counts`)."""

import re
from pathlib import Path

import nbformat
import pytest

from ftd_lib.course.roles import (
    EXERCISE,
    OPTIONAL_EXERCISE,
    ROLES,
    exercise_counts,
    has,
    is_required_exercise,
    is_solution,
)

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = {p.stem[:2]: p for p in sorted((REPO / "notebooks").glob("0*.ipynb"))}
HEADING = re.compile(r"^### Exercise (\d+) — .+ \((required|optional)\)\s*$", re.M)

#: (required, optional) per notebook: the table the students' README gives
COUNTS = {"01": (3, 0), "02": (3, 0), "03": (3, 1), "04": (4, 2), "05": (3, 0), "06": (3, 1),
          "07": (1, 0)}


def _cells(nb):
    return nbformat.read(NOTEBOOKS[nb], as_version=4).cells


@pytest.mark.parametrize("nb", sorted(NOTEBOOKS))
def test_every_exercise_has_its_numbered_heading_and_status(nb):
    cells = _cells(nb)
    heading, n = None, 0
    for c in cells:
        if c.cell_type == "markdown":
            m = HEADING.search(c.source)
            if m:
                heading = (int(m.group(1)), m.group(2))
            assert not c.source.lstrip().startswith("**Exercise"), c.source[:60]
        elif has(c, EXERCISE) and not is_solution(c):
            n += 1
            assert heading is not None and heading[0] == n, (nb, n, heading)
            assert (heading[1] == "optional") == has(c, OPTIONAL_EXERCISE), (nb, n)
            assert is_required_exercise(c) == (heading[1] == "required")
            heading = None  # one heading per exercise
    assert n == sum(COUNTS[nb])


def test_the_counts_per_notebook():
    got = {nb: exercise_counts(nbformat.read(p, as_version=4)) for nb, p in NOTEBOOKS.items()}
    assert got == COUNTS
    assert sum(sum(v) for v in got.values()) == 24
    assert OPTIONAL_EXERCISE in ROLES


def _index(cells, pred):
    return next(i for i, c in enumerate(cells) if pred(c))


def test_each_exercise_comes_after_the_section_it_needs():
    cells = _cells("02")
    traces = _index(cells, lambda c: c.source.startswith("## 4. TD(λ)"))
    build = _index(cells, lambda c: "nb02.check_td_lambda(" in c.source)
    assert traces < build < _index(cells, lambda c: c.source.startswith("## 5."))
    cells = _cells("04")
    identities = _index(cells, lambda c: c.source.startswith("## 2."))
    rho = _index(cells, lambda c: "nb04.check_rho(" in c.source)
    listing = _index(cells, lambda c: c.source.startswith("## 3."))
    assert identities < rho < listing
    assert _index(cells, lambda c: "nb04.check_algorithm1(" in c.source) > listing
