"""The three-lecture plan (ftd_lib/publish/lectures.py): its timing rule on hand-worked numbers,
every lecture fits 90 minutes with the discussion it promises, and INSTRUCTORS.md's plan is the
one the plan and the notebooks give (python -m ftd_lib.publish.lecture_plan --write)."""

import re
from pathlib import Path

import nbformat
import pytest

from ftd_lib.course.exercises.hints import HINTS
from ftd_lib.course.roles import EXERCISE, HINT, SHOW_CODE, has
from ftd_lib.publish import closing, exercise_table, lecture_plan, run_times
from ftd_lib.publish import exercise_places as X
from ftd_lib.publish import lectures as L
from ftd_lib.publish import plan as P

pytestmark = pytest.mark.slow  # the lecture plan generated from every notebook

REPO = Path(__file__).resolve().parents[2]
#: the run times of the hand-made cells below, by cell id (as notebooks/run_times.json stores
#: the notebooks')
TIMES = {}


@pytest.fixture(autouse=True)
def _hand_made_run_times(monkeypatch):
    real = run_times.stored()
    monkeypatch.setattr(run_times, "stored", lambda: {**real, **TIMES})


def _cell(kind, src, slide="-", tags=(), run_s=None, outputs=()):
    c = (nbformat.v4.new_markdown_cell(src) if kind == "md"
         else nbformat.v4.new_code_cell(src, outputs=list(outputs)))
    c.metadata["slideshow"] = {"slide_type": slide}
    if tags:
        c.metadata["tags"] = list(tags)
    if run_s is not None:
        TIMES[c.id] = ("hand-made", float(run_s))
    return c


def _words(n):
    return " ".join(["word"] * n)


def test_rule_on_a_small_notebook():
    out = nbformat.v4.new_output("stream", text="a b c\n")
    cells = [
        _cell("md", "# Title " + _words(29), "slide"),  # 30 words
        _cell("code", "import x", "skip", run_s=1),  # not shown
        _cell("code", "f()\ng()\nh()", "-", run_s=12, outputs=[out],
              tags=[SHOW_CODE]),  # code shown: 3 lines + 3 words, 12 s
        _cell("md", "## 1. A\n\n" + _words(58), "slide"),  # 60 words
        _cell("md", _words(120), "notes"),  # not shown
        _cell("md", "### Side\n\n" + _words(29), "subslide", tags=[L.OPTIONAL]),  # optional
        _cell("code", "one_state_explorer()", "-", run_s=2),  # optional too; code not shown
        _cell("md", _words(30), "fragment", tags=[L.OPTIONAL]),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    t = L.timing(nb)
    slide1 = L.SLIDE_MIN + 30 / L.WORDS_PER_MIN + 6 / L.WORDS_PER_MIN + 12 / 60
    slide2 = L.SLIDE_MIN + 60 / L.WORDS_PER_MIN
    slide3 = (L.SLIDE_MIN + 30 / L.WORDS_PER_MIN + 2 / 60 + L.WIDGET_MIN
              + 30 / L.WORDS_PER_MIN)
    assert t.slides == 3 and t.words == 36 + 60 + 60 and t.widgets == 1
    assert t.run_s == pytest.approx(14.0)
    assert t.core == pytest.approx(slide1 + slide2)
    assert t.optional == pytest.approx(slide3)
    # an optional cell on an ordinary slide is optional alone
    cells[7].metadata["tags"] = []
    cells[5].metadata["tags"] = []
    cells[3].metadata["tags"] = [L.OPTIONAL]
    t2 = L.timing(nb)
    assert t2.optional == pytest.approx(slide2)


def test_formulas_figures_and_exercises_by_hand():
    """The lecturer's three terms: 1 min a display formula, 1.5 min a figure, 2 min an exercise
    put to the room; an exercise the plan sends home, with its slide, goes to the optional
    column; what the deck does not show (a scaffold, a hint) costs nothing."""
    png = nbformat.v4.new_output("display_data", data={"image/png": "iVBO", "text/plain": "F"})
    cells = [
        _cell("md", "# T", "slide", tags=["cell-t"]),                     # 1 word
        _cell("md", "## 1. A\n\n$$a = b$$\n\nand\n\n$$c = d$$", "slide",
              tags=["cell-a"]),                                             # 2 formulas: 5 words
        _cell("code", "plot()", "-", run_s=0, outputs=[png]),              # a figure, no words
        _cell("md", "### Exercise 1 — x", "subslide"),                    # 3 words
        _cell("code", "answer = None\ncheck(answer)", "skip", run_s=0, tags=[EXERCISE]),
        _cell("code", 'hint("nb01.discounted_return")', "skip", run_s=0, tags=[HINT]),
        _cell("md", "### Exercise 2 — y", "subslide"),                    # 3 words
        _cell("code", "answer = None", "skip", run_s=0, tags=[EXERCISE]),
        _cell("code", 'hint("nb01.bellman_row")', "skip", run_s=0, tags=[HINT]),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    assert L.exercise_keys(nb) == {4: "nb01.discounted_return", 7: "nb01.bellman_row"}
    assert L.slide_groups(nb) == [[0], [1, 2], [3, 4, 5], [6, 7, 8]]
    moved = L.moved_cells(nb, P.Segment("x"), homework=("nb01.bellman_row",))
    assert moved == {6: "homework", 7: "homework", 8: "homework"}
    t = L.timing(nb, moved=moved)
    w = L.WORDS_PER_MIN
    core = (L.SLIDE_MIN + 1 / w) + (L.SLIDE_MIN + 5 / w + 2 * L.FORMULA_MIN + L.FIGURE_MIN) + (
        L.SLIDE_MIN + 3 / w + L.EXERCISE_MIN)
    assert t.core == pytest.approx(core)
    assert t.optional == pytest.approx(L.SLIDE_MIN + 3 / w + L.EXERCISE_MIN)
    assert (t.formulas, t.figures, t.exercises, t.slides) == (2, 1, 1, 4)
    # a section sent away and a slide dropped
    moved = L.moved_cells(nb, P.Segment("x", moved=(("cell-a", "self-study"),),
                                        dropped=("cell-t",)))
    assert moved[0] == "dropped" and moved[1] == moved[6] == "self-study"
    # the plan names cells, not titles: a retitled slide and a renumbered section change
    # nothing; a name no cell carries fails with the plan's file and line
    nb.cells[0].source, nb.cells[1].source = "# Retitled", nb.cells[1].source.replace("1.", "4.")
    assert L.moved_cells(nb, P.Segment("x", moved=(("cell-a", "self-study"),),
                                       dropped=("cell-t",))) == moved
    with pytest.raises(ValueError, match=r"ftd_lib/publish/plan.py:\d+: .*'cell-gone'"):
        L.moved_cells(nb, P.Segment("x", dropped=("cell-gone",)))
    nb.cells[2].metadata["tags"] = ["cell-b"]  # the figure's code cell, inside a slide
    with pytest.raises(ValueError, match="open no slide"):
        L.moved_cells(nb, P.Segment("x", dropped=("cell-b",)))


def test_walk_through_by_hand():
    """Algorithm 1's walk-through: each part of the listing the deck lights costs a display
    formula's minute, each stepper frame the deck shows a slide's half minute (counted from
    the stepper's key frames, not from the slide's text); 04 §3 then gets about 14 minutes:
    the listing part by part, and the six frames where Algorithm 1 first does each thing or
    takes in new information (the frames that repeat an update stay in the notebook)."""
    from ftd_lib.course.stepper import algorithm1_markdown, algorithm1_stepper, key_frames

    md = nbformat.v4.new_output("display_data", data={
        "text/markdown": algorithm1_markdown(17, 33, parts=((17, 22), (23, 28), (29, 33))),
        "text/plain": "<IPython.core.display.Markdown object>"})
    listing = _cell("code", "display(Markdown(algorithm1_markdown(17, 33, parts=...)))", "-",
                    run_s=0, outputs=[md])
    plain = _cell("code", "display(Markdown(algorithm1_markdown(17, 33)))", "-", run_s=0,
                  outputs=[nbformat.v4.new_output("display_data", data={
                      "text/markdown": algorithm1_markdown(17, 33)})])
    stepper = _cell("code", "stepper = algorithm1_stepper(eta=0.3)\nstepper", "-", run_s=0)
    n = len(key_frames(algorithm1_stepper(eta=0.3).frames))
    assert n == 6  # t = 0, 1 and 2 (δ′ ≠ 0), 3 (first update), 8 (δ′ ≠ 0), the end; K = 2
    assert L.walk_steps(listing) == (3, 0) and L.walk_steps(plain) == (0, 0)
    assert L.walk_steps(stepper) == (0, n)
    words = L.slide_words.cell_words
    assert L.cell_minutes(listing) == pytest.approx(words(listing) / L.WORDS_PER_MIN
                                                    + 3 * L.PART_MIN)
    assert L.cell_minutes(plain) == pytest.approx(words(plain) / L.WORDS_PER_MIN)
    assert L.cell_minutes(stepper) == pytest.approx(L.WIDGET_MIN + n * L.FRAME_MIN)
    nb = nbformat.v4.new_notebook(cells=[_cell("md", "## 1. A", "slide"), listing,
                                         _cell("md", "### S", "subslide"), stepper])
    assert L.timing(nb).steps == 3 + n
    seg = P.LECTURES[1].segments[0]
    row = next(t for label, _, t in L.section_rows(seg) if label == "04 §3")
    assert row.steps == 5 + len(key_frames(algorithm1_stepper().frames)) == 5 + 6
    assert 12 <= row.core <= 16


def test_the_cuts_that_make_the_lectures_fit_are_in_the_plan():
    """The cuts a lecturer's pacing asked for: 03 §6 to homework; 04 §8 to homework; 05 §5–6
    to guided self-study; 06 §4's live cart-pole run dropped; 06's exercises but
    ``nb06.simulate_policy`` to homework."""
    l1, l2, l3 = P.LECTURES

    def moved(seg):
        nb = P.read(seg.notebook)
        return {P.section_of(nb, name, seg.notebook): w for name, w in seg.moved}

    assert moved(l1.segments[2]) == {6: "homework"}
    assert moved(l2.segments[0]) == {8: "homework"}
    assert moved(l2.segments[1]) == {5: "self-study", 6: "self-study"}
    assert ({"nb06.forward_sarsa_delay", "nb06.epsilon_greedy", "nb06.cartpole_target"}
            <= set(l3.homework))
    nb = P.read("06_nn_control")
    moved = L.segment_moved(l3.segments[0], nb)
    dropped = [i for i, w in moved.items() if w == "dropped"]
    assert dropped and any("train_methods(\"cartpole\"" in nb.cells[i].source for i in dropped)
    assert l1.questions == (1,) and l2.questions == (2,) and l3.questions == (3, 5)


def test_the_closing_slides():
    """Each lecture ends on a homework slide naming every exercise it sends home, and on the
    plan's discussion questions in full, as INSTRUCTORS.md words them."""
    text = (REPO / "INSTRUCTORS.md").read_text()
    qs = closing.questions(text)
    assert set(qs) == {1, 2, 3, 4, 5}
    assert qs[1].startswith("**Replacing traces.**") and "<details>" not in qs[1]
    assert "Model answer" not in " ".join(qs.values())
    for lec in P.LECTURES:
        md = closing.homework_markdown(lec)
        for key in lec.homework:  # the label by the headings' order, read apart
            label = next(e.label for e in exercise_table.exercises() if e.key == key)
            assert f"- **{label}** " in md, (lec.number, key, md)
        cells = closing.discussion_cells(lec, 12)
        slides = [c.source for c in cells if c.metadata["slideshow"]["slide_type"] != "notes"]
        assert len(slides) == 1  # every question on one slide
        for q in lec.questions:
            assert f"**Question {q}** (" in slides[0] and qs[q].split("**")[1] in slides[0]
    nb01 = P.read("01_td_basics")
    first = next(i for i, c in enumerate(nb01["cells"]) if has(c, EXERCISE))
    assert closing.exercise_title(nb01, first) == "a discounted return (required)"


def test_every_required_exercise_is_done_in_class_or_assigned():
    """Every required exercise of a lecture's notebooks is
    either put to the room on a core slide or on the lecture's homework list; the homework slide
    says "done in class" of exactly the exercises the core deck shows, and assigns only
    exercises of the lecture's own notebooks."""
    for lec in P.LECTURES:
        places = X.exercise_places(lec)
        lost = [k for k, req, where in places if req and where is None]
        assert lost == [], (lec.number, lost)
        assert set(lec.homework) <= {k for k, _, _ in places}, lec.number
        md = closing.homework_markdown(lec)
        here = [X.exercise_label(k) for k, _, where in places if where == "class"]
        said = re.search(r"Done in class, finish at home: (.*)\.", md)
        assert (said.group(1).split(", ") if said else []) == here, (lec.number, md)
    # the slide of an exercise done in class is core: not moved, not optional
    l1 = P.LECTURES[0]
    assert [k for k, _, w in X.exercise_places(l1) if w == "class"] == ["nb02.n_step_return"]


def test_a_required_exercise_that_falls_through_is_refused():
    """An exercise on a moved slide and not on the homework list has no place; a required one
    makes the homework slide raise (the plan must place it)."""
    l2 = P.LECTURES[1]
    short = P.Lecture(2, l2.title, l2.segments, l2.discussion_min, l2.discussion,
                      tuple(k for k in l2.homework if k != "nb04.first_update"))
    assert ("nb04.first_update", True, None) in X.exercise_places(short)
    with pytest.raises(ValueError, match="nb04.first_update") as raised:
        closing.homework_markdown(short)
    assert "homework tuple in ftd_lib/publish/plan.py" in str(raised.value)  # the file to edit


def test_the_homework_line_follows_the_notebooks_order():
    """INSTRUCTORS.md's "Homework:" line lists the exercises as the notebooks order them, not
    as the lecture's tuple does (a reordered exercise would read "03.3, 03.2")."""
    keys = ("nb03.beta_two", "nb03.divergence_edge", "nb01.td0_update", "nb02.build_td_lambda")
    labels = [X.exercise_label(k) for k in keys]
    assert labels == ["03.3", "03.2", "01.3", "02.3"]
    assert lecture_plan._in_notebook_order(keys) == ["01.3", "02.3", "03.2", "03.3"]


def test_a_summary_stays_when_the_section_before_it_moves():
    """An unnumbered ``## Summary`` after a moved section is
    not moved with it, so every notebook a lecture takes to its end keeps its wrap-up."""
    cells = [_cell("md", "# T", "slide"), _cell("md", "## 1. A", "slide"),
             _cell("md", "## 2. Exercises", "slide", tags=["cell-ex"]),
             _cell("md", "x", "subslide"),
             _cell("md", "## Summary", "slide"), _cell("md", "y", "subslide")]
    nb = nbformat.v4.new_notebook(cells=cells)
    assert P.in_summary(nb) == [False, False, False, False, True, True]
    seg = P.Segment("x", moved=(("cell-ex", "homework"),))
    assert L.moved_cells(nb, seg) == {2: "homework", 3: "homework"}
    for lec in P.LECTURES:
        for seg in lec.segments:
            nb = P.read(seg.notebook)
            moved = L.segment_moved(seg, nb)
            summary = [i for i, x in enumerate(P.in_summary(nb)) if x]
            if seg.last is None:
                assert summary, seg.notebook
            assert not any(i in moved for i in summary), seg.notebook


def test_run_seconds_reads_the_stored_times_not_the_cells_timestamps():
    """The plan's run time of a cell is the stored one (notebooks/run_times.json): a re-executed
    notebook's timestamps (here 50 s) do not move it; a code cell without a stored time names the
    command that measures it."""
    c = _cell("code", "x", run_s=7)
    c.metadata["execution"] = {"iopub.execute_input": "2026-11-26T18:10:00.000000Z",
                               "shell.execute_reply": "2026-11-26T18:10:50.000000Z"}
    assert L.run_seconds(c) == pytest.approx(7.0)
    assert L.run_seconds(_cell("md", "text")) == 0.0
    with pytest.raises(ValueError, match="scripts/refresh_notebooks.py"):
        L.run_seconds(_cell("code", "x"))
    nb = P.read("02_lambda_return")
    code = next(x for x in nb.cells if x.cell_type == "code")
    stem, s = run_times.stored()[code.id]
    assert stem == "02_lambda_return" and L.run_seconds(code) == s


def test_sections_and_segments():
    cells = [_cell("md", "# T", "slide"), _cell("md", "intro"), _cell("md", "## 1. A", "slide"),
             _cell("md", "a"), _cell("md", "## 2. B", "slide"), _cell("md", "## 3. C", "slide"),
             _cell("md", "## Summary", "slide")]
    nb = nbformat.v4.new_notebook(cells=cells)
    assert P.section_numbers(nb) == [None, None, 1, 1, 2, 3, 3]
    for k, name in ((2, "cell-a"), (4, "cell-b")):
        nb.cells[k].metadata["tags"] = [name]
    assert P.segment_cells(nb, P.Segment("x", "cell-b", None)) == [0, 1, 4, 5, 6]
    assert P.segment_cells(nb, P.Segment("x", "cell-a", "cell-b")) == [0, 1, 2, 3, 4]
    assert P.Segment("x", "cell-a", "cell-b").label(nb) == "x §1–2"
    assert P.Segment("07_x").label() == "07"
    with pytest.raises(ValueError, match="no '## N.' section heading"):
        nb.cells[1].metadata["tags"] = ["cell-intro"]
        P.segment_cells(nb, P.Segment("x", "cell-intro"))


def test_the_plan():
    """06 §1–2 are pre-reading, 01 too; 07 has a slot of its own; every notebook 01–07 is in
    the plan; the homework names exercises by their keys (names, so inserting an exercise
    changes no key here): it includes the builds nb02.build_td_lambda, nb04.rho_recursion and
    nb04.k1_is_td0, and each key is an exercise of a notebook its lecture takes."""
    pre = {(s.notebook, s.sections()) for s in P.PRE_READING}
    assert ("01_td_basics", (None, None)) in pre and ("06_nn_control", (None, 2)) in pre
    l3 = P.LECTURES[2]
    assert [(s.notebook, s.sections()[0]) for s in l3.segments] == [
        ("06_nn_control", 3), ("07_modern_lambda_returns", None)]
    planned = {s.notebook for s in P.PRE_READING} | {
        s.notebook for lec in P.LECTURES for s in lec.segments}
    assert planned == {p.stem for p in (REPO / "notebooks").glob("0*.ipynb")}
    homework = {k for lec in P.LECTURES for k in lec.homework}
    assert ({"nb02.build_td_lambda", "nb04.rho_recursion", "nb04.k1_is_td0"} <= homework
            <= set(HINTS))
    where = {e.key: e.notebook for e in exercise_table.exercises()}
    for lec in P.LECTURES:
        for key in lec.homework:
            assert where.get(key) in {s.notebook for s in lec.segments}, (
                f"lecture {lec.number}'s homework {key!r} (ftd_lib/publish/lectures.py) is no "
                f"exercise of its notebooks (keys: {sorted(where)})")


@pytest.mark.parametrize("lecture", P.LECTURES, ids=lambda lec: f"lecture{lec.number}")
def test_every_lecture_fits_90_minutes_with_its_discussion(lecture):
    """The slides by the rule (optional cells left out) plus the discussion the lecture promises
    take at most 90 minutes, and leave at most MAX_SPARE more (a lecture is not half empty).
    Fails on notebooks whose slides still hold more than a lecture can show."""
    m = closing.lecture_minutes(lecture)
    assert m["core"] + m["discussion"] == L.LENGTH
    assert m["discussion"] >= lecture.discussion_min, X.overrun_message(
        lecture, m["core"], m["discussion"])
    assert m["discussion"] <= lecture.discussion_min + L.MAX_SPARE, m["discussion"]
    if lecture.number == 3:  # 07 gets its own ~25 minutes
        seven = next(c for s, c, _ in m["rows"] if s.notebook.startswith("07"))
        assert 15 <= seven <= 35, seven


def test_instructors_plan_is_generated():
    """INSTRUCTORS.md's plan, timetables and lecture column are what the plan and the
    notebooks give now (after the notebooks change: python -m ftd_lib.publish.lecture_plan
    --write)."""
    text = (REPO / "INSTRUCTORS.md").read_text()
    assert lecture_plan.render(text) == text, (
        "INSTRUCTORS.md's lecture plan or exercise table is stale: python -m "
        "ftd_lib.publish.lecture_plan --write")
    assert lecture_plan.main(["--check"]) == 0


def test_one_time_per_notebook():
    """No two places give a notebook different minutes: no "alone" column, no minutes for
    pre-reading, README and INSTRUCTORS name the notebooks alike."""
    text = (REPO / "INSTRUCTORS.md").read_text()
    readme = (REPO / "README.md").read_text()
    assert "| alone |" not in text and "~45 min" not in text
    assert "Six Jupyter notebooks" not in readme
    n = len(list((REPO / "notebooks").glob("0*.ipynb")))
    assert f"{['', '', '', '', '', '', 'Six', 'Seven', 'Eight'][n]} Jupyter notebooks" in readme
    for lec in P.LECTURES:
        for seg in lec.segments:
            row = next(ln for ln in text.splitlines() if ln.startswith(f"| `{seg.notebook}`"))
            assert f"lecture {lec.number}" in row, row
    minutes = re.findall(r"lecture (\d)(?: §[\w–]+)?: (\d+) min", text)
    assert len(minutes) == sum(len(lec.segments) for lec in P.LECTURES)


def test_every_required_exercise_has_a_place_pre_reading_included(monkeypatch):
    """Every required exercise of every notebook is placed: on a core slide, on a homework list
    or in the pre-reading, which INSTRUCTORS.md's pre-reading line and the homework slide of
    the lecture before name by label (06.1 was assigned nowhere: the check looked at the
    lectures only). Without the pre-reading of 06 §1–2, 06.1 falls through."""
    assert X.unplaced() == []
    six = next(s for s in P.PRE_READING if s.notebook == "06_nn_control")
    assert X.pre_reading_before(six) == 3
    labels = [X.exercise_label(k) for k, _, _ in X.pre_reading_places(six)]
    assert "06.1" in labels
    text = (REPO / "INSTRUCTORS.md").read_text()
    assert "exercise 06.1" in text.split("(pre-reading, not lectured)", 1)[1].split("\n")[0]
    assert "Before lecture 3, read: **06 §1–2** with exercise 06.1." in \
        closing.homework_markdown(P.LECTURES[1])
    monkeypatch.setattr(X, "PRE_READING", tuple(s for s in P.PRE_READING if s is not six))
    assert ("06_nn_control", X.pre_reading_places(six)[0][0]) in X.unplaced()


def test_the_discussion_cues_share_out_all_its_minutes():
    """The discussion slide gives each question whole minutes that add up to the discussion the
    plan leaves (lecture 3's 13 minutes over two questions were 6 + 6), and its cue the whole."""
    for lec in P.LECTURES:
        minutes = closing.lecture_minutes(lec)["discussion"]
        slide, cue = (c.source for c in closing.discussion_cells(lec, minutes))
        given = [int(m) for m in re.findall(r"\*\*Question \d+\*\* \((\d+) min\)", slide)]
        assert sum(given) == minutes and len(given) == len(lec.questions), (lec.number, given)
        assert cue.startswith(f"**Cue** ({minutes} min, core)"), cue
        assert f"## Discussion ({minutes} min)" in slide


def test_the_timetable_says_what_a_slower_room_leaves_for_the_discussion():
    """The rule's paced minutes worked out by hand: lecture 1 puts one exercise to the room
    (02.1, EXERCISE_MIN), lecture 2 walks Algorithm 1 through 5 listing parts and the stepper's
    6 key frames, lecture 3 neither; at half as long again over them, the discussion keeps
    ``rest - paced / 2`` minutes (rounded down), which the timetable's last row says, and
    still at least what the lecture promises."""
    want = {1: L.EXERCISE_MIN, 2: 5 * L.PART_MIN + 6 * L.FRAME_MIN, 3: 0.0}
    for lec in P.LECTURES:
        paced = sum(t.paced for seg in lec.segments for _, _, t in L.section_rows(seg))
        assert paced == pytest.approx(want[lec.number]), (lec.number, paced)
        rest = closing.lecture_minutes(lec)["discussion"]
        slow = lecture_plan.slower_room(lec, rest)
        assert slow == int(rest - want[lec.number] / 2)
        assert slow >= lec.discussion_min, (lec.number, slow)  # the promise, slower room too
        assert f"; {slow} if the room takes half as long again" in \
            lecture_plan.lecture_table(lec)[0].splitlines()[-1]
