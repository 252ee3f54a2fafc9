"""Slides: every notebook of the course is also a slideshow (JupyterLab RISE extension,
``jupyterlab-rise``, pinned in ``requirements.txt``). RISE reads ``cell.metadata.slideshow
.slide_type`` and the notebook's ``metadata.rise``.

The rules (:func:`slide_type`), applied by ``python -m ftd_lib.publish.slides notebooks/*.ipynb``
to every cell that has no slide type yet (a type set by hand is kept):

- the title cell and every section heading (``## ``) start a **slide**; a heading must be the
  first line of its markdown cell (:func:`buried_headings`), else RISE shows it at the bottom
  of the previous section's slide; a sub-heading
  (``### ``) or an exercise (``**Exercise``) a **subslide** (below it, in RISE's 2-d layout);
- the imports cell is plumbing: **skip** (it still runs; RISE only hides it);
- a cell whose role keeps it off every slide (:func:`ftd_lib.course.roles.on_slide`: an
  exercise's answer cell, a hint, a worked solution): **skip**, as the static deck leaves it
  out: the question (the markdown before it) is the slide;
- where a figure builds up, the numbers under a figure (a cell tagged ``nbval-check-output`` right
  after a plotting cell) and the text that reads it (``**Reading``) come as **fragments**;
- everything else continues the current slide (``-``).

Offline: the theme's font ships with jupyterlab-rise (:data:`RISE`), and the two style sheets
RISE asks for (:func:`css_paths`) sit beside the notebooks, so a slideshow requests nothing
from the network and nothing that is missing (``tests/course/test_browser.py`` checks both).

Widgets stay live on the slides: RISE shows the notebook's own cells, with its kernel
(``tests/course/test_browser.py`` moves a slider on a slide). :func:`problems` says what a notebook
lacks; ``tests/publish/test_slides.py`` asks it of every notebook.
"""

from __future__ import annotations

import sys

import nbformat

from ..course import roles

TYPES = ("slide", "subslide", "fragment", "skip", "notes", "-")

#: RISE settings of every notebook: no navigation arrows (reveal.js's ``controls``: they sat
#: on the figures' bottom-right corners; the keyboard, a clicker and the speaker view move
#: through the slides; jupyterlab-rise 0.43.1 passes ``controls`` from ``metadata.rise`` to
#: ``Reveal.initialize``, as it does ``progress``, ``transition``, ``slideNumber`` and
#: ``center``; tests/course/test_browser.py checks the arrows are hidden); a slide never
#: scrolls (a hall cannot read a scrolling slide: a slide holds what fits on a projector's
#: 1280 x 720 at 26 px, notebooks/rise.css; tests/course/test_browser.py and
#: test_deck_browser.py measure it), content starts at the top of the slide, a plain theme, a
#: slide number, and the slideshow starts at the first slide (not at the selected cell). The
#: theme is reveal.js's "white": its font (Source Sans Pro, SIL Open Font License) ships
#: inside jupyterlab-rise and is served by the notebook server; "simple" and most other themes
#: @import Google Fonts, which a lecture hall without network cannot load
#: (tests/course/test_browser.py refuses the network)
RISE = {"controls": False, "scroll": False, "center": False, "theme": "white", "transition": "none",
        "slideNumber": True, "start_slideshow_at": "beginning", "enable_chalkboard": False,
        "header": "<span style='font-size: 70%'>van Seijen (2016): forward TD(λ)</span>"}

PLOTS = ("plot_", "plt.show", "figures.compare(", "plot_mountain_car_trajectory",
         "plot_cartpole_trajectory")
WIDGETS = ("_explorer(", "algorithm1_stepper(")


#: The course's slide style, beside the notebooks: jupyterlab-rise loads ``rise.css`` from the
#: notebook's folder for every slideshow, then ``<notebook name>.css``; both must exist, or
#: every slide asks the server for a missing file (a 404)
RISE_CSS = "rise.css"
NOTEBOOK_CSS = """/* jupyterlab-rise loads this file after rise.css when it shows {name}
   as a slideshow. The course's slide style is all in rise.css; this file only keeps the
   request from failing offline (a missing file is a 404 on every slide).
   Made by python -m ftd_lib.publish.slides. */
"""


def css_paths(notebook) -> list:
    """The two style sheets jupyterlab-rise requests for the slideshow of ``notebook`` (a
    path): ``rise.css`` and ``<stem>.css``, both in the notebook's folder."""
    from pathlib import Path

    notebook = Path(notebook)
    return [notebook.parent / RISE_CSS, notebook.with_suffix(".css")]


def _src(cell) -> str:
    return "".join(cell.get("source", "")) if isinstance(cell.get("source"), list) \
        else cell.get("source", "")


def is_widget_cell(cell) -> bool:
    """Does the cell make one of the course's widgets (an explorer or the stepper)?"""
    return cell["cell_type"] == "code" and any(w in _src(cell) for w in WIDGETS)


def slide_type(cells, i: int) -> str:
    """The slide type the rules give cell ``i`` of ``cells`` (the module's docstring)."""
    cell, src = cells[i], _src(cells[i]).lstrip()
    if i == 0:
        return "slide"
    if cell["cell_type"] == "markdown":
        if src.startswith("## "):
            return "slide"
        if src.startswith(("### ", "**Exercise")):
            return "subslide"
        if src.startswith("**Reading"):
            return "fragment"
        return "-"
    if not roles.on_slide(cell):
        return "skip"
    code = [c for c in cells[:i] if c["cell_type"] == "code"]
    if not code:
        return "skip"  # the imports
    prev = cells[i - 1]
    if (roles.has(cell, roles.CHECK_OUTPUT) and prev["cell_type"] == "code"
            and any(p in _src(prev) for p in PLOTS)):
        return "fragment"
    return "-"


def apply(nb, *, overwrite: bool = False) -> int:
    """Set the slide type of every cell that has none (all of them with ``overwrite``) and the
    notebook's RISE settings; returns how many cells changed."""
    changed = 0
    for i, cell in enumerate(nb.cells):
        show = cell.metadata.setdefault("slideshow", {})
        if overwrite or "slide_type" not in show:
            new = slide_type(nb.cells, i)
            changed += show.get("slide_type") != new
            show["slide_type"] = new
    nb.metadata["rise"] = dict(RISE)
    return changed


def buried_headings(cell) -> list[str]:
    """The section headings (``## ``) of a markdown cell that are not its first line: RISE
    cannot start a slide there, so the section would begin at the bottom of the previous
    section's (scrolling) slide. Lines inside a fenced code block are not headings."""
    if cell["cell_type"] != "markdown":
        return []
    out, fence = [], False
    for k, line in enumerate(_src(cell).lstrip().splitlines()):
        if line.startswith(("```", "~~~")):
            fence = not fence
        elif not fence and k > 0 and line.startswith("## "):
            out.append(line)
    return out


def problems(nb) -> list[str]:
    """What keeps a notebook from being a good slideshow (empty when nothing)."""
    out = []
    for i, cell in enumerate(nb.cells):
        out += [f"cell {i}: heading {h[:40]!r} is not the first line of its cell, so it "
                "cannot start a slide" for h in buried_headings(cell)]
    if nb.metadata.get("rise") != RISE:
        out.append("metadata.rise is not the course's RISE settings")
    for i, cell in enumerate(nb.cells):
        t = cell.metadata.get("slideshow", {}).get("slide_type")
        src = _src(cell).lstrip()
        if t not in TYPES:
            out.append(f"cell {i}: slide_type {t!r}, want one of {TYPES}")
        elif (i == 0 or (cell["cell_type"] == "markdown" and src.startswith("## "))) \
                and t != "slide":
            out.append(f"cell {i} ({src[:30]!r}) should start a slide, is {t!r}")
        elif is_widget_cell(cell) and t in ("skip", "notes"):
            out.append(f"cell {i}: a widget hidden from the slides ({t!r})")
        elif not roles.on_slide(cell) and t != "skip":
            out.append(f"cell {i}: an exercise's answer cell, hint or solution on a slide "
                       f"({t!r}); the deck shows its question only")
    if not any(c.metadata.get("slideshow", {}).get("slide_type") == "fragment"
               for c in nb.cells):
        out.append("no fragment: let at least one figure build up")
    return out


def main(paths) -> int:
    """``python -m ftd_lib.publish.slides [--settings-only] NB.ipynb ...``: give cells without a
    slide type one and write the RISE settings; with ``--settings-only`` write only
    ``metadata.rise`` (no cell changes, so the MyST pairs stay in sync)."""
    settings_only = "--settings-only" in paths
    paths = [p for p in paths if p != "--settings-only"]
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        if settings_only:
            changed = nb.metadata.get("rise") != RISE
            nb.metadata["rise"] = dict(RISE)
            nbformat.write(nb, path)
            print(f"{path}: RISE settings {'written' if changed else 'already current'}")
            continue
        n = apply(nb)
        nbformat.write(nb, path)
        own = css_paths(path)[1]
        if not own.exists():
            own.write_text(NOTEBOOK_CSS.format(name=own.with_suffix(".ipynb").name))
        print(f"{path}: {n} cells given a slide type; problems: {problems(nb) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
