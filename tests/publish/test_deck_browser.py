"""Browser test of the static decks (``python -m ftd_lib slides``): headless Chromium opens each
deck from ``file://`` with every non-local request refused, as a lecturer's laptop in a hall
without network, and moves through every slide (``Reveal.slide(h, v)``, every fragment shown).

- ``test_lecture_deck_offline[lectureN]``: on every slide, MathJax has typeset the math and no
  raw TeX (``$\\alpha``, ``\\frac`` …) is left in the visible text; every image (the figures,
  a widget's saved picture) has loaded (``naturalWidth > 0``); the deck has speaker notes and
  reveal.js's speaker view (key ``S``) opens and shows them; no request failed or went to the
  network; the speaker view typesets the notes' formulas (MathML) and its timetable fits the
  notes pane; every slide fits 1280 × 720 (the cues, corner tags, Algorithm 1, the stepper's
  frames and the closing slides included). Screenshots: lecture 1's first figure slide
  ``test-output/deck_lecture1.png``; Algorithm 1, the stepper, Fig. 3 left and the discussion
  (``test-output/deck_*_lectureN.png``, :data:`SHOTS`).
- ``test_notebook_deck_readable[NN]`` (every notebook 01–07, one deck per notebook): at a
  projector's 1280 × 720, the body text of every slide renders at >= 24 px and every slide's
  content fits on the screen (nothing below or right of the slide, nothing that scrolls).
  It fails on a notebook whose slides are still too long: the words a slide holds decide.

Every measurement waits for MathJax: :data:`SHOW` queues it behind the slide's re-typesetting
and :func:`_settle` waits for two equal layout readings (measured before, typeset math had no
size, and two equations cut off at the right edge passed).

Without Chromium the tests are skipped, except under ``CI=true``, where they fail.
"""

import re
import time
from pathlib import Path

import pytest
from conftest import built_core_decks, built_decks, needs_chromium, offline_page, record_measurement

from ftd_lib.publish import deck

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "test-output"
NOTEBOOKS = sorted((REPO / "notebooks").glob("0*.ipynb"))
MIN_TEXT_PX = 24
LOAD_S = 120

pytestmark = needs_chromium("the deck test")

RAW_TEX = re.compile(r"\$[^$\s]|\\(?:alpha|beta|lambda|gamma|frac|hat|theta|delta|eta)\b")

# every slide as [h, v] (a horizontal slide without sub-slides is [h, 0])
SLIDES = """() => Reveal.getHorizontalSlides().flatMap((s, h) => {
    const v = s.querySelectorAll(':scope > section').length;
    return v ? [...Array(v).keys()].map(k => [h, k]) : [[h, 0]]; })"""
# show slide [h, v] with every fragment, then wait until MathJax has re-typeset it: the deck
# asks MathJax to re-render a slide when it is shown (math typeset while hidden has no size;
# reveal.js fires "slidechanged" inside Reveal.slide), so a callback queued on MathJax's queue
# after that runs once the re-render is done; it then waits for the queue to be empty and two
# animation frames, and until every typeset equation of the slide has a width (on a busy machine
# the re-render's output can take a moment to get its size: CI once measured a display equation
# wider than the slide as no width at all); _settle then waits for two equal layout readings
SHOW = """([h, v]) => { Reveal.slide(h, v, 1e6);
    const s = Reveal.getCurrentSlide();
    s.querySelectorAll('.fragment').forEach(f => f.classList.add('visible'));
    const idle = () => !MathJax.Hub.queue.pending && !MathJax.Hub.queue.running;
    const own = e => e.closest('section') === s && !e.closest('aside.notes');
    const sized = () => [...s.querySelectorAll('.MathJax_Display, .MathJax')].filter(own)
        .every(e => e.getBoundingClientRect().width > 0);
    const until = Date.now() + 15000;
    return new Promise(r => MathJax.Hub.Queue(() => {
        const poll = () => (idle() && sized()) || Date.now() > until
            ? requestAnimationFrame(() => requestAnimationFrame(() => r(true)))
            : setTimeout(poll, 50);
        poll(); })); }"""
# the visible text of the current slide, without code, notes and typeset math
VISIBLE_TEXT = """() => { const c = Reveal.getCurrentSlide().cloneNode(true);
    c.querySelectorAll('aside.notes, pre, code, script, .MathJax, .MathJax_Display,'
        + ' .MathJax_Preview, .jp-InputArea, .jp-OutputArea').forEach(e => e.remove());
    c.querySelectorAll('section').forEach(e => e.remove());
    return c.textContent; }"""
MATH = """() => { const s = Reveal.getCurrentSlide();
    const own = e => e.closest('section') === s && !e.closest('aside.notes');
    return {tex: [...s.querySelectorAll('script[type^="math/tex"]')].filter(own).length,
            typeset: [...s.querySelectorAll('.MathJax, .MathJax_Display')].filter(own).length,
            errors: [...s.querySelectorAll('.MathJax_Error, merror')].filter(own).length}; }"""
IMAGES = """() => [...Reveal.getCurrentSlide().querySelectorAll('img')]
    .filter(i => !i.closest('aside.notes'))
    .map(i => [i.complete && i.naturalWidth > 0, (i.getAttribute('src') || '').slice(0, 40)])"""
# the slide's content box against the 1280 x 720 slide, in slide pixels; elements that scroll;
# the smallest rendered size of the body text (paragraphs, list items, table cells)
LAYOUT = """() => { const s = Reveal.getCurrentSlide(), k = Reveal.getScale();
    const box = document.querySelector('.reveal .slides').getBoundingClientRect();
    let right = 0, bottom = 0, scrolls = [], small = [];
    for (const e of s.querySelectorAll('*')) {
        if (e.closest('aside.notes') || (e.closest('section') !== s && e.tagName !== 'SECTION'))
            continue;
        const r = e.getBoundingClientRect();
        if (!r.width || !r.height) continue;
        right = Math.max(right, (r.right - box.left) / k);
        bottom = Math.max(bottom, (r.bottom - box.top) / k);
        const st = getComputedStyle(e);
        if (/(auto|scroll)/.test(st.overflow + st.overflowX + st.overflowY)
            && (e.scrollHeight > e.clientHeight + 2 || e.scrollWidth > e.clientWidth + 2))
            scrolls.push(e.className || e.tagName);
        if (/^(P|LI|TD|TH)$/.test(e.tagName) && e.closest('.jp-RenderedMarkdown')
            && e.textContent.trim())
            small.push(parseFloat(st.fontSize) * k);
    }
    const first = s.querySelector('[data-ftd-cell]');
    return {right, bottom, scrolls, minText: small.length ? Math.min(...small) : null,
            width: box.width / k, height: box.height / k,
            where: (s.dataset.ftdCell || (first && first.dataset.ftdCell) || '?') + ' '
                + JSON.stringify((s.textContent || '').trim().slice(0, 40))}; }"""


def _settle(page, tries: int = 20):
    """The current slide's layout (:data:`LAYOUT`) once two readings 100 ms apart agree (the
    slide has stopped moving after MathJax's re-render and the images' decoding)."""
    last = page.evaluate(LAYOUT)
    for _ in range(tries):
        page.wait_for_timeout(100)
        now = page.evaluate(LAYOUT)
        if (abs(now["right"] - last["right"]) < 0.5 and abs(now["bottom"] - last["bottom"]) < 0.5
                and now["minText"] == last["minText"]):
            return now
        last = now
    raise AssertionError(f"the slide's layout did not settle: {last}")


# the current slide's own text: without its speaker notes and its sub-slides
SLIDE_TEXT = """() => { const c = Reveal.getCurrentSlide().cloneNode(true);
    c.querySelectorAll('aside.notes, section').forEach(e => e.remove());
    return c.textContent; }"""

#: screenshots of the lecture decks (test-output/NAME_lectureN.png): the slide whose text
#: matches, all its fragments shown
SHOTS = {
    "deck_algorithm1": lambda t: "Algorithm 1: forward TD(λ)" in t and "lines 1–16" in t,
    "deck_stepper": lambda t: "The stepper, frame by frame" in t,
    "deck_fig3_left": lambda t: "Figure 3 left: four methods" in t,
    "deck_discussion": lambda t: t.strip().startswith("Discussion"),
}


# the first slide [h, v] whose own notes hold a formula (turned into MathML for the speaker view)
FIRST_NOTES_MATH = """() => { for (const [h, s] of Reveal.getHorizontalSlides().entries()) {
        const subs = [...s.querySelectorAll(':scope > section')];
        for (const [v, x] of (subs.length ? subs : [s]).entries())
            if (x.querySelector(':scope > aside.notes .ftd-notes-math')) return [h, v]; }
    return null; }"""
# the speaker view's notes: MathML formulas, those with a size, the text without them
NOTES_MATH = """() => { const n = document.querySelector('.speaker-controls-notes .value');
    const m = [...n.querySelectorAll('math')];
    const c = n.cloneNode(true); c.querySelectorAll('math').forEach(e => e.remove());
    return {math: m.length, text: c.textContent,
            sized: m.filter(e => e.getBoundingClientRect().width > 0).length}; }"""
# the widest table of the speaker view's notes against its notes pane (px)
NOTES_PANE = """() => { const p = document.querySelector('#speaker-controls');
    const t = [...p.querySelectorAll('table')].map(e => e.getBoundingClientRect().right);
    return {pane: p.getBoundingClientRect().right, table: Math.max(0, ...t)}; }"""
# the words of the speaker view's tables that are broken over two lines (a heading drawn
# letter by letter in a narrow column): each word's text range drawn as more than one box
SPLIT_WORDS = """() => { const out = [];
    for (const cell of document.querySelectorAll('.speaker-controls-notes th, '
                                                 + '.speaker-controls-notes td')) {
      const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        for (const m of n.textContent.matchAll(/\\S+/g)) {
          const r = document.createRange();
          r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
          if (r.getClientRects().length > 1) out.push(m[0]);
        } } }
    return out; }"""


#: a slide whose content ends above this line (px of the 720) and that shows no picture is
#: near-empty: a title and a sentence or two, a lone printout; it belongs with its neighbour
NEAR_EMPTY_PX = 200
# the current slide's extent without its corner tag, its pictures, and every <pre> (printout,
# shown code, the Algorithm 1 listing) with its lines as written and as rendered: a line longer
# than the slide is wide wraps (more rendered lines than written ones) or, where the block does
# not wrap (the listing), runs out of its box (scrollWidth > clientWidth)
FILL = """() => { const s = Reveal.getCurrentSlide(), k = Reveal.getScale();
    const own = e => e.closest('section') === s && !e.closest('aside.notes');
    const box = document.querySelector('.reveal .slides').getBoundingClientRect();
    let bottom = 0;
    for (const e of s.querySelectorAll('*')) {
        if (!own(e) || e.closest('.ftd-mark')) continue;
        const r = e.getBoundingClientRect();
        if (r.width && r.height) bottom = Math.max(bottom, (r.bottom - box.top) / k); }
    const pres = [...s.querySelectorAll('pre')].filter(own).map(p => {
        const st = getComputedStyle(p);
        const lh = parseFloat(st.lineHeight) || 1.2 * parseFloat(st.fontSize);
        const inner = p.getBoundingClientRect().height / k - parseFloat(st.paddingTop)
            - parseFloat(st.paddingBottom) - parseFloat(st.borderTopWidth)
            - parseFloat(st.borderBottomWidth);
        const src = p.textContent.replace(/\\n$/, '').split('\\n');
        return {kind: p.closest('.jp-InputArea') ? 'code' : 'printout',
                written: src.length, rendered: Math.round(inner / lh),
                overflows: p.scrollWidth > p.clientWidth + 1,
                longest: src.reduce((a, b) => b.length > a.length ? b : a, '').slice(0, 50)}; });
    const first = s.querySelector('[data-ftd-cell]');
    return {bottom, images: [...s.querySelectorAll('img')].filter(own).length, pres,
            where: (first && first.dataset.ftdCell || '?') + ' '
                + JSON.stringify((s.textContent || '').trim().slice(0, 40))}; }"""


def _fill(page) -> dict:
    """The current slide's :data:`FILL` reading, with ``near_empty`` and ``wraps`` (the
    ``<pre>`` blocks whose lines wrap or run out of their box)."""
    got = page.evaluate(FILL)
    got["near_empty"] = got["bottom"] < NEAR_EMPTY_PX and got["images"] == 0
    got["wraps"] = [p for p in got["pres"] if p["rendered"] > p["written"] or p["overflows"]]
    return got


@pytest.fixture(scope="module")
def lecture_decks():
    return built_decks()


@pytest.fixture(scope="module")
def notebook_decks(tmp_path_factory):
    out = tmp_path_factory.mktemp("notebook_decks")
    return {p.stem: p for p in deck.write_decks(out, notebooks=NOTEBOOKS, force=True)}


def _open(browser, path):
    """A page at 1280 x 720 with the deck at ``path`` loaded from disk; every request that is
    not a local file (or data:) is refused and recorded in ``page.failures``, as is every
    request that failed."""
    ctx, page = offline_page(browser, viewport={"width": deck.WIDTH, "height": deck.HEIGHT})
    page.on("pageerror", lambda e: page.failures.append(f"page error: {e}"))
    page.set_default_timeout(LOAD_S * 1000)
    page.goto(path.as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady() && window.MathJax "
                           "&& MathJax.Hub && !MathJax.Hub.queue.pending "
                           "&& !MathJax.Hub.queue.running", timeout=LOAD_S * 1000)
    return ctx, page


def _record_size(number: int, slides: int, widest: float, tallest: float) -> None:
    """test-output/deck/slide_sizes.json: per lecture deck its slides and the largest extent
    of a slide's content (px, after MathJax), for the closing note and the README."""
    record_measurement(OUT / "deck" / "slide_sizes.json", f"lecture{number}",
                       {"slides": slides, "widest_px": round(widest),
                        "tallest_px": round(tallest)})


@pytest.mark.parametrize("number", [lec.number for lec in deck.P.LECTURES],
                         ids=lambda n: f"lecture{n}")
def test_lecture_deck_offline(browser, lecture_decks, number):
    path = next(p for p in lecture_decks if p.stem == f"lecture{number}")
    ctx, page = _open(browser, path)
    try:
        slides = page.evaluate(SLIDES)
        assert len(slides) >= 5, f"{path.name}: {len(slides)} slides"
        typeset = images = 0
        widest = tallest = 0.0
        shot, shots, over = None, set(), []
        for hv in slides:
            page.evaluate(SHOW, hv)
            raw = RAW_TEX.findall(page.evaluate(VISIBLE_TEXT))
            assert raw == [], f"{path.name} slide {hv}: raw TeX on the slide: {raw[:5]}"
            math = page.evaluate(MATH)
            assert math["errors"] == 0, f"{path.name} slide {hv}: MathJax error {math}"
            assert math["typeset"] >= math["tex"], f"{path.name} slide {hv}: untypeset {math}"
            typeset += math["typeset"]
            imgs = page.evaluate(IMAGES)
            bad = [src for ok, src in imgs if not ok]
            assert bad == [], f"{path.name} slide {hv}: images not loaded: {bad}"
            images += len(imgs)
            # every slide fits 1280 x 720 once MathJax is done (the lecture's own cues,
            # corner tags, Algorithm 1, the stepper's frames, the closing slides included)
            lay = _settle(page)
            widest, tallest = max(widest, lay["right"]), max(tallest, lay["bottom"])
            if lay["bottom"] > deck.HEIGHT + 1 or lay["right"] > deck.WIDTH + 1:
                over.append(f"slide {hv} ({lay['where']}): {lay['right']:.0f} x "
                            f"{lay['bottom']:.0f} px")
            # the screenshot: lecture 1's first slide with a figure and math that fits
            if (shot is None and number == 1 and imgs and math["typeset"]
                    and lay["bottom"] <= deck.HEIGHT):
                shot = hv
                page.screenshot(path=str(OUT / "deck_lecture1.png"))
            text = page.evaluate(SLIDE_TEXT)  # the notes name other slides (the timetable)
            for name, want in SHOTS.items():
                if want(text) and name not in shots:
                    shots.add(name)
                    page.screenshot(path=str(OUT / f"{name}_lecture{number}.png"))
        assert typeset >= 20 and images >= 2, (typeset, images)
        assert over == [], f"{path.name}: {len(over)} slides do not fit:\n" + "\n".join(over)
        _record_size(number, len(slides), widest, tallest)
        notes = page.evaluate("() => [...document.querySelectorAll('aside.notes')]"
                              ".map(a => a.textContent.trim()).filter(t => t)")
        assert notes and "min" in notes[0], "the title slide's notes hold the timetable"
        lecture = next(lec for lec in deck.P.LECTURES if lec.number == number)
        want = sum(c.metadata.get("slideshow", {}).get("slide_type") == "notes"
                   and c.source.strip() != "" for c in deck.lecture_notebook(lecture).cells)
        assert len(notes) == want, f"{len(notes)} speaker notes in the deck, {want} notes cells"
        # the speaker view: a pop-up the notes plugin writes, showing the current slide's notes
        page.wait_for_function("() => document.documentElement.dataset.ftdNotesMath",
                               timeout=LOAD_S * 1000)
        page.evaluate("() => Reveal.slide(0, 0)")
        with ctx.expect_page(timeout=LOAD_S * 1000) as popup:
            page.keyboard.press("s")
        view = popup.value
        view.wait_for_function("() => { const n = document.querySelector("
                               "'.speaker-controls-notes .value'); "
                               "return n && n.textContent.trim().length > 20; }",
                               timeout=LOAD_S * 1000)
        shown = view.evaluate("() => document.querySelector('.speaker-controls-notes .value')"
                              ".textContent")
        assert notes[0].split()[0] in shown, shown[:200]
        # the timetable fits the notes pane (it was cut off at the right)
        pane = view.evaluate(NOTES_PANE)
        assert pane["table"] <= pane["pane"] + 1, f"timetable {pane} wider than the notes pane"
        assert view.evaluate(SPLIT_WORDS) == [], "timetable words broken over two lines"
        # the notes' formulas are typeset in the speaker view (they were blanks: MathJax's
        # output without its fonts): on the first slide whose notes hold math, every formula
        # the deck's notes hold is a MathML formula with a size in the pop-up, no raw TeX left
        hv = page.evaluate(FIRST_NOTES_MATH)
        assert hv is not None, "no slide's notes hold a formula"
        page.evaluate("([h, v]) => Reveal.slide(h, v)", hv)
        want = page.evaluate("() => Reveal.getCurrentSlide().querySelectorAll("
                             "':scope > aside.notes .ftd-notes-math').length")
        view.wait_for_function(f"() => document.querySelectorAll("
                               f"'.speaker-controls-notes .value math').length >= {want}",
                               timeout=LOAD_S * 1000)
        got = view.evaluate(NOTES_MATH)
        assert got["math"] == want and got["sized"] == want, (hv, want, got)
        assert RAW_TEX.findall(got["text"]) == [], got["text"][:300]
        view.screenshot(path=str(OUT / f"speaker_view_lecture{number}.png"))
        time.sleep(1.0)  # the speaker view's frames load the deck from disk too
        view.close()
        assert page.failures == [], "\n".join(page.failures)
    finally:
        ctx.close()


@pytest.mark.parametrize("number", [lec.number for lec in deck.P.LECTURES],
                         ids=lambda n: f"lecture{n}")
def test_core_deck_fills_its_slides_and_wraps_no_line(browser, number):
    """The core deck a lecturer teaches from (``slides --core``), slide by slide at 1280 x 720
    once MathJax is done: no near-empty slide (content ending above :data:`NEAR_EMPTY_PX` with
    no picture: merged with its neighbour in the notebook) and none that runs past the slide's
    bottom (a merged one included), and no printout, shown code or
    listing whose lines wrap at the slide's edge or run out of their box. The counts, with the
    slides that hold code, go to test-output/deck/core_fill.json."""
    path = next(p for p in built_core_decks() if p.stem == f"lecture{number}")
    ctx, page = _open(browser, path)
    try:
        empty, wraps, code = [], [], []
        slides = page.evaluate(SLIDES)
        for n, hv in enumerate(slides, 1):
            page.evaluate(SHOW, hv)
            _settle(page)
            got = _fill(page)
            if got["near_empty"]:
                empty.append(f"s{n} {got['where']}: ends at {got['bottom']:.0f} px")
            if got["bottom"] > deck.HEIGHT + 1:  # a merged slide still fits
                empty.append(f"s{n} {got['where']}: runs to {got['bottom']:.0f} px")
            wraps += [f"s{n} {got['where']}: {p['kind']} {p['written']} lines drawn as "
                      f"{p['rendered']}{', out of its box' if p['overflows'] else ''}: "
                      f"{p['longest']!r}" for p in got["wraps"]]
            code += [f"s{n}: {p['written']} lines" for p in got["pres"] if p["kind"] == "code"]
        record_measurement(OUT / "deck" / "core_fill.json", f"lecture{number}", {
            "slides": len(slides), "near_empty": len(empty), "wraps": len(wraps), "code": code})
        assert empty == [], f"{path.name}: {len(empty)} slides near-empty or too full:\n" + \
            "\n".join(empty)
        assert wraps == [], f"{path.name}: {len(wraps)} blocks wrap:\n" + "\n".join(wraps)
        assert page.failures == [], "\n".join(page.failures)
    finally:
        ctx.close()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_notebook_deck_readable(browser, notebook_decks, path):
    ctx, page = _open(browser, notebook_decks[path.stem])
    try:
        bad = []
        smallest = 1e9
        for hv in page.evaluate(SLIDES):
            page.evaluate(SHOW, hv)
            lay = _settle(page)
            assert lay["width"] == pytest.approx(deck.WIDTH, abs=1), lay
            if lay["minText"] is not None:
                smallest = min(smallest, lay["minText"])
                if lay["minText"] < MIN_TEXT_PX:
                    bad.append(f"slide {hv} ({lay['where']}): body text {lay['minText']:.1f} px")
            if lay["bottom"] > deck.HEIGHT + 1 or lay["right"] > deck.WIDTH + 1:
                bad.append(f"slide {hv} ({lay['where']}): content {lay['right']:.0f} x "
                           f"{lay['bottom']:.0f} px on a {deck.WIDTH} x {deck.HEIGHT} slide")
            if lay["scrolls"]:
                bad.append(f"slide {hv} ({lay['where']}): scrolls ({lay['scrolls'][:3]})")
        assert smallest >= MIN_TEXT_PX, f"{path.stem}: smallest body text {smallest} px"
        assert bad == [], f"{path.stem}: {len(bad)} slides not readable:\n" + "\n".join(bad)
        assert page.failures == [], "\n".join(page.failures)
    finally:
        ctx.close()


def test_readability_check_tells_a_short_slide_from_a_long_one(browser, tmp_path):
    """The measure the notebook test uses, on a deck of four slides: a short one fits, one of
    40 paragraphs runs off the bottom, one with a small-font paragraph is too small to read,
    and one whose display equation is wider than the slide is measured wide once MathJax has
    typeset it (before, typeset math has no size and the slide seemed to fit)."""
    import nbformat

    def md(src, t):
        c = nbformat.v4.new_markdown_cell(src)
        c.metadata["slideshow"] = {"slide_type": t}
        return c

    def code(src, printed):
        c = nbformat.v4.new_code_cell(src, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text=printed)])
        c.metadata["slideshow"] = {"slide_type": "-"}
        return c

    nb = nbformat.v4.new_notebook(cells=[
        md("# Short\n\nOne idea, a few words.", "slide"),
        md("## Long\n\n" + "\n\n".join(f"Paragraph {k} of a long slide." for k in range(40)),
           "slide"),
        md("## Small\n\n<p style='font-size: 12px'>small print</p>", "slide"),
        md("## Wide\n\n$$" + " + ".join(f"\\alpha_{{{k}}}\\,\\theta_{{{k}}}" for k in range(40))
           + "$$", "slide"),
        md("## Printouts", "slide"), code("x = 1  # short", "a short printout\n"),
        code("y = 2  # " + "a comment far too long for one line of the slide " * 2,
             "a printout line far too long for one line of the slide, " * 3 + "\nshort\n")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    path = tmp_path / "fit.html"
    deck.copy_assets(tmp_path)
    path.write_text(deck.render(nb))
    ctx, page = _open(browser, path)
    try:
        got, fills, maths = [], [], []
        for hv in page.evaluate(SLIDES):
            page.evaluate(SHOW, hv)
            got.append(_settle(page))
            fills.append(_fill(page))
            maths.append(page.evaluate(MATH))
        assert len(got) == 5
        # near-empty: the short, the small and the wide one (a heading and a line each); the
        # long one and the one with the printouts not
        assert [f["near_empty"] for f in fills] == [True, False, True, True, False], fills
        # the long code line and the long printout line wrap, the short ones do not
        wrapped = [(w["kind"], w["written"]) for w in fills[4]["wraps"]]
        assert sorted(wrapped) == [("code", 1), ("printout", 2)], fills[4]
        assert [p["rendered"] for p in fills[4]["pres"] if p not in fills[4]["wraps"]] == [1, 1]
        assert got[0]["bottom"] <= deck.HEIGHT and got[0]["minText"] >= MIN_TEXT_PX
        assert got[0]["minText"] == pytest.approx(26, abs=0.5)  # notebooks/rise.css
        assert got[1]["bottom"] > 2 * deck.HEIGHT
        assert got[2]["minText"] == pytest.approx(12, abs=0.5)
        math = maths[3]  # the wide slide
        assert math["tex"] == 1 and math["typeset"] >= 1 and math["errors"] == 0, math
        assert got[3]["right"] > 1.5 * deck.WIDTH, got[3]
        assert page.failures == [], "\n".join(page.failures)
    finally:
        ctx.close()


#: every slide shown at once, for one axe run over a whole deck: reveal.js hides the slides it
#: is not showing (display, visibility, aria-hidden), which axe would skip
ALL_SLIDES = """() => {
    const css = document.createElement('style');
    css.textContent = '.reveal .slides section { display: block !important; '
        + 'visibility: visible !important; opacity: 1 !important; position: relative !important; '
        + 'transform: none !important; } .reveal .slides { overflow: visible !important; }';
    document.head.appendChild(css);
    document.querySelectorAll('.reveal .slides section, .reveal .slides .fragment').forEach(s => {
        s.removeAttribute('aria-hidden'); s.removeAttribute('hidden');
        s.classList.add('visible'); });
    return document.querySelectorAll('.reveal .slides section').length; }"""


@pytest.mark.parametrize("number", [lec.number for lec in deck.P.LECTURES],
                         ids=lambda n: f"lecture{n}")
def test_lecture_deck_accessibility_axe_core(browser, lecture_decks, number):
    """axe-core over every slide of a lecture deck (all slides shown at once), on the
    projector's 1280 x 720 and on a phone's 390 x 844 (a student opens the deck from the
    site): no serious or critical violation. The counts per width are written to
    test-output/deck/deck_axe.json (axe runs on the decks as on the site)."""
    from test_site_browser import _axe

    path = next(p for p in lecture_decks if p.stem == f"lecture{number}")
    found = {}
    for width, size in {"projector": (deck.WIDTH, deck.HEIGHT), "phone": (390, 844)}.items():
        ctx, page = _open(browser, path)
        try:
            page.set_viewport_size({"width": size[0], "height": size[1]})
            assert page.evaluate(ALL_SLIDES) >= 5
            found[width] = _axe(page, preload=False)  # a deck opened from disk (file://)
            if width == "projector":  # the check can fail: a picture without a text
                page.evaluate("""() => { const i = document.createElement('img');
                    i.src = document.querySelector('.reveal img').src;
                    document.querySelector('.reveal .slides section').appendChild(i); }""")
                assert "image-alt" in [v["id"] for v in _axe(page, preload=False)]
            assert page.failures == [], "\n".join(page.failures)
        finally:
            ctx.close()
    record_measurement(OUT / "deck" / "deck_axe.json", f"lecture{number}", {
        w: {imp: sum(v["nodes"] for v in vs if v["impact"] == imp)
            for imp in ("critical", "serious", "moderate", "minor")} for w, vs in found.items()})
    bad = {w: [(v["id"], v["impact"], v["nodes"], v["first"]) for v in vs
               if v["impact"] in ("serious", "critical")] for w, vs in found.items()}
    assert not any(bad.values()), bad
