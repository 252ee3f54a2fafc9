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
