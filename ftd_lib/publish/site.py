r"""``python -m ftd_lib site --out DIR``: the students' course as a static website, offline.

What it builds (from ``python -m ftd_lib release --for students``, so no worked solution is
anywhere in it): a landing page (:mod:`ftd_lib.publish.landing`: what the course is and what
each notebook teaches, the lecture plan, the students' copy as a zip, running it on Binder,
Colab or locally, the paper, how to cite, the licence, where to ask), one page per notebook
with every cell executed at build time (a cell that raises fails the build; the notebooks run
at their own scale, ``CI`` is unset for them), rendered math, the figures (each with an alt
text from its titles, :mod:`ftd_lib.publish.figure_alt`), the PDF handouts and the notation
sheet (:mod:`ftd_lib.publish.handouts`) linked from every page, full-text search, Binder and
Open-in-Colab buttons per notebook (the theme's rocket menu and the links under each title),
and kernel-less forms of the explorers of notebooks 03, 04 and 05 and of Algorithm 1's stepper
(:mod:`ftd_lib.publish.static_explorers`). Everything the pages load comes from the site
itself (MathJax 3, CHTML output, vendored in ``site_static/mathjax3``; the theme's fonts
and scripts), so a copy on a USB stick or a lecture-hall intranet works.

What a page shows of each cell is :func:`ftd_lib.publish.present.present` ``(nb, "site")``:
an exercise is its question, its folded hint and one line saying where it is run and checked
(no unrun verdict, no stub, no ``hint(...)`` call); other code is folded under its output.

The run buttons launch the *students'* copy, pinned: ``--repo OWNER/NAME --ref REF`` name the
git ref (a tag the Pages workflow pushes for every build, ``.github/workflows/pages.yml``) that
holds exactly the zip offered on the landing page (:data:`~ftd_lib.publish.landing.ZIP`), whose
notebooks' Colab cell installs ``ftd_lib`` from that same ref (:mod:`ftd_lib.course.colab`).
Without ``--repo`` the site has no run buttons (a local preview).

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

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat

from ..course import colab
from . import landing, page_weight, png_palette, site_conf, site_figures
from . import static_explorers as SE
from .landing import HANDOUTS, NOTEBOOKS, STATUS, ZIP
from .present import present
from .release import REPO, check_out, release
from .site_conf import build_info, conf_py, footer_html, page_description, theme_options

STATIC = Path(__file__).with_name("site_static")
#: the students' public repository the run buttons launch (``--repo``; none: no buttons); never
#: the instructors' (``$GITHUB_REPOSITORY``), which holds the worked solutions
DEFAULT_REPO = os.environ.get("FTD_STUDENTS_REPO") or None
#: the git ref of the students' copy they launch (``--ref``; the Pages workflow pins a tag)
DEFAULT_REF = os.environ.get("FTD_STUDENTS_REF") or colab.REF
#: the site's published address (the Pages workflow's ``base_url``): link previews' og:url and
#: og:image; unset, a local build without them
DEFAULT_URL = os.environ.get("FTD_SITE_URL") or None

#: the hidden first cell of every page: its figures get alt text (ftd_lib.publish.figure_alt)
ALT_CELL = "from ftd_lib.publish.figure_alt import install\ninstall()"

def _title(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return "untitled"


def _links_cell(name: str, repo: str | None, ref: str):
    """The line under a notebook's title: its PDF handout, the notation sheet, Binder, Colab."""
    run = ""
    if repo:
        nb = name + ".ipynb"
        run = (f' · run it (the students\' copy): <a class="ftd-binder" href="'
               f'{colab.binder_url(repo, ref, nb)}">on Binder</a> · <a class="ftd-colab" '
               f'href="{colab.colab_url(repo, ref, nb)}">on Colab</a>')
    return nbformat.v4.new_markdown_cell(
        f'<p class="ftd-handouts">Take it along: <a class="ftd-ipynb" href="{NOTEBOOKS}/'
        f'{name}.ipynb" download>this notebook (.ipynb)</a> · <a class="ftd-handout" '
        f'href="{HANDOUTS}/{name}.pdf">as a PDF handout</a> · <a '
        f'class="ftd-handout" href="{HANDOUTS}/00_notation.pdf">the notation sheet (PDF)</a>'
        f'{run}</p>')


def _slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of Markdown file ``path``."""
    out = set()
    for line in path.read_text().splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            out.add(_slug(m.group(1)))
    return out


def repository_links(text: str, repo: str | None, ref: str = "HEAD", *,
                     root: Path = REPO) -> str:
    """Markdown links out of the notebooks' folder (``[the report](../results/REPORT.md#x)``)
    point to the file in the repository on GitHub at ``ref`` (the site holds only the
    notebooks); without a repository they become the file's name in the students' copy. A link
    to a file, or to a heading of a Markdown file, that ``root`` does not have is a
    ``ValueError``: repository anchors are checked at build time."""
    def link(m):
        words, target = m.group(1), m.group(2)
        path, _, anchor = target.partition("#")
        f = root / path
        if not f.exists():
            raise ValueError(f"a notebook links ../{target}, which {root} does not have")
        if anchor and f.suffix == ".md" and anchor not in anchors(f):
            raise ValueError(f"a notebook links ../{target}: {path} has no heading with "
                             f"anchor #{anchor}")
        if repo is None:
            return f"{words} (`{path}` in the students' copy)"
        return f"[{words}](https://github.com/{repo}/blob/{ref}/{target})"

    return re.sub(r"\[([^\]]*)\]\(\.\./([^)\s]+)\)", link, text)


def site_notebook(nb, name: str, src: Path, repo: str | None, ref: str = colab.REF,
                  progress=None, *, root: Path = REPO) -> tuple:
    """The site's copy of the students' notebook ``nb``: what a page shows of each cell
    (:func:`~ftd_lib.publish.present.present` ``(nb, "site")``), outputs cleared (the build
    runs it), a hidden first cell that gives its figures alt text, the handout/Binder/Colab
    line under the title, speaker-notes cells in a box of their own (:func:`notes_box`), and
    after each explorer cell of :data:`~ftd_lib.publish.static_explorers.SPECS` its kernel-less
    form (the live widget's
    output is left out of the page: it cannot move here), and its study time under the title
    (:func:`~ftd_lib.publish.study_time.study_text`, from the saved outputs). Returns
    ``(notebook, manifests)``."""
    from .study_time import study_text

    study = nbformat.v4.new_markdown_cell(f'<p class="ftd-study">{study_text(nb)}</p>')
    nb = present(nbformat.from_dict(nb), "site")
    nb.metadata.pop("widgets", None)
    alt = nbformat.v4.new_code_cell(ALT_CELL, metadata={"tags": ["remove-cell"]})
    cells, manifests, titled = [alt], [], False
    for cell in nb.cells:
        if cell.cell_type == "code":
            tags = cell.metadata.setdefault("tags", [])
            if (not cell.outputs and "hide-input" in tags and SE.find_call(cell.source) is None
                    and "remove-cell" not in tags):
                # nothing to show under a fold (an import cell): no empty "Show code cell
                # source" fold; the cell still runs
                tags.remove("hide-input")
                tags.append("remove-input")
            cell.outputs, cell.execution_count = [], None
        else:
            cell.source = without_goals_in_full(cell.source)
            if not cell.source.strip():
                continue  # the landing page and the title cell list the goals already
            cell.source = repository_links(cell.source, repo, ref, root=root)
            if cell.metadata.get("slideshow", {}).get("slide_type") == "notes":
                cell.source = notes_box(cell.source)
        cells.append(cell)
        note = default_numbers_note(cell)
        if note:  # the exercise's cell is not on the page: the numbers it prints without an id are
            cells.append(nbformat.v4.new_markdown_cell(note))
        if not titled and cell.cell_type == "markdown" and re.search(r"(?m)^# ", cell.source):
            cells += [study, _links_cell(name, repo, ref)]
            titled = True
        call = SE.find_call(cell.source) if cell.cell_type == "code" else None
        if call is None:
            continue
        factory, kwargs = call
        ident = f"ftd-static-{name[:2]}-{len(manifests)}"
        man = SE.build(factory, kwargs, src / "_static" / "ftd-explorers" / ident,
                       f"_static/ftd-explorers/{ident}", progress=progress)
        man["id"] = ident
        man["call"] = SE.call_text(factory, kwargs)
        manifests.append(man)
        # the live widget's cell is left off the page (its output cannot move here, and its
        # code folded above the kernel-less form read as a fold with nothing in it): the
        # kernel-less form names the call that makes the live one in Jupyter
        tags = cell.metadata.setdefault("tags", [])
        tags[:] = [t for t in tags if t != "hide-input"]
        tags += [t for t in ("remove-input", "remove-output") if t not in tags]
        cells.append(nbformat.v4.new_markdown_cell(SE.html_block(man, ident)))
    nb.cells = cells
    return nb, manifests


def deck_links_to_pages(html_text: str, repo: str | None = None, ref: str = colab.REF) -> str:
    """A deck's links to a notebook of the course (``href="A1_x.ipynb"``) as links to that
    notebook's page on the site (the decks sit one folder down, in ``slides/``): the site has
    no ``.ipynb`` files; a link out of the notebooks' folder (``href="../results/REPORT.md#x"``,
    which the site does not hold either) goes to the file on GitHub at ``ref`` of ``repo``
    (without one, to nowhere: its words stay, unlinked)."""
    html_text = re.sub(r'href="(?:\./)?((?:0\d|A\d)_\w+)\.ipynb(#[^"]*)?"',
                       lambda m: f'href="../{m.group(1)}.html{m.group(2) or ""}"', html_text)
    if repo is None:
        return re.sub(r'<a [^>]*href="\.\./(?!(?:0\d|A\d)_)[^"]*"[^>]*>(.*?)</a>', r"\1",
                      html_text)
    return re.sub(r'href="\.\./(?!(?:0\d|A\d)_)([^"]+)"',
                  lambda m: f'href="https://github.com/{repo}/blob/{ref}/{m.group(1)}"',
                  html_text)


#: the opening of a notes cell that lists a notebook's learning goals a second time (the title
#: slide lists them, the landing page's table too): left off the page
GOALS_IN_FULL = "The learning goals in full"


def without_goals_in_full(source: str) -> str:
    """A Markdown cell without its paragraph that lists the learning goals a second time (it
    opens with :data:`GOALS_IN_FULL`, on a line of its own or after other sentences of the
    paragraph): on a page the title cell lists them already."""
    return re.sub(rf"(?ms)^{re.escape(GOALS_IN_FULL)}.*?(?=\n[ \t]*\n|\Z)", "", source)


#: an exercise cell's printing of its given numbers: ``print(nb06.given_epsilon())``
GIVEN_PRINT = re.compile(r"print\((nb\d\d)\.(given_\w+)\(\)\)")


def default_numbers_note(cell) -> str:
    """For an exercise's cell (tag ``exercise``, not on a page) that prints its given numbers
    (:data:`GIVEN_PRINT`): one line with what it prints without a student id
    (:func:`ftd_lib.course.exercises.default_numbers`), so the exercise can be worked from the
    page; else ``""``."""
    import importlib

    from ..course import roles
    from ..course.exercises import default_numbers

    if cell.cell_type != "code" or not roles.has(cell, roles.EXERCISE):
        return ""
    shown = []
    for module, given in GIVEN_PRINT.findall(cell.source):
        mod = importlib.import_module(f"ftd_lib.course.exercises.{module}")
        shown.append(f"`{default_numbers(getattr(mod, given))}`")
    if not shown:
        return ""
    return ("*The numbers (printed by the exercise's cell in the notebook; these are the ones "
            "without a student id, your own differ):* " + ", ".join(shown))


def notes_box(source: str) -> str:
    """A speaker-notes cell's text in a box of its own (``<div class="ftd-notes">``): on a page
    the notes (the full sentences) read as the text in more detail beside the slide's short
    version, not as the same thing said twice."""
    return f"::::::{{container}} ftd-notes\n{source}\n::::::"


def students_zip(rel: Path, target: Path) -> int:
    """The students' copy ``rel`` as one zip (its files under one top folder, as GitHub's
    archive of a ref has them); returns its size in bytes."""
    top = target.stem
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(rel.rglob("*")):
            if f.is_file():
                z.write(f, f"{top}/{f.relative_to(rel).as_posix()}")
    return target.stat().st_size


def _say(msg: str) -> None:
    print(f"[site] {msg}", file=sys.stderr, flush=True)


def sphinx_build(src: Path, html_dir: Path, doctrees: Path, *, pythonpath=None) -> list:
    """Run ``sphinx-build -b html`` on ``src`` (its notebooks' kernels import ``ftd_lib``
    from ``pythonpath`` first); return its warnings. A notebook cell that raises, or any
    other failure, is a ``RuntimeError`` with the end of Sphinx's report."""
    paths = [str(pythonpath)] if pythonpath is not None else []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        paths + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    env.pop("CI", None)  # the published pages run at the course's own scale, also on CI
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-T", "-j", "1",
                        "-d", str(doctrees), str(src), str(html_dir)],
                       env=env, cwd=Path(doctrees).parent, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("sphinx-build failed (a notebook cell raised, or the "
                           f"configuration is broken):\n{r.stderr[-12000:]}")
    return [w for w in r.stderr.splitlines() if "WARNING" in w and "IPKernelApp" not in w]


def build_site(out, *, force: bool = False, repo: str | None = DEFAULT_REPO,
               ref: str = DEFAULT_REF, handouts: bool = True, decks: bool = True,
               url: str | None = DEFAULT_URL) -> dict:
    """Build the website into ``out``; return a summary (pages, explorers with their values
    per slider, seconds per stage, the students' zip and its size). ``repo``/``ref``: the
    students' copy the run buttons launch and its Colab cell installs (``repo=None``: no run
    buttons). ``handouts=False`` leaves the PDFs out (their links then dangle; for quick local
    previews only); ``decks=False`` the lecture decks. ``url``: the address the site is
    published at (``https://HOST/PATH/``), for each page's canonical link and link preview
    (:mod:`ftd_lib.publish.site_conf`)."""
    if repo is not None:
        colab.copy_url(repo, ref)  # a ValueError naming --repo or --ref
    url = site_conf.site_url(url)  # a ValueError naming --url
    out = check_out(out, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    times, t0 = {}, time.perf_counter()
    info = build_info()
    try:
        rel = release("students", work / "release")
        paths = sorted((rel / "notebooks").glob("*.ipynb"))
        if repo is not None:  # the copy's Colab cell installs this very copy
            for p in paths:
                nb = nbformat.read(p, as_version=4)
                if colab.stamp(nb, repo, ref):
                    nbformat.write(nb, p)
        src = work / "src"
        (src / "_static").mkdir(parents=True)
        (src / "_extra" / HANDOUTS).mkdir(parents=True)
        for f in STATIC.iterdir():  # the site's CSS and scripts, and MathJax 3
            if f.is_dir():
                shutil.copytree(f, src / "_static" / f.name,
                                ignore=shutil.ignore_patterns("README.md"))
            else:
                shutil.copy2(f, src / "_static" / f.name)
        if url:  # the link preview's picture (og:image): the paper's Figure 3
            site_conf.link_image(src / "_static" / site_conf.IMAGE["file"], rel / "results")
        zip_bytes = students_zip(rel, src / "_extra" / ZIP)
        (src / "_extra" / NOTEBOOKS).mkdir()
        for p in paths:  # one download per page (its Colab cell installs this copy's library)
            shutil.copy2(p, src / "_extra" / NOTEBOOKS / p.name)
        names = [p.stem for p in paths]
        titles, goals, explorers = {}, {}, []
        t = time.perf_counter()
        from tqdm.auto import tqdm

        bar = tqdm(desc="[site] kernel-less explorers", unit="picture", file=sys.stderr)
        for p in paths:
            nb = nbformat.read(p, as_version=4)
            titles[p.stem] = _title(nb)
            goals[p.stem] = landing.teaches(nb)
            snb, mans = site_notebook(nb, p.stem, src, repo, ref, progress=bar.update,
                                      root=rel)
            explorers += [dict(page=p.stem, id=m["id"], factory=m["factory"],
                               sliders={s["name"]: s["values"] for s in m["sliders"]},
                               frames=len(m["frames"])) for m in mans]
            nbformat.write(snb, src / p.name)
        bar.close()
        times["explorers_s"] = time.perf_counter() - t
        theme = theme_options(repo, ref, footer_html(repo, info, ref))
        (src / "conf.py").write_text(conf_py(theme, info["date"][:4], {
            n: page_description(goals[n]) for n in names if goals.get(n)}, url))
        (src / f"{STATUS}.md").write_text(landing.status_page(info, repo, ref))
        from .method_cards import PAGE, methods_page  # one card per method, in the toc
        (src / f"{PAGE}.md").write_text(methods_page(rel / "notebooks"))
        if decks:  # the lecture decks (ftd_lib.publish.deck), offline reveal.js
            from .deck import write_decks

            t = time.perf_counter()
            _say("lecture decks")
            deck_paths = write_decks(src / "_extra" / landing.DECKS)
            for path in deck_paths:  # a notebook a slide links is its page here
                path.write_text(deck_links_to_pages(path.read_text(), repo, ref))
            deck_names = [p.stem for p in deck_paths]
            times["decks_s"] = time.perf_counter() - t
        else:
            deck_names = []
        (src / "index.md").write_text(landing.landing_page(names, titles, goals, rel, repo,
                                                           ref, decks=deck_names))
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
        t = time.perf_counter()
        weight = page_weight.lighten(html_dir)  # no icon script; MathJax's fonts asked first
        site_figures.figures(html_dir)  # text sizes, picture sizes, lazy loading
        site_conf.tidy(html_dir)  # one viewport tag a page; the status page's marks in words
        pictures = png_palette.shrink_folder(html_dir)  # pages, explorers' frames
        times["pictures_s"] = time.perf_counter() - t
        (html_dir / ".nojekyll").write_text("")  # GitHub Pages: serve _static/ as it is
        summary = dict(pages=["index"] + names, explorers=explorers, warnings=warnings,
                       seconds=times, repo=repo, ref=ref, build=info, decks=deck_names,
                       students_zip=dict(file=ZIP, bytes=zip_bytes), pictures=pictures, url=url,
                       page_weight=weight)
        summary["seconds"]["total_s"] = time.perf_counter() - t0
        (html_dir / "site.json").write_text(json.dumps(summary, indent=1))
        if out.exists():
            shutil.rmtree(out)
        os.replace(html_dir, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return summary


def main(argv=None) -> int:
    """Command line: ``python -m ftd_lib site --out DIR [--force] [--repo OWNER/NAME]
    [--ref REF]``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m ftd_lib site", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("--out", required=True, help="the folder to write the site to (must not "
                   "exist or be empty, unless --force)")
    p.add_argument("--force", action="store_true", help="replace a non-empty --out")
    repo = DEFAULT_REPO
    p.add_argument("--repo", default=repo, help="the GitHub repository (OWNER/NAME) of the "
                   "students' copy, which the Binder and Colab buttons launch (default: "
                   "$FTD_STUDENTS_REPO, " + (f"now {repo!r}" if repo else "unset now: no run "
                   "buttons") + "; never the instructors' repository, which holds the worked "
                   "solutions)")
    p.add_argument("--ref", default=DEFAULT_REF, help="the git ref of the students' copy in "
                   "--repo (a tag the Pages workflow pushes; default: $FTD_STUDENTS_REF or "
                   f"{colab.REF!r})")
    p.add_argument("--url", default=DEFAULT_URL, help="the address the site is published at, "
                   "https://HOST/PATH/ (the Pages workflow gives it): each page's canonical link "
                   "and link preview (og:url, og:image); default: $FTD_SITE_URL, " +
                   (f"now {DEFAULT_URL!r}" if DEFAULT_URL else "unset now: none"))
    p.add_argument("--no-handouts", action="store_true", help="leave the PDF handouts out "
                   "(quick previews only: their links then dangle)")
    a = p.parse_args(argv)
    try:
        s = build_site(a.out, force=a.force, repo=a.repo, ref=a.ref, url=a.url,
                       handouts=not a.no_handouts)
    except ValueError as e:
        p.error(str(e))
    print(f"wrote the site to {Path(a.out).resolve()}: {len(s['pages'])} pages, "
          f"{len(s['explorers'])} kernel-less explorers, "
          f"{s['seconds']['total_s']:.0f} s")
    return 0
