"""The grade of a submission, computed where the student's code cannot reach it.

1. The notebook runs in a fresh kernel (the student's code runs there, and only there), as its
   submitter: the kernel is told the submitter's id (from the submission's folder or the TA's
   ``--student``, never from the notebook), so the numbers it prints are the submitter's.
2. At the end of each exercise's block (:mod:`.submission`) a cell of the grader's reads the
   values of the check call's arguments: numbers, strings, and for a function only its name.
3. In the grader's own process, which never ran a line of the student's, each check runs on
   those values with the submitter's numbers (:func:`ftd_lib.course.exercises.numbers_of`)
   and the answer cells as read from the file (what a check refuses a library function in).
   A student's function is defined afresh from the file's source and called in a child
   process on the check's inputs (:mod:`.child`); stored results are read by the check.
4. The report gives, per notebook, the score per exercise with the check's first ❌ line, the
   lines of the student's cells a TA should read (:data:`.submission.FLAGS`), and says loudly
   when a notebook cannot be graded.

So patching a check, its helpers, the recorder, ``live.stored`` or the environment changes
nothing but the student's own kernel; ``sys.setprofile(None)`` and the library's function
under another name meet a child in which that function refuses to run.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from ..course.exercises import student as _student
from . import submission as S
from .child import Remote

#: the line the grader's capture cell prints before its JSON
MARK = "FTD-GRADER-ANSWERS "

#: the cell the grader runs in the kernel at the end of an exercise's block ({label}, {exprs})
CAPTURE = '''\
def _ftd_capture(_exprs, _ns):
    import json as _j, numbers as _n
    def _enc(v):
        if v is None or isinstance(v, (bool, str)):
            return {{"v": v}}
        if callable(v):
            return {{"fn": str(getattr(v, "__name__", ""))}}
        if isinstance(v, _n.Real):
            return {{"v": float(v) if not isinstance(v, _n.Integral) else int(v)}}
        try:
            import numpy as _np
            a = _np.asarray(v)
            if a.dtype.kind in "iuf":
                return {{"nd": a.tolist(), "dtype": a.dtype.str}}
            if a.dtype.kind == "b":
                return {{"nd": a.tolist(), "dtype": "|b1"}}
        except Exception:
            pass
        if isinstance(v, (list, tuple)):
            return {{"seq": [_enc(x) for x in v], "same": list(range(len(v))),
                    "tuple": isinstance(v, tuple)}}
        return {{"other": type(v).__name__}}
    out = []
    for e in _exprs:
        try:
            out.append(_enc(eval(e, _ns)))
        except Exception as x:
            out.append({{"missing": type(x).__name__ + ": " + str(x)[:200]}})
    return _j.dumps(out)
print({mark!r} + {label!r} + " " + _ftd_capture({exprs!r}, globals()))
'''


@dataclass
class Result:
    """One exercise's grade: the check, whether it passed, its verdict lines."""

    check: str
    passed: bool
    lines: list[str]

    @property
    def why(self) -> str:
        bad = [line for line in self.lines if line.startswith("❌")]
        return (bad[-1] if bad else self.lines[-1] if self.lines else "").lstrip("❌ ").strip()


@dataclass
class Graded:
    """The grade of one notebook: its results by check, the flags, and, when it could not be
    graded, why."""

    path: Path
    student: str
    results: dict[str, Result] = field(default_factory=dict)
    flags: list = field(default_factory=list)
    error: str = ""

    def lines(self) -> list[str]:
        head = f"{self.path.name} (student {self.student!r})"
        if self.error:
            return [f"{head}: NOT GRADED: {self.error}"]
        n = sum(r.passed for r in self.results.values())
        out = [f"{head}: {n} of {len(self.results)} pass"]
        for r in self.results.values():
            out.append(f"  {'pass' if r.passed else 'FAIL'} {r.check}"
                       + ("" if r.passed else f": {r.why}"))
        if self.flags:
            out.append(f"  FLAGGED for the TA ({len(self.flags)} line(s) of the student's "
                       "cells):")
            out += [f"    {f}" for f in self.flags]
        return out


def _labels(sub: S.Submission):
    """What to read at the end of each block: ``{cell index: [(label, expressions)]}``."""
    out: dict[int, list] = {}
    for k, ex in enumerate(sub.exercises):
        exprs = ex.args + list(ex.kwargs.values())
        out.setdefault(ex.end - 1, []).append((f"ex{k}", exprs))
        for j, (_, args, _) in enumerate(ex.records):
            out[ex.end - 1].append((f"ex{k}-record{j}", args))
    return out


def run_kernel(sub: S.Submission, student: str, timeout: int = 600) -> tuple[dict, str]:
    """Run the submission in a fresh kernel as ``student``; the values read at the end of
    each exercise's block (``{label: [encoded value]}``) and, if the run stopped, why."""
    from ..course.grading import ENV, environ, kernel_client

    nb = nbformat.from_dict(sub.nb)
    labels = _labels(sub)
    last = max(labels) if labels else -1
    client = kernel_client(nb, sub.path.parent, timeout)
    got, stopped = {}, ""
    as_student = {ENV: "1", _student.GRADED_ENV: student, _student.CLASS_ENV: None}
    with environ(as_student), client.setup_kernel():  # the kernel inherits them
        for i, cell in enumerate(list(nb.cells[:last + 1])):
            if cell.cell_type == "code":
                try:
                    client.execute_cell(cell, i)
                except Exception as e:  # noqa: BLE001 -- past --timeout, a dead kernel
                    stopped = f"the run stopped at cell {i + 1}: {type(e).__name__}"
                    break
            for label, exprs in labels.get(i, ()):
                probe = nbformat.v4.new_code_cell(CAPTURE.format(
                    mark=MARK, label=label, exprs=list(exprs)))
                try:
                    client.execute_cell(probe, i)
                except Exception:  # noqa: BLE001 -- the kernel died: nothing read
                    continue
                text = "".join(o.get("text", "") for o in probe.outputs
                               if o.get("output_type") == "stream")
                for line in text.splitlines():
                    if line.startswith(MARK + label + " "):
                        got[label] = json.loads(line[len(MARK + label) + 1:])
    return got, stopped


def _value(enc, sub: S.Submission, ex: S.Exercise, expr: str):
    from .child import decode

    if "missing" in enc:
        return None
    if "fn" in enc:
        name = enc["fn"] if enc["fn"].isidentifier() else expr.strip()
        return Remote(name, S.function_source(sub, ex.end), str(sub.path.parent))
    return decode(enc)


def check_in_grader(sub: S.Submission, ex: S.Exercise, values, records, student: str,
                    classmates=()) -> Result:
    """Run ``ex``'s check in this process on the values read from the run, as ``student``,
    the record calls ``records`` (``(module.function, values)``) first."""
    from ..course import exercises
    from ..course.grading import environ

    module_name, fn_name = ex.check.split(".")
    module = importlib.import_module(f"ftd_lib.course.exercises.{module_name}")
    check = getattr(module, fn_name, None)
    if check is None:
        return Result(ex.check, False, [f"❌ no such check: {ex.check}"])
    for store in ("_RECORDED", "_SHOWN"):  # a record of another submission's is not this one's
        getattr(module, store, {}).clear() if hasattr(module, store) else None
    out = io.StringIO()
    remotes = [v for v in values if isinstance(v, Remote)]

    def run():
        with exercises.graded_cells(sub.answer_cells(ex)):
            for name, args in records:
                m, f = name.split(".")
                getattr(importlib.import_module(f"ftd_lib.course.exercises.{m}"), f)(*args)
            return check(*values[:len(ex.args)], **dict(zip(ex.kwargs, values[len(ex.args):],
                                                            strict=False)))

    try:
        with environ({_student.CLASS_ENV: ",".join(classmates)}), \
                contextlib.redirect_stdout(out):
            ok = exercises.numbers_of(student, run)
    except Exception as e:  # noqa: BLE001 -- an answer the check could not take
        print(f"❌ the check raised {type(e).__name__}: {e}", file=out)
        ok = False
    finally:
        for r in remotes:
            r.close()
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    return Result(ex.check, ok is True, lines)


def grade_notebook(path, student: str, classmates=(), course=None, timeout: int = 600) -> Graded:
    """Grade the notebook at ``path`` as ``student`` (see the module's docstring)."""
    path = Path(path)
    g = Graded(path, student)
    try:
        sub = S.read(path, course)
    except ValueError as e:
        g.error = str(e)
        return g
    g.flags = sub.flags
    if not sub.exercises:
        g.error = ("no exercise found: no cell calls a check (nbNN.check_...(...)); is this a "
                   "notebook of the course?")
        return g
    got, stopped = run_kernel(sub, student, timeout)
    for k, ex in enumerate(sub.exercises):
        if f"ex{k}" not in got:
            g.results[ex.check] = Result(ex.check, False, [
                f"❌ its answer could not be read ({stopped or 'the run did not reach it'})"])
            continue
        exprs = ex.args + list(ex.kwargs.values())
        values = [_value(e, sub, ex, x) for e, x in zip(got[f"ex{k}"], exprs, strict=True)]
        records = []
        for j, (name, args, _) in enumerate(ex.records):
            enc = got.get(f"ex{k}-record{j}", [])
            records.append((name, [_value(e, sub, ex, x) for e, x in zip(enc, args,
                                                                          strict=False)]))
        g.results[ex.check] = check_in_grader(sub, ex, values, records, student,
                                              [c for c in classmates if c != student])
    return g
