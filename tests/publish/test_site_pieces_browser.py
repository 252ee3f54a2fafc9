"""The website's own scripts and styles on small pages made here (no site build: seconds), in
headless Chromium: what a reader sees while a kernel-less explorer's picture is on its way over
a slow link (its request held back by the test), the copy buttons on code, and a figure too
wide for a phone's column shown wide enough to read, in a box that scrolls sideways with a cue.
The same behaviour on the built site is in test_site_browser.py.

Without Chromium the tests are skipped, except under ``CI=true``, where they must run.
"""

import contextlib
import io
from pathlib import Path

from conftest import needs_chromium

from ftd_lib.publish import static_explorers as SE

STATIC = Path(__file__).resolve().parents[2] / "ftd_lib" / "publish" / "site_static"
HOST = "http://127.0.0.1:9"  # never reached: the test answers every request itself

pytestmark = needs_chromium("the site's scripts test")

PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="ftd-site.css"></head><body><article>{body}</article>
<script src="ftd-site.js"></script><script src="ftd-static-explorer.js"></script>
</body></html>"""


def _png(colour, size=(60, 40)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, "PNG")
    return buf.getvalue()


@contextlib.contextmanager
def _site(browser, files: dict, hold=(), **context):
    """A page context whose requests the test answers from ``files`` (path -> bytes); a path
    in ``hold`` is not answered until the test calls ``release(path)``. Yields ``(page,
    asked, release)``: ``asked`` lists the paths requested, in order."""
    ctx = browser.new_context(**context)
    asked, held = [], {}

    def answer(route):
        path = route.request.url.split(HOST, 1)[-1].lstrip("/").split("?")[0]
        asked.append(path)
        if path in hold:
            held[path] = route
            return
        if path not in files:
            route.fulfill(status=404, body="")
            return
        kind = ("text/html" if path.endswith(".html") else "text/css" if path.endswith(".css")
                else "text/javascript" if path.endswith(".js") else "image/png")
        route.fulfill(status=200, body=files[path], content_type=kind)

    def release(path):
        held.pop(path).fulfill(status=200, body=files[path], content_type="image/png")

    ctx.route("**/*", answer)
    page = ctx.new_page()
    page.set_default_timeout(10_000)
    try:
        yield page, asked, release
    finally:
        ctx.close()


def _until(page, cond, seconds: float = 20):
    """Wait (letting the page run) until ``cond()`` holds; fail after ``seconds``."""
    for _ in range(int(seconds * 20)):
        if cond():
            return
        page.wait_for_timeout(50)
    raise AssertionError("the page never got there")


def _static_files() -> dict:
    return {name: (STATIC / name).read_bytes()
            for name in ("ftd-site.css", "ftd-site.js", "ftd-static-explorer.js")}


def _explorer(n: int = 4) -> dict:
    """A one-slider explorer manifest of ``n`` frames (``f/00k.png``), as
    :func:`~ftd_lib.publish.static_explorers.build` writes one."""
    return dict(factory="one_state_explorer", kwargs={}, note="a test", start=[0], steps=False,
                sliders=[dict(name="alpha", label="α", values=[0.1 * (k + 1) for k in range(n)],
                              shown=[f"{0.1 * (k + 1):.1f}" for k in range(n)])],
                frames=[dict(src=f"f/{k:03d}.png", readout=f"<b>readout {k}</b>",
                             alt=f"picture {k}") for k in range(n)])


def test_an_explorer_says_it_is_loading_until_the_new_picture_has_arrived(browser):
    """On a slow link (the test holds back the second frame's request) a move shows the new
    value at once; until the new picture has arrived the old picture and readout are dimmed, a
    "loading" line is seen and the explorer is aria-busy, and the neighbours of the new value
    are not yet requested (they would share the link with it); once it arrives, the picture,
    readout and alt change together, the cue goes and the neighbours are preloaded."""
    man = _explorer()
    files = _static_files()
    files["page.html"] = PAGE.format(body=SE.html_block(man, "ftd-static-x-0")).encode()
    colours = [(200, 0, 0), (0, 160, 0), (0, 0, 200), (200, 200, 0)]
    files.update({f["src"]: _png(c) for f, c in zip(man["frames"], colours, strict=True)})
    with _site(browser, files, hold={"f/001.png"}) as (page, asked, release):
        page.goto(f"{HOST}/page.html", wait_until="domcontentloaded")
        box = page.locator(".ftd-static-explorer")
        img, cue = box.locator("img.ftd-static-image"), box.locator(".ftd-static-loading")
        readout = box.locator(".ftd-static-readout")
        # the page has loaded: the start frame's neighbour is asked for (and held), no cue
        _until(page, lambda: "f/001.png" in asked)
        assert box.get_attribute("aria-busy") is None and not cue.is_visible()
        box.locator("input").focus()
        page.keyboard.press("ArrowRight")
        assert box.locator("output").inner_text() == "0.2"  # the value at once
        cue.wait_for(state="visible")
        assert box.get_attribute("aria-busy") == "true"
        assert img.get_attribute("src") == "f/000.png" and "readout 0" in readout.inner_text()
        page.wait_for_function("() => getComputedStyle(document.querySelector("
                               "'.ftd-static-image')).opacity < 0.6")
        assert float(readout.evaluate("e => getComputedStyle(e).opacity")) < 0.6
        assert "f/002.png" not in asked  # the new value's neighbour waits for it
        release("f/001.png")
        page.wait_for_function("() => document.querySelector('.ftd-static-image')"
                               ".getAttribute('src') === 'f/001.png'")
        assert "readout 1" in readout.inner_text() and img.get_attribute("alt") == "picture 1"
        assert box.get_attribute("aria-busy") is None
        cue.wait_for(state="hidden")
        assert float(img.evaluate("e => getComputedStyle(e).opacity")) == 1.0
        _until(page, lambda: "f/002.png" in asked)
        # a picture already at hand: no cue at all
        page.keyboard.press("ArrowLeft")
        page.wait_for_function("() => document.querySelector('.ftd-static-image')"
                               ".getAttribute('src') === 'f/000.png'")
        assert box.get_attribute("aria-busy") is None and not cue.is_visible()


#: a 14-inch triptych at 135 dpi (1,890 px) with 13-pt labels, and a small 3-inch picture
FIGURES = """<div class="cell_output"><img src="wide.png" alt="a triptych" width="1890"
height="540" data-ftd-text-pt="13" data-ftd-dpi="135"></div>
<div class="cell_output"><img src="small.png" alt="a small figure" width="405" height="300"
data-ftd-text-pt="13" data-ftd-dpi="135"></div>"""


def _shown_text_px(page) -> list:
    """Each picture's smallest text as drawn: pt × dpi / 72 × drawn width / natural width."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('img[data-ftd-text-pt]'))
        .map(i => parseFloat(i.dataset.ftdTextPt) * parseFloat(i.dataset.ftdDpi) / 72
                  * i.getBoundingClientRect().width / i.naturalWidth)""")


def test_a_figure_too_small_for_a_phone_is_shown_wide_enough_in_a_scrolling_box(browser):
    """At 390 px a triptych whose 13-pt labels the column would shrink to 4.6 px is drawn wide
    enough for them to be site_figures.MIN_PHONE_TEXT_PX, in a box that scrolls sideways (the
    page does not), named, with a line under it that says so; a figure that fits stays as it
    is; at 1280 px nothing is widened and no cue is seen."""
    from ftd_lib.publish.site_figures import MIN_PHONE_TEXT_PX

    files = _static_files()
    files["page.html"] = PAGE.format(body=FIGURES).encode()
    files["wide.png"], files["small.png"] = _png((90, 90, 90), (1890, 540)), _png(
        (90, 90, 90), (405, 300))
    phone = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                 device_scale_factor=2)
    with _site(browser, files, **phone) as (page, _, _r):
        page.goto(f"{HOST}/page.html", wait_until="load")
        page.wait_for_selector(".ftd-fig-wide")
        wide, small = _shown_text_px(page)
        assert MIN_PHONE_TEXT_PX - 0.05 <= wide <= MIN_PHONE_TEXT_PX + 0.1, wide
        assert small >= MIN_PHONE_TEXT_PX, small
        boxes = page.evaluate("""() => Array.from(document.querySelectorAll('.ftd-fig')).map(
            b => ({wide: b.classList.contains('ftd-wide'), over: b.scrollWidth - b.clientWidth,
                   name: b.getAttribute('aria-label'), cue: !b.nextElementSibling.hidden,
                   cueText: b.nextElementSibling.innerText}))""")
        assert boxes[0]["wide"] and boxes[0]["over"] > 300 and boxes[0]["cue"], boxes
        assert boxes[0]["name"] == "figure 1 of 2, scrolls sideways"
        assert "swipe" in boxes[0]["cueText"]
        assert not boxes[1]["wide"] and boxes[1]["over"] <= 1 and not boxes[1]["cue"], boxes
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        # the box scrolls: its right part comes into view
        page.locator(".ftd-fig").first.evaluate("b => b.scrollLeft = b.scrollWidth")
        assert page.locator(".ftd-fig").first.evaluate("b => b.scrollLeft") > 300
    with _site(browser, files, viewport={"width": 1280, "height": 800}) as (page, _, _r):
        page.goto(f"{HOST}/page.html", wait_until="load")
        page.wait_for_selector(".ftd-fig")
        assert page.locator(".ftd-fig-wide").count() == 0
        assert not page.locator(".ftd-fig-cue").first.is_visible()


CODE = """<div class="cell_input"><div class="highlight-ipython3 notranslate">
<div class="highlight"><pre><span class="n">alpha</span> <span class="o">=</span> <span
class="mf">0.1</span>
<span class="nb">print</span>(alpha)
</pre></div></div></div>
<div class="cell_output"><div class="highlight"><pre>0.1
</pre></div></div>
<div class="ftd-method-card"><div class="highlight-text notranslate"><div class="highlight">
<pre>per episode: U ← 0; pop (S, ρ); update it toward U</pre></div></div></div>"""


def test_a_code_block_has_a_copy_button_that_copies_it_as_it_reads(browser):
    """Every code cell's source gets a "Copy" button (a printed output and a method card's
    pseudocode do not) that puts the code, as the reader sees it, on the clipboard and says
    "Copied"."""
    files = _static_files()
    files["page.html"] = PAGE.format(body=CODE).encode()
    with _site(browser, files, viewport={"width": 1280, "height": 800}) as (page, _, _r):
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=HOST)
        page.goto(f"{HOST}/page.html", wait_until="load")
        buttons = page.locator("button.ftd-copy")
        assert buttons.count() == 1
        assert page.locator(".cell_input button.ftd-copy").count() == 1
        b = buttons.first
        assert b.inner_text() == "Copy" and b.bounding_box()["height"] >= 24
        b.focus()
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('button.ftd-copy').textContent "
                               "=== 'Copied'")
        assert page.evaluate("() => navigator.clipboard.readText()") == (
            "alpha = 0.1\nprint(alpha)")


def _titles() -> list:
    import nbformat

    from ftd_lib.publish.site import _title

    return [_title(nbformat.read(p, as_version=4))
            for p in sorted((STATIC.parents[2] / "notebooks").glob("*.ipynb"))]


def test_the_search_lists_first_the_pages_whose_title_holds_the_whole_query(browser):
    """The site's search scorer (Sphinx's ``html_search_scorer``), run in the browser on the
    course's own page titles, each scored as Sphinx does: 15 where a word of the query is in
    its title, else 5 (a word of its text); the list then in Sphinx's order (score, then
    title). Without the scorer, "forward TD" listed 01, 02, 03 before 04."""
    titles = _titles()
    page = browser.new_page()
    try:
        page.add_script_tag(content=(STATIC / "ftd-search-scorer.js").read_text())

        def ranked(query, scorer=True):
            words = set(query.lower().split())
            results = [["doc", t, "", None, 15 if words & set(
                t.lower().replace("(", " ").split()) else 5, "f", "text"] for t in titles]
            if scorer:
                results = [[*r[:4], page.evaluate("([q, r]) => Scorer.scoreFor(q, r)",
                                                  [query, r]), *r[5:]] for r in results]
            return [r[1][:2] for r in sorted(results, key=lambda r: (-r[4], r[1].lower()))]

        assert ranked("forward TD", scorer=False)[:4] == ["01", "02", "03", "04"]  # Sphinx's
        assert ranked("forward TD")[:2] == ["04", "07"]  # both say "forward TD(λ)"
        assert ranked("Forward  td")[:2] == ["04", "07"]  # case and spaces as Sphinx's
        assert ranked("TD basics")[0] == "01"
        assert ranked("diverg")[0] == "03"  # a word's start: "diverges"
        assert ranked("control Figure 4")[0] == "06"
        for query in ("neural", "", "forward gae"):  # no title holds it all: Sphinx's order
            assert ranked(query) == ranked(query, scorer=False), query
        # the search page's own query is what it scores against
        assert page.evaluate("() => typeof Scorer.score === 'function' && Scorer.term") == 5
    finally:
        page.close()
