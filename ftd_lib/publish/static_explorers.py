r"""Kernel-less explorers for the course website: the pictures of a live explorer
(:mod:`ftd_lib.course.widgets`) for a grid of slider values, computed once at build time and
switched in the browser by a small script (``site_static/ftd-static-explorer.js``).

A static page cannot run Python, so an ``ipywidgets`` slider saved with the page would move but
redraw nothing (``interact`` output freezes without a kernel). Instead every frame is drawn by
the live explorer's own callback: for each point of the grid the factory
(:func:`~ftd_lib.course.widgets.one_state_explorer`, :func:`~ftd_lib.course.widgets.k_explorer`,
:func:`~ftd_lib.course.widgets.learning_curve_explorer`) is called with those slider values and
the notebook's other arguments, and its picture (``explorer.png()``) and readout
(``explorer.readout.value``) are stored. Algorithm 1's stepper
(:func:`~ftd_lib.course.stepper.algorithm1_stepper`) is the fourth: its frames are the ones it
records; its one slider moves the explorer's own ``frame`` control (a *control* slider, not a
factory argument), and the page adds its Back and Step buttons. The picture at a grid value
is therefore the live explorer's picture at that value (tests/publish/test_site.py compares
the pixels).

In the page an explorer is one ``<div class="ftd-static-explorer">`` with an
``<input type="range">`` per slider (index into that slider's values; arrow keys move it), the
readout and an ``<img>``; a JSON manifest in the div names the frame of every grid point.
For a screen reader each slider says its value (``aria-valuetext="α = 0.15 (3 of 10)"``), the
readout is a live region, and the picture's alt text is its readout in words. The script
switches the picture and the readout together, once the new picture has loaded, and preloads
each slider's neighbouring pictures.
"""

from __future__ import annotations

import ast
import html
import itertools
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..course import stepper as ST
from ..course import widgets as W


@dataclass(frozen=True)
class Slider:
    """One slider of a static explorer: its name (the factory's keyword and the control's
    key), its label, the values it takes on the site and how a value is printed.
    ``control=True``: the slider sets the explorer's own control ``name`` after it is built
    (not a factory argument); empty ``values`` then mean every value of that control."""

    name: str
    label: str
    values: tuple
    fmt: str = "{:g}"
    control: bool = False


@dataclass(frozen=True)
class Spec:
    """A static explorer: the factory (a name in :mod:`ftd_lib.course.widgets` or
    :mod:`ftd_lib.course.stepper`), its sliders and what the site says about it; ``steps``:
    Back/Step buttons move the first slider by one."""

    factory: str
    sliders: tuple
    note: str
    steps: bool = False


#: the kernel-less explorers of the site (the grids: where something changes in each picture)
SPECS = {
    "one_state_explorer": Spec("one_state_explorer", (
        Slider("alpha", "α", (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0), "{:.2f}"),
        Slider("T", "T", (1, 5, 10, 20, 100), "{:d}"),  # 100: the notebook's "α = 1, T = 100"
        Slider("v0", "V₀", (-1.0, 0.0, 1.0, 2.0), "{:.1f}"),
    ), "the sliders step through a grid of values computed when the site was built; in "
       "Jupyter (locally or on Binder) the live explorer takes any value"),
    "k_explorer": Spec("k_explorer", (
        Slider("eta", "η", (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5), "{:g}"),
        Slider("gl", "γλ", (0.0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0),
               "{:.2f}"),
    ), "the sliders step through a grid of values computed when the site was built; in "
       "Jupyter (locally or on Binder) the live explorer takes any value"),
    "learning_curve_explorer": Spec("learning_curve_explorer", (
        Slider("alpha", "α", (0.001, 0.002, 0.005, 0.01, 0.015, 0.03), "{:g}"),
        Slider("lam", "λ", (0.0, 0.5, 0.8, 0.9, 1.0), "{:.2f}"),
    ), "here every picture was drawn when the site was built, from runs made then (the "
       "notebook's run count and episodes); in Jupyter each move runs them anew for any α and "
       "λ (a few seconds, then cached)"),
    "algorithm1_stepper": Spec("algorithm1_stepper", (
        Slider("frame", "t", (), "{:d}", control=True),
    ), "every time step of the notebook's episode, recorded by the live stepper when the site "
       "was built; in Jupyter the same stepper runs any episode, step size or η", steps=True),
}


def find_call(source: str):
    """The first call of a factory of :data:`SPECS` in a code cell's ``source``, as
    ``(factory name, keyword arguments)`` (literal keywords only), or ``None``. A cell that is
    not valid Python (an IPython magic) has none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in SPECS:
            kwargs = {}
            for kw in node.keywords:
                try:
                    kwargs[kw.arg] = ast.literal_eval(kw.value)
                except ValueError:
                    continue
            return node.func.id, kwargs
    return None


def call_text(factory: str, kwargs: dict) -> str:
    """The call that makes the live explorer in Jupyter, as a notebook cell writes it:
    ``k_explorer(eta=0.01, gl=0.9)``."""
    return f"{factory}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"


def grid(spec: Spec, start: dict) -> tuple:
    """The sliders of ``spec`` with the notebook's start value (``start[name]``) added to each
    slider's values where it is missing, so the page opens on the notebook's picture."""
    out = []
    for s in spec.sliders:
        vals = list(s.values)
        v = start.get(s.name)
        if v is not None and not any(abs(v - x) <= 1e-12 * max(1.0, abs(v)) for x in vals):
            vals = sorted(vals + [type(vals[0])(v)])
        out.append(replace(s, values=tuple(vals)))
    return tuple(out)


def _explorer(factory: str, values: dict, kwargs: dict):
    """The live explorer ``factory(**kwargs, **arguments)`` with its control sliders set to
    ``values`` (the rest of ``values`` are factory arguments)."""
    spec = SPECS.get(factory)
    controls = {s.name for s in spec.sliders if s.control} if spec else set()
    make = getattr(W, factory, None) or getattr(ST, factory)
    ex = make(**kwargs, **{k: v for k, v in values.items() if k not in controls})
    for name in controls & set(values):
        ex.controls[name].value = values[name]
    if ex.errors:
        raise RuntimeError(f"{factory} at {values} failed: {ex.errors[0]!r}")
    return ex


def frame(factory: str, values: dict, kwargs: dict, *, text: bool = False):
    """The live explorer ``factory(**kwargs, **values)`` (a control slider's value set on
    its control, e.g. the stepper's ``frame``): its PNG and its readout HTML; ``text=True``:
    also its picture's smallest text and dpi (:func:`ftd_lib.figure_text.metadata`)."""
    ex = _explorer(factory, values, kwargs)
    if not text:
        return ex.png(), ex.readout.value
    from ..figure_text import metadata

    _, fig = ex.render(ex)
    return ex.png(), ex.readout.value, metadata(fig, W.DPI)


def words(readout: str) -> str:
    """A readout's HTML as plain text (the picture's alt text)."""
    text = re.sub(r"<[^>]+>", " ", readout.replace("</sub>", "").replace("<sub>", " ").replace(
        "</sup>", "").replace("<sup>", "^"))
    return re.sub(r"\s+", " ", html.unescape(text)).strip()


def _control_values(factory: str, kwargs: dict, s: Slider) -> tuple:
    c = _explorer(factory, {}, kwargs).controls[s.name]
    return tuple(range(int(c.min), int(c.max) + 1, int(getattr(c, "step", 1) or 1)))


def build(factory: str, kwargs: dict, folder: Path, url: str, *, sliders=None,
          progress=None) -> dict:
    """Draw every frame of the static form of ``factory`` called with the notebook's
    ``kwargs`` into ``folder`` (``NNN.png``, ``url`` is that folder as the page links it) and
    return the manifest (``sliders`` replaces the spec's grid; the notebook's start values are
    added either way): the sliders (name, label, values, printed values), the start index
    of each, and per frame (row-major over the sliders) its file and readout."""
    spec = SPECS[factory]
    sliders = grid(spec if sliders is None else replace(spec, sliders=tuple(sliders)), kwargs)
    fixed = {k: v for k, v in kwargs.items() if k not in {s.name for s in sliders}}
    sliders = tuple(replace(s, values=_control_values(factory, fixed, s))
                    if s.control and not s.values else s for s in sliders)
    folder.mkdir(parents=True, exist_ok=True)
    frames, text = [], {}
    points = list(itertools.product(*(s.values for s in sliders)))
    for i, point in enumerate(points):
        values = dict(zip((s.name for s in sliders), point, strict=True))
        if i == 0:  # every frame has the same text sizes: the page says them once
            png, readout, text = frame(factory, values, fixed, text=True)
        else:
            png, readout = frame(factory, values, fixed)
        name = f"{i:03d}.png"
        (folder / name).write_bytes(png)
        shown = ", ".join(f"{s.label} = {s.fmt.format(v)}" for s, v in zip(sliders, point,
                                                                        strict=True))
        # a short alt: the readout above is the live region that says the numbers
        frames.append(dict(src=f"{url}/{name}", readout=readout,
                           alt=f"picture for {shown}; its numbers in the readout above"))
        if progress is not None:
            progress(1)
    start = [min(range(len(s.values)), key=lambda j, s=s: abs(s.values[j] - kwargs.get(
        s.name, s.values[0]))) for s in sliders]
    return dict(factory=factory, kwargs=fixed, note=spec.note, start=start, frames=frames,
                steps=spec.steps, text=text,
                sliders=[dict(name=s.name, label=s.label, values=list(s.values),
                              shown=[s.fmt.format(v) for v in s.values]) for s in sliders])


def index(manifest: dict, positions) -> int:
    """The frame of slider positions ``positions`` (row-major, as :func:`build` writes them;
    the page's script computes the same)."""
    i = 0
    for s, p in zip(manifest["sliders"], positions, strict=True):
        i = i * len(s["values"]) + p
    return i


def text_size_attributes(text: dict) -> str:
    """The ``<img>`` attributes that say how large its picture's smallest text is
    (``data-ftd-text-pt``, ``data-ftd-dpi``, from :func:`ftd_lib.figure_text.metadata`), as
    the decks write them: the site's script (ftd-site.js) shows a picture too small for a
    phone wide enough to read, in a box that scrolls sideways. ``""`` without them."""
    from ..figure_text import KEY_DPI, KEY_PT

    pt, dpi = text.get(KEY_PT), text.get(KEY_DPI)
    if not (pt and dpi and 0 < pt < float("inf") and dpi > 0):
        return ""
    return f' data-ftd-text-pt="{pt:g}" data-ftd-dpi="{dpi:g}"'


#: what an explorer shows while the picture of a new value is on its way (a slow link): the
#: script unhides it, dims the old picture and readout and marks the explorer aria-busy; the
#: readout, a live region, says the new numbers once they are on screen
LOADING = ('<span class="ftd-static-loading" hidden aria-hidden="true">loading the picture'
           '…</span>')


def html_block(manifest: dict, ident: str) -> str:
    """The explorer's HTML for the page (one line per element, no blank line, so that MyST
    passes it through as one raw HTML block). Each slider says its value to a screen reader
    (``aria-valuetext``), the readout is a live region, the picture's alt is its readout in
    words; a stepper (``manifest["steps"]``) has Back and Step buttons."""
    start = manifest["start"]
    first = manifest["frames"][index(manifest, start)]
    readout = " ".join(first["readout"].splitlines())
    alt = first.get("alt") or words(first["readout"])
    rows = []
    for k, (s, p) in enumerate(zip(manifest["sliders"], start, strict=True)):
        label, n = html.escape(s["label"]), len(s["values"])
        text = f'{s["label"]} = {s["shown"][p]} ({p + 1} of {n})'
        rows.append(
            f'<label class="ftd-static-slider">{label} '
            f'<input type="range" min="0" max="{n - 1}" step="1" value="{p}" '
            f'data-slider="{k}" aria-label="{label}" aria-valuetext="{html.escape(text)}"> '
            f'<output aria-hidden="true">{html.escape(s["shown"][p])}</output>'
            f'<span class="ftd-static-count">({p + 1} of {n})</span></label>')
    if manifest.get("steps"):
        rows.insert(0, '<span class="ftd-static-steps">'
                    '<button type="button" data-step="-1"><span aria-hidden="true">◀ </span>'
                    'Back</button> <button type="button" data-step="1">Step<span '
                    'aria-hidden="true"> ▶</span></button></span>')
    data = json.dumps(dict(sliders=manifest["sliders"], frames=manifest["frames"]))
    data = data.replace("</", "<\\/")
    n = len(manifest["frames"])
    values = " × ".join(str(len(s["values"])) for s in manifest["sliders"])
    return "\n".join([
        f'<div class="ftd-static-explorer" id="{ident}" data-factory="{manifest["factory"]}" '
        f'data-kwargs="{html.escape(json.dumps(manifest["kwargs"]))}" role="group" '
        f'aria-label="explorer: {html.escape(manifest["factory"].replace("_", " "))}">',
        f'<div class="ftd-static-controls">{"".join(rows)}{LOADING}</div>',
        f'<div class="ftd-static-readout" aria-live="polite">{readout}</div>',
        f'<img class="ftd-static-image" src="{first["src"]}" alt="{html.escape(alt)}"'
        f'{text_size_attributes(manifest.get("text") or {})}>',
        f'<p class="ftd-static-note">Kernel-less explorer ('
        f'{values + " = " if len(manifest["sliders"]) > 1 else ""}{n} pictures): '
        f'{html.escape(manifest["note"])}.'
        + (f' In Jupyter: <code>{html.escape(manifest["call"])}</code>.'
           if manifest.get("call") else "") + '</p>',
        f'<script type="application/json" class="ftd-static-data">{data}</script>',
        "</div>",
    ])
