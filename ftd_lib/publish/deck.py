"""The lecture decks: ``python -m ftd_lib slides --out DIR`` writes one reveal.js deck per lecture
of the plan (:data:`ftd_lib.publish.lectures.LECTURES`), the lecturer's fallback when the live
slideshow (RISE, with a kernel) cannot run.

Each deck ``DIR/lecture<N>.html`` is the notebooks' cells the lecture takes, cut into slides by
their slide types, through nbconvert's slides exporter with a template of our own
(:data:`TEMPLATE`): the stored outputs and figures (embedded in the HTML as ``data:`` images);
a widget shows its picture alone (the view needs a kernel), drawn anew for the slide
(:mod:`ftd_lib.publish.slide_pictures`), every picture with its smallest text size and dpi
(``data-ftd-text-pt``, ``data-ftd-dpi``), so that ``tests/publish/test_deck_figures.py`` can
hold its projected text to 16 px; math typeset by MathJax; ``notes`` cells as
``<aside class="notes">``, which reveal.js's notes plugin shows in its speaker view (press
``S``). It opens from disk (``file://``) with no server, no kernel and no network: reveal.js
5.2.0 and MathJax 2.7 are copied from installed, pinned packages into ``DIR/_deck/``
(:func:`copy_assets`): reveal.js from ``sphinx-revealjs`` (PyPI; it ships reveal.js's built
``dist/``, the "white" theme with its Source Sans Pro font files and the notes plugin), MathJax
from ``jupyter-server-mathjax`` (as the handouts). Nothing is fetched from a CDN: the template
loads no jQuery, require.js, mermaid or widget manager. reveal.js 5's speaker view is written
by the notes plugin into an ``about:blank`` pop-up (no ``notes.html`` to load) that shows the
deck in two frames from the same folder, so it works offline too
(``tests/publish/test_deck_browser.py`` opens it).

The slides are 1280 × 720 (a projector's), the course's slide style is ``notebooks/rise.css``
(the same sheet RISE loads), inlined: body text 26 px, code 22 px, figures at most 440 px high.
reveal.js's navigation arrows are off (they sat on figures' corners): the keyboard, a clicker
and the speaker view move through the deck. ``--notebooks`` writes one deck per notebook
instead (what the fit test checks).

What a slide shows is decided by the cells' roles (:func:`ftd_lib.publish.present.present`,
``"deck"``): code only where tagged ``show-code``, an exercise as its question, no hint, no
solution. Each lecture's deck (:func:`lecture_notebook`) gives every slide a one-line speaker
cue (:mod:`ftd_lib.publish.cues`), tags every slide the plan does not time as core in its
corner (optional, homework, self-study), shows the stepper's recorded frames as fragments, and
ends with a homework slide and the discussion (:mod:`ftd_lib.publish.closing`); ``--core``
leaves the slides out that are not core.
"""

from __future__ import annotations

import copy
import re
import shutil
import sys
from pathlib import Path

import nbformat

from . import lectures as L
from . import plan as P
from .in_class import in_class_cells
from .slide_pictures import FRAME_BOX, deck_notebook, stepper_frames_html
from .slides import RISE_CSS

ASSETS = "_deck"
WIDTH, HEIGHT = 1280, 720
MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full,Safe"
#: the deck's own additions to ``notebooks/rise.css`` (the live slideshow does not show the
#: stepper's frames stacked): a frame's picture as high as :data:`FRAME_BOX` allows
DECK_CSS = (f"\n.reveal .ftd-frames img {{ max-height: {FRAME_BOX[1]}px; }}\n"
            # every frame's readout as high as the tallest (4 lines), so the picture under
            # it stays put from frame to frame
            ".reveal .ftd-step-readout { min-height: 5.3em; }\n"
            # reveal.js's slide number: white on #999 is 2.84:1 (WCAG asks 4.5:1); #595959, 7:1
            ".reveal .slide-number { background-color: #595959; color: #fff; }\n"
            # a slide tagged in its corner says "optional" once, not again per cell
            ".reveal section:has(.ftd-mark) .celltag_lecture-optional { border-left: 0;"
            " padding-left: 0; }\n"
            ".reveal section:has(.ftd-mark) .celltag_lecture-optional::before"
            " { content: none; }\n")

#: the timetable in the title slide's notes fits the speaker view's notes pane (about 440 px
#: wide): smaller type; the minutes, the headings and the optional minutes kept on one line,
#: the "what" column wraps at its spaces (the style travels with the notes)
TIMETABLE_CSS = ("<style>.speaker-controls-notes table { font-size: 0.7em; width: 100%; "
                 "border-collapse: collapse; } .speaker-controls-notes th, "
                 ".speaker-controls-notes td:first-child, .speaker-controls-notes td:last-child "
                 "{ white-space: nowrap; }</style>\n\n")
#: the timetable's columns a lecturer reads while teaching (INSTRUCTORS.md has them all: the
#: counts each row's minutes come from, whose ten columns broke the pane's headings letter by
#: letter)
SPEAKER_COLUMNS = ("min", "what", "optional")


def speaker_timetable(table: str) -> str:
    """The lecture's timetable (markdown, :func:`ftd_lib.publish.lecture_plan.lecture_table`)
    with only the :data:`SPEAKER_COLUMNS`, for the speaker notes (a cell's escaped ``\\|`` is
    no column's edge)."""
    rows = [[c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            for line in table.splitlines()]
    keep = [rows[0].index(c) for c in SPEAKER_COLUMNS]
    return "\n".join("| " + " | ".join(r[i] for i in keep) + " |" for r in rows)


TEMPLATE = r"""{%- extends 'reveal/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{%- block html_head_js_mathjax -%}
<script type="text/x-mathjax-config">MathJax.Hub.Config({
  menuSettings: {assistiveMML: false}, "HTML-CSS": {availableFonts: [],
  preferredFont: null, webFont: "STIX-Web", imageFont: null,
  styles: {"@font-face": {"font-family": "MathJax_Blank", src: "local('MathJax_Blank')"}}}});
</script>
{{ mathjax(resources.mathjax_url) }}
{%- endblock html_head_js_mathjax -%}
{%- block html_head_css -%}
<style type="text/css">
{{ resources.ftd_css }}
</style>
{%- endblock html_head_css -%}
{% block data_png scoped %}
<div class="jp-RenderedImage jp-OutputArea-output {{ extra_class }}">
<img src="data:image/png;base64,{{ output.data['image/png'] | escape_html }}"
{%- set pt = output | get_metadata('ftd_text_pt', 'image/png') -%}
{%- set dpi = output | get_metadata('ftd_dpi', 'image/png') -%}
{%- if pt is not none and dpi is not none %} data-ftd-text-pt="{{ pt }}" data-ftd-dpi="{{ dpi }}"
{%- endif %}>
</div>
{%- endblock data_png %}
{% block footer_js %}
<script src="{{ resources.reveal.url_prefix }}/dist/reveal.js"></script>
<script src="{{ resources.reveal.url_prefix }}/plugin/notes/notes.js"></script>
<script>
Reveal.initialize({
  controls: false, progress: true, hash: true, transition: "none", slideNumber: "c/t",
  width: {{ resources.reveal.width }}, height: {{ resources.reveal.height }}, margin: 0,
  center: false, minScale: 0.2, maxScale: 2.0, plugins: [RevealNotes]
});
// the speaker view (key S) is a pop-up that gets each slide's notes as HTML: MathJax's
// HTML-CSS output there has neither its stylesheet nor its fonts and shows as blanks, so each
// formula of the notes is turned into MathML, which the browser typesets itself (once MathJax's
// first pass is over: that pass would take the MathML for input and typeset it again)
if (window.MathJax && MathJax.Hub) MathJax.Hub.Register.StartupHook("End", function () {
  MathJax.Hub.Queue(["Require", MathJax.Ajax, "[MathJax]/extensions/toMathML.js"], function () {
    document.querySelectorAll('aside.notes script[type^="math/tex"]').forEach(function (s) {
      var jax = MathJax.Hub.getJaxFor(s);
      if (!jax) return;
      var span = document.createElement("span");
      span.className = "ftd-notes-math";
      span.innerHTML = jax.root.toMathML("");
      jax.Remove();
      var prev = s.previousSibling;
      if (prev && prev.className === "MathJax_Preview") prev.remove();
      if (s.parentNode) s.parentNode.replaceChild(span, s);
    });
    document.documentElement.dataset.ftdNotesMath = "mathml";
  });
});
Reveal.on("slidechanged", function (event) {
  // queued behind the first typesetting: a jump right after loading rendered a slide that
  // was still being typeset ("[Math Processing Error]")
  if (window.MathJax && MathJax.Hub) {
    MathJax.Hub.Queue(["Rerender", MathJax.Hub, event.currentSlide]);
  }
});
</script>
{% endblock footer_js %}
"""


def reveal_dir() -> Path:
    """reveal.js's built files as ``sphinx-revealjs`` (pinned in requirements.txt) ships them."""
    import sphinx_revealjs

    path = Path(sphinx_revealjs.__file__).parent / "_static" / "revealjs"
    if not (path / "dist" / "reveal.js").is_file():
        raise RuntimeError(f"no reveal.js at {path}: pip install sphinx-revealjs")
    return path


def mathjax_dir() -> Path:
    import jupyter_server_mathjax

    path = Path(jupyter_server_mathjax.__file__).parent / "static"
    if not (path / "MathJax.js").is_file():
        raise RuntimeError(f"no MathJax at {path}: pip install jupyter-server-mathjax")
    return path


def copy_assets(out: Path) -> Path:
    """Copy what the decks load into ``out/_deck/``: reveal.js (its ``dist/reveal.js`` and
    ``reveal.css``, the white theme and its font, the notes plugin, the licence) and MathJax 2.7
    (without its other languages and its SVG output, which the decks do not use)."""
    dest = Path(out) / ASSETS
    src = reveal_dir()
    for rel in ("dist/reveal.js", "dist/reveal.css", "dist/theme/white.css",
                "plugin/notes/notes.js", "LICENSE"):
        (dest / "reveal.js" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / rel, dest / "reveal.js" / rel)
    shutil.copytree(src / "dist/theme/fonts/source-sans-pro",
                    dest / "reveal.js/dist/theme/fonts/source-sans-pro", dirs_exist_ok=True)

    def skip(folder, names):  # other languages; the SVG output (the decks use HTML-CSS)
        folder = Path(folder)
        return [n for n in names if (folder.name == "localization" and n != "en")
                or (folder.name == "output" and folder.parent.name == "jax" and n == "SVG")]

    shutil.copytree(mathjax_dir(), dest / "mathjax", ignore=skip, dirs_exist_ok=True)
    return dest


def label_cells(nb, stem: str):
    """Mark every cell of ``nb`` with where it comes from (``data-ftd-cell="03 c12"`` on the
    slide it opens), so a test can name the cells of a slide that does not fit."""
    for i, cell in enumerate(nb.cells):
        cell.metadata.setdefault("slideshow", {}).setdefault("data", {})["ftd_cell"] = \
            f"{stem[:2]} c{i}"
    return nb


def _title_cell(text: str):
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["slideshow"] = {"slide_type": "slide"}
    return cell


def _notes(text: str):
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["slideshow"] = {"slide_type": "notes"}
    return cell


def _mark(cell, reason: str):
    """Show on the slide that it is not core: a corner tag (``notebooks/rise.css``,
    ``.ftd-mark``) saying why (optional, homework, self-study, dropped from the plan)."""
    word = {"optional": "optional", "homework": "homework", "self-study": "self-study",
            "dropped": "optional: not in the plan"}.get(reason, reason)
    tag = f'<p class="ftd-mark">{word}</p>'
    if cell.cell_type == "markdown":
        cell.source = tag + "\n\n" + cell.source
        return [cell]
    mark = nbformat.v4.new_markdown_cell(tag)
    show = cell.metadata.setdefault("slideshow", {})
    mark.metadata["slideshow"] = {"slide_type": show.get("slide_type", "slide")}
    show["slide_type"] = "-"
    return [mark, cell]


def _stepper_cell(cell, frames: str):
    """The stepper's cell with its saved picture replaced by every recorded frame."""
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": frames})]
    return cell


def _stepper_slide(cell, reason, minutes: float) -> list:
    """The stepper's frames on a sub-slide of their own, with a heading and a cue (``minutes``:
    the rule's for the stepper's cell, its frames included, on a slide of its own)."""
    from .cues import cue

    head = nbformat.v4.new_markdown_cell("### The stepper's key frames (→: the next one; "
                                         "every frame in the notebook)")
    head.metadata["slideshow"] = {"slide_type": "subslide"}
    cell.metadata.setdefault("slideshow", {})["slide_type"] = "-"
    return [head, _notes(cue([head, cell], minutes, reason)), cell]


def _reason(nb_cell, moved_reason):
    if moved_reason:
        return moved_reason
    return "optional" if L.is_optional(nb_cell) else None


def lecture_notebook(lecture: P.Lecture, *, core: bool = False):
    """One notebook of the slides lecture ``lecture`` projects, as the deck shows them
    (:func:`ftd_lib.publish.present.present`, ``"deck"``): a title slide (the plan, and the
    timetable in its speaker notes), each segment's slides in order, every slide with its
    speaker cue (:mod:`ftd_lib.publish.cues`) and, where it is not core, a corner tag saying
    why; the stepper's frames as fragments; then the homework slide and the discussion
    (:mod:`ftd_lib.publish.closing`). With ``core`` the optional, homework, self-study and
    dropped slides (and optional cells) are left out: the deck the timing rule's core minutes
    describe."""
    from . import closing, cues
    from .lecture_plan import lecture_table
    from .present import present

    parts = [label_cells(P.read(seg.notebook), seg.notebook) for seg in lecture.segments]
    segs = "\n".join(
        f"- {nb.cells[0].source.strip().splitlines()[0].lstrip('# ')}"
        + ("" if s.label() == s.notebook[:2] else f" ({s.label()[3:]})")
        for s, nb in zip(lecture.segments, parts, strict=True))
    kind = "core slides only" if core else "optional slides tagged in the corner"
    title = _title_cell(f"# Lecture {lecture.number}\n\n{segs}\n\n"
                        f"*van Seijen (2016): forward TD(λ)* · *{kind}*")
    minutes = closing.lecture_minutes(lecture)
    cells = [title, _notes(f"**Cue** (1 min, core): today's plan, {minutes['core']} min of "
                           f"slides by the rule and {minutes['discussion']} min of discussion "
                           "at the end.\n\n" + TIMETABLE_CSS
                           + speaker_timetable(lecture_table(lecture)[0]))]
    frames = None
    for seg, nb in zip(lecture.segments, parts, strict=True):
        idx = P.segment_cells(nb, seg)
        moved = L.segment_moved(seg, nb)
        sub = [copy.deepcopy(nb.cells[i]) for i in idx]
        sub[0].metadata.setdefault("slideshow", {})["slide_type"] = "slide"
        for group in L.slide_groups({"cells": sub}):
            gcells = [sub[k] for k in group]
            flags = [idx[k] in moved for k in group]
            shown = [k for k, c in zip(group, gcells, strict=True)
                     if L.slide_words.slide_type(c) not in ("skip", "notes")]
            opener = shown[0] if shown else group[0]
            reason = _reason(sub[opener], moved.get(idx[opener]))
            if core and reason:
                continue
            # the stepper's frames get a slide of their own (below), and their minutes with it
            own = [j for j, c in enumerate(gcells) if L.stepper_frames(c)]
            cue = cues.slide_cue([c for j, c in enumerate(gcells) if j not in own],
                                 [f for j, f in enumerate(flags) if j not in own], reason)
            numbers = None
            if reason is None:  # an exercise put to the room: its numbers, its answer
                numbers, answer = in_class_cells(sub, group)
                if answer is not None:
                    cue += f" Answer without a student id: {answer}."
            for c, f in zip(gcells, flags, strict=True):
                if f:
                    c.metadata["ftd_moved"] = True
            view = present(nbformat.v4.new_notebook(cells=gcells), "deck").cells
            if core:
                view = [c for c in view if not (L.is_optional(c) or c.metadata.get("ftd_moved"))]
            k = next((j for j, c in enumerate(view)
                      if L.slide_words.slide_type(c) not in ("skip", "notes")), None)
            if k is None:
                continue
            step = next((j for j, c in enumerate(view) if c.cell_type == "code"
                         and "algorithm1_stepper(" in c.source), None)
            tail = []
            if step is not None and step >= k:  # the frames get a slide of their own
                frames = frames or stepper_frames_html(view[step].source)
                step_min = L.SLIDE_MIN + sum(L.cell_minutes(gcells[j]) for j in own)
                tail = _stepper_slide(_stepper_cell(view[step], frames), reason, step_min)
                view = view[:step] + view[step + 1:]
                if step == k:  # the stepper opens its slide: the frames' slide is all of it
                    cells += view[:k] + tail + view[k:]
                    continue
            head = _mark(view[k], reason) if reason else [view[k]]
            cells += view[:k] + head + [_notes(cue)] + view[k + 1:] + (
                [numbers] if numbers is not None else []) + tail
    cells += closing.homework_cells(lecture)
    cells += closing.discussion_cells(lecture, minutes["discussion"])
    out = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(parts[0].metadata))
    out.metadata["title"] = f"Lecture {lecture.number}"
    return deck_notebook(out)


def exporter():
    """nbconvert's slides exporter with the course's template: local reveal.js and MathJax
    (paths relative to the deck), 1280 × 720, no prompts."""
    import jinja2
    from nbconvert.exporters import SlidesExporter

    return SlidesExporter(
        extra_loaders=[jinja2.DictLoader({"ftd_deck.html.j2": TEMPLATE})],
        template_file="ftd_deck.html.j2",
        reveal_url_prefix=f"{ASSETS}/reveal.js",
        reveal_theme="white", reveal_width=str(WIDTH), reveal_height=str(HEIGHT),
        mathjax_url=f"{ASSETS}/mathjax/MathJax.js?config={MATHJAX_CONFIG}",
        exclude_input_prompt=True, exclude_output_prompt=True)


def render(nb, ex=None) -> str:
    """The deck's HTML for ``nb`` (slide types as set in its cells)."""
    ex = ex or exporter()
    resources = {"ftd_css": (P.NOTEBOOKS / RISE_CSS).read_text() + DECK_CSS}
    html, _ = ex.from_notebook_node(nb, resources=resources)
    return html


def write_decks(out, *, notebooks=None, force: bool = False, core: bool = False) -> list[Path]:
    """Write one deck per lecture (or, with ``notebooks``, a list of paths, one per notebook:
    each notebook as the deck shows it) and the assets into ``out``; return the decks' paths.
    ``core``: the lecture decks without their optional, homework and self-study slides."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise ValueError(f"--out {out} exists and is not empty; pass --force to write into it")
    if notebooks is not None:
        missing = [str(p) for p in notebooks if not Path(p).is_file()]
        if missing:
            raise ValueError(f"--notebooks: no such notebook {missing[0]}")
        from .present import present

        jobs = [(Path(p).stem, deck_notebook(present(label_cells(
            nbformat.read(p, as_version=4), Path(p).stem), "deck"))) for p in notebooks]
    else:
        jobs = [(f"lecture{lec.number}", lecture_notebook(lec, core=core))
                for lec in P.LECTURES]
    out.mkdir(parents=True, exist_ok=True)
    copy_assets(out)
    ex, written = exporter(), []
    for name, nb in jobs:
        path = out / f"{name}.html"
        path.write_text(render(nb, ex), encoding="utf-8")
        written.append(path)
    return written


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m ftd_lib slides",
        description="Write one self-contained reveal.js deck per lecture (offline: no server, "
                    "no kernel, no network); open DIR/lecture1.html in a browser, S: speaker view")
    ap.add_argument("--out", required=True, type=Path, help="folder for the decks")
    ap.add_argument("--force", action="store_true", help="write into a non-empty --out")
    ap.add_argument("--notebooks", nargs="+", metavar="NB",
                    help="one deck per notebook given, instead of one per lecture")
    ap.add_argument("--core", action="store_true",
                    help="leave out the optional, homework and self-study slides (the slides "
                         "the plan's core minutes time)")
    args = ap.parse_args(argv)
    try:
        paths = write_decks(args.out, notebooks=args.notebooks, force=args.force,
                            core=args.core)
    except ValueError as e:
        print(f"python -m ftd_lib slides: {e}", file=sys.stderr)
        return 2
    for p in paths:
        print(f"{p} ({p.stat().st_size / 1e6:.1f} MB)")
    print(f"assets: {args.out / ASSETS} (reveal.js 5.2.0, MathJax 2.7); open a deck from disk, "
          "press S for the speaker notes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
