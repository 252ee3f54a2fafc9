"""``python -m ftd_lib``: see :mod:`ftd_lib.repro.cli`; ``release``, ``handouts``, ``slides``
and ``site`` are the course's (:mod:`ftd_lib.publish.release`, :mod:`ftd_lib.publish.handouts`,
:mod:`ftd_lib.publish.deck`, :mod:`ftd_lib.publish.site`); ``check`` grades the saved notebooks
by the exercises' checks (:mod:`ftd_lib.course.grading`)."""

import sys


def _main(argv) -> int:
    if argv[:1] == ["release"]:
        from .publish.release import main as release

        return release(argv[1:])
    if argv[:1] == ["check"]:
        from .course.grading import main as check

        return check(argv[1:])
    if argv[:1] == ["slides"]:
        from .publish.deck import main as slides

        return slides(argv[1:])
    if argv[:1] == ["handouts"]:
        from .publish.handouts import main as handouts

        return handouts(argv[1:])
    if argv[:1] == ["site"]:
        from .publish.site import main as site

        return site(argv[1:])
    from .repro.cli import main

    return main(argv)


if __name__ == "__main__":  # not when a worker process (multiprocessing "spawn") imports it
    sys.exit(_main(sys.argv[1:]))
