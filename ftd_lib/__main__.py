"""``python -m ftd_lib``: see :mod:`ftd_lib.repro.cli`; ``release``, ``handouts``, ``slides``
and ``site`` are the course's (:mod:`ftd_lib.publish.release`, :mod:`ftd_lib.publish.handouts`,
:mod:`ftd_lib.publish.deck`, :mod:`ftd_lib.publish.site`); ``check`` grades the saved notebooks
by the exercises' checks (:mod:`ftd_lib.course.grading`). ``--help`` lists every command."""

import importlib
import sys

#: the course's commands: the module whose ``main`` runs each, and its line in ``--help``
COURSE = {
    "check": ("ftd_lib.course.grading", "grade the saved notebooks by the exercises' checks "
              "(n of m pass per notebook)"),
    "grade": ("ftd_lib.grader.cli", "grade handed-in notebooks outside the students' code (the "
              "TA's report; --nbgrader writes nbgrader's gradebook)"),
    "release": ("ftd_lib.publish.release", "write the students' or the instructors' copy of the "
                "course"),
    "slides": ("ftd_lib.publish.deck", "write the lecture decks"),
    "handouts": ("ftd_lib.publish.handouts", "write the notebooks' PDF handouts"),
    "site": ("ftd_lib.publish.site", "build the course website"),
}


def _here(module: str) -> bool:
    """Is ``module`` in this copy? (The students' copy leaves the instructors' tooling out.)"""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def course_help() -> str:
    """The lines ``--help`` adds for the course's commands in this copy (:data:`COURSE`)."""
    here = {name: v for name, v in COURSE.items() if _here(v[0])}
    width = max(map(len, here))
    return "\ncourse commands (python -m ftd_lib COMMAND --help for each):\n" + "\n".join(
        f"  {name:<{width}}  {text}" for name, (_, text) in here.items())


def _main(argv) -> int:
    if argv[:1] and argv[0] in COURSE:
        if not _here(COURSE[argv[0]][0]):
            print(f"python -m ftd_lib {argv[0]}: the instructors' tooling, not in the students' "
                  "copy of the course", file=sys.stderr)
            return 2
        return importlib.import_module(COURSE[argv[0]][0]).main(argv[1:])
    from .repro.cli import main

    if not argv or argv[:1] in (["-h"], ["--help"]):
        try:
            return main(["--help"])
        except SystemExit:  # argparse's --help exits: add the course's commands
            print(course_help())
            return 0 if argv else 2  # no command at all is a usage error
    return main(argv)


if __name__ == "__main__":  # not when a worker process (multiprocessing "spawn") imports it
    sys.exit(_main(sys.argv[1:]))
