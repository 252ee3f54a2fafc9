"""Dependencies by role (requirements/): each role file pins exactly and reads the lock; the
roles together are requirements.txt (everything, what ./test.sh installs), no package pinned
twice at two versions; the lock pins every role's pin at its version and is what pip resolved
for this environment (every package installed here is in it, at its version); and each way
in installs only its role: ./course.sh the student's, the site's workflow the site's, ./test.sh
and .ci/run every role; setup_env.sh refuses an unknown role by name."""

import importlib.metadata as md
import os
import platform
import re
import site
import subprocess
import sys
from pathlib import Path

import pytest

from ftd_lib.publish.release import role_pins

REPO = Path(__file__).resolve().parents[2]
ROLES = ("core", "student", "grading", "site", "dask", "fast", "test")
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;,+]+)$")


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(role: str) -> dict[str, str]:
    out = {}
    for p in role_pins(role):
        m = PIN.match(p)
        assert m, f"{role}: not an exact pin: {p!r}"
        assert out.get(norm(m.group(1)), m.group(2)) == m.group(2), p
        out[norm(m.group(1))] = m.group(2)
    return out


def lock() -> dict[str, str]:
    out = {}
    for line in (REPO / "requirements" / "lock.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            m = PIN.match(line)
            assert m, line
            out[norm(m.group(1))] = m.group(2)
    return out


def test_the_roles_pin_exactly_read_the_lock_and_make_up_everything():
    assert sorted(p.stem for p in (REPO / "requirements").glob("*.txt")) == sorted(
        ROLES + ("lock",))
    for role in ROLES:
        text = (REPO / "requirements" / f"{role}.txt").read_text()
        assert "-c lock.txt" in text.splitlines(), role
        pins(role)
    assert (REPO / "requirements.txt").read_text().splitlines()[-1] == "-r requirements/test.txt"
    every = {}
    for role in ROLES:
        for name, version in pins(role).items():
            assert every.setdefault(name, version) == version, (role, name)
    assert every == pins("test")  # the test role holds every other
    core, student = pins("core"), pins("student")
    assert set(core) < set(student) and set(core) < set(pins("dask"))
    assert set(student) < set(pins("grading")) and set(student) < set(pins("site"))
    fast = pins("fast")  # the fast tier's: the students' role and three test tools
    assert set(student) < set(fast) and set(fast) - set(student) == {"pytest-xdist", "ruff",
                                                                     "jupytext"}
    for tool in ("nbgrader", "sphinx", "playwright", "ruff", "nbval", "dask", "jupytext",
                 "jupyter-repo2docker", "pypdf"):
        assert tool not in student, tool
    assert {"nbgrader"} <= set(pins("grading")) and {"sphinx", "playwright"} <= set(pins("site"))
    locked = lock()
    assert {n: locked.get(n) for n in every} == every


@pytest.mark.skipif(platform.system() != "Linux" or platform.machine() != "x86_64",
                    reason="the lock is pip's resolution on Linux x86-64")
def test_the_lock_is_this_environments_resolution():
    """Installed from requirements.txt with the lock (./test.sh), this environment holds
    exactly the lock's packages at the lock's versions (and ftd_lib, pip)."""
    locked = lock()
    # the venv's own packages: an imported setuptools puts its _vendor folder (with the
    # dist-info of its vendored copies) on sys.path, which md.distributions() would also read
    installed = {norm(d.metadata["Name"]): d.version.split("+", 1)[0]
                 for d in md.distributions(path=site.getsitepackages())}
    extra = {n: v for n, v in installed.items()
             if n not in locked and n not in ("ftd-lib", "pip", "setuptools", "wheel")}
    differ = {n: (v, installed[n]) for n, v in locked.items()
              if n in installed and installed[n] != v}
    assert not extra and not differ, (extra, differ)
    if not (Path(sys.prefix) / ".ftd_test.sha").exists():
        pytest.skip("every package installed is the lock's; this environment holds a part "
                    "of the lock (a role other than test, e.g. the fast tier's)")
    assert set(locked) <= set(installed), set(locked) - set(installed)


def test_each_way_in_installs_its_role():
    assert "FTD_ROLE=student . scripts/setup_env.sh" in (REPO / "course.sh").read_text()
    sh = (REPO / "test.sh").read_text()  # every role, the fast tier alone may take its own
    assert "FTD_ROLE=$role . scripts/setup_env.sh" in sh and "\nrole=test\n" in sh
    assert "exec ./test.sh" in (REPO / ".ci" / "run").read_text()
    pages = (REPO / ".github" / "workflows" / "pages.yml").read_text()
    assert pages.count("FTD_ROLE=site . scripts/setup_env.sh") == 2
    setup = (REPO / "scripts" / "setup_env.sh").read_text()
    assert 'pip install -q -r "requirements/$FTD_ROLE.txt"' in setup
    cpu = setup.index("--no-deps --extra-index-url https://download.pytorch.org/whl/cpu")
    assert "+cpu" in setup[cpu:cpu + 200] and cpu < setup.index('-r "requirements/$FTD_ROLE.txt"')


def test_setup_env_refuses_an_unknown_role(tmp_path):
    for role in ("teacher", "lock"):
        r = subprocess.run(["bash", "-c", ". scripts/setup_env.sh"], cwd=REPO,
                           env=dict(os.environ, FTD_ROLE=role), capture_output=True, text=True)
        assert r.returncode == 1 and "FTD_ROLE must be one of" in r.stderr, r.stderr
        assert f"got '{role}'" in r.stderr
