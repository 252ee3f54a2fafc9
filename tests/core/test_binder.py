"""Binder: ``binder/`` describes the course's environment, and repo2docker accepts it.

The rule for ``binder/requirements.txt``: the students' role (``requirements/student.txt``
with the files it reads), every pin the same version, except torch: the CPU build of the same
release (``torch==X+cpu``) from the PyTorch CPU wheel index (``--extra-index-url
https://download.pytorch.org/whl/cpu``): PyPI's Linux wheel pulls in several GB of CUDA
libraries that a Binder pod cannot use. Nothing of the other roles (grading, site, test, Dask).

``repo2docker --no-build`` writes the Dockerfile Binder would build, without Docker.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
BINDER = REPO / "binder"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;,]+)$")


def _norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()  # PEP 503


def read_requirements(path):
    """({normalised name: version}, [option lines]); every requirement must be an exact pin."""
    pins, options = {}, []
    for raw in path.read_text().splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-"):
            options.append(line)
            continue
        m = PIN.match(line)
        assert m, f"{path.name}: not an exact pin (name==version): {raw!r}"
        name = _norm(m.group(1))
        assert name not in pins, f"{path.name}: {name} pinned twice"
        pins[name] = m.group(2)
    return pins, options


def test_binder_requirements_are_the_students_role():
    from ftd_lib.publish.release import role_pins

    top = dict(PIN.match(p).groups() for p in role_pins("student"))
    top = {_norm(n): v for n, v in top.items()}
    binder, options = read_requirements(BINDER / "requirements.txt")
    assert "torch" in top and "jupyterlab" in top and "nbgrader" not in top
    want = dict(top, torch=Version(top["torch"]).public + "+cpu")
    missing = {n: v for n, v in want.items() if binder.get(n) != v}
    extra = {n: v for n, v in binder.items() if n not in want}
    assert not missing and not extra, (
        f"binder/requirements.txt should pin {missing} and not {extra}"
        " (the rule is in this file's docstring)"
    )
    assert f"--extra-index-url {TORCH_CPU_INDEX}" in options, options
    local = [o for o in options if not o.startswith(("--extra-index-url", "--index-url"))]
    # -r / -c / -e . would make repo2docker copy the whole repository before installing
    assert not local, f"binder/requirements.txt: options other than index URLs: {local}"


def test_binder_runtime_and_postbuild():
    runtime = (BINDER / "runtime.txt").read_text().strip()
    assert runtime == "python-3.11", runtime
    pyproject = (REPO / "pyproject.toml").read_text()
    requires = re.search(r'^requires-python\s*=\s*"([^"]+)"', pyproject, re.M).group(1)
    assert Version("3.11") in SpecifierSet(requires), requires

    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable"
    text = post.read_text()
    assert text.startswith("#!"), "binder/postBuild needs a shebang"
    assert re.search(r"^set -e", text, re.M), "binder/postBuild must stop at the first error"
    # ftd_lib only, on top of the cached dependency layer: never re-resolve its dependencies
    install = [ln for ln in text.splitlines() if re.search(r"\bpip install\b", ln)]
    assert install, "binder/postBuild should pip-install ftd_lib"
    assert all("--no-deps" in ln for ln in install), install
    assert any(re.search(r"(-e )?\.\s*$", ln) for ln in install), install


@pytest.mark.slow  # repo2docker is the test role's (the fast tier's role has no docker tools)
def test_repo2docker_accepts_the_binder_folder():
    proc = subprocess.run(
        [sys.executable, "-m", "repo2docker", "--no-build", str(REPO)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    dockerfile, log = proc.stdout, proc.stderr
    assert dockerfile.lstrip().startswith("FROM "), dockerfile[:500]
    assert "python=3.11" in log, log  # runtime.txt picked up

    lines = dockerfile.splitlines()

    def first(pattern):
        hits = [i for i, ln in enumerate(lines) if re.search(pattern, ln)]
        assert hits, f"no line matching {pattern!r} in the generated Dockerfile"
        return hits[0]

    copy_reqs = first(r"^COPY .*binder/requirements\.txt")
    pip_reqs = first(r'^RUN .*pip install .*-r "?binder/requirements\.txt')
    copy_repo = first(r"^COPY .* src/ \$\{REPO_DIR\}/?$")
    post = first(r"^RUN \./binder/postBuild$")
    # dependencies install from requirements.txt alone, before the repository is copied: that
    # layer stays cached while the notebooks and ftd_lib change; postBuild comes after
    assert copy_reqs < pip_reqs < copy_repo < post, (copy_reqs, pip_reqs, copy_repo, post)
    # with a binder/ folder repo2docker must not `pip install .` the repository (with its
    # dependencies) on its own: postBuild does that, with --no-deps
    assert not [ln for ln in lines if re.search(r"pip install (--no-cache-dir )?\.$", ln)]
