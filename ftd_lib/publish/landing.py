"""The course website's landing page (MyST Markdown, :mod:`ftd_lib.publish.site`): what the
course is, its notebooks with what each teaches, the lecture plan, running it (the students'
copy as a zip, Binder, Colab, locally), the paper, how to cite the course, its licence and where
to ask.

Everything on it is read from the students' copy of the course the site is built from (its
README and its notebooks), from INSTRUCTORS.md's lecture plan (headlines only) and from the
repository's CITATION.cff: "what it teaches" is each notebook's own list of learning goals
("After this notebook you can ...", the first cells of the notebook).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from ..course import colab
from .method_cards import PAGE as METHODS_PAGE
from .release import REPO

HANDOUTS = "handouts"  # the folder of the PDFs in the site
ZIP = "ftd-course-students.zip"  # the students' copy, on the landing page
NOTEBOOKS = "notebooks"  # the students' notebooks, one download each (``.ipynb``)
STATUS = "status"  # the build's status page: each notebook executed, its run time
DECKS = "slides"  # the lecture decks' folder in the site (when built)

PAPER_URL = "https://arxiv.org/abs/1608.05151"
PAPER_BIBTEX = """\
@article{vanseijen2016effective,
  title   = {Effective Multi-step Temporal-Difference Learning for Non-Linear Function
             Approximation},
  author  = {van Seijen, Harm},
  journal = {arXiv preprint arXiv:1608.05151},
  year    = {2016}
}"""
LICENCE = ("The course text (notebooks' prose, figures, handouts, this website) is licensed "
           "under [CC BY 4.0](https://creativecommons.org/licenses/by/4.0/); the code "
           "(`ftd_lib`, the notebooks' code cells) under the MIT License.")
LICENCE_HTML = ('Text: <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>; '
                'code: MIT')

_GOALS = re.compile(r"After this notebook you can", re.I)
_ITEM = re.compile(r"^\s*\d+\.\s+(.*)$")


def learning_goals(nb) -> list[str]:
    """The notebook's learning goals: the numbered list after "After this notebook you can" in
    its first markdown cells (an item may run over several lines; a cell that says it in a
    sentence, as a title slide's summary, without a list, is passed over), else the first
    numbered list of its first cell; ``[]`` where it has none."""
    md = [c.source for c in nb.cells[:6] if c.cell_type == "markdown"]
    for s in md:
        if _GOALS.search(s) and (items := _numbered(s[_GOALS.search(s).end():])):
            return items
    return _numbered(md[0]) if md else []


def _numbered(text: str) -> list[str]:
    """The first numbered list in ``text``, an item over several lines joined."""
    items, current = [], None
    for line in text.splitlines():
        m = _ITEM.match(line)
        if m:
            current = [m.group(1).strip()]
            items.append(current)
        elif current is not None and line.startswith("   ") and line.strip():
            current.append(line.strip())
        elif current is not None and not line.strip() and items:
            break
    return [" ".join(i).rstrip(";.") for i in items]


def teaches(nb) -> str:
    """"What it teaches" for the landing page's table: the learning goals on one line."""
    goals = learning_goals(nb)
    return "; ".join(goals).replace("|", r"\|")


def _bibtex_text(text: str) -> str:
    """Text for a BibTeX field: LaTeX's special characters escaped, acronyms (TD, MC) braced
    so that a style does not lower-case them."""
    text = re.sub(r"([_&%#$])", r"\\\1", text)
    return re.sub(r"\b([A-Z]{2,})\b", r"{\1}", text)


def authors(path: Path = REPO / "CITATION.cff") -> list[str]:
    """The course's authors as CITATION.cff names them (a person: "Family, Given"; a group:
    its name)."""
    import yaml

    c = yaml.safe_load(path.read_text())
    return [a.get("name") or f"{a['family-names']}, {a['given-names']}" for a in c["authors"]]


def citation(path: Path = REPO / "CITATION.cff", url: str | None = None) -> str:
    """A BibTeX entry for the course from CITATION.cff (``""`` where there is none): a person
    as "Family, Given", a group in double braces (one corporate author, not a surname);
    LaTeX's special characters escaped; ``url`` (the published course) where known."""
    if not path.is_file():
        return ""
    import yaml

    c = yaml.safe_load(path.read_text())
    names = " and ".join(
        "{" + _bibtex_text(a["name"]) + "}" if a.get("name")
        else _bibtex_text(f"{a['family-names']}, {a['given-names']}") for a in c["authors"])
    year = str(c.get("date-released", ""))[:4]
    url_line = f"\n  url    = {{{url}}}," if url else ""
    return (f"@misc{{ftdcourse{year},\n  title  = {{{_bibtex_text(c['title'])}}},"
            f"\n  author = {{{names}}},\n  year   = {{{year}}},{url_line}"
            f"\n  note   = {{version {c.get('version', '')}, "
            f"licences {', '.join(c.get('license', []))}}}\n}}")


#: the README's symbols as words: a page without an emoji font shows them as empty boxes
SYMBOL_WORDS = (("✅ or ❌", "Correct or Not yet"), ("✅", "Correct"), ("❌", "Not yet"),
                ("💡 ", ""), ("💡", ""))


def in_words(text: str) -> str:
    """``text`` with the check's symbols written as the words the checks print."""
    for sym, words in SYMBOL_WORDS:
        text = text.replace(sym, words)
    return text


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


def _section(readme: str, heading: str) -> str:
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    return m.group(1).strip() if m else ""


def run_links(repo: str | None, ref: str, name: str) -> str:
    """Markdown links that run notebook ``name`` (Binder, Colab), or ``""`` without a
    repository."""
    if repo is None:
        return ""
    nb = name + ".ipynb"
    return (f'<a class="ftd-binder" href="{colab.binder_url(repo, ref, nb)}">Binder</a> · '
            f'<a class="ftd-colab" href="{colab.colab_url(repo, ref, nb)}">Colab</a>')


def status_page(info: dict, repo: str | None, ref: str) -> str:
    """The build's status page (MyST Markdown): when and from what the site was built, and
    each notebook executed for it with its run time (MyST-NB's ``nb-exec-table``; a cell that
    raised would have failed the build). Linked from every page's footer, not from the
    notebooks' contents."""
    built = (f"the students' copy at ref `{ref}` of [{repo}](https://github.com/{repo}/tree/"
             f"{ref})" if repo else f"commit `{info['commit'][:12]}`")
    return f"""---
orphan: true
---

# Build status

This site was built on {info['date']} (UTC) from {built}. Every notebook below was run top to
bottom for it, in a fresh kernel; a cell that raises fails the whole build, so a page you can
read is a notebook that ran. The run times are this build's (the machine that built it), not
what your own run will take.

```{{nb-exec-table}}
```
"""


def landing_page(names: list[str], titles: dict, goals: dict, root: Path, repo: str | None,
                 ref: str, *, decks=()) -> str:
    """The landing page (MyST Markdown) of the students' copy at ``root``: ``titles`` and
    ``goals`` (what each notebook teaches) per notebook name; ``repo``/``ref`` the published
    students' copy the run buttons launch (``repo=None``: no buttons, a local build);
    ``decks``: the lecture decks' names in :data:`DECKS` (``lecture1``, ...)."""
    readme = (root / "README.md").read_text()
    paras = [p.strip() for p in readme.split("\n\n") if p.strip()]
    intro = in_words(next(p for p in paras if not p.startswith(("#", "[!", "<"))))
    homework = in_words(_section(readme, "Homework: how it is handed in and graded"))
    if not homework:  # no section to point at
        intro = re.sub(r'\s*[^.]*"Homework" below[^.]*\.', "", intro)
    rows = "\n".join(
        f"| [{html.escape(titles[n])}]({n}.ipynb) | {goals.get(n, '')} | "
        f'<a class="ftd-handout" href="{HANDOUTS}/{n}.pdf">PDF</a> · '
        f'<a class="ftd-ipynb" href="{NOTEBOOKS}/{n}.ipynb" download>.ipynb</a>'
        + (f" · {run_links(repo, ref, n)}" if repo else "") + " |"
        for n in names)
    plan = lecture_plan()
    plan_md = ("## The lecture plan\n\n" + "\n".join(f"- {p}" for p in plan) + "\n\n"
               if plan else "")
    decks_md = ("\nThe lecture decks (reveal.js, offline; press S for the speaker notes): " +
                " · ".join(f'<a class="ftd-deck" href="{DECKS}/{d}.html">'
                           f'{d.replace("lecture", "lecture ")}</a>' for d in decks) + ".\n"
                if decks else "")
    if repo:
        online = (
            "**In the browser, with nothing installed:** every notebook page has a **Binder** "
            "and an **Open in Colab** button (the rocket at the top, and the links under its "
            "title). Both open the students' copy of this very build (the git ref "
            f"`{ref}` of [github.com/{repo}](https://github.com/{repo}/tree/{ref})), never "
            "the instructors' version: no worked solution is in it. Binder builds the image "
            "from `binder/` (the same pins; the first start can take minutes). On Colab, run "
            "the notebook's first code cell first: it installs the course's library from "
            "the same copy (Colab does not have it) and does nothing anywhere else.")
    else:
        online = ("**In the browser:** this copy of the website was built without a "
                  "repository to launch (`--repo`), so it has no Binder or Colab buttons.")
    ask = _section(readme, "Where to ask")
    cite = citation(url=f"https://github.com/{repo}" if repo else None)
    cite_md = (f"**This course:** (from its `CITATION.cff`)\n\n```bibtex\n{cite}\n```\n\n"
               if cite else "")
    toc = "\n".join(names)
    return f"""# Forward TD(λ): a course on multi-step TD learning with neural networks

{intro}

This website is the students' version of the course: every notebook executed when the site was
built, with its figures, exercises and hints (the worked solutions are not part of it). The
explorers of notebooks 03, 04 and 05 move without Python here (their pictures were computed at
build time); everything else that is interactive runs in Jupyter.

## The notebooks

```{{table}}
:class: ftd-cards

| notebook | what it teaches | take it along · run it |
| --- | --- | --- |
{rows}
```

Handouts: <a class="ftd-handout" href="{HANDOUTS}/00_notation.pdf">the notation sheet</a>
(the paper ↔ Sutton & Barto ↔ the code's names) and one PDF per notebook (the links above).
<a class="ftd-methods" href="{METHODS_PAGE}.html">The methods at a glance</a>: one screen per
method (its facts, key equations, pseudocode, where it is taught, how to run it).
{decks_md}
{plan_md}## Running the course yourself

**Download the students' copy:** <a class="ftd-zip" href="{ZIP}">{ZIP}</a>, the
notebooks, the library and the stored results of this build, without the worked solutions.
Unzip it and run `./start.sh` in it (Python 3.11): the first call makes `.venv/` with the
pinned requirements (a few minutes), then JupyterLab opens on notebook 01.

{online}

{"## Homework" + chr(10) + chr(10) + homework + chr(10) + chr(10) if homework else ""}## The paper

van Seijen, H. (2016). *Effective Multi-step Temporal-Difference Learning for Non-Linear
Function Approximation.* [arXiv:1608.05151]({PAPER_URL}).

```bibtex
{PAPER_BIBTEX}
```

## Cite this course

{cite_md}## Licence

{LICENCE}

## Where to ask

{ask}

```{{toctree}}
:maxdepth: 1
:caption: Notebooks
:hidden:

{toc}
```

```{{toctree}}
:maxdepth: 1
:caption: Reference
:hidden:

{METHODS_PAGE}
```
"""
