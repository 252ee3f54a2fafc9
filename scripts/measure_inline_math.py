"""How far above the text's baseline inline math stands on the
course website, with the site's former MathJax (2.7, HTML-CSS output, STIX web fonts, from the
``jupyter-server-mathjax`` package) and with its MathJax 3 (CHTML, ``site_static/mathjax3``).

    python scripts/measure_inline_math.py

Builds a one-page site twice with the website's Sphinx configuration
(:data:`ftd_lib.publish.site_conf.CONF`, its CSS and theme), the second time with MathJax 2.7 in
MathJax 3's place, opens each in the system Chromium (1300 px wide, 2 device pixels per CSS
pixel, offline) and measures with the browser test's probe
(``tests/publish/test_site_browser.py``, :func:`inline_math_offsets`): the ink of x, V, n and
α typeset inline against the ink of the words' x. Prints CSS pixels, positive = above.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "publish")]

#: the site's MathJax lines before MathJax 3 (ftd_lib/publish/site.py at e294ffa)
MATHJAX2 = '''
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {"HTML-CSS": {"availableFonts": [], "preferredFont": None,
                                "webFont": "STIX-Web", "imageFont": None},
                   "menuSettings": {"inTabOrder": False},
                   "tex2jax": {"inlineMath": [["$", "$"], ["\\\\(", "\\\\)"]],
                               "processEscapes": True}}
'''


def build(folder: Path, mathjax: int) -> Path:
    """A one-page site in ``folder`` with the website's configuration and MathJax ``mathjax``."""
    from ftd_lib.publish import site, site_conf

    src = folder / "src"
    (src / "_static").mkdir(parents=True)
    (src / "_extra").mkdir()
    for f in site.STATIC.iterdir():
        (shutil.copytree if f.is_dir() else shutil.copy2)(f, src / "_static" / f.name)
    conf = site_conf.CONF.format(theme=site_conf.theme_options(None, "x", ""), year="2026")
    if mathjax == 2:
        import jupyter_server_mathjax

        shutil.copytree(Path(jupyter_server_mathjax.__file__).parent / "static",
                        src / "_static" / "mathjax")
        start, end = conf.index("mathjax_path"), conf.index("myst_update_mathjax")
        conf = conf[:start] + MATHJAX2 + conf[end:]
    (src / "conf.py").write_text(conf)
    (src / "index.md").write_text("# Probe\n\nA page with math, $\\alpha$, for the probe.\n")
    out = folder / "html"
    subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(out)],
                   check=True)
    return out


def measure(out: Path, mathjax: int) -> dict:
    from conftest import offline_page, serving
    from playwright.sync_api import sync_playwright
    from test_site_browser import inline_math_offsets

    with serving(out) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        _, page = offline_page(browser, viewport={"width": 1300, "height": 1000},
                               device_scale_factor=2)
        page.goto(f"{url}/index.html")
        if mathjax == 3:
            page.wait_for_function("() => window.MathJax && MathJax.startup && "
                                   "MathJax.startup.promise")
            page.evaluate("() => MathJax.startup.promise")
        else:
            page.wait_for_function("() => window.MathJax && MathJax.Hub && "
                                   "!MathJax.Hub.queue.pending && "
                                   "!MathJax.Hub.queue.running")
        page.wait_for_load_state("networkidle")
        got = inline_math_offsets(page)
        browser.close()
    return got


def main() -> int:
    results = {}
    for mathjax in (2, 3):
        with tempfile.TemporaryDirectory() as tmp:
            results[f"MathJax {mathjax}"] = measure(build(Path(tmp), mathjax), mathjax)
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
