"""A graded answer is the student's own work: the checks' guards against the library's answer
handed in as the student's, in one place, with the contract they keep.

What it reads:

- the answer cell's source (:func:`answer_cell_source`): the calling frame's cell, through
  :mod:`linecache` (IPython keeps every cell there), or, while the grader grades
  (:mod:`ftd_lib.grader`), the cells it read from the file (:func:`graded_cells`); a library
  function named there is refused (:func:`refuse_library_answer`);
- a student's function while it runs (:func:`run_student`): a profile hook
  (:func:`sys.setprofile`) sees whether the code of a library function the student was asked to
  write runs inside (alias, wrapper, ``functools.partial``). In the grader the function runs in a
  child process in which that library code raises instead (:mod:`ftd_lib.grader.child`), so
  ``sys.setprofile(None)`` does not get around it;
- a function's bytecode (:func:`copies`): the library's source pasted in, renamed or not, has
  the library's instructions. The instruction names are CPython's and change between versions.

Pythons: :data:`KNOWN_PYTHONS` (3.11, 3.12, 3.13; ``pyproject.toml`` requires 3.11 or later),
each tested by ``tests/course/test_own_work.py`` where that interpreter is installed. On any
other version :func:`copies` says "not a copy" (the plain check): a pasted copy then passes as
it would with a real rewrite, and a right answer is never refused for the version it runs on.
The profile hook and the cell reading do not depend on the version.
"""

from __future__ import annotations

import sys

#: the CPython versions whose instruction names :func:`_fingerprint` knows (tested)
KNOWN_PYTHONS = ((3, 11), (3, 12), (3, 13))

#: the instructions a fingerprint leaves out: no-ops, caches and call set-up that differ between
#: versions and carry nothing of the source
_SKIP = ("CACHE", "NOP", "RESUME", "PRECALL", "EXTENDED_ARG", "KW_NAMES", "NOT_TAKEN")


#: the answer cells' source while the grader runs a check in its own process
#: (:func:`graded_cells`); empty otherwise
_GRADED_CELLS: list[str] = []


def graded_cells(source: str):
    """While this context is open, :func:`answer_cell_source` is ``source``: the cells of a
    submission that hold an exercise's answer, as the grader (:mod:`ftd_lib.grader`) read
    them from the file, not from any running code."""
    import contextlib

    @contextlib.contextmanager
    def scope():
        _GRADED_CELLS.append(source)
        try:
            yield
        finally:
            _GRADED_CELLS.pop()

    return scope()


def answer_cell_source() -> str:
    """The source of the notebook cell that called the check: the first frame outside this
    package and the recorder around the checks (:mod:`ftd_lib.course.grading`), when it is a
    cell's (module-level) code, read through :mod:`linecache` (IPython keeps every cell there).
    Empty when the check is called from inside a function, or where there is nothing to read.
    While the grader grades (:func:`graded_cells`), the answer cells it read from the file."""
    import inspect
    import linecache

    if _GRADED_CELLS:
        return _GRADED_CELLS[-1]

    # the checks' own frames, and the recorder that wraps every check (ftd_lib.course.grading)
    package = __name__.rsplit(".", 1)[0]  # ftd_lib.course.exercises
    machinery = (package, package.rsplit(".", 1)[0] + ".grading")
    f = inspect.currentframe()
    while f is not None and (f.f_globals.get("__name__", "") or "").startswith(machinery):
        f = f.f_back
    if f is None:
        return ""
    if f.f_code.co_name != "<module>":  # called from a function (a test, a script): no cell
        return ""
    return "".join(linecache.getlines(f.f_code.co_filename))


def library_in_answer_cell(names) -> str | None:
    """The first of ``names`` (library functions or variables that compute an exercise's
    answer) that the calling cell uses outside a comment, or ``None``. A function counts where
    it is called (``name(``), a variable (``v_true``) wherever it appears."""
    import re

    code = "\n".join(line.split("#", 1)[0] for line in answer_cell_source().splitlines())
    for name in names:
        if re.search(rf"(?<![\w.]){re.escape(name)}\b" if not name.endswith("(") else
                     rf"(?<!\w){re.escape(name[:-1])}\s*\(", code):
            return name.rstrip("(")
    return None


#: what a check says when the answer cell uses the library's own answer
LIBRARY_ANSWER = ("Not yet: your answer cell uses {name}, which computes this exercise's answer "
                  "for you: a graded answer is your own computation from your numbers (reading "
                  "the library is fine; calling or pasting the function that answers is not).")


def refuse_library_answer(names) -> bool:
    """Say :data:`LIBRARY_ANSWER` (and return ``True``) when the calling cell uses one of
    ``names`` (:func:`library_in_answer_cell`)."""
    from .verdicts import verdict  # (here: the module loads on its own, tests on each Python)

    name = library_in_answer_cell(names)
    if name is None:
        return False
    verdict(False, "", LIBRARY_ANSWER.format(name=name))
    return True


#: the message when a student's function runs the library's own answer
BORROWED = ("{what} runs the library's own {name} (called directly, under another name or inside "
            "a wrapper): write it yourself. The check compares yours with the library's, so "
            "handing it the library's proves nothing.")

#: the message when a student's function is the library's source pasted in (renamed or not)
COPIED = ("Your function is a copy of the library's own {name} (its source pasted in, perhaps "
          "with other names): a graded answer is your own code. Reading the library is fine; "
          "write the function yourself from the equations.")


def _fingerprint(code) -> tuple:
    """``code``'s instructions with what renaming cannot change: the operations, the globals,
    attributes and constants they use (strings such as a docstring left out), nested functions
    by their own fingerprint; local variables by the order they first appear, jumps without
    their targets (the offsets shift with the interpreter's inline caches)."""
    import dis

    out, local = [], {}
    for ins in dis.get_instructions(code):
        op = ins.opname.replace("LOAD_METHOD", "LOAD_ATTR")
        if op in _SKIP:
            continue
        if ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs:
            out.append((op,))
        elif ins.opcode in dis.haslocal or ins.opcode in dis.hasfree:
            out.append((op, local.setdefault(ins.argval, len(local))))
        elif hasattr(ins.argval, "co_code"):
            out.append((op, _fingerprint(ins.argval)))
        elif isinstance(ins.argval, str) and op == "LOAD_CONST":
            out.append((op, "<str>"))
        else:
            out.append((op, repr(ins.argval)))
    return tuple(out)


#: a library function shorter than this (in instructions) is a formula, not an algorithm: the
#: student's own one line is the library's one line, so a "copy" of it proves nothing
COPY_MIN = 40


def copies(fn, library_fn) -> bool:
    """Is ``fn`` (not ``library_fn`` itself) a pasted copy of ``library_fn``'s source, its
    variables renamed or not? (The same instructions on the same globals and constants:
    renaming does not change them, any real rewrite does.) Only for library functions of at
    least :data:`COPY_MIN` instructions."""
    if sys.version_info[:2] not in KNOWN_PYTHONS:  # unknown instructions: the plain check
        return False
    mine, theirs = getattr(fn, "__code__", None), getattr(library_fn, "__code__", None)
    if mine is None or theirs is None or mine is theirs:
        return False
    if len(_fingerprint(theirs)) < COPY_MIN:
        return False
    if (mine.co_argcount, mine.co_kwonlyargcount) != (theirs.co_argcount,
                                                      theirs.co_kwonlyargcount):
        return False
    return _fingerprint(mine) == _fingerprint(theirs)


def borrows(fn, library_fn) -> bool:
    """Is the student's ``fn`` the library's ``library_fn`` itself (or a bound alias of it)?
    (:func:`run_student` with ``refuse`` also catches a wrapper or an alias called inside.)"""
    return fn is library_fn or getattr(fn, "__code__", None) is getattr(library_fn, "__code__",
                                                                        0)


class Borrowed(Exception):
    """A student's function ran a library function it was asked to write itself."""


def run_student(fn, *args, refuse=(), **kwargs):
    """Call a student's function; return ``(result, None)``, or ``(None, message)`` when it
    raises (``NotImplementedError`` means the skeleton is not filled in yet: ``MISSING``).

    ``refuse``: library functions the student was asked to write. While ``fn`` runs, a profile
    hook watches every Python call; if the code of one of them runs (``fn`` is it, an alias of
    it, a wrapper or ``functools.partial`` around it, or calls it deep down), the result is
    thrown away and the message is :data:`BORROWED`. What it cannot see: a copy of the
    library's source pasted in as the student's own."""
    from .verdicts import MISSING

    for f in refuse:
        if copies(fn, f):
            return None, COPIED.format(name=f.__name__)
    if getattr(fn, "__ftd_remote__", False):  # the grader's: run in a child process
        return _run_remote(fn, args, kwargs, refuse)
    codes = {f.__code__: f.__name__ for f in refuse}
    hit: list[str] = []

    def watch(frame, event, arg):
        if event == "call" and frame.f_code in codes and not hit:
            hit.append(codes[frame.f_code])

    old = sys.getprofile()
    if codes:
        sys.setprofile(watch)
    try:
        result = fn(*args, **kwargs)
    except NotImplementedError:
        return None, MISSING
    except Exception as e:  # noqa: BLE001 -- a student's code may raise anything
        result, err = None, f"Your function raised {type(e).__name__}: {e}"
        if not hit:
            return result, err
    finally:
        if codes:
            sys.setprofile(old)
    if hit:
        return None, BORROWED.format(what="Your function", name=hit[0])
    return result, None


def _run_remote(fn, args, kwargs, refuse):
    """:func:`run_student` for a function the grader runs in a child process
    (:class:`ftd_lib.grader.child.Remote`): the child refuses ``refuse`` itself."""
    from .verdicts import MISSING

    try:
        result = fn.call(args, kwargs, refuse=refuse)
    except Borrowed as e:
        return None, BORROWED.format(what="Your function", name=str(e))
    except NotImplementedError:
        return None, MISSING
    except Exception as e:  # noqa: BLE001 -- the student's exception, raised again
        return None, f"Your function raised {type(e).__name__}: {e}"
    return result, None
