"""What a handed-in notebook holds, read from the file alone: its exercises (by the check each
calls, not by place or tag), the cells the student wrote, and the lines the TA should look at.

An exercise is found by its check call, a top-level ``nbNN.check_name(...)`` statement: the
first cell that makes it starts the exercise's block, which runs to the first cell of the next
exercise. So the students' copy, nbgrader's release, a renamed notebook, one whose cells were
moved or whose tags were lost, are read alike; a notebook without a check call says so. The
arguments of the call (``answer``, ``my_td_lambda, fig1_point``) are what the grader reads
from the run at the end of the block; ``nbNN.record_...(...)`` calls in the block are replayed
before the check.

A cell is the student's when it is not one of the course's: its code (comments, the check
call and nbgrader's stub text left out) is none of the course notebooks' cells. Only the
student's cells are scanned (:data:`FLAGS`) and only they count as an exercise's answer
cells (what the checks refuse a library function in).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

#: a check call or a record call of the exercises' modules
CALL = re.compile(r"^nb\d\d$")

#: what in a student's cell the TA's report shows, with why: (pattern, what it does)
FLAGS = (
    (r"\bos\s*\.\s*(environ|putenv|unsetenv)|\bFTD_[A-Z_]+", "changes the environment the "
     "grading reads (the student id comes from the submission, not from it)"),
    (r"\bsetattr\s*\(|\bdelattr\s*\(|\b(nb\d\d|exercises|grading|student|live|ftd_lib[\w.]*|"
     r"algorithms|returns)\s*\.\s*\w+\s*(\[[^\]]*\]\s*)?=(?!=)", "replaces a part of the "
     "library or of its checks"),
    (r"\bsys\s*\.\s*(setprofile|settrace|modules|meta_path)|\bimportlib\b|\breload\s*\(|"
     r"__import__|\bexec\s*\(|\beval\s*\(|\bcompile\s*\(|__code__|__globals__|__builtins__|"
     r"\bbuiltins\b|\bglobals\s*\(\s*\)|\bgetattr\s*\(|\bvars\s*\(", "reaches around the code "
     "(hooks, dynamic names or code)"),
    (r"\bnb\d\d\s*\.\s*_\w+|from\s+ftd_lib\.course\.exercises(\.\w+)?\s+import[^\n]*\b_\w+",
     "uses a check's private helper (it computes the answer)"),
    (r"\bRESULTS\b|\b_RECORDED\b|\b_SHOWN\b", "writes the checks' own records"),
)


@dataclass
class Flag:
    """A line of a student's cell the TA's report shows."""

    cell: int  #: the cell's number, 1-based, as Jupyter users count
    line: int
    text: str
    why: str

    def __str__(self):
        return f"cell {self.cell}, line {self.line}: `{self.text.strip()[:90]}`: {self.why}"


@dataclass
class Exercise:
    """An exercise of a submission: the check it calls (``"nb02.check_n_step_return"``), the
    argument expressions of that call, its block of cells ``[first, end)``, and the record
    calls in it ``(module.function, [argument expressions], cell)``."""

    check: str
    args: list[str]
    kwargs: dict[str, str]
    first: int
    end: int
    records: list = field(default_factory=list)


def _code(source: str) -> str:
    """A cell's code without IPython's magics and shell lines (what :mod:`ast` can read)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


def _tree(source: str):
    try:
        return ast.parse(_code(source))
    except SyntaxError:
        return None


def _calls(source: str):
    """The top-level statements ``nbNN.fn(...)`` of a cell: ``(module.fn, args, kwargs)``."""
    tree = _tree(source)
    out = []
    for node in tree.body if tree is not None else ():
        call = node.value if isinstance(node, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name) and CALL.match(call.func.value.id)):
            out.append((f"{call.func.value.id}.{call.func.attr}",
                        [ast.unparse(a) for a in call.args],
                        {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg}))
    return out


def normal(source: str) -> str:
    """A cell's code as compared with the course's: comments, blank lines, the exercises'
    calls and nbgrader's stubs left out."""
    out = []
    for line in _code(source).splitlines():
        s = line.split("#", 1)[0].rstrip() if "#" in line and "'" not in line and '"' not in \
            line else line.rstrip()
        if not s.strip() or re.match(r"\s*(assert\s+)?nb\d\d\.\w+\(.*\)\s*;?\s*$", s):
            continue
        out.append(re.sub(r'^(\s*COPY = )".*"$', r'\1"..."', s))  # the Colab cell's address
    return "\n".join(out)


def course_cells(folder: Path | None = None) -> set[str]:
    """The normalised code of every code cell of the course's notebooks (the instructors',
    with their worked solutions: a solution pasted whole is still the student's cell only
    when it differs)."""
    folder = Path(folder) if folder else Path(__file__).resolve().parents[2] / "notebooks"
    out = set()
    for path in sorted(folder.glob("*.ipynb")):
        for c in nbformat.read(path, as_version=4).cells:
            if c.cell_type == "code" and "### BEGIN SOLUTION" not in c.source:
                out.add(normal(c.source))
    from ..course import colab

    out.add(normal(colab.UNSTAMPED))  # a copy that names no repository has this Colab cell
    out.discard("")
    return out


@dataclass
class Submission:
    """A notebook as handed in: its cells, its exercises, the student's cells and the flags."""

    path: Path
    nb: object
    exercises: list[Exercise]
    students: set[int]  #: indices of the cells the student wrote
    flags: list[Flag]

    def answer_cells(self, ex: Exercise) -> str:
        """The student's cells from the exercise before ``ex`` to the end of ``ex``'s block:
        where an answer to ``ex`` is computed (the checks refuse a library function there)."""
        i = self.exercises.index(ex)
        start = self.exercises[i - 1].first + 1 if i else 0
        return "\n\n".join(self.nb.cells[j].source for j in range(start, ex.end)
                           if j in self.students)


def read(path, course: set[str] | None = None) -> Submission:
    """Read the notebook at ``path`` (any version of the course's notebook; a ``ValueError``
    that says why when it is not a notebook)."""
    path = Path(path)
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as e:  # noqa: BLE001 -- not JSON, not a notebook
        raise ValueError(f"{path.name} is not a readable notebook: {type(e).__name__}: "
                         f"{str(e)[:200]}") from None
    course = course_cells() if course is None else course
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    students = {i for i, c in code if normal(c.source) and normal(c.source) not in course}
    exercises: list[Exercise] = []
    seen: set[str] = set()
    for i, c in code:
        for name, args, kwargs in _calls(c.source):
            if name.split(".")[1].startswith("check_") and name not in seen:
                seen.add(name)
                exercises.append(Exercise(name, args, kwargs, i, len(nb.cells)))
    for a, b in zip(exercises, exercises[1:], strict=False):
        a.end = b.first
    for ex in exercises:
        for i, c in code:
            if ex.first <= i < ex.end:
                ex.records += [(n, args, i) for n, args, _ in _calls(c.source)
                               if n.split(".")[1].startswith("record_")]
    return Submission(path, nb, exercises, students, scan(nb, students))


def scan(nb, cells) -> list[Flag]:
    """Every line of the cells ``cells`` (indices) that matches :data:`FLAGS`, comments and
    strings' insides aside."""
    out = []
    for i in sorted(cells):
        for n, line in enumerate(nb.cells[i].source.splitlines(), 1):
            code = re.sub(r"#.*$", "", line)
            for pattern, why in FLAGS:
                if re.search(pattern, code):
                    out.append(Flag(i + 1, n, line, why))
                    break
    return out


def function_source(sub: Submission, end: int) -> str:
    """What a student's function needs to be defined afresh, from the cells before ``end``:
    every top-level import, function and class definition, and assignment without a call (a
    constant, a lambda, an alias), in order; a cell that does not parse is left out."""
    parts = []
    for i, c in enumerate(sub.nb.cells[:end]):
        if c.cell_type != "code":
            continue
        tree = _tree(c.source)
        for node in tree.body if tree is not None else ():
            keep = isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef,
                                     ast.AsyncFunctionDef, ast.ClassDef))
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                keep = not any(isinstance(n, ast.Call) for n in ast.walk(node.value))
            if keep:
                parts.append(f"# cell {i + 1}\ntry:\n" + "\n".join(
                    "    " + line for line in ast.unparse(node).splitlines())
                             + "\nexcept Exception:\n    pass")
    return "\n".join(parts) + "\n"


def locked_changes(nb, released) -> list[Flag]:
    """The locked cells (nbgrader's ``locked``) of submission ``nb`` whose source differs from
    the same cell (by ``grade_id``) of the version handed out, ``released``: an edit nbgrader
    undoes when it grades, shown to the TA here, where it is not one of the warnings nbgrader
    logs for every submission."""
    def locked(n):
        return {c.metadata["nbgrader"].get("grade_id"): c for c in n.cells
                if c.metadata.get("nbgrader", {}).get("locked")}

    theirs = locked(released)
    out = []
    for i, c in enumerate(nb.cells):
        meta = c.metadata.get("nbgrader", {})
        ref = theirs.get(meta.get("grade_id")) if meta.get("locked") else None
        if ref is not None and c.source.strip() != ref.source.strip():
            out.append(Flag(i + 1, 1, c.source.splitlines()[0] if c.source else "",
                            f"edits the locked cell {meta['grade_id']} (nbgrader restores it)"))
    return out
