import contextlib
import importlib.util
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from ftd_lib.approx import MLP, Linear


def random_episodes(rng, n_features, lengths, reward_scale=1.0):
    """Random episodes in the contract's format: features in [-1, 1], random rewards."""
    eps = []
    for T in lengths:
        x = rng.uniform(-1, 1, size=(T + 1, n_features))
        r = reward_scale * rng.normal(size=T)
        eps.append((x, r))
    return eps



def fake_calibrate(calls, more=None):
    """A stand-in for ``ftd_lib.repro.planning.calibrate.calibrate`` (no clock): each call
    appends to ``calls`` and returns the default rates with a rate for every control method
    and engine asked for; ``more(engines, n_calls)``: further fields of the rates."""
    from dataclasses import replace

    from ftd_lib.repro.planning import cost

    def fake(prediction=(), control=(), worker_start=True, workers=1, engines=()):
        calls.append(1)
        return replace(cost.DEFAULT_RATES, source="stand-in",
                       kind_load_s={"prediction": 0.1, "control": 0.1},
                       control={m: 1e-6 for m, _ in control},
                       engines={cost.engine_key(e, m, env): (0.0, 3e-4)
                                for e, m, env, _ in engines},
                       **(more(engines, len(calls)) if more else {}))
    return fake

@pytest.fixture
def rng():
    return np.random.default_rng(12345)


APPROXES = {"linear": lambda: Linear(3), "mlp": lambda: MLP(3, 6)}


@pytest.fixture(params=sorted(APPROXES))
def approx(request):
    return APPROXES[request.param]()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: runs a notebook, a browser, a site or deck build, a subprocess of "
        "the CLI or a real run of the engine for seconds to minutes; ./test.sh --fast leaves "
        "it out (a module says it in one line: pytestmark = pytest.mark.slow)")
    config.addinivalue_line(
        "markers", "fresh_venv: makes a fresh virtual environment from the students' copy's own "
        "start.sh (minutes; runs in CI: `-m 'not fresh_venv'` leaves it out locally)")


def students_copy(fn):
    """``fn`` as a student who wrote it would hand it in: the same source compiled anew (a new
    code object, in a copy of its module's namespace), so the exercise checks, which refuse the
    library's own function by identity, alias or wrapper, see a student's function. (A student
    who copies the library's source is what the checks cannot tell apart: INSTRUCTORS.md.)"""
    import inspect
    import sys
    import textwrap

    ns = dict(vars(sys.modules[fn.__module__]))
    exec(compile(textwrap.dedent(inspect.getsource(fn)), f"<a student's {fn.__name__}>", "exec"),
         ns)  # noqa: S102
    return ns[fn.__name__]


# ------------------------------------------------------------------------ the browser tests
# What the course's browser tests share (test_browser, test_deck_browser, test_site_browser):
# the system's Chromium (Playwright drives it; it never downloads a browser), the flags that
# keep it off this machine's closed network, the rule that the tests skip without Chromium
# except under CI=true (where they must run), and one Chromium per test module (``browser``).

CHROMIUM = os.environ.get("FTD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI containers run as root
    "--disable-gpu",
    # the closed network refuses Chromium's background connections; don't make any
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
UNDER_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def needs_chromium(what: str):
    """The module's marks: skip when Chromium is missing, unless under ``CI=true``; and
    ``slow`` (a browser test is never in the fast tier)."""
    return [pytest.mark.skipif(
        not os.path.exists(CHROMIUM) and not UNDER_CI,
        reason=f"Chromium not installed ({CHROMIUM}; apt-get install chromium); {what} runs "
        "(and must pass) under CI=true"), pytest.mark.slow]


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the module's tests (a missing one fails under ``CI=true``)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"CI=true but Chromium is missing at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
    finally:
        pw.stop()


@contextlib.contextmanager
def serving(folder):
    """``folder`` served over HTTP on a free local port, quietly, while the block runs: yields
    its address ``http://127.0.0.1:PORT``."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def is_local(url: str) -> bool:
    """A request that stays on this machine: a file, data, blob or ``about:`` URL, or a host of
    this machine. ``about:blank`` is not a request anyone answers (MathJax 2, which the site once
    used, pointed a probe font and an image at it)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme in ("file", "data", "blob", "about") or parts.hostname in (
        "127.0.0.1", "localhost", "::1")


def offline_page(browser, ignore=None, **context):
    """A page in a new browser context (``context``: its viewport, touch, ...) with no network,
    as in a lecture hall or on a train: every request that is not :func:`is_local` is refused
    (route abort) and recorded in ``page.failures``, as is every local request that failed
    (but those ``ignore(request)`` lets pass) and every 4xx/5xx answer; a test asserts it
    empty. Returns ``(context, page)``; the caller closes the context."""
    ctx = browser.new_context(**context)
    failures = []

    def refuse(route):
        if is_local(route.request.url):
            route.continue_()
        else:
            failures.append(f"non-local request refused: {route.request.url}")
            route.abort("internetdisconnected")

    ctx.route("**/*", refuse)
    ctx.on("requestfailed", lambda r: is_local(r.url) and not (ignore and ignore(r))
           and failures.append(f"request failed: {r.method} {r.url} ({r.failure})"))
    ctx.on("response", lambda r: r.status >= 400 and failures.append(
        f"HTTP {r.status}: {r.request.method} {r.url}"))
    page = ctx.new_page()
    page.failures = failures
    return ctx, page


@pytest.fixture
def script():
    """``script(name)``: ``scripts/<name>.py`` as a module (the scripts are not a package)."""

    def load(name):
        path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load


# ------------------------------------------------------------ what a build makes, made once
# A site, the decks, the handouts and the notebooks executed for the deck's figure check each
# take minutes. ``built_once`` makes each once for the code that makes it: the test-session's
# workers share it (a file lock), and the next run reuses it while nothing that made it has
# changed (the digest covers the library, its static files, the notebooks, the lock file and
# this file). FTD_TEST_CACHE=DIR puts the cache elsewhere; FTD_TEST_CACHE=off builds afresh.

REPO = Path(__file__).resolve().parents[1]
_DIGESTED = ("ftd_lib", "notebooks", "requirements/lock.txt", "tests/conftest.py")


def code_digest(*extra) -> str:
    """A digest of everything a build reads from the repository (:data:`_DIGESTED`) and of
    ``extra`` (the build's own arguments)."""
    import hashlib

    h = hashlib.sha256(repr(extra).encode())
    for name in _DIGESTED:
        root = REPO / name
        for p in sorted(root.rglob("*")) if root.is_dir() else [root]:
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
                h.update(p.relative_to(REPO).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:20]


def built_once(name: str, build, *extra) -> Path:
    """The folder ``build(folder)`` fills, made once for this code (see above): under
    ``.test-cache/<name>-<digest>/``, built into a scratch folder and renamed when complete,
    so an interrupted build is never reused. Returns the folder."""
    import fcntl
    import tempfile

    where = os.environ.get("FTD_TEST_CACHE", "")
    if where.lower() == "off":
        folder = Path(tempfile.mkdtemp(prefix=f"ftd-{name}-"))
        build(folder)
        return folder
    cache = Path(where) if where else REPO / ".test-cache"
    cache.mkdir(parents=True, exist_ok=True)
    key = f"{name}-{code_digest(name, *extra)}"
    with open(cache / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be building it now
        done = cache / key
        if not done.is_dir():
            for old in cache.glob(f"{name}-*"):  # an older code's build of the same thing
                if old.is_dir():
                    shutil.rmtree(old, ignore_errors=True)
            scratch = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=cache))
            try:
                build(scratch)
                os.replace(scratch, done)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    return done


def built_decks() -> list[Path]:
    """The lecture decks (``python -m ftd_lib slides``) from the saved notebooks, built once:
    their paths in lecture order, as ``deck.write_decks`` returned them."""
    from ftd_lib.publish import deck

    def build(folder):
        names = [p.name for p in deck.write_decks(folder / "decks")]
        (folder / "decks.json").write_text(json.dumps(names))

    folder = built_once("decks", build)
    return [folder / "decks" / n for n in json.loads((folder / "decks.json").read_text())]


def built_core_decks() -> list[Path]:
    """The core lecture decks (``python -m ftd_lib slides --core``), built once, as
    :func:`built_decks`."""
    from ftd_lib.publish import deck

    def build(folder):
        names = [p.name for p in deck.write_decks(folder / "decks", core=True)]
        (folder / "decks.json").write_text(json.dumps(names))

    folder = built_once("core_decks", build)
    return [folder / "decks" / n for n in json.loads((folder / "decks.json").read_text())]


def record_measurement(path: Path, key: str, value) -> None:
    """Write ``value`` under ``key`` in the JSON file ``path`` (test-output/), keeping the other
    keys: a measurement a test makes for the closing note or the README."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "w") as lock:  # tests run in parallel
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = json.loads(path.read_text()) if path.is_file() else {}
        data[key] = value
        path.write_text(json.dumps(data, indent=1))


class Inline:
    """An executor (:mod:`ftd_lib.repro.executors`) that computes the chunks it is given here,
    in order (no processes): the cut for several workers without their start-up time."""

    def __init__(self):
        self.tasks = []

    def compute(self, jobs):
        from ftd_lib.repro import chunks

        for k, job in enumerate(jobs):
            self.tasks.append(job[1])
            data, meta = chunks.chunk_result(job)
            yield k, data, meta
