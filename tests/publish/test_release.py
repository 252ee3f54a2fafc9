"""``python -m ftd_lib release``: the students' copy holds no worked solution anywhere, runs top
to bottom, and its checks accept the instructors' solutions and reject wrong answers; bad input
is refused and nothing is left half-written."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from ftd_lib.course import colab, grading, roles
from ftd_lib.course.roles import is_solution
from ftd_lib.publish import release as rel
from ftd_lib.publish.release import release

pytestmark = pytest.mark.slow  # every notebook executed against each release

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("0*.ipynb"))
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def solution_lines(min_len: int = 16) -> set[str]:
    """Every line of a worked solution (code between the markers, and the worked explanations)
    that appears nowhere outside the solutions: not in the other cells, not in the library."""
    sol, rest = set(), []
    for path in NOTEBOOKS:
        for c in nbformat.read(path, as_version=4).cells:
            if not is_solution(c):
                rest.append(c.source)
                continue
            src = c.source
            if c.cell_type == "code":
                src = src[src.index(BEGIN) + len(BEGIN):src.index(END)]
            sol.update(s.strip() for s in src.splitlines())
    rest += [p.read_text() for p in (REPO / "ftd_lib").rglob("*.py")]
    rest_text = "\n".join(rest)
    return {s for s in sol if len(s) >= min_len and s not in rest_text
            and s not in ("<details><summary>", "</details>")}


def _strings(obj):
    """Every string inside a JSON document (a notebook: sources, outputs, metadata)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def files_text(root: Path) -> str:
    """The text of every file under ``root``; a notebook's also as its decoded strings."""
    out = []
    for p in sorted(root.rglob("*")):
        if p.is_file():
            raw = p.read_bytes().decode("utf-8", errors="replace")
            out.append(raw)
            if p.suffix == ".ipynb":
                out.append("\n".join(_strings(json.loads(raw))))
    return "\n".join(out)


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    base = tmp_path_factory.mktemp("releases")
    return dict(students=release("students", base / "students"),
                instructors=release("instructors", base / "instructors"),
                no_hints=release("students", base / "no-hints", hints=False))


def test_the_students_release_holds_no_worked_solution(releases):
    lines = solution_lines()
    assert len(lines) > 50  # the search has something to find
    inst = files_text(releases["instructors"])
    assert all(s in inst for s in lines)  # ... and finds it where it is
    found = [s for s in lines if s in files_text(releases["students"])]
    assert not found, found[:5]
    stud = releases["students"]
    assert not list(stud.rglob("*.pyc")) and not list(stud.rglob("__pycache__"))
    assert not (stud / "notebooks" / "src").exists()
    assert [p.name for p in (stud / "tests").iterdir()] == ["test_homework.py"]  # none of ours
    assert not (stud / "INSTRUCTORS.md").exists()
    for path in (stud / "notebooks").glob("*.ipynb"):
        text = path.read_text()
        assert "BEGIN SOLUTION" not in text and '"solution": true' not in text, path.name
        nb = nbformat.read(path, as_version=4)
        assert not [c for c in nb.cells if "self-check" in c.metadata.get("tags", [])
                    and c.outputs], path.name  # no "m of m pass" the student did not earn
        appendix = path.stem.startswith("A")  # A1_...: an appendix, no exercises
        assert (any(roles.has(c, roles.HINT) for c in nb.cells) or path.stem[:2] == "00"
                or appendix), path.name


def test_the_instructors_release(releases):
    inst = releases["instructors"]
    assert (inst / "INSTRUCTORS.md").is_file() and (inst / "nbgrader_config.py").is_file()
    assert "ClearSolutions.code_stub" in (inst / "nbgrader_config.py").read_text()
    for path in NOTEBOOKS:
        ours = nbformat.read(path, as_version=4)
        theirs = nbformat.read(inst / "notebooks" / path.name, as_version=4)
        # every cell as the repository has it, but the Colab cell: made without --repo, the
        # copy names no repository, and on Colab that cell says so (colab.UNSTAMPED)
        install = [i for i, c in enumerate(ours.cells) if colab.is_install_cell(c)]
        assert len(install) == 1, path.name
        expected = [colab.UNSTAMPED if i in install else c.source
                    for i, c in enumerate(ours.cells)]
        assert [c.source for c in theirs.cells] == expected


def test_nbgrader_tests_and_metadata(tmp_path):
    """With --nbgrader-tests each worked solution's code sits in its exercise cell between the
    solution markers, before the check's line, and a locked autograder-test cell runs that
    check again silently and asserts it, between nbgrader's hidden-test markers (the students'
    version keeps only its comment); no Markdown solution worth 0 points is left (nbgrader
    would leave an empty box for it), the written answers stay; every nbgrader cell follows
    nbgrader's schema-3 rules."""
    with pytest.raises(ValueError, match="instructors"):
        release("students", tmp_path / "s", nbgrader_tests=True)
    inst = release("instructors", tmp_path / "i", nbgrader_tests=True)
    for path in NOTEBOOKS:
        ours = nbformat.read(path, as_version=4).cells
        cells = nbformat.read(inst / "notebooks" / path.name, as_version=4).cells
        ids, tests = [], 0
        for c in cells:
            meta = c.metadata.get("nbgrader")
            if meta is None:
                continue
            assert meta["schema_version"] == 3 and meta["grade_id"]
            ids.append(meta["grade_id"])
            if meta["grade"]:
                assert "points" in meta
            if c.cell_type == "markdown":  # nbgrader: a Markdown answer is solution and grade
                assert meta["grade"] and meta["solution"] and meta["points"] > 0
                assert roles.has(c, roles.WRITTEN_ANSWER)
            if c.cell_type == "code" and meta["solution"]:
                assert roles.has(c, roles.EXERCISE) and BEGIN in c.source and END in c.source
                call = c.source.split(END)[1].strip().rstrip(";")
                test = next(t for t in cells if t.metadata.get("nbgrader", {}).get(
                    "grade_id") == meta["grade_id"].replace("-solution", "-test"))
                lines = test.source.splitlines()
                assert lines[0].startswith("# graded:") and (lines[1], lines[-1]) == rel.HIDDEN
                assert "\n".join(lines[2:-1]) == rel.TEST_BODY.format(check=call)
                assert test.metadata["nbgrader"]["locked"] and test.metadata["nbgrader"]["grade"]
                tests += 1
        assert tests == sum(1 for c in ours if c.cell_type == "code" and is_solution(c)), path
        assert len(ids) == len(set(ids)), path.name


def test_no_hints(releases):
    nh = releases["no_hints"]
    for path in (nh / "notebooks").glob("*.ipynb"):
        assert not any(roles.has(c, roles.HINT) for c in nbformat.read(path, as_version=4).cells)
    out = subprocess.run([sys.executable, "-c", "from ftd_lib.course.exercises import "
                          "hint_markdown; print(hint_markdown('nb01.discounted_return'))"], cwd=nh,
                         env=dict(os.environ, PYTHONPATH=str(nh)), capture_output=True,
                         text=True, check=True).stdout
    assert "No hints" in out


def test_bad_input_is_refused(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="students, instructors"):
        release("teachers", tmp_path / "x")
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    with pytest.raises(ValueError, match="--force"):
        release("students", full)
    assert (full / "keep.txt").read_text() == "mine"
    with pytest.raises(ValueError, match="--out"):
        release("students", REPO)
    # a failure half-way leaves nothing behind: no --out, no temporary folder
    def boom(tmp, *a):
        (tmp / "half").write_text("x")
        raise RuntimeError("disk full")
    monkeypatch.setattr(rel, "_write", boom)
    with pytest.raises(RuntimeError):
        release("students", tmp_path / "new")
    with pytest.raises(RuntimeError):
        release("students", full, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]
    assert (full / "keep.txt").read_text() == "mine"  # --force replaces only on success


def test_the_command_line(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "ftd_lib", "release", *args], cwd=REPO,
                              capture_output=True, text=True)
    r = run("--for", "teachers", "--out", str(tmp_path / "a"))
    assert r.returncode == 2 and "students, instructors" in r.stderr
    r = run("--for", "students", "--out", str(tmp_path / "a"), "--no-hints")
    assert r.returncode == 0 and (tmp_path / "a" / "notebooks").is_dir(), r.stderr
    r = run("--for", "students", "--out", str(tmp_path / "a"))
    assert r.returncode == 2 and "--force" in r.stderr
    assert run("--for", "instructors", "--out", str(tmp_path / "a"), "--force").returncode == 0
    assert (tmp_path / "a" / "INSTRUCTORS.md").is_file()


#: one usual wrong answer per exercise, run in the students' release after its notebook: the
#: check must say ❌ (and, where given, name the mistake)
WRONG = {
    "01": ["nb01.check_return(0.9 * 4.0951)", "nb01.check_return(5)"],
    "04": ["nb04.check_next_target(2.4)"],
    "06": ["nb06.check_discounted_return(100)"],
}


def _execute(nb, cwd: Path, pythonpath: Path):
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(pythonpath)
    try:
        NotebookClient(nb, timeout=300, kernel_name="python3",
                       resources={"metadata": {"path": str(cwd)}}).execute()
    finally:
        if old is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = old
    return nb


def _out(cell) -> str:
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert not errors, errors[0].get("evalue")
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_students_checks_accept_the_instructors_solutions(path, releases):
    """The instructors' notebook (its solution cells in place) run against the students'
    library: every solution gets ✅; then each usual wrong answer gets ❌."""
    stud = releases["students"]
    nb = nbformat.read(releases["instructors"] / "notebooks" / path.name, as_version=4)
    wrong = WRONG.get(path.stem[:2], [])
    nb.cells += [nbformat.v4.new_code_cell(w) for w in wrong]
    nb = _execute(nb, stud / "notebooks", stud)
    sol = [c for c in nb.cells if is_solution(c) and c.cell_type == "code"]
    assert sol
    for c in sol:
        out = _out(c)
        assert "✅" in out and "❌" not in out, (c.metadata["nbgrader"]["grade_id"], out)
    for c in nb.cells[len(nb.cells) - len(wrong):]:
        assert _out(c).startswith("❌"), c.source


def test_the_students_notebooks_pass_nbval_lax(releases):
    """The students' notebooks run top to bottom (every exercise unanswered) under nbval-lax,
    with the students' copy of the library."""
    stud = releases["students"]
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--nbval-lax", "--nbval-current-env", "notebooks"], cwd=stud,
                       env=dict(os.environ, PYTHONPATH=str(stud)), capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout[-3000:]
    assert re.search(r"\b(\d+) passed", r.stdout)
    assert "No answer yet" in "".join(
        p.read_text() for p in (stud / "notebooks").glob("*.ipynb"))


def test_each_release_installs_its_role_with_the_lock(releases):
    """The students' requirements.txt: the ``student`` role's pins (no tool of grading, the
    site or the tests), reading the lock shipped as constraints.txt; the instructors': the
    ``grading`` role (the students' pins and nbgrader)."""
    stud = (releases["students"] / "requirements.txt").read_text().splitlines()
    inst = (releases["instructors"] / "requirements.txt").read_text().splitlines()
    assert [ln for ln in stud if ln and not ln.startswith("#")] == ["-c constraints.txt",
                                                                   *rel.role_pins("student")]
    assert set(rel.role_pins("student")) < set(ln for ln in inst if "==" in ln)
    assert "nbgrader==0.9.6" in inst and not [ln for ln in stud if ln.lower().startswith(
        ("nbgrader", "sphinx", "playwright", "ruff", "nbval", "dask", "jupytext", "myst"))]
    lock = (REPO / "requirements" / "lock.txt").read_text()
    for audience in ("students", "instructors"):
        assert (releases[audience] / "constraints.txt").read_text() == lock
    with pytest.raises(ValueError, match="role must name a file"):
        rel.role_pins("teacher")


def test_the_readme_follows_the_hints(releases):
    with_hints = (releases["students"] / "README.md").read_text()
    without = (releases["no_hints"] / "README.md").read_text()
    assert "hint sits under each one" in with_hints and "hint" not in without.lower()
    assert "{" not in with_hints.replace("{notebooks}", "")  # every placeholder filled


def test_the_readme_says_how_homework_is_graded(releases, tmp_path):
    """The students' README: what to edit and hand in, the check command, the rule on copying,
    and a table of exercises per notebook read from the cells (an exercise tagged ``optional``
    moves from the required count to the optional column)."""
    text = (releases["students"] / "README.md").read_text()
    for words in ("## Homework", "What to edit", "What to hand in", "python -m ftd_lib check",
                  "tests/test_homework.py", rel.COPYING_RULE, "--ServerApp.root_dir"):
        assert words in text, words
    total = required = 0
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        req, opt = roles.exercise_counts(nb)
        if not req + opt:
            continue
        named = ", ".join(e.title.split(" — ")[0] for e in grading.exercises(nb)
                          if not e.required) or "none"
        assert f"| `{path.name}` | {req + opt} | {req} | {named} |" in text, path.name
        total, required = total + req + opt, required + req
    assert f"| all | {total} | {required} | {total - required} |" in text
    (tmp_path / "notebooks").mkdir()
    nb = nbformat.read(NOTEBOOKS[0], as_version=4)
    ex = [c for c in nb.cells if "exercise" in c.metadata.get("tags", [])]
    assert not any(roles.has(c, roles.OPTIONAL_EXERCISE) for c in ex)  # 01's are all required
    ex[1].metadata["tags"].append("optional-exercise")
    nbformat.write(nb, tmp_path / "notebooks" / NOTEBOOKS[0].name)
    table = rel.exercise_table(tmp_path).splitlines()
    assert table[2] == f"| `{NOTEBOOKS[0].name}` | {len(ex)} | {len(ex) - 1} | Exercise 2 |"
    assert table[3] == f"| all | {len(ex)} | {len(ex) - 1} | 1 |"


def test_pytest_in_the_copies_grades_the_homework(releases):
    """``pytest`` in a copy collects its tests/test_homework.py: notebook 01 untouched fails
    (0 of 3, named), with the worked solutions it passes."""
    for audience, want in (("students", "1 failed"), ("instructors", "1 passed")):
        copy = releases[audience]
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            "-k", "01_td_basics"], cwd=copy, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=str(copy), CI="true"), timeout=600)
        assert want in r.stdout, r.stdout[-3000:]
        if audience == "students":
            assert "01_td_basics.ipynb: 0 of 3 pass" in r.stdout, r.stdout[-3000:]


def _fake_venv(copy: Path, tmp_path: Path) -> Path:
    """A .venv whose ``jupyter`` only prints its arguments (one a line) and its folder."""
    bin_ = copy / ".venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "jupyter").write_text('#!/bin/sh\npwd\nfor a in "$@"; do echo "$a"; done\n')
    os.chmod(bin_ / "jupyter", 0o755)
    return bin_


def test_start_sh_roots_jupyterlab_at_the_copy_and_says_why_root(tmp_path):
    """``./start.sh`` runs ``jupyter lab`` with the copy as its root (so ftd_lib/, results/ and
    the README are in reach, notebook 06's link to results/REPORT.md resolves) on notebook 01;
    as root it adds --allow-root and says so; ``--help`` prints the header comment only."""
    copy = release("students", tmp_path / "copy")
    _fake_venv(copy, tmp_path)
    r = subprocess.run(["./start.sh", "--no-browser"], cwd=copy, capture_output=True,
                       text=True, check=True)
    args = r.stdout.splitlines()
    assert args[0] == str(copy) and args[1] == "lab"
    assert f"--ServerApp.root_dir={copy}" in args and args[-1] == "notebooks/01_td_basics.ipynb"
    assert (copy / args[-1]).is_file() and (copy / "results" / "REPORT.md").is_file()
    link = re.search(r"\(\.\./(results/REPORT\.md)#", (copy / "notebooks" /
                                                     "06_nn_control.ipynb").read_text())
    assert link and (copy / link.group(1)).is_file()
    assert ("--allow-root" in args) == (os.geteuid() == 0)
    assert ("running as root" in r.stderr) == (os.geteuid() == 0)
    r = subprocess.run(["./start.sh", "--allow-root"], cwd=copy, capture_output=True,
                       text=True, check=True)
    assert r.stdout.splitlines().count("--allow-root") == 1 and "running as root" not in r.stderr
    r = subprocess.run([str(copy / "start.sh"), "--help"], cwd=tmp_path, capture_output=True,
                       text=True, check=True)
    assert r.stdout.startswith("The course's start script") and "./start.sh setup" in r.stdout
    assert "set -" not in r.stdout and "#" not in r.stdout and "FTD_TORCH" in r.stdout


def test_start_sh_picks_torchs_cpu_build_without_an_nvidia_gpu(tmp_path):
    """The set-up's choice of torch build: on Linux with no nvidia-smi, or one that lists no
    GPU, the CPU build (``torch==X+cpu`` alone from PyTorch's CPU index, before the
    requirements); with a GPU pip's default; ``FTD_TORCH`` overrides, anything else is
    refused."""
    script = (REPO / "release" / "start.sh").read_text()
    body = script[script.index("torch_build() {"):]
    body = body[:body.index("\n}\n") + 3]
    fake = tmp_path / "bin"
    fake.mkdir()

    def build(gpu: str | None, **env):
        (fake / "nvidia-smi").unlink(missing_ok=True)
        if gpu is not None:
            (fake / "nvidia-smi").write_text(f"#!/bin/sh\necho '{gpu}'\n")
            os.chmod(fake / "nvidia-smi", 0o755)
        path = f"{fake}:/usr/bin:/bin"
        return subprocess.run(["bash", "-c", body + "torch_build"], capture_output=True,
                              text=True, env=dict(PATH=path, **env))

    if os.uname().sysname != "Linux":
        pytest.skip("the automatic choice is Linux's")
    assert build(None).stdout == "cpu\n"
    assert build("No devices were found").stdout == "cpu\n"
    assert build("GPU 0: NVIDIA H100 (UUID: GPU-1)").stdout == "default\n"
    assert build(None, FTD_TORCH="default").stdout == "default\n"
    assert build("GPU 0: NVIDIA H100", FTD_TORCH="cpu").stdout == "cpu\n"
    r = build(None, FTD_TORCH="cuda")
    assert r.returncode == 1 and "FTD_TORCH must be cpu or default" in r.stderr
    cpu = script.index('--no-deps --extra-index-url "$CPU_INDEX"')
    assert '"torch==$torch+cpu"' in script[cpu:cpu + 100]
    assert cpu < script.index("pip install --quiet -r requirements.txt")


#: the instructors' repository and commit, and the students' public repository, in the test
INSTRUCTORS_REPO, SHA = "teacher/course", "0123456789abcdef0123456789abcdef01234567"
STUDENTS_REPO = "teacher/course-students"


def _publish_step() -> tuple[dict, str]:
    """The Pages workflow's job environment and its step that publishes the students' copy."""
    import yaml

    wf = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text())
    build = wf["jobs"]["build"]
    step = next(s for s in build["steps"] if s.get("name", "").startswith(
        "Publish the students' copy"))
    return build, step["run"]


def test_what_the_workflow_publishes_holds_no_solution_and_no_instructors_link(tmp_path):
    """The students' copy as the Pages workflow publishes it: built as the site builds it (the
    zip on the landing page), then unpacked and committed by the workflow's own commands (all
    but the push): no line of a worked solution, no solution cell, no link to the instructors'
    repository or commit; the licence and citation files; start.sh committed executable; and
    the push goes to the students' repository, the site's run buttons and footer name it."""
    from ftd_lib.publish import site, site_conf

    build, run = _publish_step()
    # the copy goes to the students' own repository, with a deploy key, never to this one
    assert build["env"]["FTD_STUDENTS_REPO"].startswith("${{ vars.STUDENTS_REPOSITORY ||")
    assert 'git@github.com:${FTD_STUDENTS_REPO}.git' in run and "GITHUB_REPOSITORY" not in run
    assert "github.token" not in run and "STUDENTS_DEPLOY_KEY" in run
    builds = [s["run"] for s in build["steps"] if "ftd_lib site" in s.get("run", "")]
    assert builds and '--repo "$FTD_STUDENTS_REPO"' in builds[0]
    # build it as the site does, then run the step's commands up to the push
    ref = f"students-{SHA}"
    copy = release("students", tmp_path / "copy", repo=STUDENTS_REPO, ref=ref)
    (tmp_path / "_site").mkdir()
    site.students_zip(copy, tmp_path / "_site" / "ftd-course-students.zip")
    local = run.split("install -m 600")[0]
    assert "git push" not in local and "git tag" in local
    env = dict(os.environ, GITHUB_SHA=SHA, FTD_STUDENTS_REF=ref, GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", local], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    pub = tmp_path / "_students" / "ftd-course-students"

    def git(*args):
        return subprocess.run(["git", *args], cwd=pub, capture_output=True, text=True,
                              check=True).stdout

    assert git("tag") == f"{ref}\n" and git("branch", "--show-current") == "students\n"
    modes = {line.split()[3]: line.split()[0] for line in git(
        "ls-files", "-s", "start.sh", "binder/postBuild").splitlines()}
    assert modes == {"start.sh": "100755", "binder/postBuild": "100755"}, modes
    files = set(git("ls-files").split())
    assert {"LICENSE", "LICENSE-TEXT", "CITATION.cff", "README.md"} <= files
    text = files_text(pub)
    lines = solution_lines()
    assert len(lines) > 50 and not [s for s in lines if s in text]
    for path in (pub / "notebooks").glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        assert not [c for c in nb.cells if is_solution(c) or BEGIN in c.source
                    or "📖 Worked solution" in c.source], path.name
    assert f"github.com/{INSTRUCTORS_REPO}/" not in text and SHA not in text.replace(ref, "")
    assert f"https://github.com/{STUDENTS_REPO}/archive/{ref}.zip" in text  # the Colab cell
    # every page's footer: the students' tag, not the instructors' commit
    foot = site_conf.footer_html(STUDENTS_REPO, dict(date="2026-11-28", commit=SHA), ref)
    assert f"github.com/{STUDENTS_REPO}/tree/{ref}" in foot
    assert "/commit/" not in foot and SHA not in foot.replace(ref, "")


def test_a_copy_without_a_repository_says_so_on_colab(tmp_path):
    """Without --repo the Colab cell names no placeholder address: on Colab it says the copy
    names no repository; elsewhere it does nothing."""
    from ftd_lib.course import colab

    copy = release("students", tmp_path / "copy")
    for path in sorted((copy / "notebooks").glob("*.ipynb")):
        cells = [c for c in nbformat.read(path, as_version=4).cells if colab.is_install_cell(c)]
        assert [c.source for c in cells] == [colab.UNSTAMPED], path.name
        assert "OWNER/REPO" not in path.read_text()
    ns = {}
    exec(colab.UNSTAMPED, ns)  # noqa: S102 -- not on Colab: nothing happens
    sys.modules["google.colab"] = type(sys)("google.colab")
    try:
        with pytest.raises(RuntimeError, match="names no repository"):
            exec(colab.UNSTAMPED, {})  # noqa: S102
    finally:
        del sys.modules["google.colab"]
