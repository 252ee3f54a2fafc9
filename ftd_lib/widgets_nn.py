r"""Interactive pieces of the neural-network notebooks (ipywidgets 8), built on
:class:`ftd_lib.widgets.Explorer`: controls, a readout (``ipywidgets.HTML`` with a CSS class)
and a fixed-size ``ipywidgets.Image`` that is redrawn from PNG bytes (no flicker).

Notebook 05 (mountain car evaluation, this part is self-contained):

- :func:`learning_curve_explorer` — pick :math:`\alpha` and :math:`\lambda`, watch the learning
  curves of TD(:math:`\lambda`) and forward TD(:math:`\lambda`) on a small batch of runs.
  Sliders ``α`` (log scale), ``λ`` [``ftd-nn-alpha``, ``ftd-nn-lam``]; readout
  [``ftd-nn-readout``]; plot [``ftd-nn-curves``]. Diverged runs are drawn off the chart (▲).
"""

from __future__ import annotations

import html
import math

import ipywidgets as W

from .widgets import Explorer, new_figure

# --------------------------------------------------------------------------------------------
# Notebook 05: learning curves of TD(lambda) and forward TD(lambda) on mountain car


def _fmt_error(v: float) -> str:
    return f"{v:.3f}" if math.isfinite(v) else "∞"


def learning_curve_readout(alpha: float, lam: float, data: dict) -> str:
    """The readout of :func:`learning_curve_explorer`: per method the paper's metric (mean
    over runs of the error averaged over the episodes), the last episode's mean error, and
    how many runs diverged."""
    from .fig3 import METHOD_LABEL, k_text

    parts = []
    for m, d in data.items():
        runs, episodes = d["errors"].shape
        n_div = int(d["diverged"].sum())
        metric = float(d["metric"].mean())
        name = html.escape(METHOD_LABEL.get(m, m))
        k = "" if d.get("K") is None else f" (K = {k_text(d['K'])})"
        div = (f" <b style='color:#d62728'>· {n_div} of {runs} runs diverged</b>" if n_div
               else f" · 0 of {runs} runs diverged")
        parts.append(f"<span class='ftd-nn-method' data-method='{m}'>{name}{k}: "
                     f"mean error over {episodes} episodes <b>{_fmt_error(metric)}</b>, "
                     f"last episode {_fmt_error(float(d['mean'][-1]))}{div}</span>")
    head = f"α = {alpha:.4g}, λ = {lam:.2f}"
    return f"<div class='ftd-nn'>{head}<br>" + "<br>".join(parts) + "</div>"


def learning_curve_explorer(alpha: float = 0.015, lam: float = 0.9, *, runs: int = 4,
                            episodes: int = 20, seed: int | None = None,
                            methods=("td_lambda", "forward_td_lambda"),
                            cache_size: int = 32) -> Explorer:
    r"""Sliders for :math:`\alpha` (log scale, 1e-4 .. 0.1) and :math:`\lambda`; each change
    runs ``runs`` runs of ``episodes`` episodes of each method on the mountain car evaluation
    task (:func:`ftd_lib.fig3.learning_curves`, run ids ``0..runs-1``, a few seconds) and
    draws the normalised RMS error after every episode: thin lines per run, thick the mean.

    ``explorer.state`` holds the numbers of the current picture: ``alpha``, ``lam`` and
    ``data`` (the dict :func:`ftd_lib.fig3.learning_curves` returned). Results are cached per
    (α, λ), so going back to a setting is instant.
    """
    from . import fig3

    seed = fig3.SEED if seed is None else int(seed)
    controls = dict(
        alpha=W.FloatLogSlider(value=alpha, base=10, min=-4, max=-1, step=0.05,
                               description="α", readout_format=".4f",
                               continuous_update=False).add_class("ftd-nn-alpha"),
        lam=W.FloatSlider(value=lam, min=0.0, max=1.0, step=0.05, description="λ",
                          readout_format=".2f", continuous_update=False).add_class("ftd-nn-lam"),
    )
    cache: dict = {}

    def compute(a: float, lm: float) -> dict:
        key = (round(a, 12), round(lm, 12))
        if key not in cache:
            if len(cache) >= cache_size:
                cache.pop(next(iter(cache)))
            cache[key] = fig3.learning_curves(a, lm, runs=runs, episodes=episodes, seed=seed,
                                              methods=methods)
        return cache[key]

    def render(ex):
        a = float(controls["alpha"].value)
        lm = float(controls["lam"].value)
        data = compute(a, lm)
        ex.state = dict(alpha=a, lam=lm, data=data, runs=runs, episodes=episodes, seed=seed)
        fig = new_figure(9.0, 4.0, left=0.09, right=0.98, bottom=0.14, top=0.9)
        ax = fig.subplots()
        fig3.plot_learning_curves(data, ax, title=f"mountain car evaluation: α = {a:.4g}, "
                                  f"λ = {lm:.2f}, η = {fig3.ETA:g}, {runs} runs")
        return learning_curve_readout(a, lm, data), fig

    ex = Explorer(controls, render, readout_class="ftd-nn-readout", image_class="ftd-nn-curves",
                  width=9.0, height=4.0)
    ex.cache = cache
    for w in controls.values():
        ex.observe(w)
    return ex
