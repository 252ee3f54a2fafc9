"""The course website in a real browser: ``python -m ftd_lib site`` built once for the module
(the students' release, every notebook executed, the PDF handouts, the kernel-less explorers),
served on 127.0.0.1 and opened in headless Chromium (the system's, through Playwright) with
every non-local request refused, as on a lecture-hall intranet.

Checked: every page loads with no refused, failed or 4xx/5xx request and MathJax leaves no raw
TeX; each kernel-less slider, moved by key presses, changes the picture to the stored frame of
the new values, and that frame is what the live explorer draws at those values; the stepper's
Back/Step buttons; the search finds "forward TD"; no line of an instructors' worked solution is
anywhere in the site; every handout link resolves to a PDF; exercises read as questions (no
unrun verdict, stub or hint call); at 390 px (a phone, touch) the chapter drawer and the page
contents open and no page scrolls sideways; axe-core (vendored, tests/publish/vendor/) finds no
serious or critical violation on any page, light or dark; figures have alt text from their
titles; formulas are not tab stops and inline formulas sit on the text's baseline; at 390 px
a wide figure opens at full size in a viewer, and every figure's smallest text is drawn at
least site_figures.MIN_PHONE_TEXT_PX tall (wider than the column where need be, in a box that
scrolls sideways with a cue); each page has one viewport tag, its own description and logs no
console error; each notebook is offered as an .ipynb and the build's status page lists every
notebook as run; the methods at a glance: linked from the landing page and every page's
sidebar, one card per method, each within one 1280 x 720 screen, its course links landing on
headings. Screenshots and counts: test-output/
site_index.png, site_03_explorer.png, site_phone_nav.png, site_phone_04.png,
site_phone_figure.png, site_exercise.png, site_methods_card.png, site_axe.json,
site_inline_math.json.

Without Chromium the tests are skipped, except under ``CI=true``, where they must run.
"""

import contextlib
import html
import io
import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import nbformat
import numpy as np
import pytest
from conftest import UNDER_CI, built_once, is_local, needs_chromium, offline_page, serving

from ftd_lib.course.roles import HINT, has, is_solution
from ftd_lib.methods import METHODS
from ftd_lib.publish import static_explorers as SE
from ftd_lib.publish.method_cards import PAGE as METHODS_PAGE
from ftd_lib.publish.site import build_site

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "test-output"
MATHJAX_S = 120
#: the published students' copy the run buttons name in the test's build
REPO_NAME, REF = "me/course", "students-test"
#: the address the test's build is published at (link previews' og:url and og:image)
SITE_URL = "https://me.github.io/course/"
AXE = Path(__file__).with_name("vendor") / "axe-core" / "axe.min.js"

pytestmark = needs_chromium("the site test")


@pytest.fixture(scope="module")
def built():
    """The site, built cold (a fresh folder, every notebook executed) once for this code
    (``built_once``: the next run reuses it until the library or a notebook changes). For work
    on the test alone, ``FTD_SITE=DIR`` reuses a site built by ``python -m ftd_lib site --out
    DIR`` (never under CI)."""
    reuse = os.environ.get("FTD_SITE")
    if reuse and not UNDER_CI:
        return Path(reuse), json.loads((Path(reuse) / "site.json").read_text())
    out = built_once("site", lambda d: build_site(d / "html", repo=REPO_NAME, ref=REF,
                                                  url=SITE_URL), REPO_NAME, REF, SITE_URL) / "html"
    summary = json.loads((out / "site.json").read_text())
    print(f"\nsite: {summary['seconds']}")
    return out, summary


@pytest.fixture(scope="module")
def server(built):
    with serving(built[0]) as url:
        yield url


@contextlib.contextmanager
def _local_page(browser, **context):
    """A page in a new browser context (``context``: its viewport, touch, ...) that refuses
    every non-local request and records it, and every failed or 4xx/5xx request, in
    ``page.failures``."""
    # a request the browser cancels because the page moved on (net::ERR_ABORTED: CI saw the
    # favicon's, fetched after the page had loaded) is the test's doing, not the site's; a
    # file the site lacks is an HTTP 404, recorded all the same
    ctx, pg = offline_page(browser, ignore=lambda r: r.url == "about:blank"
                           or "ERR_ABORTED" in (r.failure or ""), **context)
    pg.set_default_timeout(MATHJAX_S * 1000)
    try:
        yield pg
    finally:
        ctx.close()


@pytest.fixture
def page(browser, server):
    """A laptop screen, every non-local request refused (:func:`_local_page`)."""
    with _local_page(browser, viewport={"width": 1300, "height": 1000}) as pg:
        yield pg


def _open(page, url):
    """Open ``url`` and wait until MathJax has typeset everything; return the article's text
    and the number of typeset formulas."""
    page.goto(url, wait_until="load")
    if not page.locator("script[src*='mathjax3/']").count():  # a page without math
        page.wait_for_load_state("networkidle")
        return page.locator("article").inner_text(), 0
    # MathJax 3: its startup promise resolves once the page's first typesetting is done
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise")
    page.wait_for_load_state("networkidle")
    n = page.evaluate("() => document.querySelectorAll('mjx-container').length")
    text = page.locator("article").inner_text()
    return text, n


RAW_TEX = re.compile(r"\\\(|\\\[|\$\$|\\(alpha|lambda|gamma|theta|hat|frac|sum|mid|delta)\b")


def test_every_page_loads_offline_with_math_typeset(built, server, page):
    _, summary = built
    assert summary["pages"][0] == "index" and len(summary["pages"]) >= 9
    for name in summary["pages"]:
        text, n = _open(page, f"{server}/{name}.html")
        # code cells print TeX on purpose (docstrings): look at the prose and outputs only
        prose = page.evaluate(
            "() => Array.from(document.querySelectorAll('article p, article li, article td, "
            "article h1, article h2, article h3')).map(e => e.innerText).join('\\n')")
        raw = RAW_TEX.findall(prose)
        assert not raw, (name, raw[:5])
        if name != "index":
            # every formula of the page (Sphinx's math nodes) was typeset: MathJax 3 puts
            # what it drew inside the node, with no error in it
            nodes, raw_nodes = page.evaluate(
                "() => { const all = Array.from(document.querySelectorAll("
                "'article .math.notranslate')); return [all.length, all.filter(e => "
                "!e.querySelector('mjx-container') || e.querySelector('mjx-merror'))"
                ".length]; }")
            assert nodes >= 1 and raw_nodes == 0 and n >= nodes, (name, n, nodes, raw_nodes)
            # its figures are there: at least one picture per picture the saved notebook shows
            saved = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
            want = sum("image/png" in o.get("data", {}) for c in saved.cells
                       if c.cell_type == "code" and not is_solution(c) for o in c.outputs)
            assert page.locator("article img").count() >= want, (name, want)
            # the exercises' hints are there, folded
            hints = sum(has(c, HINT) for c in saved.cells)
            assert page.locator("article details summary", has_text="Hint").count() == hints, (
                name, hints)
            if hints:  # "click to open" while folded, gone once open
                first = page.locator("article details:has(> summary:has-text('Hint'))").first
                assert "click to open" in first.locator("summary").inner_text()
                first.evaluate("d => d.open = true")
                assert "click to open" not in first.locator("summary").inner_text(), name
                first.evaluate("d => d.open = false")
        assert len(text) > 500, name
    assert page.failures == []
    page.goto(f"{server}/index.html", wait_until="networkidle")
    OUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUT / "site_index.png"))


def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def _data(box):
    return json.loads(box.locator("script.ftd-static-data").text_content())


#: the baseline probe, put at the top of a real page's article and typeset by the page's MathJax:
#: words of "x" (no descender) around inline formulas of letters without descenders, and an
#: empty inline block, whose bottom edge is the line's baseline. Returns, relative to the
#: paragraph, the formulas' and the words' horizontal extents and the baseline. (MathJax 2.7
#: too: scripts/measure_inline_math.py measures the site's former MathJax with it.)
PROBE_JS = r"""async () => {
  const p = document.createElement('p');
  p.id = 'ftd-probe';
  p.innerHTML = 'xxxx \\(x\\) xxxx \\(V\\) xxxx \\(n\\) xxxx \\(\\alpha\\) xxxx' +
    '<span class="base" style="display:inline-block;width:0;height:0"></span>';
  document.querySelector('article').prepend(p);
  if (MathJax.typesetPromise) { await MathJax.typesetPromise([p]); }  // MathJax 3
  else { await new Promise(r => MathJax.Hub.Queue(['Typeset', MathJax.Hub, p], r)); }  // 2.7
  const box = p.getBoundingClientRect();
  const maths = Array.from(p.querySelectorAll('mjx-container, span.MathJax')).map(e => {
    const r = e.getBoundingClientRect(); return [r.left - box.left, r.right - box.left]; });
  const words = Array.from(p.childNodes).filter(n => n.nodeType === 3 && n.textContent.trim())
    .map(n => { const g = document.createRange(); g.selectNodeContents(n);
                const r = g.getBoundingClientRect();
                return [r.left - box.left, r.right - box.left]; });
  const base = p.querySelector('.base').getBoundingClientRect().bottom - box.top;
  return {maths, words, base};
}"""


def inline_math_offsets(page) -> list:
    """How far above the words' baseline (CSS px, the ink of x against x) each inline formula
    of :data:`PROBE_JS` stands, on ``page`` (2 device pixels per CSS pixel) once its MathJax
    has typeset it; also the words' ink bottom and the baseline marker, as a dict."""
    got = page.evaluate(PROBE_JS)
    pixels = _pixels(page.locator("#ftd-probe").screenshot())
    assert len(got["maths"]) == 4 and len(got["words"]) == 5, got
    words = {_ink_bottom(pixels, 2 * a + 2, 2 * b - 2) for a, b in got["words"]}
    assert len(words) == 1, words  # the words share a baseline, the probe measures it
    word = words.pop() / 2
    assert abs(word - got["base"]) <= 1, (word, got["base"])
    return dict(offsets_css_px=[float(word - _ink_bottom(pixels, 2 * a, 2 * b) / 2)
                                for a, b in got["maths"]],
                words_ink_bottom=float(word), baseline=got["base"])


def _ink_bottom(pixels, left, right):
    """The row under the lowest dark pixel between columns ``left`` and ``right``."""
    rows = np.nonzero((pixels[:, int(left):int(right), :3].mean(axis=2) < 110).any(axis=1))[0]
    assert len(rows), (left, right)
    return rows.max() + 1


def test_inline_math_sits_on_the_text_baseline(built, server, browser):
    """An inline formula's letters stand on the same baseline as the words around them
    (MathJax 2.7 with the STIX web fonts, the site's former MathJax, drew them 3.5 px above; on
    the same page and probe MathJax 3's CHTML draws them within a pixel). Measured in the
    pixels, at 2 device pixels per CSS pixel: the bottom of the ink of each formula against the
    bottom of the ink of the words (x against x: neither has a descender)."""
    with _local_page(browser, viewport={"width": 1300, "height": 1000},
                     device_scale_factor=2) as pg:
        _open(pg, f"{server}/01_td_basics.html")
        got = inline_math_offsets(pg)
        OUT.mkdir(exist_ok=True)
        (OUT / "site_inline_math.json").write_text(json.dumps(got))
        assert all(abs(o) <= 1 for o in got["offsets_css_px"]), got
        assert pg.failures == []


def test_kernel_less_sliders_move_by_keys_and_show_the_live_pictures(built, server, page):
    from ftd_lib.publish.png_palette import shrink

    out, summary = built
    by_page = {}
    for e in summary["explorers"]:
        by_page.setdefault(e["page"], []).append(e)
    assert {e["factory"] for e in summary["explorers"]} >= {
        "one_state_explorer", "k_explorer", "learning_curve_explorer"}
    checked = 0
    for name, explorers in sorted(by_page.items()):
        _open(page, f"{server}/{name}.html")
        for e in explorers:
            box = page.locator(f"#{e['id']}")
            data = _data(box)
            kwargs = json.loads(box.get_attribute("data-kwargs"))
            img = box.locator("img.ftd-static-image")
            for k, s in enumerate(data["sliders"]):
                slider = box.locator(f"input[data-slider='{k}']")
                src0, out0 = img.get_attribute("src"), slider.locator("..").locator(
                    "output").inner_text()
                readout0 = box.locator(".ftd-static-readout").inner_text()
                pos0 = int(slider.input_value())
                key = "ArrowRight" if pos0 + 1 < len(s["values"]) else "ArrowLeft"
                slider.focus()
                page.keyboard.press(key)
                pos = int(slider.input_value())
                # the picture and the readout switch together once the picture has loaded
                page.wait_for_function("b => b.getAttribute('data-shown') === "
                                       "b.getAttribute('data-frame')",
                                       arg=box.element_handle())
                assert s["label"] + " = " + s["shown"][pos] in slider.get_attribute(
                    "aria-valuetext")
                assert pos == pos0 + (1 if key == "ArrowRight" else -1), (e["id"], k)
                src = img.get_attribute("src")
                shown = slider.locator("..").locator("output").inner_text()
                assert src != src0 and shown != out0 and shown == s["shown"][pos], e["id"]
                # the frame on screen is the stored frame of the sliders' positions ...
                positions = [int(box.locator(f"input[data-slider='{j}']").input_value())
                             for j in range(len(data["sliders"]))]
                i = 0
                for sj, p in zip(data["sliders"], positions, strict=True):
                    i = i * len(sj["values"]) + p
                assert src == data["frames"][i]["src"]
                readout = box.locator(".ftd-static-readout").inner_text()
                assert readout != readout0 and "<" not in readout, (e["id"], readout)
                assert img.get_attribute("alt") == data["frames"][i]["alt"] != ""
                checked += 1
            # ... and the live explorer draws that picture at those values
            values = {s["name"]: s["values"][p] for s, p in zip(data["sliders"], positions,
                                                                 strict=True)}
            live_png, live_readout = SE.frame(e["factory"], values, kwargs)
            stored = (out / src).read_bytes()
            # the site keeps its pictures as palette PNGs (png_palette): the live picture
            # through the same palette, pixel for pixel
            assert np.array_equal(_pixels(stored), _pixels(shrink(live_png))), (e["id"], values)
            assert data["frames"][i]["readout"] == live_readout
            assert page.evaluate("() => document.querySelector('img.ftd-static-image')"
                                 ".naturalWidth") > 100
        if name.startswith("03"):
            box = page.locator(".ftd-static-explorer").first
            v0 = box.locator("input[data-slider='2']")
            v0.focus()
            page.keyboard.press("ArrowLeft")  # back to V0 = 0: TD(lambda) diverges
            box.scroll_into_view_if_needed()
            OUT.mkdir(exist_ok=True)
            page.screenshot(path=str(OUT / "site_03_explorer.png"))
    assert checked == sum(len(e["sliders"]) for e in summary["explorers"])
    assert page.failures == []


def test_search_finds_forward_td(server, page):
    page.goto(f"{server}/search.html?q=forward+TD", wait_until="load")
    results = page.locator("#search-results ul.search li a")
    results.first.wait_for(timeout=60_000)
    hrefs = [results.nth(i).get_attribute("href") for i in range(results.count())]
    assert "04_forward_td_lambda" in hrefs[0], hrefs  # the page whose title says it all first
    assert len(hrefs) >= 3
    # the snippets are the pages' text, not their header, contents list or footer
    page.goto(f"{server}/search.html?q=GAE", wait_until="load")
    snippet = page.locator("#search-results ul.search li p.context").first
    snippet.wait_for(timeout=60_000)
    page.wait_for_load_state("networkidle")
    text = snippet.inner_text()
    assert "GAE" in text and "Light" not in text and "Contents" not in text, text
    assert "\\(" not in text, text
    assert page.failures == []


def _solution_lines():
    """Lines of the instructors' worked solutions (the repository's notebooks) that occur
    nowhere in the rest of the notebooks (sources and saved outputs: an exercise's skeleton,
    the library's code a cell prints): long enough to be specific."""
    sol, other = set(), []
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if is_solution(cell):
                sol |= {ln.strip() for ln in cell.source.splitlines()}
                continue
            other.append(cell.source)
            for o in cell.get("outputs", []):
                other.append(o.get("text", "") + "".join(
                    v if isinstance(v, str) else "" for v in o.get("data", {}).values()))
    other = "\n".join(other)
    return {ln for ln in sol if len(ln) >= 30 and ln not in other and not ln.startswith(
        ("###", "<details", "</details", "<summary"))}


def test_no_solution_anywhere_in_the_site(built):
    out, _ = built
    lines = _solution_lines()
    assert len(lines) > 20  # the notebooks have worked solutions for the check to look for
    found = []
    for f in out.rglob("*"):
        if f.suffix not in (".html", ".js", ".ipynb", ".txt", ".json") or not f.is_file():
            continue
        text = f.read_text(errors="replace")
        text = html.unescape(re.sub(r"<[^>]+>", "", text)) + "\n" + text
        found += [(f.name, ln) for ln in lines if ln in text]
        assert "BEGIN SOLUTION" not in text, f.name
    assert not found, found[:5]


def test_handout_links_resolve(built, server, page):
    _, summary = built
    hrefs = set()
    for name in summary["pages"]:
        _open(page, f"{server}/{name}.html")
        links = page.locator("a.ftd-handout")
        mine = {page.evaluate("a => a.href", links.nth(i).element_handle())
                for i in range(links.count())}
        if name != "index":
            assert any(h.endswith(f"/handouts/{name}.pdf") for h in mine), name
            binder = page.locator("a.ftd-binder").get_attribute("href")  # its Binder button
            assert binder == (f"https://mybinder.org/v2/gh/{REPO_NAME}/{REF}?urlpath=lab/tree/"
                              f"notebooks/{name}.ipynb"), binder
            assert page.locator(f"a[href*='mybinder.org'][href*='{name}.ipynb']").count() >= 2
            colab = page.locator("a.ftd-colab").get_attribute("href")  # and its Colab one
            assert colab == (f"https://colab.research.google.com/github/{REPO_NAME}/blob/"
                             f"{REF}/notebooks/{name}.ipynb"), colab
            assert page.locator("a[href*='colab.research.google.com']").count() >= 2
        assert any(h.endswith("/handouts/00_notation.pdf") for h in mine), name
        hrefs |= mine
    for h in sorted(hrefs):
        r = page.request.get(h)
        assert r.status == 200 and r.body()[:5] == b"%PDF-", h
    assert len(hrefs) == len(summary["pages"])  # one per notebook + the notation sheet
    # each notebook's page and the landing page offer the notebook itself (.ipynb): the
    # students' copy's, its worked solutions left out, its Colab cell naming the copy's ref
    for name in summary["pages"][1:]:
        _open(page, f"{server}/{name}.html")
        link = page.locator("a.ftd-ipynb")
        assert link.count() == 1 and link.get_attribute("download") is not None, name
        r = page.request.get(page.evaluate("a => a.href", link.element_handle()))
        nb = nbformat.reads(r.body().decode(), as_version=4)
        assert r.status == 200 and len(nb.cells) > 5 and not any(
            is_solution(c) for c in nb.cells), name
        assert f"{REPO_NAME}/archive/{REF}.zip" in json.dumps(nb), name
    _open(page, f"{server}/index.html")
    assert page.locator("a.ftd-ipynb").count() == len(summary["pages"]) - 1
    # the build's status page, linked from every footer: every notebook ran, with its time
    page.locator(".ftd-footer a", has_text="build status").first.click()
    page.wait_for_load_state("networkidle")
    rows = page.locator("article table tbody tr")
    assert rows.count() == len(summary["pages"]) - 1
    assert all(rows.nth(i).locator("td").last.inner_text().strip() == "ran"
               for i in range(rows.count()))
    # and no link of any page points to a file the site does not have
    local = set()
    for name in summary["pages"] + ["search", "status"]:
        # settled before moving on: leaving a page while MathJax still fetches its files
        # aborts those requests (net::ERR_ABORTED), a failure of the test, not of the site
        if name in summary["pages"]:
            _open(page, f"{server}/{name}.html")
        else:  # search and the build's status: no math
            page.goto(f"{server}/{name}.html", wait_until="networkidle")
        local |= {h.split("#")[0] for h in page.evaluate(
            "() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
            if is_local(h) and h.startswith("http")}
    assert len(local) >= len(summary["pages"])
    out, _ = built
    # a file of the site (a folder counts only with an index.html: static hosts list none)
    broken = [h for h in sorted(local) if not (out / urlsplit(h).path.lstrip("/")).is_file()
              and not (out / urlsplit(h).path.lstrip("/") / "index.html").is_file()]
    assert not broken, broken
    assert page.failures == []


@pytest.fixture
def phone(browser, server):
    """A phone: 390 × 844 CSS px, touch, every non-local request refused."""
    with _local_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True,
                     has_touch=True, device_scale_factor=2) as pg:
        yield pg


def _visible(page, selector):
    """The one visible element of ``selector`` (the themes print some buttons twice)."""
    loc = page.locator(selector)
    shown = [loc.nth(i) for i in range(loc.count()) if loc.nth(i).is_visible()]
    assert len(shown) == 1, (selector, len(shown))
    return shown[0]


def test_on_a_phone_the_chapter_drawer_and_the_contents_open(built, server, phone):
    _, summary = built
    _open(phone, f"{server}/04_forward_td_lambda.html")
    drawer = phone.locator("#pst-primary-sidebar-modal")
    assert not drawer.evaluate("d => d.open")
    _visible(phone, ".primary-toggle").tap()
    phone.wait_for_function("() => document.querySelector('#pst-primary-sidebar-modal').open")
    links = drawer.locator("a.reference.internal")
    hrefs = {links.nth(i).get_attribute("href") for i in range(links.count())
             if links.nth(i).is_visible()}
    others = [n for n in summary["pages"][1:] if n != "04_forward_td_lambda"]
    assert all(any(h.startswith(n + ".html") for h in hrefs) for n in others), hrefs
    assert drawer.locator("a.current").inner_text().startswith("04")  # the page itself
    OUT.mkdir(exist_ok=True)
    phone.screenshot(path=str(OUT / "site_phone_nav.png"))
    phone.keyboard.press("Escape")
    phone.wait_for_function("() => !document.querySelector('#pst-primary-sidebar-modal').open")
    _visible(phone, ".secondary-toggle").tap()
    phone.wait_for_function(
        "() => document.querySelector('#pst-secondary-sidebar-modal').open")
    contents = phone.locator("#pst-secondary-sidebar-modal a.nav-link")
    assert sum(contents.nth(i).is_visible() for i in range(contents.count())) >= 3
    phone.keyboard.press("Escape")
    phone.screenshot(path=str(OUT / "site_phone_04.png"))
    assert phone.failures == []


def test_no_page_scrolls_sideways_on_a_phone(built, server, phone):
    _, summary = built
    wide = {}
    for name in summary["pages"]:
        _open(phone, f"{server}/{name}.html")
        w = phone.evaluate("() => document.documentElement.scrollWidth")
        if w > 390 + 1:
            wide[name] = phone.evaluate(
                "() => { const inBox = e => { for (let p = e.parentElement; p; p = "
                "p.parentElement) { if (getComputedStyle(p).overflowX !== 'visible') return "
                "true; } return false; }; return Array.from(document.querySelectorAll("
                "'body *')).filter(e => e.getBoundingClientRect().right > 392 && !inBox(e))"
                ".slice(0, 3).map(e => e.tagName + '.' + e.className + ': ' + "
                "(e.textContent || '').slice(0, 40)); }")
    assert not wide, wide
    # the explorers' controls are 24 px touch targets
    _open(phone, f"{server}/03_one_state_divergence.html")
    heights = phone.evaluate("() => Array.from(document.querySelectorAll("
                             "'.ftd-static-explorer input, .ftd-static-explorer button'))"
                             ".map(e => e.getBoundingClientRect().height)")
    assert heights and min(heights) >= 24, heights


#: the cards of the methods page: each card's section, its height and the theme's header's
_CARDS_JS = """() => { const head = document.querySelector('.bd-header');
  return {header: head ? head.getBoundingClientRect().bottom : 0,
          cards: Array.from(document.querySelectorAll('section')).filter(s =>
            s.querySelector(':scope > .ftd-method-card')).map(s => [s.id,
            s.getBoundingClientRect().height])}; }"""


def test_methods_at_a_glance_fit_one_screen_a_card(built, server, browser):
    """The methods at a glance (ftd_lib/publish/method_cards.py): linked from the landing page
    and from a notebook page's sidebar; one card per method, prediction then control; at
    1280 x 720 each card, its heading at the top under the theme's header, ends within the
    screen; every formula typeset (no MathJax error); every course link lands on an element
    of its id on a page of the site; at 390 px nothing scrolls sideways (axe-core and the
    display equations' boxes: test_accessibility_axe_core_light_and_dark)."""
    out, _ = built
    ids = [i.replace("_", "-") for kind in ("prediction", "control")
           for i, m in METHODS.items() if m.kind == kind]
    with _local_page(browser, viewport={"width": 1280, "height": 720}) as pg:
        _open(pg, f"{server}/index.html")
        assert pg.locator(f"article a[href='{METHODS_PAGE}.html']").count() == 1
        _open(pg, f"{server}/04_forward_td_lambda.html")
        assert pg.locator(f"nav a[href='{METHODS_PAGE}.html']").count() >= 1
        _open(pg, f"{server}/{METHODS_PAGE}.html")
        got = pg.evaluate(_CARDS_JS)
        assert [i for i, _ in got["cards"]] == ids
        tall = {i: h for i, h in got["cards"] if got["header"] + h > 720}
        assert 40 < got["header"] < 100 and not tall, (got["header"], tall)
        assert pg.locator("mjx-merror").count() == 0
        # the pseudocode fits its box and has no copy button over its first line's end
        assert pg.evaluate("() => Array.from(document.querySelectorAll('.ftd-method-card pre'"
                           ")).every(p => p.scrollWidth <= p.clientWidth)")
        assert pg.locator(".ftd-method-card pre").count() >= 3
        assert pg.locator(".ftd-method-card button.ftd-copy").count() == 0
        links = pg.evaluate("() => Array.from(document.querySelectorAll("
                            "'a.ftd-course-link')).map(a => a.href)")
        assert len(links) >= len(ids)
        biggest = max(got["cards"], key=lambda c: c[1])[0]
        pg.evaluate(f"() => window.scrollTo(0, document.getElementById('{biggest}')"
                    f".getBoundingClientRect().top + window.scrollY - {got['header']})")
        OUT.mkdir(exist_ok=True)
        pg.screenshot(path=str(OUT / "site_methods_card.png"))
        for href in sorted(set(links)):
            path, anchor = urlsplit(href).path.lstrip("/"), urlsplit(href).fragment
            assert (out / path).is_file() and anchor, href
            pg.goto(href.split("#")[0], wait_until="domcontentloaded")
            assert pg.locator(f"[id='{anchor}']").count() == 1, href
        assert pg.failures == []
    with _local_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True,
                     has_touch=True) as phone:
        _open(phone, f"{server}/{METHODS_PAGE}.html")
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 391
        assert phone.failures == []


def test_on_a_phone_a_wide_figure_opens_at_full_size(built, server, phone):
    """At 390 px a multi-panel picture (06's widest figure, 03's two-panel explorer) is
    drawn smaller than its natural size (wide enough for its smallest text to be read, in a
    box that scrolls sideways); a tap opens it in a viewer at its natural size (one PNG pixel
    to one CSS pixel) that scrolls sideways itself while the page does not, and Close brings
    the page back where it was."""
    shots = 0
    for name, selector in (("06_nn_control", ".cell_output img"),
                           ("03_one_state_divergence", "img.ftd-static-image")):
        _open(phone, f"{server}/{name}.html")
        url = phone.url
        widths = phone.evaluate(f"() => Array.from(document.querySelectorAll('{selector}'))"
                                ".map(i => parseFloat(i.getAttribute('width')) || 0)")
        img = phone.locator(selector).nth(int(np.argmax(widths)))
        img.scroll_into_view_if_needed()
        img.evaluate("i => i.complete || new Promise(r => i.addEventListener('load', r))")
        natural, shown = img.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
        assert natural > 1.4 * shown, (name, natural, shown)
        img.tap()
        phone.wait_for_function("() => { const d = document.querySelector('dialog.ftd-viewer');"
                                " return d && d.open; }")
        viewer = phone.locator("dialog.ftd-viewer")
        big = viewer.locator("img")
        assert big.get_attribute("src") == img.get_attribute("src"), name
        assert big.get_attribute("alt") == img.get_attribute("alt") != "", name
        width = big.evaluate("i => i.complete ? i.getBoundingClientRect().width : -1")
        assert abs(width - natural) <= 1, (name, width, natural)
        # the viewer scrolls sideways, the page does not
        assert viewer.evaluate("v => v.scrollWidth > v.clientWidth + 100"), name
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 391, name
        if not shots:
            OUT.mkdir(exist_ok=True)
            phone.screenshot(path=str(OUT / "site_phone_figure.png"))
            shots += 1
        viewer.locator("button.ftd-viewer-close").tap()
        phone.wait_for_function("() => !document.querySelector('dialog.ftd-viewer').open")
        assert phone.url == url, name  # the page itself, not the PNG
    assert phone.failures == []


def test_on_a_phone_every_figures_text_is_drawn_large_enough_to_read(built, server, phone):
    """At 390 px every notebook figure and explorer picture carries its smallest text and dpi
    (the kernel measured them), and is drawn wide enough for that text to be at least
    site_figures.MIN_PHONE_TEXT_PX: font size × dpi / 72 × drawn width / natural width (the
    column alone drew it at 4.5-10 px). One drawn wider than the column scrolls sideways in its
    own box, named, with the line under it that says so; the page does not scroll sideways.
    The sizes are written to test-output/site_phone_figure_text.json."""
    from ftd_lib.publish.site_figures import MIN_PHONE_TEXT_PX

    _, summary = built
    found = {}
    for name in summary["pages"][1:]:
        _open(phone, f"{server}/{name}.html")
        imgs = phone.locator("article .cell_output img, article img.ftd-static-image")
        for k in range(imgs.count()):  # lazy pictures load once near the screen
            imgs.nth(k).scroll_into_view_if_needed()
        phone.wait_for_function("() => Array.from(document.querySelectorAll('article img'))"
                                ".every(i => i.complete && i.naturalWidth > 0)")
        found[name] = phone.evaluate("""() => Array.from(document.querySelectorAll(
            'article .cell_output img, article img.ftd-static-image')).map(i => {
              const box = i.closest('.ftd-fig');
              const cue = box && box.nextElementSibling;
              return {pt: parseFloat(i.dataset.ftdTextPt), dpi: parseFloat(i.dataset.ftdDpi),
                      natural: i.naturalWidth, drawn: i.getBoundingClientRect().width,
                      column: box ? box.clientWidth : -1,
                      scrolls: box ? box.scrollWidth > box.clientWidth + 1 : false,
                      name: box ? box.getAttribute('aria-label') : null,
                      cue: !!(cue && cue.classList.contains('ftd-fig-cue') && !cue.hidden
                              && cue.getBoundingClientRect().height > 0)};
            })""")
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 391, name
    OUT.mkdir(exist_ok=True)
    (OUT / "site_phone_figure_text.json").write_text(json.dumps(found, indent=1))
    figs = [dict(f, page=n) for n, fs in found.items() for f in fs]
    assert len(figs) >= 30, len(figs)
    unmeasured = [(f["page"], f["natural"]) for f in figs if not (f["pt"] > 0 and f["dpi"] > 0)]
    assert not unmeasured, unmeasured
    for f in figs:
        f["px"] = f["pt"] * f["dpi"] / 72 * f["drawn"] / f["natural"]
        # at least the floor, or (a picture whose text is small even at its natural size)
        # drawn at its natural size
        assert f["px"] >= MIN_PHONE_TEXT_PX - 0.05 or f["drawn"] >= f["natural"] - 1, f
        if f["drawn"] > f["column"] + 1:
            assert f["scrolls"] and f["cue"] and "scrolls sideways" in (f["name"] or ""), f
    assert sum(f["scrolls"] for f in figs) >= 20  # most figures needed it at 390 px
    assert phone.failures == []


def test_pages_say_what_they_are_once_and_log_no_error(built, server, browser):
    """Every page's head has one viewport tag, its own title and its own description (a
    notebook's: its learning goals; the landing page's title not said twice), and no page
    logs an error or a warning to the console (the theme's "Got invalid theme mode" did on
    every load); there is no empty general index."""
    out, summary = built
    descriptions = {}
    with _local_page(browser, viewport={"width": 390, "height": 844}, is_mobile=True) as pg:
        logged = []
        pg.on("console", lambda m: m.type in ("error", "warning") and logged.append(
            (pg.url, m.type, m.text)))
        pg.on("pageerror", lambda e: logged.append((pg.url, "pageerror", str(e))))
        for name in summary["pages"] + ["search", "status"]:
            if name in summary["pages"]:
                _open(pg, f"{server}/{name}.html")
            else:
                pg.goto(f"{server}/{name}.html", wait_until="networkidle")
            assert pg.locator("meta[name=viewport]").count() == 1, name
            descriptions[name] = pg.locator("meta[name=description]").get_attribute("content")
            # its own address, as its canonical link, and the preview's picture, absolute
            og = {p: pg.locator(f'meta[property="og:{p}"]').get_attribute("content")
                  for p in ("url", "image")}
            assert og["url"] == f"{SITE_URL}{name}.html" == pg.locator(
                "link[rel=canonical]").get_attribute("href"), name
            assert og["image"] == f"{SITE_URL}_static/link-preview.png", name
            title = pg.title()
            assert title.count("Forward TD(λ): a course") <= 1, title
        assert logged == [] and pg.failures == []
    notebooks = [descriptions[n] for n in summary["pages"][1:]]
    assert len(set(notebooks)) == len(notebooks) and descriptions["index"] not in notebooks
    assert all(d.startswith("You will learn: ") and "$" not in d for d in notebooks)
    assert not (out / "genindex.html").exists()
    from PIL import Image

    assert Image.open(out / "_static" / "link-preview.png").size == (1200, 630)


def test_exercises_read_as_questions_on_a_page_nobody_runs(built, server, page):
    _, summary = built
    for name in summary["pages"][1:]:
        _open(page, f"{server}/{name}.html")
        text = page.locator("article").inner_text()
        for unrun in ("No answer yet", "NotImplementedError", 'hint("', "💡"):
            assert unrun not in text, (name, unrun)
        # a verdict symbol that stays (the claims tables' "✅ agrees") has its word beside it
        assert not re.search(r"[✅❌](?!\s*\w)", text), (name, re.findall(r"[✅❌].{0,9}", text))
        saved = nbformat.read(REPO / "notebooks" / f"{name}.ipynb", as_version=4)
        exercises = sum("exercise" in c.metadata.get("tags", []) for c in saved.cells)
        assert text.count("Your turn: answer this in the notebook") == exercises, name
        if name == "01_td_basics":
            hint = page.locator("article details", has=page.locator(
                "summary", has_text="Hint")).first
            hint.scroll_into_view_if_needed()
            page.evaluate("() => window.scrollBy(0, -250)")
            OUT.mkdir(exist_ok=True)
            page.screenshot(path=str(OUT / "site_exercise.png"))
    assert page.failures == []


def test_the_stepper_steps_back_and_forth(built, server, page):
    _open(page, f"{server}/04_forward_td_lambda.html")
    box = page.locator(".ftd-static-explorer[data-factory='algorithm1_stepper']")
    assert box.count() == 1
    data = _data(box)
    n = len(data["frames"])
    back, step = box.locator("button[data-step='-1']"), box.locator("button[data-step='1']")
    assert back.is_disabled() and not step.is_disabled()

    def shown():
        page.wait_for_function("b => b.getAttribute('data-shown') === "
                               "b.getAttribute('data-frame')", arg=box.element_handle())
        return int(box.get_attribute("data-shown"))

    assert shown() == 0
    for t in range(1, 4):
        step.click()
        assert shown() == t
        assert box.locator(".ftd-static-readout").inner_text().startswith(f"t = {t}")
        assert box.locator("img").get_attribute("src") == data["frames"][t]["src"]
    back.click()
    assert shown() == 2
    slider = box.locator("input[data-slider='0']")
    slider.focus()
    page.keyboard.press("End")
    assert shown() == n - 1 and step.is_disabled()
    assert "Episode end" in box.locator(".ftd-static-readout").inner_text()
    assert page.failures == []


def _axe(page, preload: bool = True):
    """axe-core's violations on ``page``, each with its id, impact, node count, help and first
    node. ``preload=False``: axe does not fetch the page's style sheets again (a page opened
    from disk, file://, may not let it)."""
    page.add_script_tag(content=AXE.read_text())
    return page.evaluate("""async preload => {
        const r = await axe.run(document, {resultTypes: ['violations'], preload});
        return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length,
                                       help: v.help,
                                       first: v.nodes[0].target.join(' ')}));
    }""", preload)


#: the widths axe runs at: a laptop's and a phone's (at 1300 px alone a 13-px overflow stayed
#: under axe's threshold, at 390 px ten equations overflowed)
WIDTHS = {"laptop": dict(viewport={"width": 1300, "height": 1000}),
          "phone": dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                        device_scale_factor=2)}


def test_accessibility_axe_core_light_and_dark(built, server, browser):
    """axe-core on every page in light and dark mode, at a laptop's width and a phone's: no
    serious or critical violation; a display equation wider than the column is a box that
    scrolls sideways and is a tab stop (so the keyboard scrolls it), and no formula is. Every
    violation found is written to test-output/site_axe.json, with the counts per width (the
    closing note's numbers)."""
    _, summary = built
    found, wide = {}, {}
    for width, context in WIDTHS.items():
        with _local_page(browser, **context) as page:
            for mode in ("light", "dark"):
                page.goto(f"{server}/index.html", wait_until="networkidle")
                page.evaluate(f"() => {{ localStorage.setItem('mode', '{mode}'); "
                              f"localStorage.setItem('theme', '{mode}'); }}")
                for name in summary["pages"] + ["search", METHODS_PAGE]:
                    if name == "search":
                        page.goto(f"{server}/search.html?q=lambda", wait_until="networkidle")
                    else:
                        _open(page, f"{server}/{name}.html")
                    assert page.evaluate("() => document.documentElement.dataset.theme") == mode
                    found[f"{width}/{mode}/{name}"] = _axe(page)
                    if mode == "light" and name != "search":
                        wide[f"{width}/{name}"] = page.evaluate("""() => Array.from(
                            document.querySelectorAll("mjx-container[display='true']")).map(c => {
                              const b = c.closest('.ftd-eq-box');
                              return {box: !!b, over: b ? b.scrollWidth - b.clientWidth : -1,
                                      tab: b ? b.getAttribute('tabindex') : null,
                                      self: c.scrollWidth - c.clientWidth,
                                      ctab: c.hasAttribute('tabindex')};
                            })""")
            assert page.failures == []
    counts = {w: {imp: sum(v["nodes"] for k, vs in found.items() if k.startswith(w)
                           for v in vs if v["impact"] == imp)
                  for imp in ("critical", "serious", "moderate", "minor")} for w in WIDTHS}
    OUT.mkdir(exist_ok=True)
    (OUT / "site_axe.json").write_text(json.dumps({"counts": counts, "violations": found,
                                                   "display_equations": wide}, indent=1))
    bad = {k: [(v["id"], v["impact"], v["first"]) for v in vs
               if v["impact"] in ("serious", "critical")] for k, vs in found.items()}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, bad
    eqs = [e for es in wide.values() for e in es]
    assert eqs and all(e["box"] and not e["ctab"] and e["self"] <= 1 for e in eqs), wide
    overflowing = [e for e in eqs if e["over"] > 1]
    assert all(e["tab"] == "0" for e in overflowing), overflowing
    assert any(k.startswith("phone/") and any(e["over"] > 1 for e in es)
               for k, es in wide.items()), "no equation is wider than a phone's column?"


#: the most a first visit of a page may transfer, compressed as a web server sends it (gzip),
#: in bytes: with full-colour PNGs a first visit was 3.8-5.3 MB raw (about 1.2-2.5 MB gzipped)
FIRST_VISIT_BUDGET = 2_000_000


def test_first_visit_weight_within_budget(built, server, browser):
    """A first visit (empty cache) of each page: every response the browser gets, its bytes
    as sent here (raw) and gzipped as GitHub Pages sends text (images and fonts as they are),
    held to :data:`FIRST_VISIT_BUDGET`; written to test-output/site_weight.json with the
    largest files. The site's pictures are palette PNGs (a third to a quarter of the bytes)."""
    import gzip

    out, summary = built
    # every picture of the site went through the palette (png_palette): none is left larger
    # than its palette form would be, and together they lost most of their bytes
    pics = summary["pictures"]
    assert pics["files"] > 20 and pics["after"] < 0.6 * pics["before"], pics
    from ftd_lib.publish.png_palette import shrink

    for path in sorted((out / "_images").glob("*.png"))[:5]:
        data = path.read_bytes()
        assert shrink(data) is data, path.name
    weights = {}
    for name in summary["pages"]:
        with _local_page(browser, viewport={"width": 1300, "height": 1000}) as page:
            got = []
            page.on("response", lambda r, got=got: got.append(r))
            _open(page, f"{server}/{name}.html")
            files = []
            for r in got:
                try:
                    body = r.body()
                except Exception:  # a redirect or an aborted request has no body
                    continue
                kind = r.headers.get("content-type", "")
                text = any(t in kind for t in ("text", "javascript", "json", "svg", "css"))
                files.append((r.url.split("/", 3)[-1], len(body),
                              len(gzip.compress(body, 6)) if text else len(body)))
            weights[name] = {"raw": sum(f[1] for f in files), "gzip": sum(f[2] for f in files),
                             "requests": len(files),
                             "largest": sorted(files, key=lambda f: -f[1])[:6]}
    OUT.mkdir(exist_ok=True)
    (OUT / "site_weight.json").write_text(json.dumps(weights, indent=1))
    over = {k: w["gzip"] for k, w in weights.items() if w["gzip"] > FIRST_VISIT_BUDGET}
    assert not over, over


def test_figures_have_alt_text_and_formulas_are_not_tab_stops(built, server, page):
    _, summary = built
    for name in summary["pages"][1:]:
        _open(page, f"{server}/{name}.html")
        alts = page.evaluate("() => Array.from(document.querySelectorAll('article img'))"
                             ".map(i => i.getAttribute('alt') || '')")
        hashed = [a for a in alts if not a.strip() or a.endswith(".png") or "_images" in a]
        assert not hashed, (name, hashed[:3])
        assert page.evaluate("() => document.querySelectorAll('mjx-container[tabindex], "
                             "mjx-container [tabindex]').length") == 0, name
        # and a screen reader reads each formula from its hidden MathML copy
        assert page.evaluate("() => Array.from(document.querySelectorAll('article "
                             "mjx-container')).every(c => c.querySelector("
                             "'mjx-assistive-mml math'))"), name
    assert page.failures == []


#: a page with the site's own CSS and script: a figure in a notebook's output box (which
#: scrolls), a printed output wider than its column, and the theme's header button
FOCUS_PAGE = """<!doctype html><html data-theme="{theme}"><head><style>{css}</style></head>
<body><article style="max-width: 100%"><div class="cell_output" style="overflow-x: auto">
<img src="data:image/png;base64,{png}" alt="a figure" style="width: 300px"></div>
<div class="cell_output"><pre>{line}</pre></div>
<button class="primary-toggle btn btn-sm">menu</button></article>
<script>{js}</script></body></html>"""


def test_focus_is_seen_on_figures_and_header_buttons_and_wide_printouts_say_so(browser):
    """With the themes' stylesheets and the site's, keyboard focus changes the pixels of a
    notebook figure (its enlarge link's ring is drawn on the picture, which the output box no
    longer clips) and of the theme's header button, at a laptop's and a phone's width; a
    printed output wider than its column is a named tab stop with a shaded right edge, light in
    dark mode and dark in light mode."""
    import base64

    import pydata_sphinx_theme
    import sphinx_book_theme
    from PIL import Image

    static = REPO / "ftd_lib" / "publish" / "site_static"
    themes = [Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme"
              / "static" / "styles" / "pydata-sphinx-theme.css",
              Path(sphinx_book_theme.__file__).parent / "theme" / "sphinx_book_theme"
              / "static" / "styles" / "sphinx-book-theme.css"]
    css = "".join(t.read_text() for t in themes) + (static / "ftd-site.css").read_text()
    buf = io.BytesIO()
    Image.new("RGB", (600, 300), (255, 255, 255)).save(buf, "PNG")
    for width in (1280, 390):
        for theme in ("light", "dark"):
            with _local_page(browser, viewport={"width": width, "height": 800}) as pg:
                pg.set_content(FOCUS_PAGE.format(
                    theme=theme, css=css,
                    js=(static / "ftd-site.js").read_text(),
                    png=base64.b64encode(buf.getvalue()).decode(), line="x = 1; " * 80))
                pg.wait_for_selector("a.ftd-enlarge img")
                for target in ("a.ftd-enlarge", "pre", "button.primary-toggle"):
                    box = pg.locator(target).first
                    b = box.bounding_box()  # with a margin for a ring drawn outside it
                    clip = {"x": max(0, b["x"] - 6), "y": max(0, b["y"] - 6),
                            "width": b["width"] + 12, "height": b["height"] + 12}
                    before = _pixels(pg.screenshot(clip=clip))
                    box.focus()
                    pg.keyboard.press("Shift+Tab")
                    pg.keyboard.press("Tab")  # focus by keyboard: :focus-visible
                    assert pg.evaluate("() => document.activeElement.matches(':focus-visible')")
                    after = _pixels(pg.screenshot(clip=clip))
                    changed = (np.abs(after.astype(int) - before.astype(int)).sum(axis=2) > 60)
                    assert before.shape == after.shape and changed.mean() > 0.03, (
                        width, theme, target, changed.mean())
                    pg.evaluate("() => document.activeElement.blur()")
                pre = pg.evaluate("""() => { const p = document.querySelector('pre');
                    return {cls: p.className, tab: p.tabIndex, role: p.getAttribute('role'),
                            name: p.getAttribute('aria-label'),
                            shade: getComputedStyle(p).boxShadow}; }""")
                assert "ftd-wide" in pre["cls"] and pre["tab"] == 0 and pre["role"] == "group"
                assert pre["name"] == "printed output 1 of 1, scrolls sideways", pre
                light = "255, 255, 255" in pre["shade"]
                assert light == (theme == "dark"), (theme, pre["shade"])


#: every icon a page draws with an icon font: (font family, weight, code point) of each
#: element's ::before and ::after whose font is Font Awesome
DRAWN_ICONS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('*')) {
    for (const pseudo of ['::before', '::after']) {
      const cs = getComputedStyle(el, pseudo);
      if (!/Font Awesome/.test(cs.fontFamily) || !cs.content || cs.content === 'none') continue;
      for (const ch of cs.content) {
        const cp = ch.codePointAt(0);
        if (cp >= 0xe000 && cp <= 0xf8ff) out.push([cs.fontFamily, cs.fontWeight, cp]);
      }
    }
  }
  return out;
}"""


def test_the_icon_fonts_hold_every_icon_the_site_draws(built, browser):
    """The icon fonts are cut to the site's icons (ftd_lib/publish/icon_font.py): every icon
    any page draws, on a laptop and on a phone, in light and dark mode, is in the font file its
    family and weight load (read back with fontTools), and each font is a few KB (the solid
    one was 115 KB)."""
    from fontTools.ttLib import TTFont

    out, summary = built
    fonts = out / "_static" / "vendor" / "fontawesome" / "webfonts"
    cmaps = {p.stem: set(TTFont(p).getBestCmap() or ()) for p in fonts.glob("fa-*.woff2")}
    assert set(cmaps) == {"fa-solid-900", "fa-regular-400", "fa-brands-400"}
    assert all(p.stat().st_size < 8_000 for p in fonts.glob("fa-*.woff2"))
    assert summary["page_weight"]["icon_fonts"]["fonts"]["fa-solid-900.woff2"][0] > 100_000
    drawn = set()
    with serving(out) as url:
        for width, mode in ((1300, "light"), (390, "dark")):
            with _local_page(browser, viewport={"width": width, "height": 900},
                             color_scheme=mode) as pg:
                for name in summary["pages"] + ["search", "status"]:
                    pg.goto(f"{url}/{name}.html", wait_until="load")
                    drawn |= {(f, int(w), cp) for f, w, cp in pg.evaluate(DRAWN_ICONS)}
                assert pg.failures == []
    assert {cp for _, _, cp in drawn} >= {0xF0C9, 0xF002}  # the menu and search buttons
    for family, weight, cp in sorted(drawn):
        font = ("fa-brands-400" if "Brands" in family else
                "fa-solid-900" if weight >= 600 else "fa-regular-400")
        assert cp in cmaps[font], (family, weight, hex(cp), font)
