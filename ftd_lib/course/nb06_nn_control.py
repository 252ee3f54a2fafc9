r"""Notebook 06 (control with one network per action): Sarsa(λ), forward Sarsa(λ), what the
networks learned, and Figure 4's numbers.

van Seijen (2016), Sec. 6, third and fourth experiment. One function per picture or number;
each returns plain numbers so that notebooks and tests can check them, and a ``plot_*``
function draws it in the course style. The tasks themselves (γ, caps, scaling, actions) are
:mod:`ftd_lib.envs.tasks`; their pictures :mod:`ftd_lib.course.task_pictures`; Figure 4, stored
beside a live run, with the paper's claims: :mod:`ftd_lib.course.live`.

- Where every choice the paper leaves open is made: :func:`choices`, :func:`choices_markdown`.
- The two tasks: :func:`heuristic_steps`, :func:`heuristic_trajectory` (mountain car),
  :func:`fixed_action_steps` (cart-pole), :func:`start_states`, :func:`greedy_probability`,
  :func:`discounted_return`.
- Learning live, with the engine (:func:`ftd_lib.engine.run_control`; batched when it records):
  :func:`train` runs one method at one :math:`(\alpha, \lambda)` for a few runs and, through
  :class:`ftd_lib.envs.recording.RecordingEnv`, keeps the trajectory of every episode the agent
  played; :func:`last_episode`, :func:`train_summary`, :func:`plot_learning_curves`.
- What the networks do on their own (greedy and frozen; a fresh network; a random policy):
  :mod:`ftd_lib.course.nb06_greedy`.
- Cart-pole from scratch: :func:`block_means`. Figure 4 itself:
  :mod:`ftd_lib.course.nb06_figure4`.

The engine's weight layout
--------------------------
``ControlResult.final_weights`` has shape ``(runs, A, P)``: for every run, one flat
parameter vector per action in the reference layout of :class:`ftd_lib.approx.MLP`
(``[W1 (H x n_in, row-major), b1, w2, b2]``), so :math:`\hat Q(s, a) =`
``MLP(n_in, H).value(w[a], obs(s))``. The engine's own internal layout (parameter-major,
action-major blocks) never leaves it.

Every run here uses run ids ``0 .. runs-1`` and the experiment seed
:data:`ftd_lib.repro.definitions.DEFAULT_SEED`, like the stored data: run ``r`` here starts from
the same networks and sees the same start states and exploration draws as run ``r`` of the
stored cell with the same settings (common random numbers, :mod:`ftd_lib.rng`), as long as
its episode cap is the same.
"""

from __future__ import annotations

import numpy as np

from .. import engine
from ..approx import MLP
from ..envs import cartpole as cp
from ..envs import mountain_car as mc
from ..envs import tasks
from ..envs.recording import RecordingEnv
from ..methods import CONTROL, label, style
from ..repro.definitions import ALPHAS_FIG4, DEFAULT_SEED, EPSILON, ETA
from ..returns import k_bound
from ..style import legend_off_data, use_style
from . import one_torch_thread

SEED = DEFAULT_SEED
#: the experiment seed of the start states used to test a learned policy (not the training
#: seed, so the test starts are not the starts the agent trained on)
EVAL_SEED = SEED + 1


# --------------------------------------------------------------------------------------------
# The choices the paper leaves open
# --------------------------------------------------------------------------------------------


def choices() -> list[dict]:
    """Every choice behind the control experiments: what the paper says, what we use, and
    where in ``ftd_lib`` it is set. The values are read from the library, not typed here."""
    h = MLP(2).n_hidden
    sc = cp.OBS_SCALE
    mcar, pole = tasks.TASKS["mountain_car"], tasks.TASKS["cartpole"]
    # rows of words, not logic, like the prediction table (nb05_nn_prediction.choices)
    return [
        dict(item="network", paper="one net per action, 1 hidden layer of 50 nodes",
             ours=f"{h} tanh hidden units, linear output; {mcar.n_actions} nets (mountain "
                  f"car), {pole.n_actions} nets (cart-pole)",
             where="ftd_lib.approx.MLP; ftd_lib.engine._net.BatchedMLP"),
        dict(item="initialisation", paper="not given",
             ours="uniform ±1/√fan-in (PyTorch's default); a run's nets drawn one after another "
                  "from its own stream (seed, run id, 100)",
             where="ftd_lib.approx.MLP.init; ftd_lib.engine.initial_weights"),
        dict(item="input scaling", paper="state variables scaled (to [-1, 1] on mountain car)",
             ours=f"mountain car (2(x+1.2)/1.7 − 1, v/{mc.V_MAX:g}); cart-pole x/{sc[0]:g}, "
                  f"ẋ/{sc[1]:g}, θ/{sc[2]:.4f}, θ̇/{sc[3]:g}, clipped to [-1, 1]",
             where="ftd_lib.envs.mountain_car.scale_obs; ftd_lib.envs.cartpole.scale_obs"),
        dict(item="episode cap", paper="cart-pole 1000 steps; mountain car not given",
             ours=f"mountain car {mcar.max_steps} steps; cart-pole {pole.max_steps} steps",
             where="DEFAULT_MAX_STEPS in ftd_lib.envs.mountain_car / ftd_lib.envs.cartpole "
                   "(the registry ftd_lib.envs.tasks reads them)"),
        dict(item="truncation", paper="not discussed",
             ours="a cap is a time limit, not a terminal state: the last update bootstraps "
                  "from Q̂(S′, A′) (Pardo et al. 2018)",
             where="ftd_lib.engine.run_control (truncation='bootstrap')"),
        dict(item="γ", paper="not given",
             ours=f"mountain car {mcar.gamma:g}; cart-pole {pole.gamma:g} "
                  "(the reported return is undiscounted)",
             where="ftd_lib.envs.tasks"),
        dict(item="ε-greedy", paper=f"ε = {EPSILON:g}",
             ours=f"ε = {EPSILON:g}; the random action is uniform over all actions, the greedy "
                  "one included",
             where="ftd_lib.repro.definitions.EPSILON; ftd_lib.engine.control"),
        dict(item="ties", paper="not given", ours="the greedy action is the lowest index among "
             "equal maxima", where="ftd_lib.engine.control (argmax)"),
        dict(item="η, K", paper=f"η = {ETA:g}", ours=f"η = {ETA:g}, K = ⌈log η / log γλ⌉, no "
             "K_max", where="ftd_lib.repro.definitions.ETA; ftd_lib.returns.k_bound"),
        dict(item="Sarsa(λ) traces", paper="Sarsa(λ)", ours="accumulating; every action's trace "
             "decays every step, the taken action's gains the gradient",
             where="ftd_lib.engine.control"),
        dict(item="α", paper="optimised per λ",
             ours="best mean over the grid " + ", ".join(f"{a:g}" for a in ALPHAS_FIG4),
             where="ftd_lib.repro.definitions.ALPHAS_FIG4"),
        dict(item="rewards, starts", paper="mountain car −1 a step; cart-pole (Barto et al.)",
             ours=f"mountain car −1, start x ~ U[{mc.START_LOW:g}, {mc.START_HIGH:g}), v = 0; "
                  f"cart-pole +1 a step (the failing step too), start ~ "
                  f"U[±{cp.START_HIGH:g}]^4, fail at |θ| > 12° or |x| > {cp.X_THRESHOLD:g}",
             where="ftd_lib.envs.mountain_car.MountainCarBatch; ftd_lib.envs.cartpole"),
    ]


def choices_markdown(rows: list[dict] | None = None, where: bool = True,
                     items: tuple | None = None) -> str:
    """:func:`choices` as a Markdown table (``where``: with the column saying where in
    ``ftd_lib`` each choice is set; ``items``: only the rows of these choices, in the table's
    order)."""
    rows = choices() if rows is None else rows
    if items is not None:
        unknown = set(items) - {r["item"] for r in rows}
        if unknown:
            raise ValueError(f"items must name choices of the table, got {sorted(unknown)}")
        rows = [r for r in rows if r["item"] in items]
    head = "| choice | the paper | this course |" + (" set in |" if where else "")
    out = [head, "|---|---|---|" + ("---|" if where else "")]
    for r in rows:
        cells = [str(r[k]).replace("|", "\\|") for k in ("item", "paper", "ours")]
        out.append(f"| {cells[0]} | {cells[1]} | {cells[2]} |" + (f" `{r['where']}` |" if where
                                                                   else ""))
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# The tasks
# --------------------------------------------------------------------------------------------


def heuristic_steps(x0=-0.5, v0=0.0, policy=mc.velocity_policy, max_steps: int = 10_000) -> int:
    """Steps a fixed mountain-car policy takes from ``(x0, v0)`` to the goal (``-1``: never
    within ``max_steps``). Default: push in the direction of the velocity."""
    x, v = float(x0), float(v0)
    for t in range(1, int(max_steps) + 1):
        x, v, term = mc.mountain_car_step(x, v, int(policy(x, v)))
        if term:
            return t
    return -1


def heuristic_trajectory(x0=-0.5, v0=0.0, policy=mc.velocity_policy,
                         max_steps: int = 10_000) -> dict:
    """The trajectory of a fixed mountain-car policy from ``(x0, v0)``: ``states``
    ``(T + 1, 2)`` raw ``(x, v)``, ``actions`` ``(T,)``, ``end`` (the format of
    :func:`last_episode`, for :func:`plot_mountain_car_trajectory`)."""
    x, v = float(x0), float(v0)
    states, actions, end = [(x, v)], [], "truncated"
    for _ in range(int(max_steps)):
        a = int(policy(x, v))
        x, v, term = mc.mountain_car_step(x, v, a)
        states.append((x, v))
        actions.append(a)
        if term:
            end = "terminal"
            break
    return dict(states=np.array(states), actions=np.array(actions, dtype=np.int64), end=end)


def fixed_action_steps(action, start=(0.0, 0.0, 0.0, 0.0), max_steps: int | None = None) -> int:
    """Steps a cart-pole survives when the same action is taken every step (the failing step
    counted, as the reward is), at most ``max_steps`` (default: the task's cap)."""
    if max_steps is None:
        max_steps = tasks.task("cartpole").max_steps
    s = np.asarray(start, dtype=float)
    for t in range(1, int(max_steps) + 1):
        s, term = cp.cartpole_step(s, int(action))
        if term:
            return t
    return int(max_steps)


def greedy_probability(epsilon: float = EPSILON, n_actions: int = 3) -> float:
    r"""Probability that :math:`\epsilon`-greedy (as the engine does it: with probability
    :math:`\epsilon` an action uniform over *all* actions) takes the greedy action:
    :math:`1 - \epsilon + \epsilon / A`."""
    eps = float(epsilon)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
    if int(n_actions) < 1:
        raise ValueError(f"n_actions must be >= 1, got {n_actions!r}")
    return 1.0 - eps + eps / int(n_actions)


def discounted_return(n_steps: int, gamma: float, reward: float = 1.0) -> float:
    r"""The discounted return :math:`\sum_{k=0}^{n-1}\gamma^k r` of an episode of ``n_steps``
    steps with the same reward ``r`` every step, the episode then ending (or cut and treated
    as ended): :math:`r(1-\gamma^n)/(1-\gamma)`, or :math:`nr` for :math:`\gamma = 1`."""
    n, g = int(n_steps), float(gamma)
    if n < 0:
        raise ValueError(f"n_steps must be >= 0, got {n_steps!r}")
    if not 0.0 <= g <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma!r}")
    return float(reward) * (n if g == 1.0 else (1.0 - g**n) / (1.0 - g))


def start_states(task: str, n: int, seed: int = EVAL_SEED) -> np.ndarray:
    """``n`` raw start states ``(n, d)`` from the task's own start distribution: the first
    reset of runs ``0 .. n-1`` of experiment ``seed`` (:mod:`ftd_lib.rng`)."""
    env = tasks.task(task).batch_cls(seed, np.arange(int(n)))
    env.reset()
    return env.state.copy()


# --------------------------------------------------------------------------------------------
# Learning live: the engine, with the agent's trajectories recorded
# --------------------------------------------------------------------------------------------


def _settings(alpha, lam, gamma, eta, n):
    return engine.Settings.make(alpha=[float(alpha)] * n, lam=float(lam), gamma=float(gamma),
                         eta=float(eta))


def train(task: str, method: str, *, alpha: float, lam: float, runs: int = 1,
          episodes: int = 10, max_steps: int | None = None, seed: int = SEED,
          eta: float = ETA, epsilon: float = EPSILON, record: bool = True,
          truncation: str = "bootstrap") -> dict:
    r"""Run ``method`` (``"sarsa_lambda"`` or ``"forward_sarsa_lambda"``) on ``task`` for
    ``runs`` runs (run ids ``0 .. runs-1``) of ``episodes`` episodes, with the engine (the
    batched one when ``record``: the recorder is an env of its own; the compiled kernel
    otherwise; the numbers are the same).

    :math:`\gamma` is the task's (:mod:`ftd_lib.envs.tasks`), :math:`\epsilon` and :math:`\eta` the
    paper's; ``max_steps`` overrides the episode cap (default: the task's). Returns a dict:
    ``returns`` and ``lengths`` ``(runs, episodes)`` (``nan`` / -1 after a divergence),
    ``diverged`` ``(runs,)``, ``final_weights`` ``(runs, A, P)`` (reference layout, see the
    module docstring), ``K`` (forward Sarsa's delay; ``None`` for Sarsa(λ)), the settings, and
    with ``record`` the agent's own trajectories ``episodes[r][k]`` (:class:`RecordingEnv`).
    ``truncation``: what the cap means to the learner, ``"bootstrap"`` (a time limit: the last
    target bootstraps from :math:`\hat Q(S', A')`, Pardo et al. 2018) or ``"terminal"``.
    """
    if method not in CONTROL:
        raise ValueError(f"method must be one of {CONTROL}, got {method!r}")
    t = tasks.task(task)
    runs, episodes = int(runs), int(episodes)
    if runs < 1 or episodes < 1:
        raise ValueError("runs and episodes must be >= 1")
    cap = t.max_steps if max_steps is None else int(max_steps)
    gamma = t.gamma
    sink: list = []
    env = RecordingEnv.factory(task, cap, sink) if record else task
    with one_torch_thread():
        res = engine.run_control(method, _settings(alpha, lam, gamma, eta, runs), seed,
                                 np.arange(runs), episodes, env=env, epsilon=epsilon,
                                 max_steps=None if record else cap, truncation=truncation)
    out = dict(task=task, method=method, alpha=float(alpha), lam=float(lam), gamma=gamma,
               eta=float(eta), epsilon=float(epsilon), max_steps=cap, seed=int(seed),
               truncation=truncation,
               returns=np.asarray(res.returns, dtype=float),
               lengths=np.asarray(res.lengths, dtype=np.int64),
               diverged=np.asarray(res.diverged, dtype=bool),
               final_weights=np.asarray(res.final_weights, dtype=float),
               K=k_bound(gamma, lam, eta) if method == "forward_sarsa_lambda" else None)
    if record:
        sink[-1].finish()
        out["episodes"] = [sink[-1].episodes.get(r, []) for r in range(runs)]
    return out


#: the paper's two control methods (Sec. 6): what this notebook trains unless told otherwise
PAPER_METHODS = ("sarsa_lambda", "forward_sarsa_lambda")


def train_methods(task: str, methods=PAPER_METHODS, **settings) -> dict:
    """:func:`train` for each method (default: the paper's two; any control method of
    :mod:`ftd_lib.methods` may be listed) with the same ``settings``: ``{label: result}``
    (the labels of :mod:`ftd_lib.methods`, e.g. ``"forward Sarsa(λ)"``), for
    :func:`plot_learning_curves`."""
    return {label(m): train(task, m, **settings) for m in methods}


def last_episode(run: dict, r: int = 0) -> dict:
    """The last complete episode the agent of run ``r`` played (``states``, ``actions``,
    ``end``), from :func:`train` with ``record=True``."""
    eps = [e for e in run["episodes"][r] if e["end"] is not None]
    if not eps:
        raise ValueError(f"run {r} has no complete episode")
    return eps[-1]


def train_summary(run: dict) -> dict:
    """Numbers of a :func:`train` result: mean return over all episodes and runs (the paper's
    metric; ``nan`` when a run diverged), the mean return of the last episode, and the number
    of diverged runs."""
    ret = run["returns"]
    return dict(mean_return=float(np.mean(ret)), last_return=float(np.mean(ret[:, -1])),
                n_diverged=int(run["diverged"].sum()), runs=ret.shape[0],
                episodes=ret.shape[1])


def plot_learning_curves(runs: dict, ax=None, title: str = "", ylabel: str | None = None,
                         refs: dict | None = None, block: int | None = None, figsize=None):
    """Return of every episode: thin lines every run, thick the mean over runs; a run that
    diverged gets a ✕ on the top edge, in the episode it diverged in. ``runs``: label ->
    :func:`train` result (the colour is the method's). ``refs``: label -> value, drawn as
    dashed horizontal reference lines; ``block``: the thick line is the mean over runs and
    over blocks of that many episodes (:func:`block_means`), drawn at the blocks' middles.
    ``figsize``: the figure's size in inches when the function makes the figure (a
    slide wants it wide and short)."""
    if ax is None:
        import matplotlib.pyplot as plt

        use_style()
        _, ax = plt.subplots(figsize=figsize or (7.0, 4.0))
    for name, run in runs.items():
        kw = style(run["method"])
        kw["label"] = name
        ret = run["returns"]
        ep = np.arange(1, ret.shape[1] + 1)
        for r in range(ret.shape[0]):
            ax.plot(ep, ret[r], color=kw.get("color"), lw=0.8, alpha=0.45,
                    marker="." if len(ep) <= 30 else None, ms=4)  # a lone episode shows too
            if run["diverged"][r]:  # a ✕ on the top edge, in the episode it diverged in
                k = int(np.argmax(~np.isfinite(ret[r])))
                ax.plot(ep[k], 0.96, "x", color=kw.get("color"), ms=10, mew=2.5,
                        transform=ax.get_xaxis_transform(), clip_on=False)
        if block:
            b = int(block)
            mid = np.arange(len(block_means(run, b))) * b + (b + 1) / 2
            ax.plot(mid, block_means(run, b), marker="o", ms=5, **kw)
        else:
            ax.plot(ep, ret.mean(axis=0), **kw)
    for (name, value), ls in zip((refs or {}).items(), ("--", ":", "-."), strict=False):
        ax.axhline(value, color="0.25", ls=ls, lw=1.5, label=name)
    task = next(iter(runs.values()))["task"]
    ax.set(xlabel="episode", title=title,
           ylabel=ylabel or ("return (−steps to the goal)" if task == "mountain_car"
                             else "return (steps balanced)"))
    ax.legend(loc="best")
    legend_off_data(ax.figure, [ax])
    return ax


# --------------------------------------------------------------------------------------------
# Cart-pole from scratch: learning curves in blocks
# --------------------------------------------------------------------------------------------


def block_means(run: dict, block: int = 50) -> np.ndarray:
    """The mean return over runs in consecutive blocks of ``block`` episodes of a
    :func:`train` result: ``(episodes // block,)`` (``nan`` where a run diverged)."""
    ret = run["returns"]
    n = ret.shape[1] // int(block)
    if n < 1:
        raise ValueError(f"block must be at most the number of episodes ({ret.shape[1]})")
    return ret[:, : n * int(block)].reshape(ret.shape[0], n, int(block)).mean(axis=(0, 2))
