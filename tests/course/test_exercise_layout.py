"""Every exercise sits under a `### Exercise n — title (required|optional)` heading, numbered
1..m in its notebook's order, after the section it needs; required or optional is said in the
heading and, machine-readably, by the `optional-exercise` role beside `exercise`
(:func:`ftd_lib.course.roles.exercise_counts`); a hint cell after it names its key
(``hint("nbNN.name")``), one key per exercise, each with its hint. No count is kept by hand: the
counts come from the notebooks (:mod:`ftd_lib.publish.exercise_table`), and the headings and the
tags, read apart, must give the same ones."""

import re
from pathlib import Path

import nbformat
import pytest

from ftd_lib.course.exercises.hints import HINTS
from ftd_lib.course.roles import (
    EXERCISE,
    OPTIONAL_EXERCISE,
    ROLES,
    exercise_counts,
    has,
    is_required_exercise,
    is_solution,
)
from ftd_lib.publish import exercise_table

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = {p.stem[:2]: p for p in sorted((REPO / "notebooks").glob("0*.ipynb"))}
HEADING = re.compile(r"^### Exercise (\d+) — .+ \((required|optional)\)\s*$", re.M)
FIX = "(edit notebooks/src/{stem}.md, then jupytext --sync notebooks/{stem}.ipynb)"


def _cells(nb):
    return nbformat.read(NOTEBOOKS[nb], as_version=4).cells


@pytest.mark.parametrize("nb", sorted(NOTEBOOKS))
def test_every_exercise_has_its_numbered_heading_and_status(nb):
    cells, fix = _cells(nb), FIX.format(stem=NOTEBOOKS[nb].stem)
    heading, n = None, 0
    for i, c in enumerate(cells):
        if c.cell_type == "markdown":
            m = HEADING.search(c.source)
            if m:
                heading = (int(m.group(1)), m.group(2))
            assert not c.source.lstrip().startswith("**Exercise"), (
                f"cell {i}: an exercise's heading is '### Exercise n — title (required)' "
                f"{fix}: {c.source[:60]!r}")
        elif has(c, EXERCISE) and not is_solution(c):
            n += 1
            assert heading is not None and heading[0] == n, (
                f"notebook {nb}, cell {i}: the {n}th exercise's answer cell needs the heading "
                f"'### Exercise {n} — title (required|optional)' above it (exercises are "
                f"numbered 1..m in notebook order; got {heading}) {fix}")
            assert (heading[1] == "optional") == has(c, OPTIONAL_EXERCISE), (
                f"notebook {nb}, exercise {n} (cell {i}): the heading says {heading[1]!r}, the "
                f"tags {c.metadata.get('tags')}: an optional exercise's answer cell is tagged "
                f"'exercise' and '{OPTIONAL_EXERCISE}', a required one 'exercise' alone {fix}")
            assert is_required_exercise(c) == (heading[1] == "required")
            heading = None  # one heading per exercise
        if is_solution(c):  # a worked solution names the exercise it solves by its place
            for said in re.findall(r"(?:\(|Worked solution of )Exercise (\d+)\b", c.source):
                assert int(said) == n, (
                    f"notebook {nb}, cell {i}: a worked solution of Exercise {n} says "
                    f"'Exercise {said}' {fix}")
    assert heading is None, f"notebook {nb}: a heading {heading} without an answer cell {fix}"


@pytest.mark.parametrize("nb", sorted(NOTEBOOKS))
def test_every_exercise_has_its_own_key_and_hint(nb):
    """The key (its hint cell's ``hint("nbNN.name")``) names the exercise everywhere: its hint,
    its per-student numbers, its nbgrader ids, the lecture plan's homework lists."""
    stem, fix = NOTEBOOKS[nb].stem, FIX.format(stem=NOTEBOOKS[nb].stem)
    exs = exercise_table.notebook_exercises(stem)
    for e in exs:
        assert e.key, (f"exercise {e.label} (cell {e.cell}) has no hint cell after its answer "
                       f"cell: add a cell tagged 'hint' with hint(\"nb{nb}.<name>\") {fix}")
        assert re.fullmatch(rf"nb{nb}\.[a-z][a-z0-9_]*", e.key), (
            f"exercise {e.label}: key {e.key!r} is not nb{nb}.<a lowercase name> {fix}")
        assert e.key in HINTS, (f"exercise {e.label}: no hint {e.key!r}: add it to HINTS in "
                                "ftd_lib/course/exercises/hints.py")
        said = re.match(r"Exercise (\d+)\b", HINTS[e.key][0])  # the hint box's title
        assert said is None or said.group(1) == e.label.split(".")[1], (
            f"the hint {e.key!r} is titled {HINTS[e.key][0]!r} but the exercise is now Exercise "
            f"{e.label.split('.')[1]} of notebook {nb}: fix (or drop) the number in its title in "
            "ftd_lib/course/exercises/hints.py")
    keys = [e.key for e in exs]
    assert len(set(keys)) == len(keys), f"notebook {nb}: a key used twice: {keys} {fix}"
    assert not {k for k in HINTS if k.startswith(f"nb{nb}.")} - set(keys), (
        "ftd_lib/course/exercises/hints.py has hints for no exercise of notebook "
        f"{nb}: {sorted({k for k in HINTS if k.startswith(f'nb{nb}.')} - set(keys))}")


def test_the_counts_per_notebook():
    """The counts by the tags (:func:`exercise_counts`) and by the headings agree, and
    INSTRUCTORS.md gives them (written by ``python -m ftd_lib.publish.lecture_plan --write``)."""
    by_tags = {nb: exercise_counts(nbformat.read(p, as_version=4)) for nb, p in NOTEBOOKS.items()}
    by_headings = {}
    for nb in NOTEBOOKS:
        status = [m.group(2) for c in _cells(nb) if c.cell_type == "markdown"
                  for m in HEADING.finditer(c.source)]
        by_headings[nb] = (status.count("required"), status.count("optional"))
    assert by_tags == by_headings
    assert exercise_table.counts() == by_tags
    assert all(req >= 1 for req, _ in by_tags.values())  # every notebook asks something
    assert OPTIONAL_EXERCISE in ROLES
    sentence = exercise_table.counts_sentence()
    total = sum(sum(v) for v in by_tags.values())
    assert f"= all {total}):" in sentence
    assert sentence in (REPO / "INSTRUCTORS.md").read_text(), (
        "INSTRUCTORS.md's exercise counts are stale: python -m ftd_lib.publish.lecture_plan "
        "--write")


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
