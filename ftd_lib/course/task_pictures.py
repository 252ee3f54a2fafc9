r"""The control tasks drawn as static figures (notebook 06): the car on its hill, the cart and its
pole, and what was done over an episode.

A trajectory is a dict with ``states`` ``(T + 1, d)`` raw states (the start state first),
``actions`` ``(T,)`` and ``end`` (``"terminal"``, ``"truncated"`` or ``None``): the format of
:class:`ftd_lib.envs.recording.RecordingEnv`'s episodes, of
:func:`ftd_lib.course.nb06_nn_control.last_episode` and of
:func:`ftd_lib.course.nb06_greedy.rollout_trajectory`. Action names come from the task
registry (:mod:`ftd_lib.envs.tasks`); colours from the Okabe-Ito palette of
:mod:`ftd_lib.methods` (pushing left vermillion, right blue, not pushing grey).
"""

from __future__ import annotations

import math

import numpy as np

from ..envs import cartpole as cp
from ..envs import mountain_car as mc
from ..envs.tasks import task
from ..style import OKABE_ITO, legend_off_data, use_style


def hill_height(x):
    r"""The height :math:`\sin(3x)` of the mountain car's hill at position ``x``: gravity
    pulls with :math:`-0.0025\cos(3x)`, i.e. along its slope (used for drawing only)."""
    return np.sin(3 * np.asarray(x, dtype=float))


_PUSH_COLOUR = {"push left": OKABE_ITO["vermillion"], "no push": OKABE_ITO["grey"],
                "push right": OKABE_ITO["blue"]}
_GOAL = OKABE_ITO["bluish_green"]  # the goal flag and line (mountain car)
_VELOCITY = OKABE_ITO["reddish_purple"]  # the car's velocity
_POLE = "#8c564b"  # the pole (brown, like wood) and its angle


def action_colours(name: str) -> tuple[str, ...]:
    """One colour per action of the task ``name``, by the action's name (registry)."""
    return tuple(_PUSH_COLOUR[a] for a in task(name).action_names)


def snapshot_times(T: int, n: int) -> np.ndarray:
    """``n`` time steps spread evenly over ``0 .. T`` (first and last included, no repeats)."""
    return np.unique(np.round(np.linspace(0, int(T), max(int(n), 2))).astype(int))


def _action_strip(ax, actions, name, y0, y1):
    """The action of every step as a coloured band from ``y0`` to ``y1`` (one image)."""
    from matplotlib.colors import to_rgba

    cols = np.array([to_rgba(c, 0.45) for c in action_colours(name)])
    a = np.asarray(actions, dtype=np.int64)
    if len(a):
        ax.imshow(cols[a][None], extent=(0.0, float(len(a)), y0, y1), aspect="auto",
                  interpolation="nearest", zorder=1)


def plot_mountain_car_trajectory(traj: dict, title: str = "", n_snapshots: int = 9):
    """Three panels of one mountain-car episode (``traj``: ``states`` ``(T + 1, 2)`` raw
    ``(x, v)``, ``actions`` ``(T,)``): the car on its hill at ``n_snapshots`` times (colour =
    time), position and velocity against time over a strip of the actions taken, and the
    path in the (position, velocity) plane. Returns the matplotlib figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle
    from matplotlib.transforms import Affine2D

    use_style()
    st = np.asarray(traj["states"], dtype=float)
    acts = np.asarray(traj["actions"], dtype=np.int64)
    T = len(st) - 1
    cmap = plt.get_cmap("viridis")
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(14.0, 4.0),
                                     gridspec_kw=dict(width_ratios=[1.1, 1.3, 0.8]))
    # the hill with car snapshots
    xs = np.linspace(mc.X_MIN, mc.X_MAX, 300)
    a1.fill_between(xs, hill_height(xs), -1.25, color="#d9c7a7")
    a1.plot(xs, hill_height(xs), color="#8c6d46", lw=2)
    a1.plot([mc.X_MAX, mc.X_MAX], [hill_height(mc.X_MAX), hill_height(mc.X_MAX) + 0.35],
            color="k", lw=1.5)
    a1.fill([mc.X_MAX, mc.X_MAX, mc.X_MAX - 0.12],
            [hill_height(mc.X_MAX) + 0.35, hill_height(mc.X_MAX) + 0.22,
             hill_height(mc.X_MAX) + 0.285], color=_GOAL)
    a1.plot(st[:, 0], hill_height(st[:, 0]) + 0.06, ".", color="0.3", ms=1.5, alpha=0.5)
    for k in snapshot_times(T, n_snapshots):
        x = st[k, 0]
        slope = 3 * np.cos(3 * x)
        ang = math.degrees(math.atan(slope)) * 0.25  # the axes are not to scale: tilt gently
        c = cmap(k / max(T, 1))
        car = Rectangle((-0.05, 0.0), 0.1, 0.07, color=c, ec="k", lw=0.6, zorder=3)
        car.set_transform(Affine2D().rotate_deg(ang).translate(x, hill_height(x) + 0.01)
                          + a1.transData)
        a1.add_patch(car)
    # the cars' colours say the time (the colour bar): words beside the first and the last car
    # sat on the trajectory's dots and on the flag
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, T))
    fig.colorbar(sm, ax=a1, label=f"time step (0: start, {T}: end)", fraction=0.05, pad=0.02)
    a1.set(xlim=(mc.X_MIN - 0.03, mc.X_MAX + 0.05), ylim=(-1.25, 1.45), xlabel="position x",
           ylabel="height sin(3x)", title="the car on its hill")
    a1.grid(False)
    # position and velocity over time, the actions below
    t = np.arange(T + 1)
    _action_strip(a2, acts, "mountain_car", mc.X_MIN, mc.X_MIN + 0.12)
    a2.plot(t, st[:, 0], color="k", lw=1.8, label="position x")
    a2.axhline(mc.X_MAX, color=_GOAL, ls="--", lw=1.2, label="goal")
    a2.set(xlabel="time step", ylabel="position x", ylim=(mc.X_MIN, mc.X_MAX + 0.08),
           title="position, velocity and actions")
    b2 = a2.twinx()
    b2.plot(t, st[:, 1], color=_VELOCITY, lw=1.2, alpha=0.9, label="velocity v")
    b2.set_ylabel("velocity v", color=_VELOCITY)
    b2.set_ylim(-mc.V_MAX, mc.V_MAX)
    b2.grid(False)
    handles = a2.get_legend_handles_labels()[0] + b2.get_legend_handles_labels()[0]
    handles += [Patch(color=c, alpha=0.35, label=n) for c, n in
                zip(action_colours("mountain_car"), task("mountain_car").action_names,
                    strict=True)]
    a2.legend(handles=handles, loc="upper left", fontsize=13, ncol=2)
    # the (x, v) plane
    a3.scatter(st[:, 0], st[:, 1], c=t, cmap=cmap, s=4)
    a3.plot(st[0, 0], st[0, 1], "o", color=cmap(0.0), ms=8, mec="k", label="start")
    a3.axvline(mc.X_MAX, color=_GOAL, ls="--", lw=1.2)
    a3.set(xlabel="position x", ylabel="velocity v", xlim=(mc.X_MIN, mc.X_MAX + 0.02),
           ylim=(-mc.V_MAX, mc.V_MAX), title="the (x, v) plane")
    a3.legend(loc="lower right", fontsize=13)
    end = {"terminal": f"goal after {T} steps", "truncated": f"cut at {T} steps"}.get(
        traj.get("end"), f"{T} steps")
    fig.suptitle(f"{title} — {end}" if title else end, fontsize=13)
    fig.subplots_adjust(left=0.06, right=0.99, bottom=0.14, top=0.83, wspace=0.7)  # fixed: fast
    legend_off_data(a2.figure, [a2])
    legend_off_data(a3.figure, [a3])
    return fig


def plot_cartpole_trajectory(traj: dict, title: str = "", n_snapshots: int = 8):
    """One cart-pole episode (``traj``: ``states`` ``(T + 1, 4)`` raw, ``actions`` ``(T,)``):
    a row of ``n_snapshots`` snapshots of the cart and its pole (true angle and position on
    the ±2.4 track; the arrow is the push applied next), and below them the cart's position
    and the pole's angle against time with the failure limits. Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    use_style()
    st = np.asarray(traj["states"], dtype=float)
    acts = np.asarray(traj["actions"], dtype=np.int64)
    T = len(st) - 1
    ks = snapshot_times(T, n_snapshots)
    n_cols = (len(ks) + 1) // 2
    fig = plt.figure(figsize=(14.0, 4.9))  # 13-pt text projects at >= 16 px on a slide
    gs = fig.add_gridspec(3, n_cols, height_ratios=[1.0, 1.0, 1.6])
    pole = 2 * cp.LENGTH
    cmap = plt.get_cmap("viridis")
    for j, k in enumerate(ks):
        ax = fig.add_subplot(gs[j // n_cols, j % n_cols])
        x, th = st[k, 0], st[k, 2]
        c = cmap(k / max(T, 1))
        ax.plot([-cp.X_THRESHOLD, cp.X_THRESHOLD], [0, 0], color="0.4", lw=2)
        for edge in (-cp.X_THRESHOLD, cp.X_THRESHOLD):
            ax.plot([edge, edge], [-0.08, 0.2], color=OKABE_ITO["vermillion"], lw=2)
        ax.add_patch(Rectangle((x - 0.25, 0.0), 0.5, 0.22, color=c, ec="k", lw=0.8, zorder=3))
        ax.plot([x, x + pole * math.sin(th)], [0.22, 0.22 + pole * math.cos(th)],
                color=_POLE, lw=4, solid_capstyle="round", zorder=4)
        if k < len(acts):
            d = 1 if acts[k] == 1 else -1
            ax.annotate("", xy=(x + 0.6 * d, 0.11), xytext=(x + 0.27 * d, 0.11),
                        arrowprops=dict(arrowstyle="-|>", color="k", lw=1.5))
        ax.set(xlim=(-2.6, 2.6), ylim=(-0.12, 1.3), aspect="equal")
        ax.set_title(f"t = {k}: x = {x:+.2f}, θ = {math.degrees(th):+.1f}°", fontsize=13)
        ax.axis("off")
    ax = fig.add_subplot(gs[2, :])
    t = np.arange(T + 1)
    ax.plot(t, st[:, 0], color="k", lw=1.6, label="cart position x")
    ax.axhline(cp.X_THRESHOLD, color="k", ls=":", lw=1)
    ax.axhline(-cp.X_THRESHOLD, color="k", ls=":", lw=1)
    ax.set(xlabel="time step", ylabel="cart position x", ylim=(-2.6, 2.6))
    b = ax.twinx()
    lim = math.degrees(cp.THETA_THRESHOLD)
    b.plot(t, np.degrees(st[:, 2]), color=_POLE, lw=1.2, label="pole angle θ (°)")
    b.axhline(lim, color=_POLE, ls=":", lw=1)
    b.axhline(-lim, color=_POLE, ls=":", lw=1)
    b.set_ylabel("pole angle θ (degrees)", color=_POLE)
    b.set_ylim(-1.1 * lim, 1.1 * lim)
    b.grid(False)
    for k in ks:
        ax.axvline(k, color="0.75", lw=0.8)
    h = ax.get_legend_handles_labels()[0] + b.get_legend_handles_labels()[0]
    ax.legend(handles=h, loc="upper left", fontsize=13, ncol=2)
    end = {"terminal": f"the pole fell (or the cart left the track) after {T} steps",
           "truncated": f"balanced until the cap, {T} steps"}.get(traj.get("end"), f"{T} steps")
    fig.suptitle(f"{title} — {end}" if title else end, fontsize=13)
    fig.subplots_adjust(left=0.06, right=0.94, bottom=0.12, top=0.88, hspace=0.45)  # fixed: fast
    legend_off_data(ax.figure, [ax])
    return fig


