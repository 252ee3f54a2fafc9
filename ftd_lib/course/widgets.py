r"""Every interactive piece of the course (ipywidgets 8).

Each factory returns an :class:`Explorer`: controls (sliders, buttons), a readout
(``ipywidgets.HTML`` with a stable CSS class, e.g. ``ftd-beta-readout``) and a figure rendered
to PNG bytes into a fixed-size ``ipywidgets.Image`` — redrawing sets ``image.value``, so
nothing flickers. Displaying an Explorer shows the live widget; its display data also carries
the current PNG, so a saved notebook still shows the figure where widgets cannot run (GitHub,
nbviewer). Callbacks are wrapped: an exception is shown in the widget (``ftd-error``) and kept
in ``explorer.errors``, never lost; a ``ValueError`` (bad input, e.g. a slider set to NaN
from code) is shown as its one sentence, anything else with its traceback. A factory given a
value outside a slider's range (or a fraction for an integer slider) raises ``ValueError``
naming it, instead of the slider clamping or truncating it silently.

Factories (CSS classes in brackets, for browser tests):

- :func:`one_state_explorer` — Sec. 4's one-state example: sliders ``α``, ``T``, ``V₀``
  [``ftd-alpha``, ``ftd-T``, ``ftd-v0``]; readout [``ftd-beta-readout``]; plot
  [``ftd-one-state-plot``].
- :func:`k_explorer` — the K of the K-bounded :math:`\lambda`-return: sliders ``η``, ``γλ``
  [``ftd-eta``, ``ftd-gl``]; readout [``ftd-k-readout``]; plot [``ftd-k-plot``].
- :func:`learning_curve_explorer` — notebook 05: pick :math:`\alpha` and :math:`\lambda`,
  watch the learning curves of TD(:math:`\lambda`) and forward TD(:math:`\lambda`) on a small
  batch of mountain-car runs. Sliders ``α`` (log scale), ``λ`` [``ftd-nn-alpha``,
  ``ftd-nn-lam``]; readout [``ftd-nn-readout``]; plot [``ftd-nn-curves``]. Diverged runs are
  drawn off the chart (▲).
- :func:`ftd_lib.course.stepper.algorithm1_stepper` — Algorithm 1 step by step (its own
  module, built on :class:`Explorer`).
"""

from __future__ import annotations

import base64
import functools
import html
import io
import math
import traceback

import ipywidgets as W
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .. import validate as V
from ..methods import label, style
from ..returns import k_bound
from ..style import OKABE_ITO, WIDGET_DPI, use_style
from .nb03_one_state_divergence import plot_beta_curves, plot_values, values_per_episode, verdict

DPI = WIDGET_DPI


def _slider(cls, name: str, value, **kw):
    """``cls(value=value, **kw)``, but a value the slider would clamp to its range or (an
    ``IntSlider``) truncate, or that is not a finite number, is a ``ValueError`` naming
    ``name``: the picture must show what was asked for."""
    lo, hi = kw["min"], kw["max"]
    if cls is W.FloatLogSlider:
        lo, hi = kw.get("base", 10) ** lo, kw.get("base", 10) ** hi
    what = f"in [{lo:g}, {hi:g}] (the slider's range)"
    if cls is W.IntSlider:
        v = V.check_int(name, value, lo)
        ok = v <= hi
        what = "an integer " + what
    else:
        v = V.check_number(name, value)
        ok = lo - 1e-12 * abs(lo) <= v <= hi + 1e-12 * abs(hi)
        v = min(max(v, lo), hi)  # only rounding of a log slider's bounds is clamped
        what = "a number " + what
    if not ok:
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return cls(value=v, **kw)


def render_png(fig: Figure) -> bytes:
    """The figure as PNG bytes, at its own fixed size (no tight bounding box)."""
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, pil_kwargs={"compress_level": 1})
    return buf.getvalue()


def new_figure(width: float, height: float, **margins) -> Figure:
    """A figure in the course style, not attached to pyplot (nothing is shown by itself).

    Fixed margins (``left``, ``right``, ``bottom``, ``top``, ``wspace`` as fractions): a layout
    engine would cost more than the drawing itself on every redraw.
    """
    use_style()
    fig = Figure(figsize=(width, height), dpi=DPI)
    fig.subplots_adjust(**{**dict(left=0.08, right=0.98, bottom=0.15, top=0.9, wspace=0.22),
                           **margins})
    return fig


def fmt(v: float, digits: int = 3) -> str:
    """A number for a readout: fixed point when moderate, ``±1.2e+19`` when huge, ``∞``."""
    if v is None:
        return "–"
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if abs(v) >= 1e4:
        return f"{v:.2e}"
    return f"{v:.{digits}f}"


class Explorer:
    """Controls + readout + fixed-size image, kept in sync by :meth:`update`.

    Attributes: ``controls`` (dict of widgets), ``readout`` (HTML), ``image`` (Image),
    ``error`` (HTML, shown only after a failure), ``box`` (the whole widget), ``state`` (the
    numbers behind the current picture, for tests), ``errors`` (exceptions caught in callbacks).
    """

    def __init__(self, controls: dict, render, *, readout_class: str, image_class: str,
                 width: float, height: float, layout_rows=None):
        self.controls = controls
        self.render = render  # render(explorer) -> (readout html, Figure)
        self.state: dict = {}
        self.errors: list = []
        self.readout = W.HTML().add_class(readout_class).add_class("ftd-readout")
        self.image = W.Image(format="png", width=int(width * DPI), height=int(height * DPI))
        self.image.add_class(image_class)
        self.image.layout = W.Layout(width=f"{int(width * DPI)}px", height=f"{int(height * DPI)}px")
        self.error = W.HTML().add_class("ftd-error")
        rows = layout_rows if layout_rows is not None else [W.HBox(list(controls.values()))]
        self.box = W.VBox([*rows, self.readout, self.image, self.error])
        self.box.add_class("ftd-explorer")
        self.update()

    def safe(self, fn):
        """Wrap a callback: an exception is shown in the widget and recorded, not lost."""
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                out = fn(*args, **kwargs)
                self.error.value = ""
                return out
            except ValueError as e:  # bad input: its sentence is the message
                self.errors.append(e)
                self.error.value = ("<p style='color:#b00'>" + html.escape(str(e)) + "</p>")
                return None
            except Exception as e:  # noqa: BLE001 - show every failure to the student
                self.errors.append(e)
                self.error.value = ("<pre style='color:#b00'>"
                                    + html.escape(traceback.format_exc()) + "</pre>")
                return None
        return wrapper

    def _update(self, *_):
        for name, w in self.controls.items():  # e.g. a FloatSlider set to nan from code
            v = getattr(w, "value", None)
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        text, fig = self.render(self)
        self.readout.value = text
        self.image.value = render_png(fig)

    def update(self, *args):
        """Recompute the readout and redraw the image (errors are caught, see :meth:`safe`)."""
        return self.safe(self._update)(*args)

    def observe(self, widget):
        widget.observe(self.update, names="value")

    def png(self) -> bytes:
        return bytes(self.image.value)

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.box._repr_mimebundle_(**kwargs)
        bundle["image/png"] = base64.b64encode(self.png()).decode("ascii")
        return bundle


# --------------------------------------------------------------------------------------------
# Notebook 03: the one-state example


def one_state_readout(alpha: float, T: int, v0: float, n_episodes: int = 10) -> tuple[str, dict]:
    """Readout text and the numbers behind it (closed forms of Sec. 4)."""
    v_td = values_per_episode(alpha, T, v0, n_episodes, "td_lambda")
    v_lr = values_per_episode(alpha, T, v0, n_episodes, "online_lambda_return")
    b_td, b_lr = alpha * T, 1.0 - (1.0 - alpha) ** T
    state = dict(alpha=alpha, T=T, v0=v0, beta_td=b_td, beta_lambda=b_lr, values_td=v_td,
                 values_lambda=v_lr)
    v = verdict(b_td, v0)
    state["verdict_td"] = v
    warn = f"<b style='color:{OKABE_ITO['vermillion']}'>"
    verdict_text = {
        "at the true value": "V₀ = 1 is the true value: the error is 0 and stays 0, whatever β "
                             "(nothing to learn)",
        "converges": "TD(λ) converges: 0 &lt; β<sub>TD</sub> &lt; 2",
        "oscillates": warn + "TD(λ) oscillates forever: β<sub>TD</sub> = 2 exactly, the error "
                             "flips sign with the same size every episode</b>",
        "diverges": warn + "TD(λ) diverges: β<sub>TD</sub> &gt; 2</b>",
        "stays": "TD(λ) does not move: β<sub>TD</sub> = 0",
    }[v]
    # subscripts as <sub>, as in the verdict (β<sub>TD</sub>), not as "_TD"
    text = (f"<span class='ftd-beta'>β<sub>TD</sub> = {b_td:.3f}, β<sub>λ</sub> = {b_lr:.3f}"
            f"</span> &nbsp;·&nbsp; after {n_episodes} episodes: V<sub>TD</sub> = "
            f"{fmt(v_td[-1])}, V<sub>λ</sub> = {fmt(v_lr[-1])} &nbsp;·&nbsp; {verdict_text}")
    return text, state


def one_state_explorer(alpha: float = 0.15, T: int = 10, v0: float = 0.0,
                       n_episodes: int = 10) -> Explorer:
    r"""Sliders for :math:`\alpha`, T and :math:`\hat V_0`; live plot of the value after each
    episode (TD(:math:`\lambda`=1) and the :math:`\lambda`-return algorithm) and of the
    :math:`\beta` curves with the divergence line :math:`\beta = 2`."""
    n_episodes = V.check_int("n_episodes", n_episodes, 1)
    controls = dict(
        alpha=_slider(W.FloatSlider, "alpha", alpha, min=0.01, max=1.0, step=0.01,
                      description="α", readout_format=".2f",
                      continuous_update=True).add_class("ftd-alpha"),
        T=_slider(W.IntSlider, "T", T, min=1, max=100, step=1, description="T",
                  continuous_update=True).add_class("ftd-T"),
        v0=_slider(W.FloatSlider, "v0", v0, min=-2.0, max=2.0, step=0.1, description="V₀",
                   readout_format=".1f", continuous_update=True).add_class("ftd-v0"),
    )

    def render(ex):
        a = float(controls["alpha"].value)
        t = int(controls["T"].value)
        v = float(controls["v0"].value)
        text, ex.state = one_state_readout(a, t, v, n_episodes)
        fig = new_figure(11.0, 4.3, left=0.07, top=0.74, bottom=0.14)
        ax1, ax2 = fig.subplots(1, 2)
        plot_values(ax1, a, t, v, n_episodes)
        plot_beta_curves(t, ax2, alpha=a, place_legend=False)
        return text, fig

    ex = Explorer(controls, render, readout_class="ftd-beta-readout",
                  image_class="ftd-one-state-plot", width=11.0, height=4.3)
    for w in controls.values():
        ex.observe(w)
    return ex


# --------------------------------------------------------------------------------------------
# Notebook 04: K from eta and gamma*lambda


def k_readout(eta: float, gl: float) -> tuple[str, dict]:
    r"""K (eq. 5 of the paper), the weight :math:`(\gamma\lambda)^K` of the first dropped term and
    :math:`(\gamma\lambda)^{K-1}` of the last kept one."""
    K = k_bound(1.0, gl, eta)
    if math.isinf(K):
        state = dict(eta=eta, gl=gl, K=K, weight_K=1.0, weight_last=1.0)
        return ("<span class='ftd-k'>K = ∞</span> &nbsp;·&nbsp; γλ = 1: no finite horizon "
                "makes (γλ)<sup>K</sup> ≤ η — every update waits for the episode's end "
                "(= offline λ-return)"), state
    wK, wlast = gl**K, gl ** (K - 1)
    state = dict(eta=eta, gl=gl, K=K, weight_K=wK, weight_last=wlast)
    text = (f"<span class='ftd-k'>K = {K}</span> &nbsp;·&nbsp; weight of the first dropped "
            f"term (γλ)^K = {wK:.4g} ≤ η = {eta:.4g}; last kept (γλ)^(K−1) = {wlast:.4g}")
    if K == 1:
        text += " &nbsp;·&nbsp; K = 1: forward TD(λ) is TD(0)"
    return text, state


def k_explorer(eta: float = 0.01, gl: float = 0.9) -> Explorer:
    r"""Sliders for :math:`\eta` (log scale) and :math:`\gamma\lambda`; shows K and the weights
    :math:`(\gamma\lambda)^n` of :math:`\delta'_{t+n}` in :math:`G_t^{\lambda|t+K}` — kept for
    n < K, dropped from n = K on."""
    controls = dict(
        eta=_slider(W.FloatLogSlider, "eta", eta, base=10, min=-3, max=math.log10(0.5),
                    step=0.05, description="η", readout_format=".3f").add_class("ftd-eta"),
        gl=_slider(W.FloatSlider, "gl", gl, min=0.0, max=1.0, step=0.01, description="γλ",
                   readout_format=".2f").add_class("ftd-gl"),
    )

    def render(ex):
        e = float(controls["eta"].value)
        g = float(controls["gl"].value)
        text, ex.state = k_readout(e, g)
        K = ex.state["K"]
        n_show = 30 if math.isinf(K) else int(min(max(2 * K, 12), 400))
        n = np.arange(n_show)
        floor = min(e, 1e-3) / 30  # log scale: zero weights sit on the floor
        with np.errstate(under="ignore"):
            wts = np.maximum(np.power(g, n.astype(float)), floor)
        kept = n < K
        fig = new_figure(9.0, 3.6, left=0.09, bottom=0.16, top=0.88)
        ax = fig.subplots()
        lw = 3 if n_show <= 100 else 1.2
        ax.vlines(n[kept], floor, wts[kept], color=style("forward_td_lambda")["color"], lw=lw,
                  label="kept in G$_t^{λ|t+K}$")
        if (~kept).any():
            ax.vlines(n[~kept], floor, wts[~kept], color=OKABE_ITO["grey"], lw=lw,
                      label="dropped")
        ax.axhline(e, color="k", ls="--", lw=1.2, label=f"η = {e:.3g}")
        ax.set_yscale("log")
        if not math.isinf(K):
            ax.axvline(K - 0.5, color=OKABE_ITO["vermillion"], lw=1.2)
            ax.text(K - 0.5, 1.3, f" K = {K}", color=OKABE_ITO["vermillion"], va="bottom",
                    fontsize=13)
        ax.set(xlabel="n (steps ahead)", ylabel="weight (γλ)$^n$ of δ'$_{t+n}$",
               ylim=(floor, 3.0), xlim=(-1, n_show))
        ax.set_title(f"γλ = {g:.2f}, η = {e:.3g}", loc="left")
        ax.legend(loc="upper right", fontsize=13)
        return text, fig

    ex = Explorer(controls, render, readout_class="ftd-k-readout", image_class="ftd-k-plot",
                  width=9.0, height=3.6)
    for w in controls.values():
        ex.observe(w)
    return ex


# --------------------------------------------------------------------------------------------
# Notebook 05: learning curves of TD(lambda) and forward TD(lambda) on mountain car


def _fmt_error(v: float) -> str:
    return f"{v:.3f}" if math.isfinite(v) else "∞"


def learning_curve_readout(alpha: float, lam: float, data: dict) -> str:
    """The readout of :func:`learning_curve_explorer`: per method the paper's metric (mean
    over runs of the error averaged over the episodes), the last episode's mean error, and
    how many runs diverged."""
    from .nb05_nn_prediction import k_text

    parts = []
    for m, d in data.items():
        runs, episodes = d["errors"].shape
        n_div = int(d["diverged"].sum())
        metric = float(d["metric"].mean())
        name = html.escape(label(m))
        k = "" if d.get("K") is None else f" (K = {k_text(d['K'])})"
        div = (f" <b style='color:{OKABE_ITO['vermillion']}'>· {n_div} of {runs} runs "
               "diverged</b>" if n_div
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
    task (:func:`ftd_lib.course.nb05_nn_prediction.learning_curves`, run ids ``0..runs-1``, a
    few seconds) and draws the normalised RMS error after every episode: thin lines per run,
    thick the mean.

    ``explorer.state`` holds the numbers of the current picture: ``alpha``, ``lam`` and
    ``data`` (the dict :func:`ftd_lib.course.nb05_nn_prediction.learning_curves` returned).
    Results are cached per (α, λ), so going back to a setting is instant.
    """
    from ..engine import PREDICTION_METHODS
    from . import nb05_nn_prediction as nb05

    seed = nb05.SEED if seed is None else V.check_int("seed", seed, 0)
    runs = V.check_int("runs", runs, 1)
    episodes = V.check_int("episodes", episodes, 1)
    cache_size = V.check_int("cache_size", cache_size, 1)
    if isinstance(methods, str) or not len(methods):
        raise ValueError(f"methods must be a non-empty list of method names, got {methods!r}")
    for m in methods:
        V.check_choice("methods", m, PREDICTION_METHODS)
    controls = dict(
        alpha=_slider(W.FloatLogSlider, "alpha", alpha, base=10, min=-4, max=-1, step=0.05,
                      description="α", readout_format=".4f",
                      continuous_update=False).add_class("ftd-nn-alpha"),
        lam=_slider(W.FloatSlider, "lam", lam, min=0.0, max=1.0, step=0.05, description="λ",
                    readout_format=".2f", continuous_update=False).add_class("ftd-nn-lam"),
    )
    cache: dict = {}

    def compute(a: float, lm: float) -> dict:
        key = (round(a, 12), round(lm, 12))
        if key not in cache:
            if len(cache) >= cache_size:
                cache.pop(next(iter(cache)))
            cache[key] = nb05.learning_curves(a, lm, runs=runs, episodes=episodes, seed=seed,
                                              methods=methods)
        return cache[key]

    def render(ex):
        a = float(controls["alpha"].value)
        lm = float(controls["lam"].value)
        data = compute(a, lm)
        ex.state = dict(alpha=a, lam=lm, data=data, runs=runs, episodes=episodes, seed=seed)
        fig = new_figure(9.0, 4.0, left=0.09, right=0.98, bottom=0.14, top=0.9)
        ax = fig.subplots()
        nb05.plot_learning_curves(data, ax, place_legend=False,
                                  title=f"mountain car evaluation: α = {a:.4g}, "
                                  f"λ = {lm:.2f}, η = {nb05.ETA:g}, {runs} runs")
        return learning_curve_readout(a, lm, data), fig

    ex = Explorer(controls, render, readout_class="ftd-nn-readout", image_class="ftd-nn-curves",
                  width=9.0, height=4.0)
    ex.cache = cache
    for w in controls.values():
        ex.observe(w)
    return ex
