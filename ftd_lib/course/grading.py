"""Grading: which exercises of a notebook pass, by the exercises' own checks.

Every exercise's answer cell is tagged ``exercise`` (:mod:`ftd_lib.course.roles`) and ends
with one call of its check, ``nbNN.check_...(...)`` (:mod:`ftd_lib.course.exercises`), which
prints a verdict and returns ``True``/``False``. This module records those return values
(:func:`record`: the package of checks calls it for every ``nbNN`` module it loads) and turns
them into one line per notebook, "n of m pass", naming each exercise that fails:

- ``python -m ftd_lib check [NOTEBOOK ...]`` (:func:`main`) grades the *saved* notebooks, as
  an instructor would: each runs top to bottom in a fresh kernel (``nbclient``, errors
  allowed, so one broken answer does not hide the rest); an exercise passes when the last call
  of its check returned ``True``. Exit status 1 while a required exercise fails. Each
  notebook's line says whose numbers it was graded on; ``--student ID`` grades it as that
  student (graded mode, :mod:`ftd_lib.course.exercises.student`), whatever id it gives.
- nbgrader's autograde grades each submission as its submitter: the instructors'
  ``nbgrader_config.py`` names :func:`autograde_as_submitter` as its pre-convert hook.
- the last cell of each notebook (tag ``self-check``) calls :func:`summary`: the same count
  for the checks run in the live kernel, so "Run All" ends with it.

An exercise tagged ``optional-exercise`` as well is counted, but a failing one does not fail
the run.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path

#: the call that ends an exercise cell: ``nb01.check_return(answer)``
CHECK_CALL = re.compile(r"\b(nb\d\d)\.(check_\w+)\s*\(")

#: "Exercise 2 — one row of the Bellman equation" or "**Exercise 3 (think, then check).**"
TITLE = re.compile(r"Exercise\s+(\d+)\b(?:\s*[—-]+\s*([^\n*]+))?")

#: set in the fresh kernel that :func:`run_notebook` starts (the self-check cell is skipped)
ENV = "FTD_CHECKING"

#: every check's result in this process, in order: (the cell's execution count, or -1 outside
#: IPython; the check, ``"nb01.check_return"``; whether it returned ``True``)
RESULTS: list[tuple[int, str, bool]] = []

_depth = [0]  # a check that calls another check is recorded once, as itself


def _count() -> int:
    ip = sys.modules.get("IPython")
    shell = ip.get_ipython() if ip is not None and hasattr(ip, "get_ipython") else None
    return int(getattr(shell, "execution_count", -1)) if shell is not None else -1


def _recording(name: str, fn):
    @functools.wraps(fn)
    def check(*args, **kwargs):
        _depth[0] += 1
        try:
            ok = fn(*args, **kwargs)
        finally:
            _depth[0] -= 1
        if _depth[0] == 0:
            passed = type(ok).__name__ in ("bool", "bool_") and bool(ok)
            RESULTS.append((_count(), name, passed))
        return ok

    check.__ftd_recorded__ = True
    return check


def record(module: types.ModuleType) -> None:
    """Record every call of the checks ``check_*`` defined in ``module`` (an ``nbNN`` module of
    :mod:`ftd_lib.course.exercises`) in :data:`RESULTS`; a check already recorded is left as
    it is."""
    short = module.__name__.rsplit(".", 1)[-1]
    for attr, fn in list(vars(module).items()):
        if (attr.startswith("check_") and callable(fn) and not hasattr(fn, "__ftd_recorded__")
                and getattr(fn, "__module__", None) == module.__name__):
            setattr(module, attr, _recording(f"{short}.{attr}", fn))


class _Recording(types.ModuleType):
    """The class of the package of checks: a submodule ``nbNN`` is recorded (:func:`record`)
    as the import system binds it to the package, before any notebook can call it."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and re.fullmatch(r"nb\d\d", name):
            record(value)
        super().__setattr__(name, value)


def watch(package: str) -> None:
    """Record the checks of every ``nbNN`` submodule of ``package``, loaded or to come."""
    mod = sys.modules[package]
    mod.__class__ = _Recording
    for name, value in list(vars(mod).items()):
        if isinstance(value, types.ModuleType) and re.fullmatch(r"nb\d\d", name):
            record(value)


# ------------------------------------------------------------------------ a notebook's exercises


@dataclass(frozen=True)
class Exercise:
    """One exercise of a notebook: its answer cell (``index``), the check its cell calls
    (``"nb01.check_return"``, ``""`` when the call is gone), how the notebook names it, and
    whether it is required."""

    index: int
    check: str
    title: str
    required: bool


def exercises(nb) -> list[Exercise]:
    """The exercises of notebook ``nb`` (a ``nbformat`` node), in order: its code cells tagged
    ``exercise``. Each is named by the nearest "Exercise n ..." line in the Markdown since the
    exercise before it (else "exercise k", its place), and is required unless tagged
    ``optional-exercise``."""
    from . import roles

    out, prev = [], -1
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not roles.has(cell, roles.EXERCISE):
            continue
        title = f"exercise {len(out) + 1}"
        for md in nb.cells[prev + 1:i]:
            if md.cell_type == "markdown":
                for m in TITLE.finditer(md.source):
                    title = f"Exercise {m.group(1)}" + (f" — {m.group(2).strip()}"
                                                        if m.group(2) else "")
        calls = CHECK_CALL.findall(cell.source)
        check = ".".join(calls[-1]) if calls else ""
        out.append(Exercise(i, check, title, not roles.has(cell, roles.OPTIONAL_EXERCISE)))
        prev = i
    return out


@dataclass
class Report:
    """The grade of one notebook: its exercises, which passed, and why each other one failed."""

    name: str
    exercises: list[Exercise]
    passed: dict[int, bool]
    why: dict[int, str]
    #: whose numbers it was graded on ("student id 's1'"), when known
    graded_as: str = ""

    @property
    def n(self) -> int:
        return sum(self.passed.values())

    @property
    def ok(self) -> bool:
        """Every required exercise passes."""
        return all(self.passed[e.index] for e in self.exercises if e.required)

    def lines(self) -> list[str]:
        m = len(self.exercises)
        if not m:
            return [f"{self.name}: no exercises"]
        req = [e for e in self.exercises if e.required]
        head = f"{self.name}: {self.n} of {m} pass"
        if len(req) < m:
            head += (f" ({sum(self.passed[e.index] for e in req)} of the {len(req)} required "
                     "ones)")
        if self.graded_as:
            head += f"; graded on the numbers of {self.graded_as}"
        out = [head]
        for e in self.exercises:
            if not self.passed[e.index]:
                tail = f": {self.why[e.index]}" if self.why.get(e.index) else ""
                label = "" if e.required or e.title.endswith("(optional)") else " (optional)"
                out.append(f"  fails: {e.title}{label} [{e.check or 'no check call'}]{tail}")
        return out


def _grade(name: str, exs: list[Exercise], results, why: dict[int, str]) -> Report:
    last = {}
    for _, check, ok in results:
        last[check] = ok
    passed, reasons = {}, dict(why)
    for e in exs:
        passed[e.index] = bool(e.check) and last.get(e.check, False)
        if not e.check:
            reasons[e.index] = ("its cell no longer calls its check: put the cell's last line "
                                "(nbNN.check_...(...)) back")
        elif e.check not in last and e.index not in reasons:
            reasons[e.index] = "its check did not run"
    return Report(name, exs, passed, reasons)


def summary(notebook: str) -> None:
    """Print "n of m pass" for the exercises of ``notebook`` (its file name, read from the
    kernel's folder) as the checks ran in this kernel, naming each one that fails; never
    raises. A notebook's last cell calls it."""
    if os.environ.get(ENV):
        print("(skipped while `python -m ftd_lib check` grades this notebook)")
        return
    try:
        import nbformat

        exs = exercises(nbformat.read(Path(notebook), as_version=4))
    except Exception as e:  # noqa: BLE001 -- a copy elsewhere (Colab): say so, do not fail
        print(f"(could not read {notebook} from {Path.cwd()}: {type(e).__name__}; the checks "
              f"run in this session: {sum(ok for *_, ok in _latest())} of {len(_latest())} "
              "pass)")
        return
    report = _grade(notebook, exs, RESULTS, {})
    print("\n".join(["In this session " + report.lines()[0]] + report.lines()[1:]))
    print(f"Graded is the saved file: save it, then run `python -m ftd_lib check "
          f"notebooks/{notebook}` (README.md, \"Homework\").")


def _latest():
    last = {}
    for _, check, ok in RESULTS:
        last[check] = ok
    return list(last.items())


# ------------------------------------------------------------------- grading a saved notebook


def _first_cross(cell) -> str:
    for o in cell.get("outputs", []):
        if o.get("output_type") == "error":
            return f"the cell raised {o.get('ename')}: {o.get('evalue', '')}"
        for line in str(o.get("text", "")).splitlines():
            if line.startswith("❌"):
                return line[1:].strip()
    return ""


@contextlib.contextmanager
def environ(values: dict):
    """Set the environment variables ``values`` (``None``: unset) while the block runs, then
    put back what was there (the kernels started inside inherit them)."""
    def put(pairs):
        for k, v in pairs.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    saved = {k: os.environ.get(k) for k in values}
    try:
        put(values)
        yield
    finally:
        put(saved)


def kernel_client(nb, folder: Path, timeout: int):
    """An ``nbclient`` client for ``nb`` run from ``folder`` (errors allowed, a cell past
    ``timeout`` seconds interrupted), whose kernel talks over local sockets (IPC) in a folder
    of its own, not TCP: no "Kernel is running over TCP without encryption" warning in the
    output, and no port another user could reach."""
    import tempfile

    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=timeout, allow_errors=True, interrupt_on_timeout=True,
                            kernel_name="python3", resources={"metadata": {"path": str(folder)}})
    client.km = client.create_kernel_manager()
    client._ftd_sockets = tempfile.TemporaryDirectory(prefix="ftd-kernel-")
    client.km.transport = "ipc"
    client.km.ip = str(Path(client._ftd_sockets.name) / "kernel")
    return client


def run_notebook(path: Path, timeout: int = 600, student: str | None = None) -> Report:
    """Grade the saved notebook ``path``: run it in a fresh kernel from its folder (errors
    allowed, a cell past ``timeout`` seconds interrupted; the ``self-check`` cell and every
    cell after the last check call skipped) and read the checks' results; an exercise passes
    when its check's last call returned ``True``. With ``student``, graded as that student
    (the kernel's :data:`~ftd_lib.course.exercises.student.GRADED_ENV`), whatever id the
    notebook gives; the report says whose numbers it was graded on."""
    import json

    import nbformat

    from . import roles
    from .exercises.student import GRADED_ENV

    nb = nbformat.read(path, as_version=4)
    exs = exercises(nb)
    if not exs:
        return Report(path.name, [], {}, {})
    last = max(i for i, c in enumerate(nb.cells) if c.cell_type == "code"
               and CHECK_CALL.search(c.source) and not roles.has(c, roles.SELF_CHECK))
    graded = {ENV: "1"} | ({GRADED_ENV: student} if student is not None else {})
    client = kernel_client(nb, path.parent, timeout)
    marker = "FTD-CHECK-RESULTS "
    probe = nbformat.v4.new_code_cell(
        "import json as _j\nfrom ftd_lib.course import grading as _g\n"
        "from ftd_lib.course.exercises import student as _s\n"
        f"print({marker!r} + _j.dumps(dict(results=_g.RESULTS, whose=_s.whose())))")
    stopped = ""
    with environ(graded), client.setup_kernel():  # the kernel inherits them
        for i, cell in enumerate(nb.cells[:last + 1]):
            if cell.cell_type == "code" and not roles.has(cell, roles.SELF_CHECK):
                try:
                    client.execute_cell(cell, i)
                except Exception as e:  # noqa: BLE001 -- a cell past --timeout, a dead kernel
                    stopped = f"the run stopped at cell {i + 1}: {type(e).__name__}"
                    break
        nb.cells.append(probe)
        try:
            client.execute_cell(probe, len(nb.cells) - 1)
        except Exception:  # noqa: BLE001 -- the kernel died: no result is read
            pass
    text = "".join(o.get("text", "") for o in probe.outputs)
    got = json.loads(text.split(marker, 1)[1]) if marker in text else {}
    why = {e.index: _first_cross(nb.cells[e.index]) or stopped for e in exs}
    report = _grade(path.name, exs, got.get("results", []), {i: w for i, w in why.items() if w})
    report.graded_as = got.get("whose", "")
    return report


def autograde_as_submitter(assignment=None, student=None, notebooks=()) -> None:
    """nbgrader's pre-convert hook for ``nbgrader autograde`` (the instructors'
    ``nbgrader_config.py`` names it): before a submission's notebooks run, put its student's id
    (the folder ``submitted/<student>/<assignment>`` it came from, nbgrader's default
    directory structure) in :data:`~ftd_lib.course.exercises.student.GRADED_ENV`, and the ids
    of every submission beside it in ``CLASS_ENV``; the kernels nbgrader starts inherit them, so
    each notebook is graded on its submitter's numbers and a classmate's answer is named."""
    from .exercises.student import CLASS_ENV, GRADED_ENV

    if not notebooks:
        return
    folder = Path(sorted(notebooks)[0]).resolve().parent  # submitted/<student>/<assignment>
    os.environ[GRADED_ENV] = folder.parent.name
    os.environ[CLASS_ENV] = ",".join(sorted(p.name for p in folder.parent.parent.iterdir()
                                            if p.is_dir()))


def default_notebooks() -> list[Path]:
    """Every notebook of the course's copy: ``notebooks/*.ipynb`` beside the ``ftd_lib`` in use
    (the copy's own, installed editable), else under the current folder."""
    for root in (Path(__file__).resolve().parents[2], Path.cwd()):
        found = sorted((root / "notebooks").glob("*.ipynb"))
        if found:
            return found
    return []


def main(argv=None) -> int:
    """Command line: ``python -m ftd_lib check [NOTEBOOK ...]``."""
    import argparse

    p = argparse.ArgumentParser(
        prog="python -m ftd_lib check",
        description="Grade the saved notebooks by the exercises' own checks: each runs top to "
        "bottom in a fresh kernel; prints 'n of m pass' per notebook and names every exercise "
        "that fails. Exit status 1 while a required exercise fails.")
    p.add_argument("notebooks", nargs="*", metavar="NOTEBOOK",
                   help="a notebook to grade (default: every notebook of the course)")
    p.add_argument("--timeout", type=int, default=600, help="seconds a cell may run (600)")
    p.add_argument("--student", metavar="ID", help="grade as this student: the exercises use "
                   "ID's numbers whatever id the notebook gives (what nbgrader's autograde does "
                   "with the submitter's id); default: the notebook's own id")
    a = p.parse_args(argv)
    paths = [Path(n) for n in a.notebooks] or default_notebooks()
    if not paths:
        p.error("no NOTEBOOK given and no notebooks/ folder found")
    for path in paths:
        if path.suffix != ".ipynb" or not path.is_file():
            p.error(f"NOTEBOOK must be a saved .ipynb file, got {str(path)!r}")
    if a.timeout < 1:
        p.error(f"--timeout must be at least 1 second, got {a.timeout}")
    if a.student is not None and not a.student.strip():
        p.error("--student must not be empty")
    ok, n, m = True, 0, 0
    for path in paths:
        report = run_notebook(path.resolve(), a.timeout, a.student)
        print("\n".join(report.lines()), flush=True)
        ok, n, m = ok and report.ok, n + report.n, m + len(report.exercises)
    if len(paths) > 1:
        print(f"all: {n} of {m} pass")
    return 0 if ok else 1
