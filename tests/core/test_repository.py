"""The repository's own rules, in the fast tier: documents that render (balanced code fences,
links that resolve), one version everywhere, no wall-clock assertion in any test, and the
workflows running the README's commands."""

import ast
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DOCS = sorted([*REPO.glob("*.md"), *(REPO / "docs").glob("*.md"),
               REPO / "experiments" / "README.md"])

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def unclosed_fence(text: str) -> int | None:
    """The line number (1-based) of a code fence that is never closed, else None (CommonMark:
    a fence closes on a line of the same character, at least as long, with nothing after)."""
    open_at, marker = None, ""
    for n, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        if not m:
            continue
        if open_at is None:
            open_at, marker = n, m.group(1)
        elif (m.group(1)[0] == marker[0] and len(m.group(1)) >= len(marker)
              and not line.strip()[len(m.group(1)):].strip()):
            open_at = None
    return open_at


def test_the_fence_rule_by_hand():
    assert unclosed_fence("a\n```bash\nx\n```\nb\n") is None
    assert unclosed_fence("a\n```\nx\n```\n\n```\nrest\n") == 6  # README's old line 590
    assert unclosed_fence("````\n```\n````\n") is None  # a shorter fence inside a longer one
    assert unclosed_fence("```python\n```python\n") == 1  # an opening line never closes


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_document_closes_its_code_fences(doc):
    line = unclosed_fence(doc.read_text())
    assert line is None, (f"{doc.relative_to(REPO)}: the code fence opened at line {line} is "
                          "never closed, so the rest of the document renders as code")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(doc):
    text = re.sub(r"```.*?```", "", doc.read_text(), flags=re.S)
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if not (doc.parent / target.split("#")[0]).exists():
            missing.append(target)
    assert not missing, f"{doc.relative_to(REPO)} links to files that do not exist: {missing}"


def test_the_readme_is_a_front_page():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 220
    for doc in ("CONTRIBUTING.md", "CHANGELOG.md", "INSTRUCTORS.md", "docs/website.md",
                "docs/reproduction.md", "docs/engine.md", "experiments/README.md"):
        assert f"]({doc})" in readme, f"the README does not link {doc}"
    assert "./test.sh --fast" in readme and "`./course.sh`" in readme


def test_one_version_everywhere():
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    import ftd_lib

    assert ftd_lib.__version__ == version
    assert yaml.safe_load((REPO / "CITATION.cff").read_text())["version"] == version
    newest = re.search(r"^## (\d+\.\d+\.\d+)", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert newest and newest.group(1) == version, (
        f"CHANGELOG.md's newest entry is {newest and newest.group(1)}, the version {version}: "
        "set the same version in pyproject.toml, ftd_lib/__init__.py, CITATION.cff and "
        "CHANGELOG.md")


# ------------------------------------------------------------------ no wall-clock assertion
_CLOCKS = {"time", "perf_counter", "monotonic", "process_time", "perf_counter_ns",
           "monotonic_ns", "time_ns"}
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _reads_clock(node, timed: set) -> bool:
    for sub in ast.walk(node):
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute)
                and sub.func.attr in _CLOCKS and isinstance(sub.func.value, ast.Name)
                and sub.func.value.id == "time"):
            return True
        if isinstance(sub, ast.Name) and sub.id in timed:
            return True
    return False


def timing_assertions(source: str) -> list[int]:
    """Lines of ``assert``s that order a wall-clock reading (``time.perf_counter() - t0 < 20``,
    or a name assigned from such a difference) against a bound."""
    tree = ast.parse(source)
    timed = set()
    for node in ast.walk(tree):  # names that hold a time difference
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.BinOp)
                and _reads_clock(node.value, set())):
            timed |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            for cmp in [c for c in ast.walk(node.test) if isinstance(c, ast.Compare)]:
                if any(isinstance(op, _ORDER) for op in cmp.ops) and _reads_clock(cmp, timed):
                    out.append(node.lineno)
    return out


def test_the_timing_rule_by_hand():
    assert timing_assertions("import time\nt0 = time.perf_counter()\nf()\n"
                             "assert time.perf_counter() - t0 < 20\n") == [4]
    assert timing_assertions("import time\nt0 = time.time()\nf()\nwaited = time.time() - t0\n"
                             "assert waited < 15, waited\n") == [5]
    assert timing_assertions("t = time.time()\nassert x < 3.0\nassert y == 1\n") == []


def test_no_test_asserts_a_wall_clock_time():
    """Shared machines are noisy: a timing bound fails at random. Timings belong in the
    benchmarks and measurement scripts (``scripts/``, ``python -m ftd_lib bench``)."""
    found = {str(p.relative_to(REPO)): lines for p in sorted((REPO / "tests").rglob("*.py"))
             if (lines := timing_assertions(p.read_text()))}
    assert not found, f"wall-clock assertions (move them to a benchmark): {found}"


# ------------------------------------------------------------------------------ workflows
def _workflow(name):
    wf = yaml.safe_load((REPO / ".github" / "workflows" / name).read_text())
    return wf, wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as True


def test_the_tests_workflow_runs_the_fast_tier_on_pull_requests_and_ci_on_main():
    wf, on = _workflow("tests.yml")
    assert "pull_request" in on and on["push"]["branches"] == ["main"]
    fast, full = wf["jobs"]["fast"], wf["jobs"]["full"]
    assert "pull_request" in fast["if"] and "!=" in full["if"]
    for job, command in ((fast, "./test.sh --fast"), (full, ".ci/run")):
        setup = next(s for s in job["steps"] if "setup-python" in s.get("uses", ""))
        assert setup["with"]["python-version"] == "3.11" and setup["with"]["cache"] == "pip"
        assert setup["with"]["cache-dependency-path"] == "requirements/lock.txt"
        assert any(s.get("run", "").strip() == command for s in job["steps"]), command
        # no second index for every install: setup_env.sh takes torch alone from its CPU index
        assert "PIP_EXTRA_INDEX_URL" not in job.get("env", {})
        # numba's kernels cached by the package's sources, the files dated by content first
        names = [s.get("uses", "") + s.get("run", "") for s in job["steps"]]
        cache = next(i for i, s in enumerate(job["steps"])
                     if s.get("uses", "").startswith("actions/cache"))
        assert "hashFiles('ftd_lib/**/*.py'" in job["steps"][cache]["with"]["key"]
        assert job["steps"][cache]["with"]["path"] == ".test-cache/numba-*"
        touch = next(i for i, n in enumerate(names) if "touch -d" in n)
        assert cache < touch < names.index(command)
    assert full["timeout-minutes"] <= 90
    ci = (REPO / ".ci" / "run").read_text()
    assert "exec ./test.sh" in ci and 'FTD_CHROMIUM:-/usr/bin/chromium' in ci


def test_the_test_script_has_both_tiers():
    sh = (REPO / "test.sh").read_text()
    assert '"--fast"' in sh and '-m "not slow"' in sh and "--dist loadfile" in sh
    assert "pytest-xdist==" in (REPO / "requirements" / "test.txt").read_text()


def _pins(role: str) -> set[str]:
    """Every ``name==version`` a role file installs, its ``-r`` files' included."""
    out = set()
    for line in (REPO / "requirements" / f"{role}.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("-r "):
            out |= _pins(line[3:].removesuffix(".txt"))
        elif "==" in line:
            out.add(line)
    return out


def test_the_pull_requests_fast_job_installs_the_fast_role_only():
    """The fast job installs ``requirements/fast.txt`` (FTD_TEST_ROLE=fast, which test.sh
    accepts for ``--fast`` alone), a part of the test role without the heavy roles; the
    full suite always installs every role."""
    wf, _ = _workflow("tests.yml")
    assert wf["jobs"]["fast"]["env"]["FTD_TEST_ROLE"] == "fast"
    assert "FTD_TEST_ROLE" not in wf["jobs"]["full"].get("env", {})
    fast, test = _pins("fast"), _pins("test")
    assert fast < test and _pins("student") < fast
    assert {p.split("==")[0] for p in fast - _pins("student")} == {"pytest-xdist", "ruff",
                                                                      "jupytext"}
    for heavy in ("grading", "site", "dask"):
        assert not (_pins(heavy) - _pins("student")) & fast, heavy
    sh = (REPO / "test.sh").read_text()
    assert 'role=test\nif [ "${1:-}" = "--fast" ]; then role=${FTD_TEST_ROLE:-test}; fi' in sh
    bad = subprocess.run(["bash", str(REPO / "test.sh"), "--fast"], capture_output=True,
                         text=True, env={**os.environ, "FTD_TEST_ROLE": "student"})
    assert bad.returncode == 2 and "FTD_TEST_ROLE must be fast or test" in bad.stderr
