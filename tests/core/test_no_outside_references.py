"""The repository speaks for itself: no code, test, script or document points at material a
reader of the repository cannot open (a review's file and its finding ids, the issue tracker's
numbers, a path on one machine); each says the problem itself."""

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUFFIXES = {".py", ".md", ".js", ".css", ".sh", ".yml", ".toml", ".cff", ".txt"}
#: what points outside: "review 4", "review 2026-11-28-site-3", "(site-3, X16)", "(X15)",
#: "W12:", "(issue 36)", "/work/shared/…"
OUTSIDE = re.compile(
    r"\breview \d|\breview 20\d\d-|\b(?:site|lecturer|maintainer|researcher|student|instructor)"
    r"-\d\b|(?<=\s)\((?:[XWMRLN]\d{1,2})(?:[,;/)]| and)|(?:^|[\"#/*]\s*)[XWMR]\d{1,2}: |"
    r"\(issue \d+|\bissue \d+'s\b|/work/(?:shared|main|wt)/", re.M)


def outside(text: str) -> list[str]:
    return [m.group(0) for m in OUTSIDE.finditer(text)]


def test_the_rule_by_hand():
    for said in ("(review 2026-11-28-site-3, X16)", "review 4: cut", "a link (X15)",
                 '"""W12: an inline', "# R3: a key", "(issue 36, R1/R3)", "issue 9's target",
                 'Path("/work/shared/paper/x.tex")', "pictures (X7, X14)"):
        assert outside(said), said
    for fine in ("a link preview", "W1 = matvec(W1, x)", "np.abs(W1) <= 1", "zeros(R2, M)",
                 "Q(S1, 1)", "X3[first]", "in review (paired by jupytext.toml)",
                 "an issue of style", "(M1 * LC1)"):
        assert not outside(fine), fine


def test_nothing_points_outside_the_repository():
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                           check=True).stdout.split()
    found = []
    for name in files:
        path = REPO / name
        if (path.suffix not in SUFFIXES or "vendor" in path.parts or not path.is_file()
                or path.parts[len(REPO.parts)] == "results"):  # runs' provenance, as recorded
            continue
        if name == "tests/core/test_no_outside_references.py":
            continue  # its own examples
        for i, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            found += [f"{name}:{i}: {s!r}" for s in outside(line)]
    assert not found, ("these point at material outside the repository; say the problem "
                       "itself instead:\n" + "\n".join(found[:30]))
