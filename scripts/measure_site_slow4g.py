"""Built course websites (``python -m ftd_lib site --out DIR``) as a phone sees them: a first
visit over a slow link, and how large each figure's smallest text is drawn.

    python scripts/measure_site_slow4g.py BEFORE_DIR AFTER_DIR [--pages index 01_td_basics]
        [--rounds 3] [--out FILE.json]

**Slow 4G.** Each site is served on 127.0.0.1 by a server that gzips text as GitHub Pages does
(level 6) and opened cold (a new browser context, the cache off) in headless Chromium at
390 × 844 px, with the network throttled through the DevTools protocol
(``Network.emulateNetworkConditions``) to DevTools' "Slow 4G" values: 562.5 ms latency,
180,000 bytes/s down, 84,375 bytes/s up. The CPU is not throttled. Per page: first contentful
paint, when MathJax had typeset the page (its startup promise resolved: until then the reader
sees raw TeX such as ``\\(G_t\\)``), the load event, the bytes received, and when MathJax's
script, its fonts and the icon font finished arriving. Rounds alternate between the sites, so
that both share the machine's load; medians are reported.

**Figure text at 390 px** (unthrottled): every notebook figure and explorer picture, scrolled
into view so that it loads; its smallest text as drawn: font size (pt) × dpi / 72 × drawn width
/ natural width. The size and dpi come from the picture's ``data-ftd-text-pt`` and
``data-ftd-dpi`` where the page has them (:mod:`ftd_lib.publish.site_figures`); a page without
them (an older build) is estimated from the course style: 13 pt (``ftd_lib.style``) at 135 dpi
for a notebook figure, 90 dpi for an explorer's picture.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import statistics
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

SLOW_4G = dict(offline=False, latency=562.5, downloadThroughput=180_000,
               uploadThroughput=84_375)
PHONE = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
             device_scale_factor=2)
TEXT = (".html", ".js", ".css", ".json", ".svg", ".txt", ".map")

#: records when MathJax's first typesetting of the page finished
TYPESET_PROBE = """(() => { const t = setInterval(() => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    clearInterval(t);
    MathJax.startup.promise.then(() => { window.__ftdTypeset = performance.now(); });
  } }, 10); })();"""


def gzip_server(folder: Path):
    """A server of ``folder`` on 127.0.0.1 that gzips text (level 6); returns ``(url,
    stop)``."""
    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send_head(self):
            path = Path(self.translate_path(self.path))
            if (path.suffix in TEXT and path.is_file()
                    and "gzip" in self.headers.get("Accept-Encoding", "")):
                body = gzip.compress(path.read_bytes(), 6)
                self.send_response(200)
                self.send_header("Content-Type", self.guess_type(str(path)))
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                import io
                return io.BytesIO(body)
            return super().send_head()

    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def stop():
        httpd.shutdown()
        httpd.server_close()
    return f"http://127.0.0.1:{httpd.server_address[1]}", stop


def slow_visit(browser, url: str) -> dict:
    """One cold visit of ``url`` on slow 4G at 390 px (module docstring)."""
    ctx = browser.new_context(**PHONE)
    ctx.add_init_script(TYPESET_PROBE)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", SLOW_4G)
    urls, done, received = {}, {}, [0]
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"],
                                                                    e["request"]["url"]))

    def finished(e):
        received[0] += e.get("encodedDataLength", 0)
        done[urls.get(e["requestId"], "?")] = e["timestamp"]
    cdp.on("Network.loadingFinished", finished)
    start = {}
    cdp.on("Network.requestWillBeSent", lambda e: start.setdefault("t", e["timestamp"]))
    page.goto(url, wait_until="load", timeout=120_000)
    has_math = page.locator("script[src*='mathjax3/']").count() > 0
    if has_math:
        page.wait_for_function("() => window.__ftdTypeset !== undefined", timeout=120_000)
    page.wait_for_timeout(300)
    t = page.evaluate("""() => ({
        fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
        typeset: window.__ftdTypeset,
        load: performance.getEntriesByType('navigation')[0].loadEventEnd})""")
    t0 = start["t"]

    def arrived(part):
        ends = [v for k, v in done.items() if part in k]
        return round(max(ends) - t0, 2) if ends else None
    out = {k: (round(v / 1000, 2) if v is not None else None) for k, v in t.items()}
    out.update(bytes=received[0], mathjax_script_s=arrived("tex-chtml.js"),
               mathjax_fonts_s=arrived("/woff-v2/"), icon_font_s=arrived("fontawesome/webfonts"))
    ctx.close()
    return out


FIGURE_TEXT = """() => Array.from(document.querySelectorAll(
    'article .cell_output img, article img.ftd-static-image')).map(i => {
  const natural = i.naturalWidth || parseFloat(i.getAttribute('width'));
  const explorer = i.classList.contains('ftd-static-image');
  const pt = parseFloat(i.dataset.ftdTextPt || '13');
  const dpi = parseFloat(i.dataset.ftdDpi || (explorer ? '90' : '135'));
  return {px: pt * dpi / 72 * i.getBoundingClientRect().width / natural,
          measured: !!i.dataset.ftdTextPt, explorer};
})"""


def figure_text(browser, url: str) -> list:
    """Every figure's smallest text as drawn at 390 px on ``url`` (module docstring)."""
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(url, wait_until="load", timeout=120_000)
    imgs = page.locator("article .cell_output img, article img.ftd-static-image")
    for k in range(imgs.count()):  # lazy pictures load once near the screen
        imgs.nth(k).scroll_into_view_if_needed()
    page.wait_for_function("() => Array.from(document.querySelectorAll('article img'))"
                           ".every(i => i.complete)", timeout=120_000)
    page.wait_for_timeout(300)
    sizes = page.evaluate(FIGURE_TEXT)
    ctx.close()
    return sizes


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sites", nargs="+", type=Path, help="built sites (before, after)")
    p.add_argument("--pages", nargs="+", default=["index", "01_td_basics",
                                                   "04_forward_td_lambda"])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", type=Path)
    a = p.parse_args(argv)
    from conftest import CHROMIUM, CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    servers = [gzip_server(s) for s in a.sites]
    result = {"slow_4g": {}, "figure_text_390": {}, "network": SLOW_4G}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=CHROMIUM_ARGS)
            runs = {(str(s), pg): [] for s in a.sites for pg in a.pages}
            for r in range(a.rounds):
                for pg in a.pages:
                    for site, (url, _) in zip(a.sites, servers, strict=True):
                        runs[(str(site), pg)].append(slow_visit(browser, f"{url}/{pg}.html"))
                        print(f"round {r + 1} {site.name} {pg}: {runs[(str(site), pg)][-1]}",
                              file=sys.stderr)
            for (site, pg), rs in runs.items():
                med = {k: statistics.median(x[k] for x in rs) if all(
                    x[k] is not None for x in rs) else None for k in rs[0]}
                result["slow_4g"].setdefault(site, {})[pg] = dict(median=med, runs=rs)
            pages = sorted(p.stem for p in a.sites[0].glob("[0A]*.html"))
            for site, (url, _) in zip(a.sites, servers, strict=True):
                sizes = [s for pg in pages for s in figure_text(browser, f"{url}/{pg}.html")]
                px = sorted(s["px"] for s in sizes)
                result["figure_text_390"][str(site)] = dict(
                    figures=len(px), min=round(px[0], 1), median=round(statistics.median(px),
                                                                       1),
                    max=round(px[-1], 1), under_9=sum(x < 9 for x in px),
                    under_11=sum(x < 10.95 for x in px),
                    measured=sum(s["measured"] for s in sizes))
            browser.close()
    finally:
        for _, stop in servers:
            stop()
    text = json.dumps(result, indent=1)
    if a.out:
        a.out.write_text(text)
    for site, pages_ in result["slow_4g"].items():
        for pg, r in pages_.items():
            print(f"{Path(site).name:>8} {pg:<24} " + " ".join(
                f"{k}={v}" for k, v in r["median"].items()))
    for site, f in result["figure_text_390"].items():
        print(f"{Path(site).name:>8} figure text at 390 px: {f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
