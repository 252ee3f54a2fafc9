"""Where each exercise of the course goes in the plan: put to the room on a core slide, sent
home on a lecture's homework list, or read before a lecture (the pre-reading); and the label a
student sees (``"06.1"``).

Every required exercise of every notebook has a place (:func:`unplaced`, which the homework
slide and ``tests/publish/test_lectures.py`` hold): one the plan neither shows, nor sends home,
nor gives as pre-reading is lost, and the deck refuses to build. The pre-reading's exercises
are named where the pre-reading is: INSTRUCTORS.md's pre-reading line and the homework slide of
the lecture before (:func:`pre_reading_before`).
"""

from __future__ import annotations

import functools

from . import plan as P
from . import slide_words
from .lectures import EXERCISE_MIN, exercise_keys, is_optional, segment_moved, slide_groups
from .plan import LECTURES, PRE_READING, Lecture, Segment, read, segment_cells


def exercise_label(key: str) -> str:
    """The human label of exercise ``key`` (``"nb02.n_step_return"`` -> ``"02.1"``): the
    notebook's number and the exercise's place among its exercises. The key is the exercise's
    name (hint, per-student numbers, nbgrader ids, homework lists), fixed when it is written; the
    label follows its position, so inserting an exercise renames none of the others."""
    nb_id = key.split(".", 1)[0]
    stems = sorted(p.stem for p in P.NOTEBOOKS.glob(f"{nb_id[2:]}_*.ipynb"))
    if not stems:
        raise ValueError(f"key {key!r}: no notebook notebooks/{nb_id[2:]}_*.ipynb")
    keys = list(_exercise_keys_of(stems[0]))
    if key not in keys:
        raise ValueError(f"key {key!r}: no exercise of notebooks/{stems[0]}.ipynb has it "
                         f"(its hint cell calls hint({key!r}); known: {', '.join(keys)})")
    return f"{nb_id[2:]}.{keys.index(key) + 1}"


@functools.lru_cache(maxsize=16)
def _exercise_keys_of(stem: str) -> tuple:
    return tuple(exercise_keys(read(stem)).values())


def in_class_exercises(lec: Lecture) -> list:
    """The keys of the exercises lecture ``lec`` puts to the room (each costs ``EXERCISE_MIN``):
    those on its core slides, not in its homework tuple nor in a section it moves out."""
    out = []
    for seg in lec.segments:
        nb = read(seg.notebook)
        cells, moved = set(segment_cells(nb, seg)), segment_moved(seg, nb)
        out += [k for i, k in exercise_keys(nb).items() if i in cells and i not in moved]
    return out


def overrun_message(lec: Lecture, core: float, discussion: float) -> str:
    """What a lecture that leaves too little discussion says, with the fix: the file to edit
    and the exercises it puts to the room."""
    keys = in_class_exercises(lec)
    return (f"lecture {lec.number}: slides take {core} min, leaving {discussion} for a "
            f"discussion promised {lec.discussion_min}. Fix it in ftd_lib/publish/plan.py: "
            f"add an exercise key to Lecture({lec.number}, ...)'s homework tuple (each exercise "
            f"put to the room costs {EXERCISE_MIN:g} min; in class now: "
            f"{', '.join(keys) or 'none'}), or move a section out (Segment.moved) or drop a "
            "slide (Segment.dropped); cells tagged lecture-optional do not count. Then python -m "
            "ftd_lib.publish.lecture_plan --write.")


def exercise_places(lecture: Lecture) -> list:
    """``[(key, required, place)]`` for every exercise in the cells lecture ``lecture`` takes,
    in order: ``place`` is ``"homework"`` (on the lecture's homework list), ``"class"`` (its
    slide is on the core deck: neither moved nor optional, so it is put to the room) or ``None``
    (neither: the exercise falls through)."""
    from ..course.roles import is_required_exercise

    out = []
    for seg in lecture.segments:
        nb = read(seg.notebook)
        cells = set(segment_cells(nb, seg))
        moved = segment_moved(seg, nb)
        keys = exercise_keys(nb)
        for group in slide_groups(nb):
            shown = [i for i in group if slide_words.slide_type(nb["cells"][i], first=(i == 0))
                     not in ("skip", "notes")]
            opener = shown[0] if shown else group[0]
            core = opener not in moved and not is_optional(nb["cells"][opener])
            for i in group:
                if i in keys and i in cells:
                    key = keys[i]
                    place = ("homework" if key in lecture.homework
                             else "class" if core else None)
                    out.append((key, is_required_exercise(nb["cells"][i]), place))
    return out


def pre_reading_places(seg: Segment) -> list:
    """``[(key, required, "pre-reading")]`` for every exercise in the cells of the pre-reading
    segment ``seg``."""
    from ..course.roles import is_required_exercise

    nb = read(seg.notebook)
    cells = set(segment_cells(nb, seg))
    return [(key, is_required_exercise(nb["cells"][i]), "pre-reading")
            for i, key in exercise_keys(nb).items() if i in cells]


def pre_reading_before(seg: Segment) -> int:
    """The lecture the pre-reading segment ``seg`` comes before: the first that takes more of
    its notebook (1 where none does)."""
    return min((lec.number for lec in LECTURES for s in lec.segments
                if s.notebook == seg.notebook), default=1)


def pre_reading_text(seg: Segment, brief: bool = False) -> str:
    """The pre-reading segment as INSTRUCTORS.md names it (its label, what it teaches, its
    exercises by label) or, ``brief``, the homework slide (its label and exercises)."""
    keys = [k for k, _, _ in pre_reading_places(seg)]
    ex = (f"exercise{'s' if len(keys) > 1 else ''} "
          + ", ".join(exercise_label(k) for k in keys)) if keys else ""
    if brief:
        return f"**{seg.label()}**" + (f" with {ex}" if ex else "")
    return f"**{seg.label()}** ({seg.what}" + (f"; {ex})" if ex else ")")


def unplaced() -> list:
    """``[(notebook, key)]`` of the required exercises of the course's notebooks that the plan
    places nowhere: not on a core slide, not on a homework list, not in the pre-reading."""
    from ..course.roles import is_required_exercise

    placed = {k for lec in LECTURES for k, _, where in exercise_places(lec) if where}
    placed |= {k for seg in PRE_READING for k, _, _ in pre_reading_places(seg)}
    out = []
    for path in sorted(P.NOTEBOOKS.glob("0*.ipynb")):
        nb = read(path.stem)
        out += [(path.stem, k) for i, k in exercise_keys(nb).items()
                if is_required_exercise(nb["cells"][i]) and k not in placed]
    return out
