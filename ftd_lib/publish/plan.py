"""The three-lecture plan, as data: which parts of which notebook each lecture takes, what it
moves out of the lecture or drops, its discussion and its homework; and the pre-reading.

The plan names what it takes, moves and drops by the **cells' own names** (a tag
``cell-<name>`` on the cell, :func:`ftd_lib.course.roles.cell_names`), never by a section's
number or a slide's title: retitling a slide or renumbering a section changes no lecture.
A name no cell carries any more (the cell was removed, or its tag) fails at once with the file
and line of the plan to edit (:func:`named_cell`).

- a **segment** (:class:`Segment`) takes the sections of one notebook from the one whose
  heading cell is named ``first`` to the one named ``last`` (``None``: from the start / to the
  end); ``moved`` names section headings it sends to homework or guided self-study, ``dropped``
  the opening cells of slides it leaves out;
- :data:`PRE_READING`: what the students read before the lectures; :data:`LECTURES`: the three
  lectures (:class:`Lecture`).

The minutes each lecture takes are computed from the notebooks' slides by
:mod:`ftd_lib.publish.lectures`; where each exercise goes, by
:mod:`ftd_lib.publish.exercise_places`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..course.roles import cell_names
from . import slide_words

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
PLAN_FILE = Path(__file__).resolve()

_SECTION = re.compile(r"##\s+(\d+)\.")


@dataclass(frozen=True)
class Segment:
    """The sections of one notebook from the one whose heading cell is named ``first`` to the
    one named ``last`` (``None``: from the start / to the end). An unnumbered section
    (``## Summary``) belongs to the numbered one before it; the title cell and what stands
    before the first section come with every segment."""

    notebook: str
    first: str | None = None
    last: str | None = None
    what: str = ""
    #: sections the lecture does not project, each by its heading cell's name, with where they
    #: go (``"homework"`` or ``"self-study"``); the deck keeps them, marked, outside ``--core``
    moved: tuple = ()
    #: slides the lecture drops, each by the name of the slide's opening cell
    dropped: tuple = ()

    def sections(self, nb=None) -> tuple:
        """``(first, last)`` section numbers (``None``: open end) of the named headings."""
        nb = read(self.notebook) if nb is None else nb
        return tuple(None if name is None else section_of(nb, name, self.notebook)
                     for name in (self.first, self.last))

    def label(self, nb=None) -> str:
        """``"06 §1–2"``, ``"04 §3–end"``, ``"02"``: the segment by its sections' numbers."""
        nb_id = self.notebook[:2]
        if self.first is None and self.last is None:
            return nb_id
        nb = read(self.notebook) if nb is None else nb
        first, last = self.sections(nb)
        if first is None:  # from the start: from the first numbered section
            first = min(n for n in section_numbers(nb) if n is not None)
        a = str(first)
        b = "end" if last is None else str(last)
        return f"{nb_id} §{a}–{b}" if a != b else f"{nb_id} §{a}"


@dataclass(frozen=True)
class Lecture:
    number: int
    title: str
    segments: tuple
    discussion_min: int  #: the discussion it promises, at least
    discussion: str
    homework: tuple  #: exercise keys (``nbNN.name``, the hint's key) sent home, not done in class
    questions: tuple = ()  #: INSTRUCTORS.md's discussion questions it discusses (numbers)
    written: str = ""  #: what the plan asks in writing (on the homework slide)


PRE_READING = (
    Segment("01_td_basics", what="returns, values, the TD(0) update, the RMS error, step sizes; "
            "its three exercises check themselves"),
    Segment("06_nn_control", None, "cell-06-mountain-car", what="from TD(λ) to Sarsa(λ): one "
            "network per action; the mountain-car control task"),
)

LECTURES = (
    Lecture(1, "notebooks 02 and 03 — why TD(λ) breaks",
            (Segment("01_td_basics", "cell-01-td-update", "cell-01-td-update",
                     what="recap of the pre-reading: the general TD update (eq. 1), the thread "
                     "of the course"),
             Segment("02_lambda_return", what="the glossary to Sutton & Barto; n-step and "
                     "interim λ-returns (exercise ``nb02.n_step_return`` in pairs, its "
                     "λ-weighted twin at home); the online/offline λ-return algorithms; "
                     "TD(λ) and traces; Figure 1; Theorem 1"),
             Segment("03_one_state_divergence", what="the one-state example: β = αT against "
                     "1−(1−α)^T, the explorer live (push α past 2/T); Figure 2; the "
                     "exercises go home", moved=(("cell-03-exercises", "homework"),))),
            10, "discussion question 1 (replacing traces)",
            ("nb01.td0_update", "nb02.interim_lambda_return", "nb02.build_td_lambda",
             "nb03.beta_td_lambda", "nb03.divergence_edge", "nb03.beta_two",
             "nb03.replacing_traces"),
            questions=(1,)),
    Lecture(2, "notebooks 04 and 05 — forward TD(λ), and prediction with a network",
            (Segment("04_forward_td_lambda", what="the K-bounded λ-return, the δ′-sum, "
                     "Algorithm 1 whole with the stepper's frames, rounding, cost and memory; "
                     "the exercises on the homework slide",
                     moved=(("cell-04-exercises", "homework"),),
                     dropped=("cell-04-two-ways", "cell-04-tiny-differences")),
             Segment("05_nn_prediction", what="mountain car; Figure 3 left (stored): TD(λ) "
                     "diverges, forward TD(λ) wins; Figure 3 right and the claims are guided "
                     "self-study, claim 4 (the η question) written homework",
                     moved=(("cell-05-figure3-right", "self-study"),
                            ("cell-05-claims", "self-study")),
                     dropped=("cell-05-figure3-left-live",))),
            10, "discussion question 2 (the DQN analogy)",
            ("nb04.rho_recursion", "nb04.build_algorithm1", "nb04.next_bounded_return",
             "nb04.first_update", "nb04.horizon_extension", "nb04.k1_is_td0",
             "nb05.true_value", "nb05.yardstick", "nb05.predict_then_measure"), questions=(2,),
            written="discussion question 4, after 05 §5–6: is the paper's \"not really "
                    "affected by η\" true of §6's best errors, and who should choose the "
                    "threshold, before or after seeing the data? (claim 4)"),
    Lecture(3, "notebooks 06 and 07 — control, Figure 4, and where λ lives today",
            (Segment("06_nn_control", "cell-06-mountain-car-live", None, what="mountain car "
                     "live; cart-pole (the live run dropped), the collapse and learning from "
                     "scratch; time limits; Figure 4 and the claims; the exercises but "
                     "``nb06.simulate_policy`` go home",
                     dropped=("cell-06-cartpole-live", "cell-06-cartpole-returns",
                              "cell-06-cartpole-agent", "cell-06-greedy-frozen")),
             Segment("07_modern_lambda_returns", what="GAE as the truncated λ-return over a "
                     "rollout; sliding window against block; the block λ-return experiment; "
                     "target networks")),
            10, "discussion questions 3 (forward Sarsa(1)) and 5 (time limits)",
            ("nb06.forward_sarsa_delay", "nb06.epsilon_greedy", "nb06.cartpole_target",
             "nb07.gae_recursion"), questions=(3, 5)),
)


def read(stem: str):
    """The notebook ``notebooks/<stem>.ipynb`` (nbformat 4)."""
    import nbformat

    return nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)


def plan_line(name: str) -> int:
    """The line of this file where the plan names cell ``name`` (0 where it does not)."""
    for k, line in enumerate(PLAN_FILE.read_text().splitlines(), 1):
        if f'"{name}"' in line:
            return k
    return 0


def named_cell(nb, name: str, stem: str = "") -> int:
    """The index of the cell of ``nb`` named ``name`` (tagged ``cell-<name>``); a ValueError
    naming the plan's file and line, and the notebook's source, where no cell is."""
    hits = [i for i, c in enumerate(nb["cells"]) if name in cell_names(c)]
    if len(hits) != 1:
        where = f"{PLAN_FILE.relative_to(REPO)}:{plan_line(name)}"
        src = f"notebooks/src/{stem}.md" if stem else "the notebook"
        raise ValueError(f"{where}: the lecture plan names cell {name!r}, which "
                         f"{'no cell' if not hits else f'{len(hits)} cells'} of {src} "
                         f"carr{'ies' if not hits else 'y'} (tag the cell that replaces a "
                         f"removed one with {name!r}, or edit the plan at {where})")
    return hits[0]


def section_numbers(nb) -> list:
    """For each cell, the number of the ``## N.`` section it sits in (``None`` before the
    first section; an unnumbered ``##`` section keeps the number of the one before)."""
    out, current, started = [], None, False
    for cell in nb["cells"]:
        src = slide_words._src(cell).lstrip()
        if cell["cell_type"] == "markdown" and src.startswith("## "):
            m = _SECTION.match(src)
            if m:
                current = int(m.group(1))
            started = True
        out.append(current if started else None)
    return out


def section_of(nb, name: str, stem: str = "") -> int:
    """The number of the section whose ``## N.`` heading is the cell named ``name``; a
    ValueError where the named cell is no numbered heading."""
    i = named_cell(nb, name, stem)
    m = _SECTION.match(slide_words._src(nb["cells"][i]).lstrip())
    if not m:
        raise ValueError(f"{PLAN_FILE.relative_to(REPO)}:{plan_line(name)}: cell {name!r} of "
                         f"notebooks/src/{stem}.md is no '## N.' section heading")
    return int(m.group(1))


def in_summary(nb) -> list:
    """For each cell, whether it stands in an unnumbered ``##`` section (``## Summary``): a
    wrap-up of the whole notebook, which the lecture keeps even where it moves the numbered
    section before it."""
    out, inside = [], False
    for cell in nb["cells"]:
        src = slide_words._src(cell).lstrip()
        if cell["cell_type"] == "markdown" and src.startswith("## "):
            inside = not _SECTION.match(src)
        out.append(inside)
    return out


def segment_cells(nb, seg: Segment) -> list[int]:
    """The indices of the cells of ``nb`` that segment ``seg`` takes (the intro always)."""
    first, last = seg.sections(nb)
    return [i for i, n in enumerate(section_numbers(nb))
            if n is None or ((first is None or n >= first) and (last is None or n <= last))]

