r"""Algorithm 1 step by step (notebook 04), an :class:`ftd_lib.course.widgets.Explorer`.

:func:`algorithm1_stepper`: buttons ``◀ Back``, ``Step ▶``, ``Reset`` [``ftd-step-back``,
``ftd-step-forward``, ``ftd-step-reset``], slider ``frame`` [``ftd-step-slider``]; readout
[``ftd-step-readout``]; plot [``ftd-step-plot``]. Every frame is read from the ``trace`` that
:func:`ftd_lib.algorithms.forward_td_lambda` records, so no second copy of Algorithm 1 exists.
"""

from __future__ import annotations

import math

import ipywidgets as W
import numpy as np
from matplotlib.patches import Rectangle

from .. import algorithms
from ..approx import Linear
from ..envs.random_walk import random_walk_episodes
from ..returns import interim_lambda_return
from ..rng import run_generator
from ..style import OKABE_ITO
from .widgets import Explorer, new_figure

#: Algorithm 1 of the paper (forward TD(λ)), line by line, numbered as the stepper cites it
ALGORITHM1 = (
    "INPUT: α, λ, γ, θ_init, η, K_max (optional)",
    "θ ← θ_init",
    "If γλ > 0 then: K = ceil(log(η) / log(γλ)), else: K = 1",
    "K = min(K_max, K)                        (optional)",
    "c_final ← (γλ)^(K−1)",
    "Loop (over episodes):",
    "  F ← ∅                                  // FIFO queue (max length K)",
    "  U_sync ← 0;  i ← 0;  c ← 1;  V_current ← 0;  ready ← false",
    "  obtain initial state S                 // or φ(S)",
    "  While S is not terminal, do:",
    "    observe reward R and next state S′",
    "    If S′ is terminal: V_next ← 0, else: V_next ← V̂(S′|θ)",
    "    ρ ← R + γ(1−λ) V_next",
    "    push ⟨S, ρ⟩ on F                     // or ⟨φ(S), ρ⟩",
    "    δ′ ← R + γ V_next − V_current",
    "    V_current ← V_next",
    "    If i = K − 1:",
    "      U ← U_sync",
    "      U_sync ← V_current;  i ← 0;  c ← 1;  ready ← true",
    "    Else:",
    "      U_sync ← U_sync + c·δ′",
    "      i ← i + 1;  c ← γλ·c",
    "    If ready:",
    "      U ← U + c_final·δ′                 // G_t^(λ|t+K) ⇐ G_t^(λ|t+K−1)",
    "      pop ⟨S_p, ρ_p⟩ from F",
    "      update θ using S_p and U",
    "      If K ≠ 1: U ← (U − ρ_p) / γλ       // G_(t+1)^(λ|t+K) ⇐ G_t^(λ|t+K)",
    "    S ← S′",
    "  If ready = false: U ← U_sync",
    "  While F not empty:",
    "    pop ⟨S_p, ρ_p⟩ from F",
    "    update θ using S_p and U",
    "    If K ≠ 1: U ← (U − ρ_p) / γλ",
)


def algorithm1_markdown(first: int = 1, last: int | None = None, *, parts=None) -> str:
    """Algorithm 1 as a numbered listing (Markdown), the line numbers the stepper cites:
    lines ``first`` to ``last`` (1-based, inclusive; default all 33), so that a slide can show
    one part of it with the paper's numbering.

    ``parts``: ``((a, b), ...)`` consecutive line ranges that cover ``first``..``last``; each
    becomes a reveal.js fragment (``highlight-current-blue``, painted by ``notebooks/rise.css``)
    so that a slideshow or a deck lights the lines a walk-through is at, one part per key press;
    in a notebook the listing reads as without them."""
    import html

    n = len(ALGORITHM1)
    last = n if last is None else last
    if isinstance(first, bool) or not isinstance(first, int) or not 1 <= first <= n:
        raise ValueError(f"first must be a line number 1..{n}, got {first!r}")
    if isinstance(last, bool) or not isinstance(last, int) or not first <= last <= n:
        raise ValueError(f"last must be a line number {first}..{n}, got {last!r}")
    part = "" if (first, last) == (1, n) else f", lines {first}–{last}"
    head = f"**Algorithm 1: forward TD(λ)** (van Seijen 2016){part}\n\n"
    if parts is None:
        body = "\n".join(f"{i:2d}  {ALGORITHM1[i - 1]}" for i in range(first, last + 1))
        return head + "```text\n" + body + "\n```\n"
    parts = [tuple(p) for p in parts]
    if (not parts or parts[0][0] != first or parts[-1][1] != last
            or any(a > b for a, b in parts)
            or any(p[1] + 1 != q[0] for p, q in zip(parts, parts[1:], strict=False))):
        raise ValueError(f"parts must be consecutive line ranges covering {first}..{last}, "
                         f"got {parts!r}")
    spans = []
    for k, (a, b) in enumerate(parts):
        lines = "\n".join(f"{i:2d}  {html.escape(ALGORITHM1[i - 1])}" for i in range(a, b + 1))
        spans.append(f'<span class="fragment highlight-current-blue ftd-alg-part" '
                     f'data-fragment-index="{k}">{lines}\n</span>')
    return head + '<pre class="ftd-algorithm">' + "".join(spans) + "</pre>\n"


def stepper_table(frames: list[dict]) -> str:
    """The updates of :func:`stepper_frames` as a table for people: per time step, the state
    (by its time step) it updates, the horizon, Algorithm 1's target and the definition's
    (eq. 2); the steps that only fill the queue on one line; the states flushed at the end."""
    lines, filling = [], [f["t"] for f in frames if not f["end"] and f["updated"] is None]
    if filling:
        lines.append(f"t = {filling[0]}..{filling[-1]}: the queue fills, no update"
                     if len(filling) > 1 else f"t = {filling[0]}: the queue fills, no update")
    lines.append(" t  updates   horizon h   target G^(λ|h)   definition")
    for f in frames:
        if not f["end"] and f["updated"] is not None:
            lines.append(f"{f['t']:2d}  {'S_(t=' + str(f['updated']) + ')':9s} {f['horizon']:6d}"
                         f" {f['target']:17.4f} {f['definition']:12.4f}")
        elif f["end"] and f["flushed"]:
            flushed = ", ".join(f"S_(t={s}) {g:.4f} ({d:.4f})" for s, g, d in
                                zip(f["flushed"], f["flush_targets"], f["definitions"],
                                    strict=True))
            lines.append(f"end, h = {f['T']}: {flushed}")
    return "\n".join(lines)


def key_frames(frames: list[dict]) -> list[int]:
    r"""The frames a lecture steps through (the notebook and the site keep every one): those
    where Algorithm 1 (Sec. 5) does something it has not done yet or takes in new information:

    - the first frame (the queue's first state);
    - every frame with :math:`\delta'_t \neq 0` (lines 10-16): new information, which enters
      :math:`U_{sync}` and, once updates run, :math:`U`;
    - the first update (the queue holds :math:`K` states: *ready*, lines 23-28);
    - the first resynchronisation after it (:math:`i` back to 0, lines 17-19: :math:`U`
      replaced by :math:`U_{sync}` while updates run);
    - the episode's end (lines 29-33: the states left in the queue updated with horizon
      :math:`T`).

    Returns the frames' indices, in order. The other frames repeat an update already shown."""
    keep = {0, len(frames) - 1}
    steps = [f for f in frames if not f["end"]]
    keep |= {f["frame"] for f in steps if f["delta_prime"] != 0}
    ready = [f["frame"] for f in steps if f["ready"]]
    if ready:
        keep.add(ready[0])
        keep |= {next((f["frame"] for f in steps if f["frame"] > ready[0] and f["i"] == 0),
                      ready[0])}
    return sorted(keep)


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
    algorithms.forward_td_lambda([episode], w0, approx=approx, alpha=alpha, lam=lam, gamma=gamma,
                        eta=eta, k_max=k_max, trace=trace)
    T = len(r)
    K = trace[0]["K"]
    values = np.array([0.0] + [float(s["V_next"]) for s in trace])  # V(S_j | theta_{j-1})
    states = np.argmax(x, axis=1) + 1 if x.shape[1] > 1 else np.ones(T + 1, dtype=int)
    states = np.where(np.abs(x).sum(axis=1) == 0, 0, states)
    labels = [f"state {int(v)}" if v else "end" for v in states]
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
            f"<tr><td>S<sub>t={s}</sub></td><td>{g:.4f}</td><td>{d:.4f}</td></tr>"
            for s, g, d in zip(f["flushed"], f["flush_targets"], f["definitions"], strict=True))
        return (f"<div class='ftd-step' data-frame='{f['frame']}'><b>Episode end (t = {f['T']})"
                f"</b>, lines 29–33: the {len(f['flushed'])} states left in the queue F are "
                "updated now, with "
                f"horizon T, each target by the ρ-step U ← (U − ρ<sub>p</sub>)/γλ."
                "<table><tr><th>the state of time</th><th>target U</th><th>G by eq. 2</th></tr>"
                f"{rows}</table></div>")
    queue = ", ".join(f"S<sub>t={s}</sub>" for s in f["queue"]) or "∅"
    sync = " (resynchronised: U ← U_sync, U_sync ← V_current)" if f["ready"] and f["i"] == 0 \
        else ""
    nxt = "terminal" if f["next_state"] == 0 else f"state {f['next_state']}"
    lines = [
        f"<b>t = {f['t']}</b>: S<sub>t={f['t']}</sub> = state {f['state']} → "
        f"S<sub>t={f['t'] + 1}</sub> = {nxt}, R = {f['reward']:g} &nbsp;·&nbsp; K = {K}",
        f"lines 11–16: V_next = {f['V_next']:.4f} &nbsp; ρ = {f['rho']:.4f} &nbsp; "
        f"δ' = {f['delta_prime']:.4f}",
        f"lines 17–22: U_sync = {f['U_sync']:.4f} &nbsp; c = {f['c']:.4f} &nbsp; "
        f"i = {f['i']} &nbsp; "
        f"ready = {f['ready']}{sync}",
        f"queue F = [{queue}]",
    ]
    if f["updated"] is not None:
        s = f["updated"]
        lines.append(
            f"lines 23–27: <b>update S<sub>t={s}</sub></b> ({f['states'][s]}) with target "
            f"U = G<sub>{s}</sub><sup>λ|{f['horizon']}"
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
    colours = dict(done="#d9d9d9", queue="#fdd0a2", now=OKABE_ITO["vermillion"], future="white")
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
        ax.text(s + 0.5, 0.62, f"t={s}", ha="center", va="center", fontsize=14,
                fontweight="bold", color=tc)
        ax.text(s + 0.5, 0.27, f["states"][s].replace("state ", "st. "), ha="center",
                va="center", fontsize=12, color=tc)
    if not f["end"]:
        ax.annotate("now", xy=(f["t"] + 0.5, 0.95), xytext=(f["t"] + 0.5, 1.45), ha="center",
                    arrowprops=dict(arrowstyle="->", color="k"), fontsize=13)
    bracket = None
    if f["updated"] is not None:
        bracket = (f["updated"], f["horizon"], f"rewards used by the target of t = "
                   f"{f['updated']}: G$^{{λ|{f['horizon']}}}$")
    elif f["end"] and f["flushed"]:
        bracket = (f["flushed"][0], T, f"horizon T = {T} for all of them")
    if bracket is not None:
        s, h, label = bracket
        ax.plot([s + 0.1, h - 0.1], [-0.2, -0.2], color=OKABE_ITO["vermillion"], lw=2.5)
        ax.plot([s + 0.1, s + 0.1], [-0.1, -0.3], color=OKABE_ITO["vermillion"], lw=2.5)
        ax.plot([h - 0.1, h - 0.1], [-0.1, -0.3], color=OKABE_ITO["vermillion"], lw=2.5)
        ax.text((s + h) / 2, -0.45, label, ha="center", va="top", color=OKABE_ITO["vermillion"],
                fontsize=13)
    handles = [Rectangle((0, 0), 1, 1, facecolor=colours[k], edgecolor="k")
               for k in ("queue", "now", "done")]
    ax.legend(handles, ["waiting in queue F", "updated now", "updated before"],
              loc="lower right", ncol=3, fontsize=12, frameon=False, bbox_to_anchor=(1.0, 1.22))
    ax.set_xlim(-0.2, T + 0.2)
    ax.set_ylim(-0.95, 1.6)
    ax.axis("off")
    title = (f"episode end: flush {len(f['flushed'])} states" if f["end"] else
             f"time step t = {f['t']}" + (f": update the state of t = {f['updated']}"
                                          if f["updated"] is not None else ": no update"))
    ax.set_title(title, loc="left", fontsize=14)


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
        fig = new_figure(12.0, 3.4, left=0.01, right=0.99, top=0.72, bottom=0.02)
        _draw_timeline(fig.subplots(), f)
        return _step_readout(f), fig

    ex = Explorer(controls, render, readout_class="ftd-step-readout",
                  image_class="ftd-step-plot", width=12.0, height=3.4,
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
