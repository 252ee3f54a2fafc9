"""The test tiers' times that README.md and CONTRIBUTING.md give are the ones
``scripts/time_test_tiers.py`` measured (``results/test_tiers.json``): the fast tier cold (a
fresh clone, numba's cache empty) and warm, each passing, and the full suite where it was
measured (a failure it had is said beside its time), the documents quoting each time in
minutes to one decimal."""

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REC = json.loads((REPO / "results" / "test_tiers.json").read_text())


def minutes(run: dict) -> str:
    """How the documents write a run's wall-clock time."""
    return f"{run['wall_s'] / 60:.1f} min"


def test_the_fast_runs_passed_on_a_commit_of_this_repository():
    assert {"fast_cold", "fast_warm"} <= set(REC["runs"])
    for name in ("fast_cold", "fast_warm"):
        run = REC["runs"][name]
        assert run["exit_code"] == 0 and any("passed" in s for s in run["pytest"]), name
        assert not any("failed" in s for s in run["pytest"]), name
    assert len(REC["commit"]) == 40


@pytest.mark.parametrize("doc", ["README.md", "CONTRIBUTING.md"])
def test_the_documents_quote_the_measured_times(doc):
    text = (REPO / doc).read_text()
    for name, run in REC["runs"].items():
        quoted = minutes(run)
        assert quoted in text, (doc, name, quoted)
        if run["exit_code"]:  # a failed run's time is quoted with its failure
            line = next(s for s in text.split("\n") if quoted in s)
            assert "fail" in line, (doc, name, line)
    assert "scripts/time_test_tiers.py" in text


def test_the_time_format_reads_seconds_as_minutes():
    assert minutes({"wall_s": 186.0}) == "3.1 min" and minutes({"wall_s": 29.9}) == "0.5 min"
