"""Browser test: the course's widgets work in a real JupyterLab, used the way a student uses them.

Starts JupyterLab on a free localhost port with a random token, opens notebooks 03 and 04 in
headless Chromium (driven by Playwright's sync API, with the system's Chromium: Playwright's own
browser download is never used), clears the saved outputs, runs every cell from the Run menu,
waits for the kernel to go idle, then moves the α slider of notebook 03 and clicks the step
button of notebook 04 and checks that their readouts (and 03's plot) follow. A screenshot of
each notebook goes to test-output/. Every test runs without network: the browser context refuses
every request to anything but localhost, and fails the test on any refused or failed request and
on any 4xx/5xx answer (lecture halls and trains have no network).

The slideshow test opens (a copy of) notebook 03 as a RISE slideshow (jupyterlab-rise's
"Open as Reveal Slideshow" from the command palette, which serves it at ``/rise/<path>``),
moves slide by slide to the explorer's slide, drags its α slider and checks that the readout
follows: the widgets stay live on the slides. Screenshot: test-output/slideshow_nb03.png.

Without Chromium (``apt-get install chromium``) the tests are skipped, except under ``CI=true``,
where they fail instead.
"""

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import needs_chromium, offline_page

from ftd_lib.publish.slides import css_paths

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "test-output"

SERVER_START_S = 180  # JupyterLab start on a busy 2-core machine
KERNEL_START_S = 180
RUN_ALL_S = 600  # every cell of a notebook, at CI (quick) scale
WIDGET_S = 120  # one widget interaction: a kernel round trip and a redraw

NB03 = "notebooks/03_one_state_divergence.ipynb"
NB04 = "notebooks/04_forward_td_lambda.ipynb"
# RISE saves a notebook before it shows it: the slideshow test runs a copy, in test-output/
SLIDES_NB03 = "test-output/slides/03_one_state_divergence.ipynb"
MAX_SLIDES = 80  # key presses to reach a slide before the test gives up

pytestmark = needs_chromium("the browser test")


# --------------------------------------------------------------------------- server


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _api(server, path, method="GET"):
    req = urllib.request.Request(
        server["url"] + path,
        method=method,
        headers={"Authorization": "token " + server["token"]},
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        body = r.read()
    return json.loads(body) if body else None


def _log_tail(server, n=40):
    try:
        return "\n".join(Path(server["log"]).read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


def _kernel_pids(runtime_dir):
    """Processes whose command line names a connection file in our own runtime dir: the kernels
    this server started (they run in their own sessions, outside the server's process group)."""
    pids = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            cmd = (d / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if str(runtime_dir) in cmd and "kernel" in cmd:
            pids.append(int(d.name))
    return pids


def _stop_server(proc, server):
    try:  # polite: shut the kernels down through the API
        for k in _api(server, "/api/kernels"):
            _api(server, f"/api/kernels/{k['id']}", method="DELETE")
    except Exception:
        pass
    for sig, wait_s in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            pass
    for pid in _kernel_pids(server["runtime_dir"]):  # a kernel the server left behind
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def jupyter_server(tmp_path_factory):
    """JupyterLab on 127.0.0.1:<free port> with a random token, the repo as its root, its own
    settings / workspace / runtime dirs; killed (process group and kernels) on teardown."""
    OUT.mkdir(exist_ok=True)
    home = tmp_path_factory.mktemp("jupyter")
    settings = home / "settings"
    for plugin, values in {
        # no news / update checks: no outside requests, no toast over the notebook
        "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
        # never write the notebooks we run back into the repository
        "docmanager-extension/plugin": {"autosave": False},
    }.items():
        f = settings / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(values))
    port, token = _free_port(), secrets.token_hex(24)
    server = {
        "url": f"http://127.0.0.1:{port}",
        "token": token,
        "log": OUT / "jupyterlab.log",
        "runtime_dir": home / "runtime",
    }
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(server["runtime_dir"]),
        PYTHONUNBUFFERED="1",
    )
    cmd = [
        sys.executable, "-m", "jupyter", "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={REPO}",
        # JupyterLab checkpoints a notebook when it opens it: not into the repository
        f"--FileCheckpoints.checkpoint_dir={home / 'checkpoints'}",
    ]  # fmt: skip
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # CI containers run as root
    with open(server["log"], "wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"JupyterLab exited with {proc.returncode}:\n{_log_tail(server)}")
            try:
                _api(server, "/api/status")
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"JupyterLab did not answer in {SERVER_START_S} s:\n" + _log_tail(server)
                    )
                time.sleep(0.5)
        yield server
    finally:
        _stop_server(proc, server)


# --------------------------------------------------------------------------- browser


@pytest.fixture
def untouched_notebooks():
    """The test must leave the repository's notebooks as they were (no save, no autosave)."""
    paths = [REPO / NB03, REPO / NB04]
    before = {p: p.read_bytes() for p in paths}
    yield
    changed = [str(p.relative_to(REPO)) for p in paths if p.read_bytes() != before[p]]
    assert not changed, f"the browser test modified {changed}"


@pytest.fixture
def page(browser, jupyter_server, request):
    """A fresh browser context with no network: every request to anything but localhost is
    refused (route abort), as in a lecture hall or on a train. The context records what it
    refused and every request that failed or got a 4xx/5xx answer, in ``page.failures``; a
    test asserts it empty. The page is screenshotted to test-output/<test name>.png at the
    end, pass or fail (so a failure shows where it stopped)."""
    ctx, pg = offline_page(browser, viewport={"width": 1400, "height": 1000})
    pg.set_default_timeout(WIDGET_S * 1000)
    try:
        yield pg
    finally:
        try:
            pg.screenshot(path=str(OUT / f"{request.node.name}.png"))
        except Exception:
            pass
        ctx.close()
        for session in _api(jupyter_server, "/api/sessions"):  # free the CPU for the next test
            _api(jupyter_server, f"/api/sessions/{session['id']}", method="DELETE")


# --------------------------------------------------------------------------- JupyterLab steps


def _wait_kernel_idle(page, server, nb_path, timeout_s):
    """The notebook's kernel is idle both in the UI (status bar) and on the server."""
    page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\| Idle$")).wait_for(
        timeout=timeout_s * 1000
    )
    deadline = time.monotonic() + timeout_s
    while True:
        states = [
            s["kernel"]["execution_state"]
            for s in _api(server, "/api/sessions")
            if s.get("path") == nb_path and s.get("kernel")
        ]
        if states == ["idle"]:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"kernel of {nb_path} not idle after {timeout_s} s: {states}")
        time.sleep(0.5)


def _menu(page, menu, item):
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{menu}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()


PROMPTS = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt"
# the prompts JupyterLab draws: a folded cell (a worked solution, `jupyter.source_hidden`) shows
# no input, and its prompt stays empty whether it ran or not
VISIBLE = "[...document.querySelectorAll(sel)].filter(e => e.textContent.trim() !== '')"
ALL_CLEARED = f"sel => {VISIBLE}.every(e => e.textContent.trim() === '[ ]:')"
ALL_RUN = f"""sel => {{ const p = {VISIBLE};
    return p.length > 0 && p.every(e => /^\\[\\d+\\]:$/.test(e.textContent.trim())); }}"""
# error outputs (JupyterLab shows them as stderr); Run All stops at the first one
ERRORS = (
    ".jp-NotebookPanel:not(.lm-mod-hidden) "
    ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"
)
SOME_ERROR = """sel => [...document.querySelectorAll(sel)]
    .some(e => /Traceback|Error\\b/.test(e.textContent))"""


def _errors(page):
    return [
        t for t in page.locator(ERRORS).all_text_contents() if re.search(r"Traceback|Error\b", t)
    ]


def open_and_run_all(page, server, nb_path, workspace):
    """Open the notebook, wait for its kernel, clear the saved outputs, Run → Run All Cells, wait
    until every code cell has run and the kernel is idle; fail on any error output."""
    # a workspace of its own: only this notebook open, nothing restored from another test
    page.goto(f"{server['url']}/lab/workspaces/{workspace}/tree/{nb_path}?token={server['token']}")
    page.locator(".jp-NotebookPanel .jp-Notebook").first.wait_for(timeout=KERNEL_START_S * 1000)
    _wait_kernel_idle(page, server, nb_path, KERNEL_START_S)

    _menu(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(ALL_CLEARED, arg=PROMPTS)
    assert page.locator(PROMPTS).count() > 0, f"{nb_path}: no code cells rendered"

    t0 = time.monotonic()
    _menu(page, "Run", "Run All Cells")
    page.wait_for_function(
        f"sel => ({ALL_RUN})(sel.prompts) || ({SOME_ERROR})(sel.errors)",
        arg={"prompts": PROMPTS, "errors": ERRORS},
        timeout=RUN_ALL_S * 1000,
    )
    errors = _errors(page)
    assert not errors, f"{nb_path}: error output after Run All:\n" + "\n".join(errors)
    _wait_kernel_idle(page, server, nb_path, RUN_ALL_S)
    return time.monotonic() - t0


# --------------------------------------------------------------------------- tests


def _text(locator):
    return " ".join((locator.text_content() or "").split())


def _wait_until(what, fn, now, timeout_s=WIDGET_S):
    """Poll fn() until it returns a true value; on timeout fail with `what` and now()."""
    deadline = time.monotonic() + timeout_s
    while not fn():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} (after {timeout_s} s); now: {now()!r}")
        time.sleep(0.25)


def _redrawn_without_error(page, box, image, src0, what):
    """The explorer's picture changed from ``src0``, the explorer shows no error, and the page
    made no failed or refused request."""
    _wait_until(
        f"{what} should be redrawn",
        lambda: image.get_attribute("src") not in ("", src0),
        lambda: image.get_attribute("src"),
    )
    assert _text(box.locator(".ftd-error")) == "", _text(box.locator(".ftd-error"))
    box.evaluate("e => e.scrollIntoView({block: 'start'})")
    assert page.failures == [], "\n".join(page.failures)


#: the readout's "β<sub>TD</sub> = …, β<sub>λ</sub> = …" as the page's text has it
BETA = re.compile(r"βTD = (-?[\d.]+), βλ = (-?[\d.]+)")


def _betas(readout):
    m = BETA.search(_text(readout))
    assert m, f"no 'βTD = …, βλ = …' in the readout: {_text(readout)!r}"
    return float(m.group(1)), float(m.group(2))


def test_nb03_alpha_slider_moves_beta_and_plot(jupyter_server, page, untouched_notebooks):
    """Notebook 03: the α slider of the one-state explorer drives β_TD = αT, β_λ = 1-(1-α)^T
    and the plot; moving α from 0.15 to 0.25 at T = 10 crosses β_TD = 2 (divergence)."""
    open_and_run_all(page, jupyter_server, NB03, "nb03")

    box = page.locator(".ftd-explorer").filter(has=page.locator(".ftd-beta-readout"))
    assert box.count() == 1, "notebook 03 should show one explorer with a β readout"
    slider = box.locator(".widget-slider.ftd-alpha")
    assert _text(slider.locator(".widget-label")) == "α"
    handle = slider.locator(".noUi-handle")
    t_value = int(_text(box.locator(".ftd-T .widget-readout")))
    readout = box.locator(".ftd-beta-readout")
    image = box.locator("img.ftd-one-state-plot")
    box.evaluate("e => e.scrollIntoView({block: 'start'})")
    image.wait_for()

    alpha0 = float(_text(slider.locator(".widget-readout")))  # what the student reads
    beta0 = _betas(readout)
    assert beta0 == pytest.approx((alpha0 * t_value, 1 - (1 - alpha0) ** t_value), abs=1e-3)
    assert alpha0 * t_value <= 2 and "converges" in _text(readout)
    src0 = image.get_attribute("src")

    handle.focus()
    for _ in range(10):  # ten steps of 0.01 to the right
        handle.press("ArrowRight")
    alpha1 = float(_text(slider.locator(".widget-readout")))
    assert alpha1 == pytest.approx(alpha0 + 0.10, abs=1e-6), f"α moved {alpha0} -> {alpha1}"
    want = (alpha1 * t_value, 1 - (1 - alpha1) ** t_value)
    _wait_until(
        f"β readout should follow α = {alpha1}, T = {t_value} to (β_TD, β_λ) = {want}",
        lambda: _betas(readout) == pytest.approx(want, abs=1e-3),
        lambda: _text(readout),
    )
    _wait_kernel_idle(page, jupyter_server, NB03, WIDGET_S)
    assert _betas(readout) == pytest.approx(want, abs=1e-3)
    assert want[0] > 2 and "diverges" in _text(readout), _text(readout)
    _redrawn_without_error(page, box, image, src0, "the plot")


def test_nb04_step_forward_advances_algorithm1(jupyter_server, page, untouched_notebooks):
    """Notebook 04: each click on the stepper's `Step ▶` shows the next time step of
    Algorithm 1 (readout frame and t, frame slider, timeline plot)."""
    open_and_run_all(page, jupyter_server, NB04, "nb04")

    box = page.locator(".ftd-explorer").filter(has=page.locator(".ftd-step-readout"))
    assert box.count() == 1, "notebook 04 should show one stepper with a step readout"
    button = box.locator("button.ftd-step-forward")
    assert "Step ▶" in _text(button)
    readout = box.locator(".ftd-step-readout")
    frame = readout.locator("[data-frame]")
    image = box.locator("img.ftd-step-plot")
    box.evaluate("e => e.scrollIntoView({block: 'start'})")
    image.wait_for()
    assert frame.get_attribute("data-frame") == "0" and "t = 0" in _text(readout)
    src0 = image.get_attribute("src")

    for k in (1, 2):
        button.click()
        _wait_until(
            f"step readout should show frame {k}",
            lambda k=k: frame.get_attribute("data-frame") == str(k),
            lambda: _text(readout),
        )
        assert f"t = {k}" in _text(readout), _text(readout)
    _wait_kernel_idle(page, jupyter_server, NB04, WIDGET_S)
    assert frame.get_attribute("data-frame") == "2"
    assert _text(box.locator(".ftd-step-slider .widget-readout")) == "2"
    _redrawn_without_error(page, box, image, src0, "the timeline")


RAW_TEX = re.compile(r"\$[^$\s]|\\(?:alpha|beta|lambda|gamma|frac|hat|theta)\b")
MATH_TEXT = """() => [...document.querySelectorAll('.jp-RenderedMarkdown')].map(md => {
    const c = md.cloneNode(true);
    c.querySelectorAll('mjx-container, code, pre, script').forEach(e => e.remove());
    return c.textContent; })"""
FONTS = """async () => { await document.fonts.ready;
    return [...document.fonts].map(f => [f.family.replace(/["']/g, ''), f.status]); }"""


def _assert_offline_ready(slides):
    """With the network refused: the math of every markdown cell is typeset by MathJax (no raw
    TeX left in the text), and the theme's font face loaded (from the notebook server)."""
    slides.wait_for_function(
        "() => document.querySelectorAll('.jp-RenderedMarkdown mjx-container').length >= 20",
        timeout=KERNEL_START_S * 1000)
    raw = [m.group(0) for t in slides.evaluate(MATH_TEXT) for m in RAW_TEX.finditer(t)]
    assert raw == [], f"math left as raw TeX on the slides: {raw[:10]}"
    faces = slides.evaluate(FONTS)
    assert ["Source Sans Pro", "loaded"] in faces, faces
    assert not [f for f in faces if f[1] == "error"], faces
    font = slides.evaluate("() => getComputedStyle(document.querySelector('.reveal')).fontFamily")
    assert font.startswith(("Source Sans Pro", '"Source Sans Pro"')), font


def open_slideshow(page):
    """Open the notebook shown in ``page`` as a RISE slideshow (command palette: "Open as
    Reveal Slideshow"); returns the slideshow's page."""
    page.keyboard.press("Control+Shift+C")
    page.locator(".lm-CommandPalette-input").fill("Open as Reveal Slideshow")
    item = page.locator(".lm-CommandPalette-item", has_text="Open as Reveal Slideshow").first
    with page.context.expect_page(timeout=WIDGET_S * 1000) as opened:
        item.click()
    slides = opened.value
    slides.set_default_timeout(WIDGET_S * 1000)
    return slides


def test_nb03_slideshow_widget_slide_is_live(jupyter_server, page, untouched_notebooks):
    """Notebook 03 as a RISE slideshow, with every non-local request refused: run it, open it
    with RISE's command ("Open as Reveal Slideshow", command palette); the math is typeset and
    the theme's font loaded (screenshot test-output/slideshow_nb03_title.png); move slide by
    slide (Space) to the explorer's slide, drag the α slider and check that the β readout
    follows: the widgets are live on the slides. The navigation arrows are hidden (the course's
    RISE settings). No request went to the network, failed or got
    a 4xx/5xx answer (``/files/notebooks/rise.css`` was one on every slide)."""
    copy = REPO / SLIDES_NB03
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(REPO / NB03, copy)
    # the slide style RISE loads from the notebook's folder
    for css, to in zip(css_paths(REPO / NB03), css_paths(copy), strict=True):
        shutil.copyfile(css, to)
    open_and_run_all(page, jupyter_server, SLIDES_NB03, "slides")

    slides = open_slideshow(page)
    try:
        slides.wait_for_load_state()
        assert "/rise/" + SLIDES_NB03 in slides.url, slides.url
        slides.locator(".reveal .slides section.present").first.wait_for(
            timeout=KERNEL_START_S * 1000)
        on_slide = ".reveal .slides section.present .ftd-explorer .ftd-beta-readout"
        title = " ".join((slides.locator(".reveal .slides section.present").first
                          .text_content() or "").split())
        assert title.startswith("# 03"), f"the slideshow should start at the title: {title[:80]!r}"
        _assert_offline_ready(slides)
        # no navigation arrows on the slides (slides.RISE's "controls": false; they sat on
        # the figures' corners): reveal.js builds them and hides them
        arrows = slides.evaluate("() => [...document.querySelectorAll('.reveal .controls')]"
                                 ".map(c => getComputedStyle(c).display)")
        assert arrows == ["none"], f"reveal.js's navigation arrows: {arrows}"
        slides.screenshot(path=str(OUT / "slideshow_nb03_title.png"))
        for _ in range(MAX_SLIDES):
            if slides.locator(on_slide).count():
                break
            slides.keyboard.press("Space")
            time.sleep(0.4)
        else:
            raise AssertionError(f"no slide with the explorer after {MAX_SLIDES} key presses")

        box = slides.locator(".ftd-explorer").filter(has=slides.locator(".ftd-beta-readout"))
        readout = box.locator(".ftd-beta-readout")
        alpha = box.locator(".widget-slider.ftd-alpha")
        t_value = int(_text(box.locator(".ftd-T .widget-readout")))
        _wait_until("the explorer's readout should show β", lambda: BETA.search(_text(readout)),
                    lambda: _text(readout))
        alpha0 = float(_text(alpha.locator(".widget-readout")))
        assert _betas(readout) == pytest.approx((alpha0 * t_value, 1 - (1 - alpha0) ** t_value),
                                                abs=1e-3)
        src0 = box.locator("img.ftd-one-state-plot").get_attribute("src")

        handle = alpha.locator(".noUi-handle")
        bb = handle.bounding_box()
        assert bb is not None, "the α slider's handle is not on the slide"
        x, y = bb["x"] + bb["width"] / 2, bb["y"] + bb["height"] / 2
        slides.mouse.move(x, y)
        slides.mouse.down()
        slides.mouse.move(x + 25, y, steps=5)
        slides.mouse.up()
        _wait_until("the α slider should move", lambda: float(_text(
            alpha.locator(".widget-readout"))) > alpha0 + 0.02,
            lambda: _text(alpha.locator(".widget-readout")))

        def follows():
            a = float(_text(alpha.locator(".widget-readout")))
            return _betas(readout) == pytest.approx((a * t_value, 1 - (1 - a) ** t_value),
                                                    abs=1e-3)

        _wait_until("the β readout should follow the new α", follows, lambda: _text(readout))
        _wait_until("the plot should be redrawn", lambda: box.locator(
            "img.ftd-one-state-plot").get_attribute("src") not in ("", src0), lambda: "")
        _wait_kernel_idle(page, jupyter_server, SLIDES_NB03, WIDGET_S)
        assert follows(), _text(readout)
        assert _text(box.locator(".ftd-error")) == "", _text(box.locator(".ftd-error"))
        assert slides.locator(on_slide).count() == 1, "the explorer's slide should still show"
        assert page.failures == [], "the slideshow asked the network or a missing file:\n" + \
            "\n".join(page.failures)
    finally:
        try:
            slides.screenshot(path=str(OUT / "slideshow_nb03.png"))
        finally:
            slides.close()


# --------------------------------------------------------------------------- readable slides

MIN_TEXT_PX = 24  # body text at a projector's 1280 x 720 (notebooks/rise.css sets 26 px)
PROJECTOR = {"width": 1280, "height": 720}
READABLE_NOTEBOOKS = ["01_td_basics", "02_lambda_return"]
# the slide on screen (the innermost present section): its content against the screen, the
# elements that scroll, the smallest body text; marks the slide as seen
LIVE_LAYOUT = """() => {
    const all = [...document.querySelectorAll('.reveal .slides section')]
        .filter(s => !s.querySelector('section'));
    const s = all.find(x => x.classList.contains('present'));
    if (!s) return null;
    s.dataset.ftdSeen = '1';
    const slides = document.querySelector('.reveal .slides');
    const k = slides.getBoundingClientRect().width / (slides.offsetWidth || 1);
    let right = 0, bottom = 0, scrolls = [], small = [];
    for (const e of s.querySelectorAll('*')) {
        const r = e.getBoundingClientRect();
        if (!r.width || !r.height || getComputedStyle(e).display === 'none') continue;
        right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom);
        const st = getComputedStyle(e);
        if (/(auto|scroll)/.test(st.overflowY) && e.scrollHeight > e.clientHeight + 2)
            scrolls.push(e.className || e.tagName);
        if (/^(P|LI|TD|TH)$/.test(e.tagName) && e.closest('.jp-RenderedMarkdown')
            && e.textContent.trim()) small.push(parseFloat(st.fontSize) * k);
    }
    return {index: all.indexOf(s), total: all.length,
            seen: all.filter(x => x.dataset.ftdSeen).length, right, bottom, scrolls,
            minText: small.length ? Math.min(...small) : null,
            title: (s.textContent || '').trim().slice(0, 40)}; }"""


def _settled(page, script: str, wait_s: float = 0.2, tries: int = 25):
    """``script``'s reading once the slide has stopped moving: two readings ``wait_s``
    apart that agree (a slide transition still under way on a busy machine reads as content
    off the screen's edge)."""
    last = page.evaluate(script)
    for _ in range(tries):
        time.sleep(wait_s)
        now = page.evaluate(script)
        if now == last:
            return now
        last = now
    return last


@pytest.mark.parametrize("stem", READABLE_NOTEBOOKS)
def test_live_slideshow_readable_from_the_back(jupyter_server, page, stem):
    """A notebook (a copy, with the course's RISE settings, slides.RISE) as a live RISE
    slideshow at a projector's 1280 × 720: on every slide (Space through all of them) the body
    text renders at >= 24 px and the slide's content fits on the screen without scrolling.
    Fails on a notebook whose slides still hold more than a screen."""
    import nbformat

    from ftd_lib.publish.slides import RISE

    nb_path = f"test-output/slides/{stem}.ipynb"
    copy = REPO / nb_path
    copy.parent.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(REPO / "notebooks" / f"{stem}.ipynb", as_version=4)
    nb.metadata["rise"] = dict(RISE)
    nbformat.write(nb, copy)
    for css, to in zip(css_paths(REPO / "notebooks" / f"{stem}.ipynb"), css_paths(copy),
                       strict=True):
        shutil.copyfile(css, to)
    open_and_run_all(page, jupyter_server, nb_path, f"readable{stem[:2]}")
    slides = open_slideshow(page)
    slides.set_viewport_size(PROJECTOR)
    try:
        slides.locator(".reveal .slides section.present").first.wait_for(
            timeout=KERNEL_START_S * 1000)
        slides.wait_for_function(
            "() => document.querySelectorAll('.jp-RenderedMarkdown mjx-container').length > 0",
            timeout=KERNEL_START_S * 1000)
        time.sleep(1.0)
        bad, smallest, lay = [], 1e9, None
        for _ in range(6 * MAX_SLIDES):
            lay = _settled(slides, LIVE_LAYOUT)
            assert lay is not None, "no slide on screen"
            if lay["minText"] is not None:
                smallest = min(smallest, lay["minText"])
            if lay["bottom"] > PROJECTOR["height"] + 1 or lay["right"] > PROJECTOR["width"] + 1:
                bad.append(f"slide {lay['index']} ({lay['title']!r}): content to "
                           f"{lay['right']:.0f} x {lay['bottom']:.0f} px")
            if lay["scrolls"]:
                bad.append(f"slide {lay['index']}: scrolls ({lay['scrolls'][:3]})")
            if lay["seen"] == lay["total"] and lay["index"] == lay["total"] - 1:
                break
            slides.keyboard.press("Space")
            time.sleep(0.3)
        assert lay["seen"] == lay["total"], f"saw {lay['seen']} of {lay['total']} slides"
        slides.screenshot(path=str(OUT / f"slideshow_{stem[:2]}_last.png"))
        assert smallest >= MIN_TEXT_PX, f"{stem}: smallest body text {smallest:.1f} px"
        bad = list(dict.fromkeys(bad))
        assert bad == [], f"{stem}: {len(bad)} slides do not fit:\n" + "\n".join(bad)
        assert page.failures == [], "\n".join(page.failures)
    finally:
        slides.close()
