r"""Notebook 05 (mountain car evaluation with a 2-50-1 network): the task, learning curves, the
choices behind Figure 3.

van Seijen (2016), Sec. 6, first and second experiment. One function per picture or number;
each returns plain numbers so that notebooks and tests can check them, and a ``plot_*``
function draws it in the course style. Figure 3 itself, stored beside a live run, with the
paper's claims: :mod:`ftd_lib.course.live`.

- The task: :func:`rollout`, :func:`policy_trajectories`, :func:`value_grid`,
  :func:`policy_summary`, :func:`plot_task` -- the evaluation policy of
  :mod:`ftd_lib.envs.mountain_car` in the (position, velocity) plane, its trajectories, the
  true value function :math:`v(s) = -(\text{steps to the goal})` and the fixed sample of
  on-policy states the error is measured on.
- Learning curves of single settings: :func:`learning_curves`, :func:`plot_learning_curves`
  (used by :func:`ftd_lib.course.widgets.learning_curve_explorer`).
- Where every choice the paper leaves open is made: :func:`choices`.

Every run here uses run ids ``0 .. runs-1`` and the experiment seed
:data:`ftd_lib.repro.definitions.DEFAULT_SEED`, exactly like the stored data: run ``r`` sees the
same initial network and the same reward noise as run ``r`` of the stored cell with the same
settings (common random numbers, :mod:`ftd_lib.rng`).
"""

from __future__ import annotations

import math

import numpy as np

from .. import engine
from ..envs import mountain_car as mc
from ..envs.tasks import gamma
from ..methods import label, style
from ..repro.definitions import ALPHAS_FIG3, DEFAULT_SEED, ETA
from ..returns import k_bound
from ..style import OKABE_ITO, legend_off_data, plot_off_chart, use_style
from ..validate import check_int
from . import one_torch_thread

SEED = DEFAULT_SEED
LAM = 0.9  # Fig. 3 left
GAMMA = gamma("mountain_car")
#: the engine's defaults for the error metric (see :func:`ftd_lib.engine.run_prediction`)
N_EVAL, EVAL_SEED = 500, 0
#: y above which a normalised error is drawn off the chart (1.5 x the initial error)
YMAX = 1.5

# --------------------------------------------------------------------------------------------
# The task: policy, trajectories, true values
# --------------------------------------------------------------------------------------------


def rollout(x0, v0, policy=mc.evaluation_policy, max_steps: int = 10_000):
    """Roll ``policy`` from many states at once with the true dynamics.

    Returns ``(states, steps)``: ``states`` ``(T_max + 1, N, 2)`` raw ``(x, v)`` (a car that
    reached the goal stays there) and ``steps`` ``(N,)``, the number of steps to the goal.
    Raises ``RuntimeError`` when some car has not arrived after ``max_steps`` steps. (The
    environment's own roll-out, the one its true values come from, with ``v0`` broadcast.)
    """
    x = np.array(x0, dtype=float).reshape(-1)
    v = np.broadcast_to(np.asarray(v0, dtype=float), x.shape).copy()
    return mc._roll_policy(x, v, policy, max_steps)


def policy_trajectories(starts=(-0.6, -0.5, -0.4), policy=mc.evaluation_policy) -> list:
    """One trajectory ``(T + 1, 2)`` of raw ``(x, v)`` per start position (velocity 0)."""
    states, steps = rollout(starts, 0.0, policy)
    return [states[: n + 1, i] for i, n in enumerate(steps)]


def value_grid(n_x: int = 141, n_v: int = 121) -> dict:
    r"""The true value :math:`v(s) = -(\text{steps to the goal})` and the policy's action on a
    grid over the whole state space (exact: dynamics and policy are deterministic and the
    expected reward is -1 a step, :func:`ftd_lib.envs.mountain_car.true_value`).

    Returns ``x`` ``(n_x,)``, ``v`` ``(n_v,)``, ``value`` and ``action`` ``(n_v, n_x)``.
    """
    xs = np.linspace(mc.X_MIN, mc.X_MAX, n_x + 1)[:-1]  # the goal column itself has value 0
    vs = np.linspace(-mc.V_MAX, mc.V_MAX, n_v)
    X, V = np.meshgrid(xs, vs)
    _, steps = rollout(X.ravel(), V.ravel())
    return dict(x=xs, v=vs, value=-steps.reshape(X.shape).astype(float),
                action=mc.evaluation_policy(X, V))


def evaluation_sample(n: int = N_EVAL, seed: int = EVAL_SEED) -> dict:
    """The fixed on-policy states the engine measures the error on (same call as the engine:
    :func:`ftd_lib.envs.mountain_car.evaluation_states`): ``obs`` (scaled), ``states`` (raw)
    and ``values`` (exact true values)."""
    obs, values, states = mc.evaluation_states(n, seed, return_states=True)
    return dict(obs=obs, states=states, values=values)


def policy_summary(n_starts: int = 20, resolution: int = 300, n_eval: int = N_EVAL,
                   eval_seed: int = EVAL_SEED) -> dict:
    """How good the evaluation policy is, and what the error is measured on.

    ``policy_mean``, ``velocity_rule_mean``, ``best_mean``: mean steps to the goal from
    ``n_starts`` start positions evenly spread over [-0.6, -0.4) (velocity 0) of the policy, of
    "push in the direction of the velocity", and the fewest found by a search
    (:func:`ftd_lib.envs.mountain_car.policy_optimality_report` at ``resolution``), and their
    ratios; ``start_mean`` (mean steps from the start distribution, estimated from the episodes
    behind the evaluation sample); ``eval_*``: size, mean, min, max and RMS of the true values
    of the evaluation sample.
    """
    rep = mc.policy_optimality_report(n_starts=n_starts, resolution=resolution)
    s = evaluation_sample(n_eval, eval_seed)
    v = s["values"]
    return dict(
        n_starts=n_starts, resolution=resolution,
        policy_mean=rep["policy_mean"], velocity_rule_mean=rep["velocity_rule_mean"],
        best_mean=rep["best_mean"], ratio=rep["ratio"],
        velocity_rule_ratio=rep["velocity_rule_ratio"],
        policy_min=int(rep["policy_steps"].min()), policy_max=int(rep["policy_steps"].max()),
        eval_n=len(v), eval_mean=float(v.mean()), eval_min=float(v.min()),
        eval_max=float(v.max()), eval_rms=float(np.sqrt(np.mean(v**2))),
    )


def plot_task(starts=(-0.6, -0.5, -0.4), grid: dict | None = None, sample: dict | None = None,
              figsize=(13.0, 4.8)):
    """Two panels over the (position, velocity) plane.

    Left: where the evaluation policy pushes left or right, its switching curve, and its
    trajectories from ``starts`` (velocity 0) to the goal. Right: the true value function
    with the fixed sample of on-policy states the error is measured on.
    ``figsize`` in inches. Returns the matplotlib figure.
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    use_style()
    grid = value_grid() if grid is None else grid
    sample = evaluation_sample() if sample is None else sample
    fig, (a1, a2) = plt.subplots(1, 2, figsize=figsize)
    ext = (grid["x"][0], mc.X_MAX, grid["v"][0], grid["v"][-1])
    push = ListedColormap(["#f4c7c3", "#c6dbef"])
    a1.imshow((grid["action"] == 2).astype(float), origin="lower", aspect="auto", extent=ext,
              cmap=push, vmin=0, vmax=1)
    xs = np.linspace(mc.X_MIN, mc.X_MAX, 400)
    f = np.interp(xs, mc.SWITCH_X, mc.SWITCH_V)
    a1.plot(xs, f, color="k", lw=1.2, ls="--")
    cols = [OKABE_ITO[k] for k in ("black", "blue", "vermillion", "bluish_green",
                                   "reddish_purple")]
    for i, tr in enumerate(policy_trajectories(starts)):
        c = cols[i % len(cols)]
        a1.plot(tr[:, 0], tr[:, 1], color=c, lw=2.0,
                label=f"start x = {tr[0, 0]:g}: {len(tr) - 1} steps")
        a1.plot(tr[0, 0], tr[0, 1], "o", color=c, ms=7)
    a1.axvline(mc.X_MAX, color="k", lw=3)
    a1.text(mc.X_MAX - 0.02, grid["v"][-1] * 0.93, "goal", ha="right", va="top")
    handles, _ = a1.get_legend_handles_labels()
    handles += [Patch(color="#c6dbef", label="push right"), Patch(color="#f4c7c3",
                                                                   label="push left"),
                plt.Line2D([], [], color="k", ls="--", lw=1.2, label="switching curve")]
    a1.legend(handles=handles, loc="lower right", fontsize=13)
    a1.set(title="The evaluation policy and its trajectories", xlabel="position x",
           ylabel="velocity v", xlim=(mc.X_MIN, mc.X_MAX + 0.02),
           ylim=(grid["v"][0], grid["v"][-1]))
    a1.grid(False)
    im = a2.imshow(grid["value"], origin="lower", aspect="auto", extent=ext, cmap="viridis")
    st = sample["states"]
    a2.scatter(st[:, 0], st[:, 1], s=5, c="white", edgecolors="k", linewidths=0.3,
               label=f"{len(st)} evaluation states (on-policy sample)")
    a2.set(title="True value v(s) = −(steps to the goal)", xlabel="position x",
           ylabel="velocity v", xlim=(mc.X_MIN, mc.X_MAX), ylim=(grid["v"][0], grid["v"][-1]))
    a2.grid(False)
    a2.legend(loc="lower right", fontsize=13, framealpha=0.9)
    fig.colorbar(im, ax=a2, label="v(s)")
    fig.tight_layout()
    legend_off_data(a1.figure, [a1])
    legend_off_data(a2.figure, [a2])
    return fig


# --------------------------------------------------------------------------------------------
# Learning curves of one setting
# --------------------------------------------------------------------------------------------


def learning_curves(alpha: float, lam: float, *, runs: int = 4, episodes: int = 20,
                    eta: float = ETA, seed: int = SEED,
                    methods=("td_lambda", "forward_td_lambda")) -> dict:
    r"""Normalised RMS error at the end of every episode, per run, for each method at one
    :math:`(\alpha, \lambda)` (:func:`ftd_lib.engine.run_prediction`, run ids ``0..runs-1``).

    Returns ``{method: dict(errors (runs, episodes), diverged (runs,), mean (episodes,),
    metric (runs,), K)}``; ``errors`` is ``inf`` from the episode in which a run diverged on,
    ``metric`` is each run's average over the episodes (the paper's metric), ``mean`` the
    average over runs per episode (``inf`` once a run diverged).
    """
    runs = check_int("runs", runs, 1)
    episodes = check_int("episodes", episodes, 1)
    settings = engine.Settings.make(alpha=[alpha] * runs, lam=lam, gamma=GAMMA, eta=eta)
    out = {}
    for m in methods:
        with one_torch_thread():
            res = engine.run_prediction(m, settings, seed,
                                        np.arange(runs), episodes)
        err = np.asarray(res.errors, dtype=float)
        div = np.asarray(res.diverged, dtype=bool) | ~np.isfinite(err).all(axis=1)
        err = np.where(div[:, None] & ~np.isfinite(err), np.inf, err)
        out[m] = dict(errors=err, diverged=div, mean=err.mean(axis=0),
                      metric=np.where(div, np.inf, err.mean(axis=1)),
                      K=k_bound(GAMMA, lam, eta) if m == "forward_td_lambda" else None)
    return out


def k_text(K) -> str:
    """K for people: ``∞`` for no finite horizon (γλ = 1)."""
    return "∞" if K is None or math.isinf(K) else str(int(K))


def format_curves(data: dict, digits: int = 3) -> str:
    """One line per method of :func:`learning_curves`: diverged runs (and the first episode
    in which one diverged), the mean error after the first and the last episode, and the
    paper's metric (mean over runs of the error averaged over the episodes)."""
    def f(v):
        return f"{v:.{digits}f}" if math.isfinite(v) else "∞"

    lines = []
    for m, d in data.items():
        runs, episodes = d["errors"].shape
        name = label(m) + ("" if d.get("K") is None else f" (K = {k_text(d['K'])})")
        n_div = int(d["diverged"].sum())
        div = f"diverged {n_div} of {runs} runs"
        if n_div:
            first = min((int(np.argmax(~np.isfinite(row))) + 1 for row in d["errors"]
                         if not np.isfinite(row).all()), default=None)
            if first is not None:
                div += f" (first in episode {first})"
        lines.append(f"{name:22s} {div:42s} error after episode 1: {f(d['mean'][0])}, "
                     f"after {episodes}: {f(d['mean'][-1])}; metric {f(d['metric'].mean())}")
    return "\n".join(lines)


def plot_learning_curves(data: dict, ax, ymax: float = YMAX, title: str = "",
                         place_legend: bool = True):
    """Thin lines: every run; thick: the mean over runs. Errors above ``ymax`` (and diverged
    runs) are drawn off the chart (▲). ``place_legend``: move the legend off the data
    (:func:`ftd_lib.style.legend_off_data`); an explorer keeps it in one place."""
    for m, d in data.items():
        kw = style(m)
        eps = np.arange(1, d["errors"].shape[1] + 1)
        for row in d["errors"]:
            y = np.where(np.isfinite(row) & (row <= ymax), row, np.nan)
            ax.plot(eps, y, color=kw["color"], lw=0.8, alpha=0.35)
        plot_off_chart(ax, eps, d["mean"], ymax, color=kw["color"], ls=kw["ls"],
                       label=kw["label"] + " (mean)", lw=2.5)
    ax.set_ylim(0, ymax * 1.08)
    if any(not np.all(np.isfinite(d["mean"]) & (d["mean"] <= ymax)) for d in data.values()):
        ax.plot([], [], ls="none", marker="^", ms=8, color="0.3",
                label=f"off the chart: > {ymax:g} or diverged")
    ax.set_xlabel("episode")
    ax.set_ylabel("RMS error / initial RMS error")
    if title:
        ax.set_title(title, loc="left")
    ax.legend(loc="center right", framealpha=0.9)
    if place_legend:
        legend_off_data(ax.figure, [ax])
    return ax


# --------------------------------------------------------------------------------------------
# The choices the paper leaves open
# --------------------------------------------------------------------------------------------


def choices() -> list[dict]:
    """Every choice the paper leaves open for this experiment, with the value read from the
    library and where it is set. One dict per item: ``item``, ``paper``, ``ours``, ``where``."""
    from ..approx import MLP

    net = MLP(2, 50)
    k = k_bound(GAMMA, LAM, ETA)
    # rows of words, not logic: the control table (nb06_nn_control.choices) has its own
    return [
        dict(item="network", paper="2 inputs, 1 hidden layer of 50 nodes, 1 output; backprop",
             ours=f"tanh hidden units, linear output, {net.n_params} weights, gradient by hand",
             where="ftd_lib.approx.MLP; batched: ftd_lib.engine._net"),
        dict(item="initialisation", paper="not given",
             ours="PyTorch's default: every weight uniform in ±1/√fan-in; run r's network from "
                  f"its own stream (seed {SEED}, run r, stream {engine.INIT_STREAM})",
             where="MLP.init, ftd_lib.engine.initial_weights"),
        dict(item="dynamics", paper="“standard mountain car” (Sutton & Barto)",
             ours=f"S&B Example 10.1; start x ~ U[{mc.START_LOW}, {mc.START_HIGH}), v = 0",
             where="ftd_lib.envs.mountain_car.mountain_car_step"),
        dict(item="input scaling", paper="position and velocity scaled to [−1, 1]",
             ours="x → 2(x + 1.2)/1.7 − 1,  v → v/0.07",
             where="mountain_car.scale_obs"),
        dict(item="evaluation policy", paper="“a near-optimal policy”",
             ours="push right iff v > f(x), f piecewise linear through "
                  + ", ".join(f"({x:g}, {v:g})" for x, v in zip(mc.SWITCH_X, mc.SWITCH_V,
                                                                strict=True)),
             where="mountain_car.evaluation_policy (how near optimal: section 1)"),
        dict(item="reward noise", paper="N(−1, 2)",
             ours=f"mean {mc.REWARD_MEAN:g}, standard deviation {mc.REWARD_STD:g}; run r's "
                  f"own stream {mc.REWARD_STREAM}",
             where="mountain_car.MountainCarEvaluation"),
        dict(item="discount", paper="not given", ours=f"γ = {GAMMA:g} (values = −steps)",
             where="ftd_lib.envs.tasks"),
        dict(item="episode cap", paper="not given",
             ours="none: the policy reaches the goal from every state",
             where="MountainCarEvaluation(max_steps=None)"),
        dict(item="true values", paper="not given",
             ours="exact: v(s) = −(steps to the goal), dynamics and policy are deterministic",
             where="mountain_car.true_value, evaluation_states"),
        dict(item="state distribution", paper="“the state distribution induced by the policy”",
             ours=f"{N_EVAL} states drawn from all visits of {N_EVAL} episodes (seed "
                  f"{EVAL_SEED}), fixed for every run",
             where="mountain_car.evaluation_states; run_prediction(n_eval, eval_seed)"),
        dict(item="error metric", paper="RMS error at the end of each episode, normalised by "
             "the initial error, averaged over the first 50 episodes",
             ours="the same, each run divided by its own initial error; then the mean over runs",
             where="ftd_lib.engine.run_prediction (errors), ftd_lib.repro.chunks (metric)"),
        dict(item="divergence", paper="not given",
             ours="a run whose value, weight or error exceeds 1e6 (or is not finite) is "
                  "stopped and counts as an infinite error: drawn off the chart (▲)",
             where="run_prediction(div_bound=1e6); ftd_lib.style.plot_off_chart"),
        dict(item="K for forward TD(λ)", paper="K = ceil(log η / log γλ), η = 0.01",
             ours=f"K = {k} at λ = {LAM}; no K_max except Fig. 3 right's fourth curve",
             where="ftd_lib.returns.k_bound"),
        dict(item="step-size grid", paper="not given (a range of α)",
             ours=f"{len(ALPHAS_FIG3)} values 0.015·√2^k: {ALPHAS_FIG3[0]:g} … "
                  f"{ALPHAS_FIG3[-1]:g}",
             where="ftd_lib.repro.definitions.ALPHAS_FIG3"),
        dict(item="runs and seeds", given="runs", paper="50 runs (Fig. 3 right: 200)",
             ours=f"the same counts; seed {SEED}; run r is the same run in every cell "
                  "(common random numbers)",
             where="ftd_lib.repro.definitions (figure definitions), ftd_lib.rng"),
    ]


def choices_markdown(where: bool = True) -> str:
    """:func:`choices` as a Markdown table (``where``: with the column saying where in
    ``ftd_lib`` each choice is set; the appendix notebook shows it, notebook 05 need not)."""
    out = ["| item | the paper | this reproduction |" + (" set in |" if where else ""),
           "|---|---|---|" + ("---|" if where else "")]
    for c in choices():
        out.append(f"| {c['item']} | {c['paper']} | {c['ours']} |"
                   + (f" `{c['where']}` |" if where else ""))
    return "\n".join(out)


def choices_left_open() -> str:
    """:func:`choices` in three lines for a slide (Markdown): what the paper gives, what it
    only names (a quoted phrase), and what it does not give at all."""
    given, named, missing = [], [], []
    for c in choices():
        (missing if c["paper"].startswith("not given") else
         named if c["paper"].startswith("“") else given).append(c.get("given", c["item"]))
    return (f"**The paper gives:** {', '.join(given)}.\n\n"
            f"**It only names:** {', '.join(named)}.\n\n"
            f"**It does not give:** {', '.join(missing)}.")


def best_side_by_side(comparison) -> str:
    """A prediction figure's best point per curve (:func:`ftd_lib.course.live.best_points`) in
    the live run and in the stored data, one row per curve, for a slide: the best x (α or λ),
    its error, and at how many x some run diverged. A curve missing from one of them shows
    ``–``; with no stored data only the live columns are filled."""
    from .live import best_points

    live = best_points(comparison.live)
    stored = best_points(comparison.stored) if comparison.stored is not None else {}
    x = "α" if comparison.live.meta["definition"]["x"] == "alpha" else "λ"

    def cell(b):
        if b is None:
            return f"{'–':^30s}"
        y = f"{b['y']:.3f}" if math.isfinite(b["y"]) else "∞"
        return f"{b['x']:<11g} {y:>5s}   {b['n_x_diverged']:>2d} of {b['n_x']:<3d}"

    def scale(res):
        if res is None:
            return "no data"
        return f"{res.meta['runs']} runs × {res.meta['episodes']} episodes"

    head = f"best {x:<6s} error   diverged "
    lines = [f"{'':21s} {'live, ' + scale(comparison.live):30s}  "
             f"{'stored, ' + scale(comparison.stored)}",
             f"{'':21s} {head:30s}  {head}"]
    for curve in dict.fromkeys([*stored, *live]):
        lines.append(f"{label(curve):21s} {cell(live.get(curve))}  {cell(stored.get(curve))}")
    return "\n".join(line.rstrip() for line in lines)


def claims_brief_markdown(rows: list[dict]) -> str:
    """The claims of :func:`ftd_lib.course.live.claims_side_by_side` for a slide: number,
    the claim in the course's words, the verdict (the paper's words, the evidence and the
    scale: :func:`ftd_lib.course.live.claims_markdown`)."""
    out = ["| # | the claim | verdict |", "|---|---|---|"]
    for r in rows:
        out.append(f"| {r['number']} | {r['claim']} | **{r['verdict']}** |")
    return "\n".join(out)


def learning_curve_profile(res, method: str = "online_lambda_return",
                           alphas=(0.00094, 0.0053, 0.0075, 0.015, 0.03, 0.06, 0.085),
                           episodes=(1, 3, 6, 11, 26, 50)) -> list[dict]:
    r"""Behind the points of one curve of a stored Fig. 3 left (``res``): per step size (the
    grid's nearest to each of ``alphas``), the plotted score with its standard error and
    diverged runs, and the mean normalised error after the given episodes (1-based), read
    from ``res.arrays["curve_mean"]``. Shows whether a bump in a curve is noise (compare the
    SE) or a learning curve that rises before it falls."""
    a = res.arrays
    st = res.cell_stats()
    idx = np.flatnonzero(a["method"] == method)
    if idx.size == 0:
        raise ValueError(f"these results have no method {method!r}")
    rows = []
    for alpha in alphas:
        i = int(idx[np.argmin(np.abs(np.log(a["alpha"][idx] / float(alpha))))])
        curve = a["curve_mean"][i]
        rows.append(dict(alpha=float(a["alpha"][i]), score=float(st["mean"][i]),
                         se=float(st["se"][i]), n_diverged=int(st["n_diverged"][i]),
                         runs=int(a["diverged"].shape[1]),
                         after={int(e): float(curve[int(e) - 1]) for e in episodes
                                if int(e) <= len(curve)}))
    return rows


def format_profile(rows: list[dict], episodes=None) -> str:
    """:func:`learning_curve_profile` as a table for people (``episodes``: only these columns
    of the learning curve, e.g. ``(1, 6, 50)`` for a slide; default all of them)."""
    eps = list(rows[0]["after"]) if episodes is None else [int(e) for e in episodes]
    missing = [e for e in eps if e not in rows[0]["after"]]
    if missing:
        raise ValueError(f"episodes {missing} are not in the profile (it has "
                         f"{list(rows[0]['after'])})")
    head = ("     α      score ± SE     diverged   error after episode "
            + " ".join(f"{e:>5d}" for e in eps))
    lines = [head]
    for r in rows:
        score = (f"{r['score']:.3f} ± {r['se']:.3f}" if math.isfinite(r["score"])
                 else "     ∞       ")
        after = " ".join(f"{r['after'][e]:5.2f}" if math.isfinite(r["after"][e]) else "    ∞"
                         for e in eps)
        lines.append(f"{r['alpha']:8.5f}   {score:14s}  {r['n_diverged']:3d} of {r['runs']:<3d}"
                     f"                     {after}")
    return "\n".join(lines)
