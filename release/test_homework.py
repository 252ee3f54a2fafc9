"""Your homework, graded as the instructor grades it (README.md, "Homework"): one test per
notebook with exercises, passing when every required exercise of the *saved* notebook passes
its check in a fresh kernel. The same as ``python -m ftd_lib check``; run it with
``.venv/bin/pytest`` (``-k 02`` for one notebook)."""

from pathlib import Path

import pytest

from ftd_lib.course import grading

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("0*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_required_exercises_pass(path):
    report = grading.run_notebook(path)
    assert report.exercises, f"{path.name} has no exercise cells"
    if not report.ok:
        pytest.fail("\n".join(report.lines()), pytrace=False)
