r"""Every interactive piece of the course (ipywidgets 8).

Each factory returns an :class:`Explorer`: controls (sliders, buttons), a readout
(``ipywidgets.HTML`` with a stable CSS class, e.g. ``ftd-beta-readout``) and a figure rendered
to PNG bytes into a fixed-size ``ipywidgets.Image`` — redrawing sets ``image.value``, so
nothing flickers. Displaying an Explorer shows the live widget; its display data also carries
the current PNG, so a saved notebook still shows the figure where widgets cannot run (GitHub,
nbviewer). Callbacks are wrapped: an exception is shown in the widget (``ftd-error``) and kept
in ``explorer.errors``, never lost.

Factories (CSS classes in brackets, for browser tests):

- :func:`one_state_explorer` — Sec. 4's one-state example: sliders ``α``, ``T``, ``V₀``
  [``ftd-alpha``, ``ftd-T``, ``ftd-v0``]; readout [``ftd-beta-readout``]; plot
  [``ftd-one-state-plot``].
- :func:`k_explorer` — the K of the K-bounded :math:`\lambda`-return: sliders ``η``, ``γλ``
  [``ftd-eta``, ``ftd-gl``]; readout [``ftd-k-readout``]; plot [``ftd-k-plot``].
- :func:`algorithm1_stepper` — Algorithm 1 step by step: buttons ``◀ Back``, ``Step ▶``,
  ``Reset`` [``ftd-step-back``, ``ftd-step-forward``, ``ftd-step-reset``], slider ``frame``
  [``ftd-step-slider``]; readout [``ftd-step-readout``]; plot [``ftd-step-plot``].
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
from matplotlib.patches import Rectangle

from . import algorithms as A
from .approx import Linear
from .envs.random_walk import random_walk_episodes
from .fig2 import plot_beta_curves, plot_values, values_per_episode
from .plots import style, use_style
from .returns import interim_lambda_return, k_bound
from .rng import run_generator

DPI = 90


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
            except Exception as e:  # noqa: BLE001 - show every failure to the student
                self.errors.append(e)
                self.error.value = ("<pre style='color:#b00'>"
                                    + html.escape(traceback.format_exc()) + "</pre>")
                return None
        return wrapper

    def _update(self, *_):
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
    v_lr = values_per_episode(alpha, T, v0, n_episodes, "lambda_return")
    b_td, b_lr = alpha * T, 1.0 - (1.0 - alpha) ** T
    state = dict(alpha=alpha, T=T, v0=v0, beta_td=b_td, beta_lambda=b_lr, values_td=v_td,
                 values_lambda=v_lr)
    verdict = ("<b style='color:#d62728'>TD(λ) diverges: β<sub>TD</sub> &gt; 2</b>"
               if b_td > 2 else "TD(λ) converges: β<sub>TD</sub> ≤ 2")
    text = (f"<span class='ftd-beta'>β_TD = {b_td:.3f}, β_λ = {b_lr:.3f}</span>"
            f" &nbsp;·&nbsp; after {n_episodes} episodes: V_TD = {fmt(v_td[-1])}, "
            f"V_λ = {fmt(v_lr[-1])} &nbsp;·&nbsp; {verdict}")
    return text, state


def one_state_explorer(alpha: float = 0.15, T: int = 10, v0: float = 0.0,
                       n_episodes: int = 10) -> Explorer:
    r"""Sliders for :math:`\alpha`, T and :math:`\hat V_0`; live plot of the value after each
    episode (TD(:math:`\lambda`=1) and the :math:`\lambda`-return algorithm) and of the
    :math:`\beta` curves with the divergence line :math:`\beta = 2`."""
    controls = dict(
        alpha=W.FloatSlider(value=alpha, min=0.01, max=1.0, step=0.01, description="α",
                            readout_format=".2f", continuous_update=True).add_class("ftd-alpha"),
        T=W.IntSlider(value=T, min=1, max=100, step=1, description="T",
                      continuous_update=True).add_class("ftd-T"),
        v0=W.FloatSlider(value=v0, min=-2.0, max=2.0, step=0.1, description="V₀",
                         readout_format=".1f", continuous_update=True).add_class("ftd-v0"),
    )

    def render(ex):
        a = float(controls["alpha"].value)
        t = int(controls["T"].value)
        v = float(controls["v0"].value)
        text, ex.state = one_state_readout(a, t, v, n_episodes)
        fig = new_figure(11.0, 4.0, left=0.07, top=0.84, bottom=0.13)
        ax1, ax2 = fig.subplots(1, 2)
        plot_values(ax1, a, t, v, n_episodes)
        plot_beta_curves(t, ax2, alpha=a)
        return text, fig

    ex = Explorer(controls, render, readout_class="ftd-beta-readout",
                  image_class="ftd-one-state-plot", width=11.0, height=4.0)
    for w in controls.values():
        ex.observe(w)
    return ex


# --------------------------------------------------------------------------------------------
# Notebook 04: K from eta and gamma*lambda


def k_readout(eta: float, gl: float) -> tuple[str, dict]:
    r"""K (eq. "K value"), the weight :math:`(\gamma\lambda)^K` of the first dropped term and
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
        eta=W.FloatLogSlider(value=eta, base=10, min=-3, max=math.log10(0.5), step=0.05,
                             description="η", readout_format=".3f").add_class("ftd-eta"),
        gl=W.FloatSlider(value=gl, min=0.0, max=1.0, step=0.01, description="γλ",
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
            ax.vlines(n[~kept], floor, wts[~kept], color="#bbbbbb", lw=lw, label="dropped")
        ax.axhline(e, color="k", ls="--", lw=1.2, label=f"η = {e:.3g}")
        ax.set_yscale("log")
        if not math.isinf(K):
            ax.axvline(K - 0.5, color="#d62728", lw=1.2)
            ax.text(K - 0.5, 1.3, f" K = {K}", color="#d62728", va="bottom", fontsize=11)
        ax.set(xlabel="n (steps ahead)", ylabel="weight (γλ)$^n$ of δ'$_{t+n}$",
               ylim=(floor, 3.0), xlim=(-1, n_show))
        ax.set_title(f"γλ = {g:.2f}, η = {e:.3g}", loc="left")
        ax.legend(loc="upper right", fontsize=10)
        return text, fig

    ex = Explorer(controls, render, readout_class="ftd-k-readout", image_class="ftd-k-plot",
                  width=9.0, height=3.6)
    for w in controls.values():
        ex.observe(w)
    return ex


# --------------------------------------------------------------------------------------------
# Notebook 04: Algorithm 1 step by step


def stepper_episode(seed: int = 3):
    """The random-walk episode the stepper walks through (tabular features, rewards 1)."""
    return random_walk_episodes(1, run_generator(seed, 0))[0]


def stepper_frames(episode, *, approx, w0, alpha, lam, gamma, eta, k_max=None) -> list[dict]:
    """One dict per frame: frame t < T is Algorithm 1's state after time step t (from the
    ``trace`` of :func:`ftd_lib.algorithms.forward_td_lambda`); frame T is the episode's end,
    where the states left in the queue are flushed. Each update carries the target
    :math:`G_s^{\\lambda|h}` that the definition (eq. 2) gives, for comparison."""
    x, r = episode
    trace = []
    A.forward_td_lambda([episode], w0, approx=approx, alpha=alpha, lam=lam, gamma=gamma,
                        eta=eta, k_max=k_max, trace=trace)
    T = len(r)
    K = trace[0]["K"]
    values = np.array([0.0] + [float(s["V_next"]) for s in trace])  # V(S_j | theta_{j-1})
    states = np.argmax(x, axis=1) + 1 if x.shape[1] > 1 else np.ones(T + 1, dtype=int)
    states = np.where(np.abs(x).sum(axis=1) == 0, 0, states)
    labels = [f"s={int(v)}" if v else "end" for v in states]
    frames = []
    done: list[int] = []
    for step in trace:
        f = dict(step, frame=step["t"], end=False, flushed=[], flush_targets=[], states=labels,
                 state=int(states[step["t"]]), next_state=int(states[step["t"] + 1]),
                 reward=float(r[step["t"]]), done=list(done), T=T)
        if step["updated"] is not None:
            s = step["updated"]
            f["horizon"] = min(s + K, T) if not math.isinf(K) else T
            f["definition"] = interim_lambda_return(r, values, s, f["horizon"], gamma, lam)
            done.append(s)
        frames.append(f)
    last = trace[-1]
    end = dict(frame=T, t=T, K=K, end=True, T=T, queue=[], done=list(done), states=labels,
               flushed=list(last["flushed"]), flush_targets=list(last["flush_targets"]),
               definitions=[interim_lambda_return(r, values, s, T, gamma, lam)
                            for s in last["flushed"]],
               w=last["w"], updated=None, target=None, state=0, next_state=0, reward=0.0)
    frames.append(end)
    return frames


def _step_readout(f: dict) -> str:
    K = "∞" if math.isinf(f["K"]) else f["K"]
    if f["end"]:
        rows = "".join(
            f"<tr><td>S<sub>{s}</sub></td><td>{g:.4f}</td><td>{d:.4f}</td></tr>"
            for s, g, d in zip(f["flushed"], f["flush_targets"], f["definitions"], strict=True))
        return (f"<div class='ftd-step' data-frame='{f['frame']}'><b>Episode end (t = {f['T']})"
                f"</b>: the {len(f['flushed'])} states left in the queue F are updated now, with "
                f"horizon T, each target by the ρ-step U ← (U − ρ<sub>p</sub>)/γλ."
                "<table><tr><th>state of time</th><th>target U</th><th>G by eq. 2</th></tr>"
                f"{rows}</table></div>")
    queue = ", ".join(f"S<sub>{s}</sub>" for s in f["queue"]) or "∅"
    sync = " (resynchronised: U ← U_sync, U_sync ← V_current)" if f["ready"] and f["i"] == 0 \
        else ""
    nxt = "terminal" if f["next_state"] == 0 else f"state {f['next_state']}"
    lines = [
        f"<b>t = {f['t']}</b>: S<sub>{f['t']}</sub> = state {f['state']} → "
        f"S<sub>{f['t'] + 1}</sub> = {nxt}, R = {f['reward']:g} &nbsp;·&nbsp; K = {K}",
        f"V_next = {f['V_next']:.4f} &nbsp; ρ = {f['rho']:.4f} &nbsp; δ' = {f['delta_prime']:.4f}",
        f"U_sync = {f['U_sync']:.4f} &nbsp; c = {f['c']:.4f} &nbsp; i = {f['i']} &nbsp; "
        f"ready = {f['ready']}{sync}",
        f"queue F = [{queue}]",
    ]
    if f["updated"] is not None:
        s = f["updated"]
        lines.append(
            f"<b>update S<sub>{s}</sub></b> with target U = G<sub>{s}</sub><sup>λ|{f['horizon']}"
            f"</sup> = {f['target']:.4f} (by eq. 2: {f['definition']:.4f}); then "
            f"U = {f['U']:.4f}")
    else:
        lines.append(f"no update yet: the first happens at t = K − 1 = {f['K'] - 1}, when the "
                     "queue holds K states" if not math.isinf(f["K"])
                     else "no update until the episode's end (K = ∞)")
    body = "<br>".join(lines)
    return f"<div class='ftd-step' data-frame='{f['frame']}'>{body}</div>"


def _draw_timeline(ax, f: dict):
    T = f["T"]
    queue, done = set(f["queue"]), set(f["done"])
    now = set(f["flushed"]) if f["end"] else ({f["updated"]} - {None})
    colours = dict(done="#d9d9d9", queue="#fdd0a2", now="#d62728", future="white")
    for s in range(T):
        if s in now:
            c = colours["now"]
        elif s in queue:
            c = colours["queue"]
        elif s in done:
            c = colours["done"]
        else:
            c = colours["future"]
        seen = f["end"] or s <= f["t"]
        ax.add_patch(Rectangle((s + 0.06, 0.1), 0.88, 0.8, facecolor=c,
                               edgecolor="k" if seen else "#bbbbbb", lw=1.2))
        tc = "white" if s in now else ("k" if seen else "#999999")
        ax.text(s + 0.5, 0.6, f"S$_{{{s}}}$", ha="center", va="center", fontsize=10, color=tc)
        ax.text(s + 0.5, 0.28, f"{f['states'][s]}", ha="center", va="center", fontsize=8,
                color=tc)
    if not f["end"]:
        ax.annotate("t", xy=(f["t"] + 0.5, 0.95), xytext=(f["t"] + 0.5, 1.45), ha="center",
                    arrowprops=dict(arrowstyle="->", color="k"), fontsize=11)
    bracket = None
    if f["updated"] is not None:
        bracket = (f["updated"], f["horizon"], f"rewards used by G$_{{{f['updated']}}}^{{λ|"
                   f"{f['horizon']}}}$")
    elif f["end"] and f["flushed"]:
        bracket = (f["flushed"][0], T, f"horizon T = {T} for all of them")
    if bracket is not None:
        s, h, label = bracket
        ax.plot([s + 0.1, h - 0.1], [-0.2, -0.2], color="#d62728", lw=2.5)
        ax.plot([s + 0.1, s + 0.1], [-0.1, -0.3], color="#d62728", lw=2.5)
        ax.plot([h - 0.1, h - 0.1], [-0.1, -0.3], color="#d62728", lw=2.5)
        ax.text((s + h) / 2, -0.45, label, ha="center", va="top", color="#d62728",
                fontsize=10)
    handles = [Rectangle((0, 0), 1, 1, facecolor=colours[k], edgecolor="k")
               for k in ("queue", "now", "done")]
    ax.text(-0.1, 0.28, "state", ha="right", va="center", fontsize=8, color="#666666")
    ax.legend(handles, ["waiting in queue F", "updated now", "updated before"],
              loc="upper right", ncol=3, fontsize=9, frameon=False, bbox_to_anchor=(1.0, 1.3))
    ax.set_xlim(-0.2, T + 0.2)
    ax.set_ylim(-0.95, 1.6)
    ax.axis("off")
    title = (f"episode end: flush {len(f['flushed'])} states" if f["end"] else
             f"time step t = {f['t']}" + (f": update S$_{{{f['updated']}}}$"
                                          if f["updated"] is not None else ": no update"))
    ax.set_title(title, loc="left", fontsize=12)


def algorithm1_stepper(episode=None, *, approx=None, w0=None, alpha: float = 0.5,
                       lam: float = 0.5, gamma: float = 1.0, eta: float = 0.1,
                       k_max=None) -> Explorer:
    r"""Algorithm 1 step by step: ``Step ▶`` / ``◀ Back`` / ``Reset`` and a frame slider show
    the FIFO queue, U, U_sync, c, i, :math:`\delta'`, :math:`\rho`, which state is updated and
    with which target (next to the definition's value). Default: a seeded 10-state random-walk
    episode, tabular features, initial values :math:`\hat V(s) = s`, :math:`\lambda = 0.5`,
    :math:`\eta = 0.1` (so K = 4), :math:`\alpha = 0.5`."""
    default = episode is None
    if default:
        episode = stepper_episode()
    x, _ = episode
    if approx is None:
        approx = Linear(x.shape[1])
    if w0 is None:  # the random walk: a rough first guess V(s) = s; otherwise zeros
        w0 = np.arange(1.0, 11.0) if default and approx.n_params == 10 else np.zeros(
            approx.n_params)
    frames = stepper_frames(episode, approx=approx, w0=w0, alpha=alpha, lam=lam, gamma=gamma,
                            eta=eta, k_max=k_max)
    n = len(frames)
    slider = W.IntSlider(value=0, min=0, max=n - 1, step=1, description="frame",
                         continuous_update=True).add_class("ftd-step-slider")
    back = W.Button(description="◀ Back", tooltip="one time step back").add_class(
        "ftd-step-back")
    forward = W.Button(description="Step ▶", tooltip="one time step forward",
                       button_style="primary").add_class("ftd-step-forward")
    reset = W.Button(description="Reset", tooltip="back to t = 0").add_class("ftd-step-reset")
    controls = dict(back=back, forward=forward, reset=reset, frame=slider)

    def render(ex):
        f = frames[int(slider.value)]
        ex.state = f
        back.disabled = slider.value == 0
        forward.disabled = slider.value == n - 1
        fig = new_figure(10.0, 2.6, left=0.05, right=0.99, top=0.8, bottom=0.02)
        _draw_timeline(fig.subplots(), f)
        return _step_readout(f), fig

    ex = Explorer(controls, render, readout_class="ftd-step-readout",
                  image_class="ftd-step-plot", width=10.0, height=2.6,
                  layout_rows=[W.HBox([back, forward, reset, slider])])
    ex.frames = frames

    def go(delta):
        def click(_button=None):
            slider.value = int(min(max(slider.value + delta, 0), n - 1))
        return ex.safe(click)

    back.on_click(go(-1))
    forward.on_click(go(+1))
    reset.on_click(ex.safe(lambda _b=None: setattr(slider, "value", 0)))
    ex.observe(slider)
    return ex
