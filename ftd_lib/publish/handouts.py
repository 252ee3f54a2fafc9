r"""``python -m ftd_lib handouts --out DIR``: the course on paper, offline.

One PDF per notebook (the students' version: no worked solution; the saved outputs, so every
figure is the one of the last fresh run; a widget cell shows the picture saved with it), and a
notation sheet (the paper ↔ Sutton & Barto ↔ the code's names).

How: nbconvert's ``webpdf`` exporter (HTML, printed by a headless Chromium through Playwright),
with three changes made here: it drives the system's Chromium (``/usr/bin/chromium``, or
``$FTD_CHROMIUM``; Playwright never downloads a browser), it refuses every request that is not
a local file (so it works offline and nothing half-loads), and MathJax comes from a local copy
(the ``jupyter-server-mathjax`` package, MathJax 2.7, the version nbconvert's template
configures). It waits until MathJax has typeset the page and refuses to print a page whose
math is left raw.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import tempfile
from pathlib import Path

import nbformat
from nbconvert.exporters.webpdf import WebPDFExporter

from .present import present
from .release import REPO, student_notebook

CHROMIUM = os.environ.get("FTD_CHROMIUM", "/usr/bin/chromium")
WIDGET = "application/vnd.jupyter.widget-view+json"
FONT_CONFIG = ('<script type="text/x-mathjax-config">MathJax.Hub.Config({"HTML-CSS": '
               '{availableFonts: [], preferredFont: null, webFont: "STIX-Web", '
               'imageFont: null}});</script>'
               # long code names wrap inside a table cell instead of running off the page
               "<style>.jp-RenderedHTMLCommon code { white-space: pre-wrap; "
               "word-break: break-word; } .jp-RenderedHTMLCommon td { "
               "overflow-wrap: anywhere; } .jp-InputArea pre, .jp-OutputArea pre { "
               "white-space: pre-wrap; word-break: break-word; }</style>")

#: the notation sheet: (symbol, the paper, Sutton & Barto 2nd ed., the code's names)
NOTATION = (
    (r"$\theta$, $\hat V(s \mid \theta)$", "weights, value estimate",
     r"$\mathbf w$, $\hat v(s,\mathbf w)$ (§9.1)", "`w`, `w0`; `approx.value(w, x)`"),
    (r"$\nabla_\theta\hat V(s \mid \theta)$", "gradient of the estimate",
     r"$\nabla\hat v(s,\mathbf w)$ (§9.3)", "`approx.grad(w, x)`"),
    (r"$\phi(S_t)$, $R_{t+1}$", "features of $S_t$, reward", r"$\mathbf x(S_t)$, $R_{t+1}$",
     "`x[t]` (a row of `features`), `r[t]` / `rewards[t]`"),
    (r"$\alpha$, $\gamma$, $\lambda$", "step size, discount, trace decay", "the same",
     "`alpha`, `gamma`, `lam`"),
    (r"$e_t$", "eligibility trace (accumulating)", r"$\mathbf z_t$ (§12.2)", "`e`"),
    (r"$\delta_t$", "TD error", r"$\delta_t$ (§12.2)", "`delta`"),
    (r"$G_t^{(n)}$", "n-step return", r"$G_{t:t+n}$ (eq. 12.1, §12.1 / eq. 9.16)",
     "`returns.n_step_return(rewards, values, t, n, gamma)`"),
    (r"$G_t^{\lambda \mid h}$", "interim λ-return, eq. (2)",
     r"$G^\lambda_{t:h}$, truncated (§12.3)",
     "`returns.interim_lambda_return(rewards, values, t, h, gamma, lam)`"),
    (r"$G_t^{\lambda \mid T}$", "λ-return at the episode's end", r"$G^\lambda_t$ (§12.1)",
     "`interim_lambda_return(..., t, T, ...)`"),
    (r"$\theta^t_k$", "online λ-return weights, eq. (3)", r"$\mathbf w^h_t$ (§12.4)",
     "`algorithms.online_lambda_return`"),
    (r"$\eta$", "the weight bound of the K-bounded return", "—", "`eta`"),
    (r"$K$, $K_{\max}$", r"delay: smallest $K$ with $(\gamma\lambda)^K \le \eta$; its cap",
     r"$n$ of TTD(λ) (§12.3)", "`returns.k_bound(gamma, lam, eta, k_max)`, `K`, `k_max`"),
    (r"$G_t^{\lambda \mid t+K}$", "K-bounded λ-return, forward TD(λ)'s target",
     r"$G^\lambda_{t:t+n}$ of TTD(λ)", "`U` in Algorithm 1"),
    (r"$\delta'_t$",
     r"$R_{t+1} + \gamma\hat V(S_{t+1} \mid \theta_t) - \hat V(S_t \mid \theta_{t-1})$",
     r"$\delta'_t$ (§12.3, efficient TTD)", "`delta_p`, `returns.delta_prime`"),
    (r"$\rho_t$", r"$R_{t+1} + \gamma(1-\lambda)\hat V(S_{t+1} \mid \theta_t)$, eq. (7)",
     "—",
     "`rho`, `returns.rho`"),
    (r"$U$, $U_{\text{sync}}$, $c$, $c_{\text{final}}$",
     "Algorithm 1's running return, its resync copy, "
     r"the weight of the next $\delta'$, $(\gamma\lambda)^{K-1}$", "—",
     "`U`, `U_sync`, `c`, `c_final`"),
    (r"$\mathcal F$", "FIFO queue of the last K states with their ρ", "—", "`F` (a `deque`)"),
    (r"$\beta$", "one-state example: fraction of the error removed per episode", "—",
     "`envs.one_state.beta_td`, `beta_lambda_return`"),
    (r"$Q(s, a \mid \theta_a)$", "action value, one network per action (Sarsa)",
     r"$\hat q(s,a,\mathbf w)$ (§10.1, §12.7)", "`q_values(weights, task, states)`"),
)


def notation_markdown() -> str:
    """The notation sheet as Markdown (a title, a note and one table)."""
    rows = "\n".join(f"| {s} | {p} | {b} | {c} |" for s, p, b, c in NOTATION)
    return ("# Notation: the paper, Sutton & Barto, the code\n\n"
            "van Seijen (2016), *Effective Multi-step Temporal-Difference Learning for "
            "Non-Linear Function Approximation*; Sutton & Barto, *Reinforcement Learning: An "
            "Introduction*, 2nd ed. (2018), section numbers of that edition; the code: "
            "`ftd_lib` (notebooks 01–06). The updates are semi-gradient (§9.3).\n\n"
            "| symbol | the paper | Sutton & Barto | the code |\n| --- | --- | --- | --- |\n"
            f"{rows}\n")


def mathjax_url() -> str:
    """A ``file://`` URL of the local MathJax 2.7 (package ``jupyter-server-mathjax``)."""
    import jupyter_server_mathjax

    path = Path(jupyter_server_mathjax.__file__).parent / "static" / "MathJax.js"
    if not path.is_file():
        raise RuntimeError(f"no local MathJax at {path}: pip install jupyter-server-mathjax")
    return path.as_uri() + "?config=TeX-AMS-MML_HTMLorMML-full,Safe"


class OfflineWebPDFExporter(WebPDFExporter):
    """nbconvert's webpdf exporter on the system Chromium, offline, with local MathJax; it waits
    for MathJax to finish and records how many formulas it typeset (``last_math_count``)."""

    last_math_count = 0

    def run_playwright(self, html):
        async def main(path):
            from playwright.async_api import async_playwright

            if not Path(CHROMIUM).is_file():
                raise RuntimeError(f"no Chromium at {CHROMIUM} (apt-get install chromium, or "
                                   "set FTD_CHROMIUM)")
            pw = await async_playwright().start()
            try:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=[
                    "--no-sandbox"], handle_sigint=False, handle_sigterm=False,
                    handle_sighup=False)
                page = await browser.new_page()

                async def local_only(route):
                    if route.request.url.startswith(("file://", "data:")):
                        await route.continue_()
                    else:
                        await route.abort()

                await page.route("**/*", local_only)
                await page.emulate_media(media="print")
                await page.goto(Path(path).as_uri(), wait_until="load")
                await page.wait_for_function(
                    "() => window.MathJax && MathJax.Hub && !MathJax.Hub.queue.pending "
                    "&& !MathJax.Hub.queue.running", timeout=120_000)
                await page.evaluate("() => new Promise(r => MathJax.Hub.Queue(r))")
                count = await page.evaluate(
                    "() => document.querySelectorAll('.MathJax, .MathJax_Display').length")
                raw = await page.evaluate(
                    "() => document.querySelectorAll('.jp-MarkdownOutput').length ? "
                    "Array.from(document.querySelectorAll('.jp-MarkdownOutput')).map("
                    "e => e.innerText).join(' ') : ''")
                pdf = await page.pdf(print_background=True, format="A4", margin=dict(
                    top="12mm", bottom="12mm", left="10mm", right="10mm"))
                await browser.close()
                return pdf, count, raw
            finally:
                await pw.stop()

        # the local copy has STIX-Web fonts only: use them, do not look for TeX fonts
        html = html.replace("<head>", "<head>\n" + FONT_CONFIG, 1)
        with tempfile.NamedTemporaryFile(suffix=".html", delete=False) as f:
            f.write(html.encode("utf-8"))
        try:
            with concurrent.futures.ThreadPoolExecutor() as pool:
                pdf, count, raw = pool.submit(asyncio.run, main(f.name)).result()
        finally:
            os.unlink(f.name)
        if "$\\" in raw or "\\lambda" in raw:
            raise RuntimeError("MathJax left raw TeX on the page (is the local copy complete?)")
        self.last_math_count = count
        return pdf


def printable(nb):
    """The students' notebook for paper, as :func:`ftd_lib.publish.present.present`
    ``(nb, "handout")`` shows it: no solution cell; an exercise is its question, its hint
    (printed open) and one line saying where it is run and checked (no unrun verdict, no
    stub, no ``hint(...)`` call); code only where it is the point (``show-code``), other code
    cells by their output; a widget output keeps only the picture saved with it; no widget
    state (nothing to load)."""
    nb = present(student_notebook(nb), "handout")
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET in data and "image/png" in data:
                del data[WIDGET]
                data.pop("text/plain", None)
    nb.metadata.pop("widgets", None)
    return nb


def exporter() -> OfflineWebPDFExporter:
    """The exporter the handouts use (paginated, local MathJax, no prompts)."""
    return OfflineWebPDFExporter(mathjax_url=mathjax_url(), paginate=True,
                                 exclude_input_prompt=True, exclude_output_prompt=True)


def handouts(out, *, notebooks=None, force: bool = False) -> list[Path]:
    """Write one PDF per notebook (``notebooks``: paths; default every course notebook) and
    ``00_notation.pdf`` to ``out``; return the paths written."""
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not force:
        raise ValueError(f"--out {out} exists and is not empty; pass --force to write into it")
    out.mkdir(parents=True, exist_ok=True)
    paths = sorted((REPO / "notebooks").glob("0*.ipynb")) if notebooks is None else [
        Path(p) for p in notebooks]
    ex = exporter()
    written = []
    sheet = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(notation_markdown())])
    jobs = [("00_notation", sheet)] + [(p.stem, printable(nbformat.read(p, as_version=4)))
                                      for p in paths]
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        def tqdm(x, **_):
            return x
    for name, nb in tqdm(jobs, desc="handouts", unit="pdf"):
        pdf, _ = ex.from_notebook_node(nb, resources={"metadata": {"name": name}})
        target = out / f"{name}.pdf"
        tmp = target.with_suffix(".pdf.partial")
        tmp.write_bytes(pdf)
        os.replace(tmp, target)
        written.append(target)
    return written


def main(argv=None) -> int:
    """Command line: ``python -m ftd_lib handouts --out DIR [--force] [NOTEBOOK ...]``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m ftd_lib handouts",
                                description="One PDF per notebook and a notation sheet, "
                                "offline (system Chromium, local MathJax).")
    p.add_argument("--out", required=True, help="the folder to write the PDFs to")
    p.add_argument("--force", action="store_true", help="write into a non-empty --out")
    p.add_argument("notebooks", nargs="*", help="notebooks (default: all of notebooks/)")
    a = p.parse_args(argv)
    try:
        paths = handouts(a.out, notebooks=a.notebooks or None, force=a.force)
    except ValueError as e:
        p.error(str(e))
    for path in paths:
        print(path)
    return 0
