r"""``python -m ftd_lib site --out DIR``: the students' course as a static website, offline.

What it builds (from ``python -m ftd_lib release --for students``, so no worked solution is
anywhere in it): a landing page (what the course is, the lecture plan, how to run it locally
and on Binder), one page per notebook with every cell executed at build time (a cell that
raises fails the build; under ``CI=true`` the notebooks run at their quick scale), rendered
math, the figures, the exercises with their hints, the PDF handouts and the notation sheet
(:mod:`ftd_lib.publish.handouts`) linked from every page, full-text search, a Binder launch
button per notebook (the theme's rocket menu and a link under each title), and kernel-less
forms of the explorers of notebooks 03, 04 and 05 (:mod:`ftd_lib.publish.static_explorers`).
Everything the pages load comes from the site itself (MathJax 2.7 from the
``jupyter-server-mathjax`` package, the theme's fonts and scripts), so a copy on a USB stick
or a lecture-hall intranet works.

Why Sphinx + MyST-NB (with ``sphinx-book-theme``, what Jupyter Book 1 wraps): it builds
offline (Jupyter Book 2 / mystmd downloads its theme at build time), executes the notebooks at
build time with a switch that fails the build on a cell error (``nb_execution_raise_on_error``),
ships a client-side search index, and every script it would load from a CDN (MathJax, the
widget manager) can be replaced by a local file or switched off. The widget manager is switched
off: a saved widget cannot redraw without a kernel, so widget outputs show their saved picture
and the explorers get a kernel-less form instead.

The site is written to a temporary folder beside ``--out`` and moved into place only when
complete; an existing non-empty ``--out`` is refused unless ``force``.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from . import static_explorers as SE
from .release import REPO, check_out, release

STATIC = Path(__file__).with_name("site_static")
#: the repository the Binder buttons launch (``--repo``; a published copy names its own)
DEFAULT_REPO = os.environ.get("GITHUB_REPOSITORY", "OWNER/REPO")
BINDER = "https://mybinder.org/v2/gh/{repo}/HEAD?urlpath=lab/tree/notebooks/{name}"
HANDOUTS = "handouts"  # the folder of the PDFs in the site

CONF = '''\
# Sphinx configuration of the course website, written by ftd_lib/publish/site.py.
project = "Forward TD(λ): a course"
author = "the course's authors"
extensions = ["myst_nb"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
html_theme = "sphinx_book_theme"
html_title = "Forward TD(λ): a course"
html_static_path = ["_static"]
html_extra_path = ["_extra"]
html_css_files = ["ftd-site.css"]
html_js_files = ["ftd-static-explorer.js"]
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {{
    "repository_url": "https://github.com/{repo}",
    "repository_branch": "HEAD",
    "path_to_docs": "notebooks",
    "launch_buttons": {{"binderhub_url": "https://mybinder.org",
                        "notebook_interface": "jupyterlab"}},
    # no download menu: it would offer the Sphinx source, which the site does not copy; the
    # PDF handout is linked under each title
    "use_download_button": False,
    "use_repository_button": False,
    "navigation_with_keys": False,
    "show_toc_level": 1,
}}
# MathJax 2.7 from the site itself (copied from jupyter-server-mathjax), its STIX web fonts
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {{"HTML-CSS": {{"availableFonts": [], "preferredFont": None,
                                  "webFont": "STIX-Web", "imageFont": None}},
                    # $...$ too: outputs (HTML, Markdown) carry TeX as Jupyter shows it
                    "tex2jax": {{"inlineMath": [["$", "$"], ["\\(", "\\)"]],
                                "processEscapes": True}}}}
myst_update_mathjax = False
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "html_image"]
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type"]
# execute every notebook at build time; a raising cell fails the build
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_timeout = 1800
nb_merge_streams = True
# Markdown outputs (the glossary table) as MyST: tables and $...$ math, as Jupyter shows them
nb_render_markdown_format = "myst"
# no widget manager (it comes from a CDN and cannot redraw without a kernel): widget outputs
# show the picture saved with them
nb_ipywidgets_js = {{}}
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None),
                              ("html", "application/vnd.jupyter.widget-state+json", None)]
'''


def _title(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return "untitled"


def _readme_rows(root: Path) -> dict:
    """``{notebook stem: what it teaches}`` from the README's table of the notebooks."""
    rows = {}
    for line in (root / "README.md").read_text().splitlines():
        m = re.match(r"\|\s*`([0-9A][0-9]_[a-z_]+)`\s*\|((?:[^|\\]|\\.)*)\|", line)
        if m:
            rows[m.group(1)] = m.group(2).strip()
    return rows


def lecture_plan(path: Path = REPO / "INSTRUCTORS.md") -> list[str]:
    """The lecture plan's headlines (``**Before lecture 1 …**``, ``**Lecture N …**``) from
    INSTRUCTORS.md: which notebooks each lecture covers (no minute plan, no answer)."""
    if not path.is_file():
        return []
    plan = []
    for line in path.read_text().splitlines():
        m = re.match(r"\*\*((?:Before lecture|Lecture) \d[^*]*)\*\*(.*)", line)
        if m and m.group(1) not in {p.split("**")[1] for p in plan}:
            plan.append(f"**{m.group(1)}**{m.group(2)}")
    return plan


def landing_page(names: list[str], titles: dict, root: Path, repo: str) -> str:
    """The landing page (MyST Markdown): the course, its notebooks with what each teaches, the
    lecture plan, running it locally and on Binder, the handouts, and the toctree."""
    readme = (root / "README.md").read_text()
    paras = [p.strip() for p in readme.split("\n\n") if p.strip()]
    intro = next(p for p in paras if not p.startswith(("#", "[!", "<")))
    teaches = _readme_rows(root)
    rows = "\n".join(
        f"| [{html.escape(titles[n])}]({n}.ipynb) | {teaches.get(n, '')} | "
        f'<a class="ftd-handout" href="{HANDOUTS}/{n}.pdf">PDF</a> · '
        f"[Binder]({BINDER.format(repo=repo, name=n + '.ipynb')}) |"
        for n in names)
    plan = lecture_plan()
    plan_md = ("## The lecture plan\n\n" + "\n".join(f"- {p}" for p in plan) + "\n\n"
               if plan else "")
    toc = "\n".join(names)
    return f"""# Forward TD(λ): a course on multi-step TD learning with neural networks

{intro}

This website is the students' version of the course: every notebook executed when the site was
built, with its figures, exercises and hints (the worked solutions are not part of it). The
explorers of notebooks 03, 04 and 05 move without Python here (their pictures were computed at
build time); everything else that is interactive runs in Jupyter.

## The notebooks

| notebook | what it teaches | take it along |
| --- | --- | --- |
{rows}

Handouts: <a class="ftd-handout" href="{HANDOUTS}/00_notation.pdf">the notation sheet</a>
(the paper ↔ Sutton & Barto ↔ the
code's names) and one PDF per notebook (the links above).

{plan_md}## Running the course yourself

**On your machine** (Python 3.11): download the repository
([github.com/{repo}](https://github.com/{repo})) and run `./course.sh` in it. The first call
makes `.venv/` with the pinned requirements (a few minutes), then JupyterLab opens on notebook
01; later calls reuse it. `./test.sh` runs every test.

**In the browser, with nothing installed:** every notebook page has a Binder button (the rocket
at the top, and the link under its title). Binder builds the course's image from `binder/`
(the same pins) and opens the notebook in JupyterLab; the first start can take minutes, and
Binder's capacity is limited.

```{{toctree}}
:maxdepth: 1
:caption: Notebooks

{toc}
```
"""


def _links_cell(name: str, repo: str):
    """The line under a notebook's title: its PDF handout, the notation sheet, Binder."""
    binder = BINDER.format(repo=repo, name=name + ".ipynb")
    cell = nbformat.v4.new_markdown_cell(
        f'<p class="ftd-handouts">Take it along: <a class="ftd-handout" '
        f'href="{HANDOUTS}/{name}.pdf">this notebook as a PDF handout</a> · <a '
        f'class="ftd-handout" href="{HANDOUTS}/00_notation.pdf">the notation sheet (PDF)</a>'
        f' · <a class="ftd-binder" href="{binder}">run it on Binder</a></p>')
    return cell


def repository_links(text: str, repo: str) -> str:
    """Markdown links out of the notebooks' folder (``](../results/REPORT.md)``) point to the
    file in the repository on GitHub: the site holds only the notebooks."""
    return re.sub(r"\]\(\.\./([^)\s]+)\)",
                  lambda m: f"](https://github.com/{repo}/blob/HEAD/{m.group(1)})", text)


def site_notebook(nb, name: str, src: Path, repo: str, progress=None) -> tuple:
    """The site's copy of the students' notebook ``nb``: outputs cleared (the build runs it),
    the handout/Binder line under the title, and after each explorer cell of
    :data:`~ftd_lib.publish.static_explorers.SPECS` its kernel-less form (the live widget's
    output is left out of the page: it cannot move here). Returns ``(notebook, manifests)``."""
    nb = nbformat.from_dict(nb)
    nb.metadata.pop("widgets", None)
    cells, manifests = [], []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        else:
            cell.source = repository_links(cell.source, repo)
        cells.append(cell)
        if i == 0:
            cells.append(_links_cell(name, repo))
        call = SE.find_call(cell.source) if cell.cell_type == "code" else None
        if call is None:
            continue
        factory, kwargs = call
        ident = f"ftd-static-{name[:2]}-{len(manifests)}"
        man = SE.build(factory, kwargs, src / "_static" / "ftd-explorers" / ident,
                       f"_static/ftd-explorers/{ident}", progress=progress)
        man["id"] = ident
        manifests.append(man)
        tags = cell.metadata.setdefault("tags", [])
        if "remove-output" not in tags:
            tags.append("remove-output")
        cells.append(nbformat.v4.new_markdown_cell(SE.html_block(man, ident)))
    nb.cells = cells
    return nb, manifests


def _mathjax(dst: Path) -> None:
    import jupyter_server_mathjax

    src = Path(jupyter_server_mathjax.__file__).parent / "static"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("localization"))


def _say(msg: str) -> None:
    print(f"[site] {msg}", file=sys.stderr, flush=True)


def sphinx_build(src: Path, html_dir: Path, doctrees: Path, *, pythonpath=None) -> list:
    """Run ``sphinx-build -b html`` on ``src`` (its notebooks' kernels import ``ftd_lib``
    from ``pythonpath`` first); return its warnings. A notebook cell that raises, or any
    other failure, is a ``RuntimeError`` with the end of Sphinx's report."""
    paths = [str(pythonpath)] if pythonpath is not None else []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        paths + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-T", "-j", "1",
                        "-d", str(doctrees), str(src), str(html_dir)],
                       env=env, cwd=Path(doctrees).parent, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("sphinx-build failed (a notebook cell raised, or the "
                           f"configuration is broken):\n{r.stderr[-12000:]}")
    return [w for w in r.stderr.splitlines() if "WARNING" in w and "IPKernelApp" not in w]


def build_site(out, *, force: bool = False, repo: str = DEFAULT_REPO,
               handouts: bool = True) -> dict:
    """Build the website into ``out``; return a summary (pages, explorers with their values
    per slider, seconds per stage). ``handouts=False`` leaves the PDFs out (their links then
    dangle; for quick local previews only)."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repo):
        raise ValueError(f"--repo must be OWNER/NAME (a GitHub repository), got {repo!r}")
    out = check_out(out, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    times, t0 = {}, time.perf_counter()
    try:
        rel = release("students", work / "release")
        src = work / "src"
        (src / "_static").mkdir(parents=True)
        (src / "_extra" / HANDOUTS).mkdir(parents=True)
        for f in STATIC.iterdir():
            shutil.copy2(f, src / "_static" / f.name)
        _mathjax(src / "_static" / "mathjax")
        paths = sorted((rel / "notebooks").glob("*.ipynb"))
        names = [p.stem for p in paths]
        titles, explorers = {}, []
        t = time.perf_counter()
        from tqdm.auto import tqdm

        bar = tqdm(desc="[site] kernel-less explorers", unit="picture", file=sys.stderr)
        for p in paths:
            nb = nbformat.read(p, as_version=4)
            titles[p.stem] = _title(nb)
            snb, mans = site_notebook(nb, p.stem, src, repo, progress=bar.update)
            explorers += [dict(page=p.stem, id=m["id"], factory=m["factory"],
                               sliders={s["name"]: s["values"] for s in m["sliders"]},
                               frames=len(m["frames"])) for m in mans]
            nbformat.write(snb, src / p.name)
        bar.close()
        times["explorers_s"] = time.perf_counter() - t
        (src / "index.md").write_text(landing_page(names, titles, rel, repo))
        (src / "conf.py").write_text(CONF.format(repo=repo))
        if handouts:
            from .handouts import handouts as make_handouts

            t = time.perf_counter()
            _say("PDF handouts")
            make_handouts(src / "_extra" / HANDOUTS, notebooks=paths)
            times["handouts_s"] = time.perf_counter() - t
        t = time.perf_counter()
        _say("sphinx-build (executes every notebook)")
        html_dir = work / "html"
        warnings = sphinx_build(src, html_dir, work / "doctrees", pythonpath=rel)
        times["sphinx_s"] = time.perf_counter() - t
        (html_dir / ".nojekyll").write_text("")  # GitHub Pages: serve _static/ as it is
        summary = dict(pages=["index"] + names, explorers=explorers, warnings=warnings,
                       seconds=times)
        summary["seconds"]["total_s"] = time.perf_counter() - t0
        (html_dir / "site.json").write_text(json.dumps(summary, indent=1))
        if out.exists():
            shutil.rmtree(out)
        os.replace(html_dir, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return summary


def main(argv=None) -> int:
    """Command line: ``python -m ftd_lib site --out DIR [--force] [--repo OWNER/NAME]``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m ftd_lib site", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("--out", required=True, help="the folder to write the site to (must not "
                   "exist or be empty, unless --force)")
    p.add_argument("--force", action="store_true", help="replace a non-empty --out")
    p.add_argument("--repo", default=DEFAULT_REPO, help="the GitHub repository (OWNER/NAME) "
                   "the Binder buttons launch (default: $GITHUB_REPOSITORY or OWNER/REPO)")
    p.add_argument("--no-handouts", action="store_true", help="leave the PDF handouts out "
                   "(quick previews only: their links then dangle)")
    a = p.parse_args(argv)
    try:
        s = build_site(a.out, force=a.force, repo=a.repo, handouts=not a.no_handouts)
    except ValueError as e:
        p.error(str(e))
    print(f"wrote the site to {Path(a.out).resolve()}: {len(s['pages'])} pages, "
          f"{len(s['explorers'])} kernel-less explorers, "
          f"{s['seconds']['total_s']:.0f} s")
    return 0
