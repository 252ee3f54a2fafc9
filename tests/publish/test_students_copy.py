"""The students' copy starts on a fresh machine: every file, folder and command its README and
notebooks name exists in the copy; no check message or hint in it speaks of a worked solution
it lacks; both releases ship the slideshow CSS and the start script; and the copy's own
``./start.sh setup`` makes a fresh venv (pip from this machine's package index; torch's CPU
wheel from local disk) in which notebook 01 runs top to bottom and ``python -m ftd_lib check``
grades it 0 of 3, and ``./start.sh`` serves JupyterLab rooted at the copy on notebook 01."""

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from ftd_lib.publish.release import release

pytestmark = pytest.mark.slow  # a fresh virtual environment of the students' copy

REPO = Path(__file__).resolve().parents[2]
FIRST = "notebooks/01_td_basics.ipynb"

#: a path the README or a notebook names: under a top-level folder of the course, or a file
#: with a known extension; and the commands
PATH = re.compile(r"(?<![\w/.:-])((?:\./)?(?:notebooks|ftd_lib|results|scripts|tests|binder|docs|"
                  r"\.ci|\.venv|release)/[\w./-]*[\w/]|[\w-]+\.(?:md|sh|txt|toml|py|css|ipynb|"
                  r"npz|json|cfg)\b)")
MODULE_COMMAND = re.compile(r"python -m ftd_lib (\w+)")
START_COMMAND = re.compile(r"\./start\.sh(?: (\w+))?")


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    base = tmp_path_factory.mktemp("copies")
    return dict(students=release("students", base / "students"),
                instructors=release("instructors", base / "instructors"))


def named_text(copy: Path) -> dict[str, str]:
    """The text of the README and of every notebook's cells (sources), by file."""
    out = {"README.md": (copy / "README.md").read_text()}
    for p in sorted((copy / "notebooks").glob("*.ipynb")):
        out[p.name] = "\n".join(c.source for c in nbformat.read(p, as_version=4).cells)
    return out


def test_every_name_in_the_readme_and_notebooks_exists(copies):
    copy = copies["students"]
    texts = named_text(copy)
    start = (copy / "start.sh").read_text()
    missing, seen = [], set()
    for where, text in texts.items():
        for name in PATH.findall(text):
            name = name.removeprefix("./")
            seen.add(name)
            if name.startswith(".venv"):  # made by ./start.sh setup
                assert "VENV=.venv" in start
                continue
            if not any((base / name).exists() for base in (copy, copy / "notebooks")):
                missing.append(f"{where}: {name}")
        for sub in MODULE_COMMAND.findall(text):
            r = subprocess.run([sys.executable, "-m", "ftd_lib", sub, "--help"], cwd=copy,
                               env=dict(os.environ, PYTHONPATH=str(copy)), capture_output=True,
                               text=True)
            if r.returncode != 0:
                missing.append(f"{where}: python -m ftd_lib {sub}")
        for sub in START_COMMAND.findall(text):
            if sub and f"    {sub})" not in start:
                missing.append(f"{where}: ./start.sh {sub}")
    assert not missing, missing
    # the search finds what is there: the README names the script, the first notebook, the CSS
    readme = texts["README.md"]
    assert {FIRST, "notebooks/rise.css", "requirements.txt", "pyproject.toml"} <= seen
    assert {"", "setup"} <= set(START_COMMAND.findall(readme))
    for gone in ("course.sh", "test.sh", "setup_env.sh", "INSTRUCTORS.md", "notebooks/src"):
        assert gone not in readme


def test_the_copies_ship_the_start_script_css_and_an_installable_library(copies):
    for audience, copy in copies.items():
        assert os.access(copy / "start.sh", os.X_OK), audience
        assert (copy / "start.sh").read_text() == (REPO / "release" / "start.sh").read_text()
        css = {p.name for p in (REPO / "notebooks").glob("*.css")}
        assert "rise.css" in css and len(css) >= 9
        assert css <= {p.name for p in (copy / "notebooks").glob("*.css")}, audience
        for nb in (copy / "notebooks").glob("*.ipynb"):  # the per-notebook CSS is there
            assert (copy / "notebooks" / f"{nb.stem}.css").is_file(), nb.name
        assert (copy / "pyproject.toml").is_file() and (copy / "ftd_lib" / "__init__.py").is_file()
        readme = (copy / "README.md").read_text()
        assert "./start.sh setup" in readme and FIRST in readme
    stud = (copies["students"] / "requirements.txt").read_text()
    assert "torch==" in stud and "jupyterlab==" in stud
    assert "nbgrader" not in stud and "playwright" not in stud
    assert "nbgrader==0.9.6" in (copies["instructors"] / "requirements.txt").read_text()
    assert "INSTRUCTORS.md" in (copies["instructors"] / "README.md").read_text()


def test_no_message_speaks_of_a_worked_solution(copies):
    """The checks' messages and the hints (the library's exercises package) never point a
    student to a worked solution: the students' copy has none."""
    lib = copies["students"] / "ftd_lib" / "course" / "exercises"
    for path in lib.glob("*.py"):
        text = path.read_text().lower()
        assert "worked solution" not in text and "see the solution" not in text, path.name


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.fresh_venv
def test_the_copys_own_setup_in_a_fresh_venv_runs_notebook_01(tmp_path):
    """``./start.sh setup`` in a fresh copy (no PYTHONPATH: ftd_lib must come from the venv),
    timed; notebook 01 top to bottom with the venv's kernel from ``notebooks/``; then
    ``./start.sh`` serves JupyterLab with notebook 01 as its page."""
    copy = release("students", tmp_path / "students")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "VIRTUAL_ENV",
                                                                     "JUPYTER"))}
    env["PYTHON"] = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not p.startswith(str(Path(sys.executable).parent)))
    t0 = time.perf_counter()
    r = subprocess.run(["./start.sh", "setup"], cwd=copy, env=env, capture_output=True,
                       text=True, timeout=1500)
    took = time.perf_counter() - t0
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    print(f"\nfresh-venv set-up of the students' copy: {took:.0f} s")
    (REPO / "test-output").mkdir(exist_ok=True)
    (REPO / "test-output" / "students_copy_setup.json").write_text(json.dumps(
        dict(seconds=round(took, 1), python=env["PYTHON"])))
    py = copy / ".venv" / "bin" / "python"
    where = subprocess.run([str(py), "-c", "import ftd_lib, torch; print(ftd_lib.__file__); "
                            "print(torch.__version__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    assert Path(where[0]).resolve().is_relative_to(copy.resolve()) and where[1].startswith("2.13.0")
    r = subprocess.run([str(copy / ".venv" / "bin" / "jupyter"), "nbconvert", "--to",
                        "notebook", "--execute", "--output", str(tmp_path / "01_run.ipynb"),
                        "01_td_basics.ipynb"], cwd=copy / "notebooks",
                       env=dict(env, CI="true"), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    ran = nbformat.read(tmp_path / "01_run.ipynb", as_version=4)
    code = [c for c in ran.cells if c.cell_type == "code"]
    assert code and all(c.execution_count for c in code)
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert "No answer yet" in "".join(o.get("text", "") for c in code for o in c.outputs)
    r = subprocess.run([str(py), "-m", "ftd_lib", "check", FIRST], cwd=copy,
                       env=dict(env, CI="true"), capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and r.stdout.startswith("01_td_basics.ipynb: 0 of 3 pass"), r.stdout
    size = sum(p.stat().st_size for p in (copy / ".venv").rglob("*") if p.is_file()
               and not p.is_symlink())
    print(f"students' .venv: {size / 2**20:.0f} MiB")
    (REPO / "test-output" / "students_copy_setup.json").write_text(json.dumps(
        dict(seconds=round(took, 1), venv_mib=round(size / 2**20), python=env["PYTHON"])))
    # ./start.sh (no argument) serves JupyterLab rooted at the copy with notebook 01 as its page;
    # results/REPORT.md (notebook 06 links it) is served too
    port, runtime = _free_port(), tmp_path / "runtime"
    root = ["--allow-root"] if os.geteuid() == 0 else []  # CI runs as root; a student does not
    proc = subprocess.Popen(["./start.sh", "--no-browser", f"--ServerApp.port={port}",
                             "--IdentityProvider.token=fresh", "--ServerApp.port_retries=0",
                             *root], cwd=copy, env=dict(env, JUPYTER_RUNTIME_DIR=str(runtime)),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        log = []
        deadline = time.time() + 120
        while time.time() < deadline and not any("is running at" in ln for ln in log):
            log.append(proc.stdout.readline())
            assert log[-1] or proc.poll() is None, "".join(log)[-2000:]
        text = "".join(log)
        assert f"Serving notebooks from local directory: {copy}\n" in text, text[-2000:]
        pages = []  # the page a browser would be sent to, written beside the server's info
        while time.time() < deadline and not pages:
            pages = sorted(runtime.glob("jpserver-file-to-run-*-open.html"))
            time.sleep(0.5)
        assert pages, sorted(p.name for p in runtime.glob("*"))
        page = pages[0].read_text()
        assert f"127.0.0.1:{port}/lab/tree/{FIRST}" in page.replace("localhost", "127.0.0.1")
        for path, kind in ((FIRST, "notebook"), ("results/REPORT.md", "file"),
                           ("ftd_lib/algorithms.py", "file"), ("README.md", "file")):
            api = f"http://127.0.0.1:{port}/api/contents/{path}?content=0&token=fresh"
            with urllib.request.urlopen(api, timeout=30) as resp:
                assert resp.status == 200 and json.load(resp)["type"] == kind, path
    finally:
        proc.terminate()
        proc.wait(timeout=30)
