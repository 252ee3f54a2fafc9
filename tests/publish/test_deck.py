"""The static decks without a browser: what a deck's HTML loads exists in the deck's folder and
is local, a widget shows its saved picture, notes go to the speaker view, and the CLI refuses
bad input in one line. (tests/publish/test_deck_browser.py opens the decks in Chromium.)"""

import copy
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import built_decks

from ftd_lib.course import roles
from ftd_lib.publish import deck, present, slide_pictures
from ftd_lib.publish import exercise_places as X
from ftd_lib.publish import lectures as L
from ftd_lib.publish import plan as P
from ftd_lib.publish import slide_words as sw

pytestmark = pytest.mark.slow  # every lecture's deck notebooks and the decks

REPO = Path(__file__).resolve().parents[2]
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def decks():
    paths = built_decks()
    return paths[0].parent, paths


def test_one_deck_per_lecture_loading_only_local_files(decks):
    out, paths = decks
    assert [p.name for p in paths] == [f"lecture{lec.number}.html" for lec in P.LECTURES]
    for path in paths:
        html = path.read_text()
        # what the page loads: scripts, images, style sheets (not the links a reader may follow)
        refs = re.findall(r'src="([^"#]+)"', html) + re.findall(
            r'<link[^>]*href="([^"#]+)"', html)
        remote = [r for r in refs if re.match(r"[a-z]+://", r) or r.startswith("//")]
        assert remote == [], f"{path.name} loads {remote[:3]}"
        local = [r.split("?")[0] for r in refs if not r.startswith("data:")]
        assert f"{deck.ASSETS}/reveal.js/dist/reveal.js" in local
        assert f"{deck.ASSETS}/reveal.js/plugin/notes/notes.js" in local
        assert f"{deck.ASSETS}/mathjax/MathJax.js" in local
        missing = [r for r in local if not (out / r).is_file()]
        assert missing == [], f"{path.name} refers to missing files {missing}"
        assert "<aside class=\"notes\">" in html
        assert "data:image/png;base64," in html
        assert "require.js" not in html and "jquery" not in html.lower().split("<body")[0]
    theme = (out / deck.ASSETS / "reveal.js/dist/theme/white.css").read_text()
    for css in re.findall(r"@import url\(([^)]+)\)", theme):
        font_css = out / deck.ASSETS / "reveal.js/dist/theme" / css
        assert font_css.is_file()
        fonts = re.findall(r"url\(['\"]?([^)'\"?#]+)", font_css.read_text())
        assert fonts and all((font_css.parent / f).is_file() for f in fonts), fonts


@pytest.fixture(scope="module")
def lecture_views():
    """Each lecture's deck notebook, in full and core (the cells the deck renders)."""
    return {(lec.number, core): deck.lecture_notebook(lec, core=core)
            for lec in P.LECTURES for core in (False, True)}


def _slides(nb):
    """The deck's slides: lists of cells, as reveal.js groups them."""
    return [[nb.cells[i] for i in g] for g in L.slide_groups(nb)]


def test_lecture_takes_the_planned_cells(lecture_views):
    nb = lecture_views[(3, False)]  # 06 from §3, then 07
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "## 3." in text and "## 1. From TD(λ) to Sarsa(λ)" not in text
    assert nb.cells[1].metadata["slideshow"]["slide_type"] == "notes"
    assert "| min |" in nb.cells[1].source


@pytest.mark.parametrize("number", [lec.number for lec in P.LECTURES])
def test_a_slide_shows_what_the_room_needs(lecture_views, number):
    """No scaffold, hint, solution or test marker on a slide; code only where tagged
    show-code, on at most one slide in eight; every slide opens with its speaker cue; the
    deck ends on the homework slide and the discussion."""
    nb = lecture_views[(number, False)]
    assert not any(roles.has(c, roles.EXERCISE) and not roles.shows_code(c)
                   or roles.has(c, roles.HINT) or roles.is_solution(c) for c in nb.cells)
    slides = _slides(nb)
    code = [s for s in slides if any(c.cell_type == "code" and present.shown_source(c)
                                     and sw.slide_type(c) not in ("skip", "notes") for c in s)]
    assert len(code) <= len(slides) / 8, (len(code), len(slides))
    assert all(roles.shows_code(c) for s in code for c in s
               if c.cell_type == "code" and present.shown_source(c))
    html = deck.render(nb)
    assert "NBVAL" not in html and "No answer yet" not in html
    assert "display(Markdown(" not in html and "NotImplementedError" not in html
    for k, s in enumerate(slides):
        notes = [c.source for c in s if sw.slide_type(c) == "notes"]
        assert notes and notes[0].startswith("**Cue** ("), (number, k, s[0].source[:60])
        assert (" min, core)" in notes[0]) == ('class="ftd-mark"' not in s[0].source
                                                and 'class="ftd-mark"' not in
                                                (s[1].source if len(s) > 1 else "")), notes[0]
    # the homework slide, then one discussion slide with every question of the lecture
    assert slides[-2][0].source.startswith(f"## Homework after lecture {number}")
    assert all(f"**Question {q}**" in slides[-1][0].source
               for q in P.LECTURES[number - 1].questions)
    assert slides[-1][0].source.startswith("## Discussion")


def test_the_core_deck_leaves_out_what_the_plan_does_not_time(lecture_views):
    for lec in P.LECTURES:
        full, core = lecture_views[(lec.number, False)], lecture_views[(lec.number, True)]
        marked = sum('class="ftd-mark"' in c.source for c in full.cells)
        assert marked > 0 and not any('class="ftd-mark"' in c.source for c in core.cells)
        assert not any(L.is_optional(c) for c in core.cells)
        assert len(_slides(core)) == len(_slides(full)) - marked, lec.number
    # 06 §4's live cart-pole run is not in the core deck, Figure 3 right (05 §5) neither
    core2, core3 = lecture_views[(2, True)], lecture_views[(3, True)]
    assert not any("Both methods on cart-pole, live" in c.source for c in core3.cells)
    assert not any("## 5. Figure 3 right" in c.source for c in core2.cells)


def test_the_core_deck_keeps_each_summary_and_the_numbers_of_an_exercise_in_class(
        lecture_views):
    """The core deck shows the Summary of every
    notebook the lecture takes to its end; an exercise put to the room shows on its slide the
    numbers to work from (drawn without a student id) and its cue gives the answer."""
    for lec in P.LECTURES:
        core = lecture_views[(lec.number, True)]
        text = [c.source for c in core.cells]
        titles = [c.source for c in core.cells if c.source.startswith("# ")]
        ends = [s for s in lec.segments if s.last is None]
        assert sum(t.startswith("## Summary") for t in text) == len(ends), lec.number
        assert len(titles) >= 1
        for key, _, where in X.exercise_places(lec):
            if where != "class":
                continue
            k = next(i for i, t in enumerate(text) if t.startswith("### Exercise")
                     and closing_title(key) in t)
            slide = next(g for g in L.slide_groups(core) if k in g)
            shown = " ".join(core.cells[i].source for i in slide)
            assert "**The numbers** (without a student id)" in shown, key
            cue = next(core.cells[i].source for i in slide if sw.slide_type(core.cells[i])
                       == "notes")
            assert "Answer without a student id: " in cue, cue
    # 02.1: G_0^(2) = R_1 + γ R_2 + γ² V̂(S_2) on the printed numbers, by hand
    from ftd_lib.course.exercises import nb02

    e = nb02.EPISODE
    g2 = e["rewards"][0] + e["gamma"] * e["rewards"][1] + e["gamma"] ** 2 * e["values"][2]
    shown = "\n".join(c.source for c in lecture_views[(1, True)].cells)
    assert "rewards = [1, 0, 2], values = [0.7, 0.5, 1, 0], gamma = 0.9" in shown
    assert f"Answer without a student id: {g2:.4g}." in shown and g2 == pytest.approx(1.81)


def closing_title(key):
    from ftd_lib.publish import closing

    nb = P.read(next(p.stem for p in (REPO / "notebooks").glob(f"{key[2:4]}_*.ipynb")))
    i = next(i for i, k in L.exercise_keys(nb).items() if k == key)
    return closing.exercise_title(nb, i).split(" (")[0]


def test_algorithm1_whole_and_the_stepper_frame_by_frame(lecture_views):
    """Lecture 2 shows Algorithm 1 in two halves (lines 1–16, 17–33), its five parts as
    fragments, and the stepper's key frames as fragments, in order: t = 0, 2 (δ′ = 2), 3 (the
    first update), 7 (the first resynchronisation after it), 8 (δ′ = 2) and the end (14), none
    of the frames that repeat an update."""
    html = deck.render(lecture_views[(2, True)])
    assert html.count('class="fragment highlight-current-blue ftd-alg-part"') == 5
    assert "lines 1–16" in html and "lines 17–33" in html
    from ftd_lib.course.stepper import algorithm1_stepper

    assert len(algorithm1_stepper().frames) == 15  # the notebook's and the site's
    shown = [int(k) for k in re.findall(r'class="ftd-frame[^"]*" data-frame="(\d+)"', html)]
    assert shown == [0, 2, 3, 7, 8, 14]


def test_widget_shows_its_picture_drawn_for_the_slide():
    """A widget's output on the deck is its picture alone (no view: it needs a kernel),
    drawn anew by the deck at the dpi that fills the slide's picture box: the saved picture's
    figure (the same inches: the pixel sizes scale by the dpi) at a larger dpi than the
    notebook's 90, with its text size and dpi for the slide (data-ftd-text-pt, data-ftd-dpi)."""
    import base64
    import io

    from matplotlib.image import imread

    from ftd_lib.style import WIDGET_DPI

    nb = P.read("03_one_state_divergence")
    k = next(i for i, c in enumerate(nb.cells)
             for o in c.get("outputs", []) if WIDGET in o.get("data", {}))
    saved = next(o["data"]["image/png"] for o in nb.cells[k].outputs
                 if WIDGET in o.get("data", {}))
    out = slide_pictures.deck_notebook(nb)
    pics = [o for o in out.cells[k].outputs if "image/png" in o.get("data", {})]
    assert len(pics) == 1 and all(WIDGET not in o["data"] for o in out.cells[k].outputs)
    md = pics[0]["metadata"]["image/png"]
    h0, w0 = imread(io.BytesIO(base64.b64decode(saved))).shape[:2]
    h1, w1 = imread(io.BytesIO(base64.b64decode(pics[0]["data"]["image/png"]))).shape[:2]
    assert md["ftd_dpi"] > WIDGET_DPI
    assert w1 / w0 == pytest.approx(md["ftd_dpi"] / WIDGET_DPI, rel=0.01)
    assert h1 / h0 == pytest.approx(md["ftd_dpi"] / WIDGET_DPI, rel=0.01)
    html = deck.render(out)
    assert f'data-ftd-text-pt="{md["ftd_text_pt"]}"' in html


def test_cli_refuses_bad_input_in_one_line(tmp_path):
    (tmp_path / "x").write_text("")
    for args in (["--out", str(tmp_path)], ["--out", str(tmp_path / "x")],
                 ["--out", str(tmp_path / "new"), "--notebooks", "nope.ipynb"]):
        r = subprocess.run([sys.executable, "-m", "ftd_lib", "slides", *args],
                           capture_output=True, text=True, cwd=REPO, timeout=120)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and ("--out" in lines[0] or "--notebooks" in lines[0]), lines


def test_deck_notebook_leaves_the_original_alone():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("w()", outputs=[
        nbformat.v4.new_output("display_data", data={WIDGET: {"model_id": "m"},
                                                      "image/png": "iVBO", "text/plain": "W"})])])
    nb.metadata["widgets"] = {"state": {}}
    out = slide_pictures.deck_notebook(nb)
    assert out.cells[0].outputs[0]["data"] == {"image/png": "iVBO"}
    assert "widgets" not in out.metadata
    assert WIDGET in nb.cells[0].outputs[0]["data"] and "widgets" in nb.metadata


def test_references_point_at_what_each_deck_shows(lecture_views):
    """Every "the next slide", "above", "below", "section N" and "move the slider" of a slide or
    its cue points at something the deck shows (core and full): the core deck drops and moves
    slides, and a deck shows a widget's picture, not its sliders. The check is proven on
    sentences that point at a dropped slide, a moved section and a widget."""
    from ftd_lib.publish import references

    for (number, core), nb in lecture_views.items():
        assert references.unresolved(nb) == [], (number, core)
    core, full = copy.deepcopy(lecture_views[(2, True)]), lecture_views[(2, False)]
    k = next(i for i, c in enumerate(core.cells) if c.cell_type == "markdown"
             and "the error averaged over 50 episodes" in c.source)
    core.cells[k].source += "\n\nThe next slide, a live run. The η study is in section 5."
    found = references.unresolved(core)
    assert any("'the next slide'" in f for f in found), found  # the live run is dropped
    assert any("'section 5'" in f for f in found), found  # 05 §5 is self-study
    assert not any("'the next slide'" in f or "section 5" in f
                   for f in references.unresolved(full))
    core.cells[k].source += "\n\nMove the slider to α = 0.002."
    assert any("slider" in f for f in references.unresolved(core))


def test_every_cue_says_something(lecture_views):
    """A cue that only repeats the slide's title ("the slide's point: Summary."), a bare lead-in
    ("Reading.", "Learning goals.") or a stray list bullet ("* ...") gives the lecturer nothing:
    none is left on the core decks, and the fallback says the slide's own first sentence."""
    from ftd_lib.publish import cues

    for (number, core), nb in lecture_views.items():
        if not core:
            continue
        for slide in _slides(nb):
            cue = next((c.source for c in slide if c.source.startswith("**Cue**")), None)
            if cue is None:
                continue
            said = cue.split("): ", 1)[1]
            head = next((c.source.lstrip("#").split("\n")[0].strip() for c in slide
                         if c.cell_type == "markdown" and c.source.lstrip().startswith("#")), "")
            assert "*" not in said.replace("**", ""), (number, said)
            assert not said.startswith("the slide's point"), (number, said)
            assert len(said.rstrip(".").split()) > 3, (number, said)
            assert said.rstrip(".").strip() != head, (number, said)
    md = nbformat.v4.new_markdown_cell("## Summary\n\n* Forward TD(λ) costs what TD(0) costs, "
                                       "and its targets are the λ-return's.")
    md.metadata["slideshow"] = {"slide_type": "slide"}
    assert cues.say([md], False, False) == ("the point: Forward TD(λ) costs what TD(0) costs, "
                                            "and its targets are the λ-return's.")


def test_an_exercise_over_two_slides_has_one_corner_tag(lecture_views):
    """Exercise 05.3's statement runs over two slides (its part (c) on the second, with the
    answer cell): both go home with the exercise, so both say "homework" in the full deck (the
    first said "optional", from its cell tag) and neither is in the core deck."""
    full, core = lecture_views[(2, False)], lecture_views[(2, True)]
    slides = _slides(full)
    k = next(j for j, s in enumerate(slides)
             if "Exercise 3 — an experiment: predict, then measure" in s[0].source + (
                 s[1].source if len(s) > 1 else ""))
    tags = [re.findall(r'class="ftd-mark">([^<]+)<', "".join(c.source for c in s))
            for s in slides[k:k + 2]]
    assert "(c) Measure" in "".join(c.source for c in slides[k + 1])
    assert tags == [["homework"], ["homework"]], tags
    assert not any("(c) Measure" in c.source or "Before you look at the" in c.source
                   for c in core.cells)  # the homework slide names it, by its title


def test_the_speaker_notes_timetable_has_the_columns_a_lecturer_reads(lecture_views):
    """The title slide's notes carry each lecture's timetable with its minutes, what is on and
    what is optional, row for row as INSTRUCTORS.md's (lecture_plan.lecture_table), without the
    counts the minutes come from (ten columns broke the pane's headings letter by letter); a
    cell's escaped '|' is no column's edge."""
    from ftd_lib.publish.lecture_plan import lecture_table

    for lec in P.LECTURES:
        full = lecture_table(lec)[0].splitlines()
        short = deck.speaker_timetable("\n".join(full)).splitlines()
        assert short[0] == "| min | what | optional |" and len(short) == len(full)
        for a, b in zip(full[2:], short[2:], strict=True):
            cells = [c.strip() for c in a.strip("|").split(" | ")]
            assert b.startswith(f"| {cells[0]} | {cells[1]} |"), (a, b)
        notes = next(c.source for c in lecture_views[(lec.number, True)].cells
                     if c.metadata.get("slideshow", {}).get("slide_type") == "notes")
        assert "\n".join(short) in notes and "| slides |" not in notes
    t = "| min | what | x | optional |\n| --- | --- | --- | --- |\n| 0–2 | $G^{λ\\|h}$ | 1 | 3 |"
    assert deck.speaker_timetable(t).splitlines()[-1] == "| 0–2 | $G^{λ\\|h}$ | 3 |"
