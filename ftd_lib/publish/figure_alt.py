r"""Alt text for the course website's figures: each figure's own titles, in words.

The website executes its notebooks at build time (:mod:`ftd_lib.publish.site`); a hidden first
cell of each page calls :func:`install` in that kernel. From then on every matplotlib figure
the notebook shows as a PNG carries the output metadata ``{"image/png": {"alt": ...}}``, which
MyST-NB writes into the ``<img alt=...>`` (instead of the hashed file name) with this module as
a Sphinx extension (:func:`setup`). The alt is
:func:`figure_alt`: the figure's suptitle, each panel's title with what it plots (its axis
labels), and the lines its legends name, with the TeX (``$\alpha$``) turned into the letters a
screen reader reads (``α``): what the figure shows, not only what it is called.
"""

from __future__ import annotations

import re

from ..figure_text import install_png_metadata, with_png_metadata

_TEX = {r"\alpha": "α", r"\beta": "β", r"\gamma": "γ", r"\delta": "δ", r"\eta": "η",
        r"\lambda": "λ", r"\theta": "θ", r"\rho": "ρ", r"\phi": "φ", r"\pi": "π",
        r"\epsilon": "ε", r"\varepsilon": "ε", r"\sigma": "σ", r"\infty": "∞", r"\le": "≤",
        r"\ge": "≥", r"\leq": "≤", r"\geq": "≥", r"\times": "×", r"\cdot": "·",
        r"\approx": "≈", r"\to": "→", r"\mid": "|", r"\nabla": "∇", r"\Delta": "Δ"}


def words(text: str) -> str:
    """A title's TeX as plain text: Greek letters and symbols as characters, no ``$``,
    braces, ``\\hat``/``\\mathrm`` commands or sub/superscript marks."""
    text = re.sub(r"\\(?:hat|mathrm|mathbf|text|mathcal|bar|tilde|operatorname)\s*", "", text)
    for tex, char in sorted(_TEX.items(), key=lambda kv: -len(kv[0])):
        text = re.sub(re.escape(tex) + r"(?![A-Za-z])", char, text)
    text = re.sub(r"\\[,;!: ]", " ", text)
    text = text.replace("$", "").replace("{", "").replace("}", "").replace("\\", "")
    text = re.sub(r"[_^]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def _axes_words(ax) -> str:
    """What a panel plots: "y against x" from its axis labels (one label alone: that label)."""
    x, y = ax.get_xlabel().strip(), ax.get_ylabel().strip()
    if x and y:
        return words(f"{y} against {x}")
    return words(y or x)


def _legend_words(fig) -> list[str]:
    """The entries of the figure's legends (its own and its panels'), in words, once each."""
    from matplotlib.legend import Legend

    out = []
    for lg in fig.findobj(Legend):
        for t in lg.get_texts():
            w = words(t.get_text())
            if w and w not in out:
                out.append(w)
    return out


#: the most legend entries an alt text names (more read as a list, not a description)
MAX_LEGEND = 6


def figure_alt(fig) -> str:
    """The alt text of matplotlib figure ``fig`` (module docstring): its suptitle; each
    panel's title with what it plots (its axis labels: "y against x"), said once before the
    titles where every titled panel plots the same; a panel without a title is what it plots;
    then the lines its legends name ("lines: …"). "Figure" where it has none of these."""
    parts, panels = [], []
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text().strip():
        parts.append(words(sup.get_text()))
    for ax in fig.axes:
        if not ax.get_visible() or not ax.axison and not ax.get_title():
            continue
        if getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>":
            continue  # a colour bar is no panel: its label read as one ("…; trace")
        title = " ".join(t for t in (ax.get_title("left"), ax.get_title(),
                                     ax.get_title("right")) if t.strip())
        panels.append((words(title), _axes_words(ax) if ax.axison else ""))
    titled = [(t, a) for t, a in panels if t]
    shared = {a for _, a in titled}
    if len(titled) > 1 and len(shared) == 1 and "" not in shared:
        parts.append(f"{shared.pop()}: " + "; ".join(t for t, _ in titled))
        parts += [a for t, a in panels if not t and a]
    else:
        parts += [f"{t} ({a})" if t and a else t or a for t, a in panels]
    parts = [p for i, p in enumerate(parts) if p and p not in parts[:i]]
    entries = _legend_words(fig)
    if entries:
        more = len(entries) > MAX_LEGEND
        parts.append("lines: " + ", ".join(entries[:MAX_LEGEND]) + (", …" if more else ""))
    if not parts:
        return "Figure"
    text = "; ".join(parts)
    # a title that says "Figure 1: ..." already: no "Figure: Figure 1"
    return text if text.lower().startswith("figure") else "Figure: " + text


def _alt(fig, dpi) -> dict:
    """A figure's PNG metadata on the site: its alt text, and its smallest text and dpi
    (:func:`ftd_lib.figure_text.metadata`), from which a phone's page sizes it."""
    from ..figure_text import KEY_PT, metadata

    size = metadata(fig, dpi)
    return {"alt": figure_alt(fig), **(size if size[KEY_PT] < float("inf") else {})}


#: the class :func:`setup` gives a figure's ``<img>`` for its text size (``13pt at 135 dpi``:
#: ``ftd-text-13pt-135dpi``, a decimal point as ``_``); the site writes it out as the
#: ``data-ftd-text-pt`` and ``data-ftd-dpi`` the decks use (:mod:`ftd_lib.publish.site_figures`)
TEXT_CLASS = "ftd-text-{pt}pt-{dpi}dpi"


def text_class(pt, dpi) -> str:
    """:data:`TEXT_CLASS` for ``pt`` points at ``dpi``, or ``""`` where either is missing."""
    try:
        pt, dpi = float(pt), float(dpi)
    except (TypeError, ValueError):
        return ""
    if not (0 < pt < float("inf") and 0 < dpi < float("inf")):
        return ""
    return TEXT_CLASS.format(pt=f"{pt:g}".replace(".", "_"), dpi=f"{dpi:g}".replace(".", "_"))


def _with_alt(render):
    """``render`` (IPython's ``print_figure``) whose PNGs carry :func:`figure_alt` as
    ``alt``."""
    return with_png_metadata(render, "ftd_alt", _alt)


def install() -> None:
    """In an IPython kernel: every PNG of a matplotlib figure carries :func:`figure_alt` as
    its ``alt`` metadata (the formatter in place now, and the one ``%matplotlib inline``
    registers later)."""
    install_png_metadata("ftd_alt", _alt)


def _render_with_alt(render):
    def render_image(self, data):
        from ..figure_text import KEY_DPI, KEY_PT

        nodes = render(self, data)
        md = (data.output_metadata or {}).get(data.mime_type, {})
        alt, size = md.get("alt"), text_class(md.get(KEY_PT), md.get(KEY_DPI))
        for node in nodes:
            if alt:
                node["alt"] = str(alt)
            if size:
                node["classes"].append(size)
        return nodes
    render_image.ftd_alt = True
    return render_image


def setup(app):
    """Sphinx extension (the site's ``conf.py`` lists ``ftd_lib.publish.figure_alt``): MyST-NB
    1.4 takes only an output's ``width`` and ``height`` from its metadata; this makes it take
    the ``alt`` that :func:`install` put there too, and its text size (:func:`text_class`)."""
    from myst_nb.core.render import NbElementRenderer

    if not getattr(NbElementRenderer.render_image, "ftd_alt", False):
        NbElementRenderer.render_image = _render_with_alt(NbElementRenderer.render_image)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
