r"""Alt text for the course website's figures: each figure's own titles, in words.

The website executes its notebooks at build time (:mod:`ftd_lib.publish.site`); a hidden first
cell of each page calls :func:`install` in that kernel. From then on every matplotlib figure
the notebook shows as a PNG carries the output metadata ``{"image/png": {"alt": ...}}``, which
MyST-NB writes into the ``<img alt=...>`` (instead of the hashed file name) with this module as
a Sphinx extension (:func:`setup`). The alt is
:func:`figure_alt`: the figure's suptitle and each panel's title (or, for a panel without one,
its axis labels), with the TeX of the titles (``$\alpha$``) turned into the letters a screen
reader reads (``α``).
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


def figure_alt(fig) -> str:
    """The alt text of matplotlib figure ``fig`` (module docstring); "Figure" where it has
    no title and no labelled panel."""
    parts = []
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
        if title.strip():
            parts.append(words(title))
        elif ax.get_xlabel().strip() and ax.get_ylabel().strip():
            parts.append(words(f"{ax.get_ylabel()} against {ax.get_xlabel()}"))
        elif ax.get_xlabel().strip() or ax.get_ylabel().strip():  # one label: no "against"
            parts.append(words(ax.get_ylabel().strip() or ax.get_xlabel().strip()))
    parts = [p for i, p in enumerate(parts) if p and p not in parts[:i]]
    if not parts:
        return "Figure"
    text = "; ".join(parts)
    # a title that says "Figure 1: ..." already: no "Figure: Figure 1"
    return text if text.lower().startswith("figure") else "Figure: " + text


def _alt(fig, _dpi) -> dict:
    return {"alt": figure_alt(fig)}


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
        nodes = render(self, data)
        alt = (data.output_metadata or {}).get(data.mime_type, {}).get("alt")
        if alt:
            for node in nodes:
                node["alt"] = str(alt)
        return nodes
    render_image.ftd_alt = True
    return render_image


def setup(app):
    """Sphinx extension (the site's ``conf.py`` lists ``ftd_lib.publish.figure_alt``): MyST-NB
    1.4 takes only an output's ``width`` and ``height`` from its metadata; this makes it take
    the ``alt`` that :func:`install` put there too."""
    from myst_nb.core.render import NbElementRenderer

    if not getattr(NbElementRenderer.render_image, "ftd_alt", False):
        NbElementRenderer.render_image = _render_with_alt(NbElementRenderer.render_image)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
