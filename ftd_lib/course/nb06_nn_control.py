r"""Control with one network per action (notebook 06): Sarsa(λ), forward Sarsa(λ), Figure 4.

van Seijen (2016), Sec. 6, third and fourth experiment. One function per picture or number;
each returns plain numbers (or a :class:`ftd_lib.experiments.Results`) so that notebooks and
tests can check them, and a ``plot_*`` function draws it in the course style.

- Where every choice the paper leaves open is made: :func:`choices`, :func:`choices_markdown`.
- The two tasks: :func:`hill_height`, :func:`heuristic_steps` (mountain car),
  :func:`fixed_action_steps` (cart-pole), :func:`start_states`.
- Learning live, with the batched engine (:func:`ftd_lib.engine.run_control`):
  :func:`train` runs one method at one :math:`(\alpha, \lambda)` for a few runs and, through
  :class:`RecordingEnv`, keeps the trajectory of every episode the agent played (the engine
  itself returns only returns and lengths); :func:`plot_learning_curves`.
- What the networks learned: :func:`greedy_rollouts` runs the learned networks greedily
  (no exploration, no learning) with the scalar dynamics of :mod:`ftd_lib.envs`;
  :func:`plot_mountain_car_trajectory` and :func:`plot_cartpole_trajectory` draw a trajectory
  as a static figure (snapshots of the car on its hill, of the cart and its pole).
- Figure 4 from the committed full-scale data (:func:`stored`) next to a live run at a small
  scale (:func:`live_fig4`), drawn by :func:`plot_pair`; :func:`best_points` and
  :func:`format_best` read the plotted numbers; :func:`claims_side_by_side` puts the paper's
  words next to the verdicts :func:`ftd_lib.report.claims` computes from the data.

The engine's weight layout
--------------------------
``ControlResult.final_weights`` has shape ``(runs, A, P)``: for every run, one flat
parameter vector per action in the reference layout of :class:`ftd_lib.approx.MLP`
(``[W1 (H x n_in, row-major), b1, w2, b2]``), so :math:`\hat Q(s, a) =`
``MLP(n_in, H).value(w[a], obs(s))``. The engine's own internal layout (parameter-major,
action-major blocks) never leaves it.

Every live run uses run ids ``0 .. runs-1`` and the experiment seed
:data:`ftd_lib.experiments.DEFAULT_SEED`, like the stored data: run ``r`` here starts from the
same networks and sees the same start states and exploration draws as run ``r`` of the stored
cell with the same settings (common random numbers, :mod:`ftd_lib.rng`), as long as its
episode cap is the same.
"""

from __future__ import annotations

import dataclasses
import math
import os
import tempfile
from pathlib import Path

import numpy as np

from . import experiments as E
from .approx import MLP
from .envs import cartpole as cp
from .envs import mountain_car as mc
from .plots import style, use_style
from .returns import k_bound

SEED = E.DEFAULT_SEED
EPSILON = E.EPSILON
ETA = E.ETA
#: the two control tasks by their engine names (``ftd_lib.engine.run_control(env=...)``)
TASKS = ("mountain_car", "cartpole")
#: engine task name -> name in :mod:`ftd_lib.experiments` (figures, ``GAMMA``)
FIG_ENV = {"mountain_car": "mountain_car", "cartpole": "cartpole"}
#: engine task name -> paper figure
FIGURE = {"mountain_car": "fig4-left", "cartpole": "fig4-right"}
GAMMA = {t: E.GAMMA[FIG_ENV[t]] for t in TASKS}
#: the experiment seed of the start states used to test a learned policy (not the training
#: seed, so the test starts are not the starts the agent trained on)
EVAL_SEED = SEED + 1

METHOD_LABEL = {"sarsa_lambda": "Sarsa(λ)", "forward_sarsa_lambda": "forward Sarsa(λ)"}
#: figure method names (:mod:`ftd_lib.experiments`, :mod:`ftd_lib.plots`) -> engine names
ENGINE_METHOD = {"sarsa_lambda": "sarsa_lambda", "forward_sarsa_lambda": "forward_sarsa_lambda"}


def quick() -> bool:
    """True when ``CI`` is set in the environment (to anything but ''/0/false/no): the
    notebook then runs its heavy cells at a smaller scale."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


class _Task:
    """The pieces of a task that this module needs: scalar dynamics, observation, actions."""

    def __init__(self, name):
        if name not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {name!r}")
        self.name = name
        if name == "mountain_car":
            self.batch_cls, self.n_in, self.n_actions = mc.MountainCarBatch, 2, 3
            self.reward, self.default_cap = -1.0, mc.DEFAULT_MAX_STEPS
        else:
            self.batch_cls, self.n_in, self.n_actions = cp.CartPoleBatch, 4, 2
            self.reward, self.default_cap = 1.0, cp.DEFAULT_MAX_STEPS

    def obs(self, states):
        """Scaled observations of raw states ``(..., d)``."""
        s = np.asarray(states, dtype=float)
        if self.name == "mountain_car":
            return mc.scale_obs(s[..., 0], s[..., 1])
        return cp.scale_obs(s)

    def step_arrays(self, states, actions):
        """Every row stepped: ``(states', terminal)``."""
        s = np.asarray(states, dtype=float)
        if self.name == "mountain_car":
            x, v, term = mc.step_arrays(s[:, 0], s[:, 1], actions)
            return np.stack([x, v], axis=1), term
        return cp.step_arrays(s, actions)


def _task(name) -> _Task:
    return _Task(name)


# --------------------------------------------------------------------------------------------
# The choices the paper leaves open
# --------------------------------------------------------------------------------------------


def choices() -> list[dict]:
    """Every choice behind the control experiments: what the paper says, what we use, and
    where in ``ftd_lib`` it is set. The values are read from the library, not typed here."""
    h = MLP(2).n_hidden
    sc = cp.OBS_SCALE
    return [
        dict(item="network", paper="one net per action, 1 hidden layer of 50 nodes",
             ours=f"{h} tanh hidden units, linear output; {mc.MountainCarBatch.n_actions} "
                  f"nets (mountain car), {cp.CartPoleBatch.n_actions} nets (cart-pole)",
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
             ours=f"mountain car {mc.DEFAULT_MAX_STEPS} steps; cart-pole "
                  f"{cp.DEFAULT_MAX_STEPS} steps",
             where="DEFAULT_MAX_STEPS in ftd_lib.envs.mountain_car / ftd_lib.envs.cartpole"),
        dict(item="truncation", paper="not discussed",
             ours="the step that hits the cap is treated like termination (next value 0)",
             where="ftd_lib.engine.control"),
        dict(item="γ", paper="not given",
             ours=f"mountain car {GAMMA['mountain_car']:g}; cart-pole {GAMMA['cartpole']:g} "
                  "(the reported return is undiscounted)",
             where="ftd_lib.experiments.GAMMA"),
        dict(item="ε-greedy", paper=f"ε = {EPSILON:g}",
             ours=f"ε = {EPSILON:g}; the random action is uniform over all actions, the greedy "
                  "one included",
             where="ftd_lib.experiments.EPSILON; ftd_lib.engine.control"),
        dict(item="ties", paper="not given", ours="the greedy action is the lowest index among "
             "equal maxima", where="ftd_lib.engine.control (argmax)"),
        dict(item="η, K", paper=f"η = {ETA:g}", ours=f"η = {ETA:g}, K = ⌈log η / log γλ⌉, no "
             "K_max", where="ftd_lib.experiments.ETA; ftd_lib.returns.k_bound"),
        dict(item="Sarsa(λ) traces", paper="Sarsa(λ)", ours="accumulating; every action's trace "
             "decays every step, the taken action's gains the gradient",
             where="ftd_lib.engine.control"),
        dict(item="α", paper="optimised per λ",
             ours="best mean over the grid " + ", ".join(f"{a:g}" for a in E.ALPHAS_FIG4),
             where="ftd_lib.experiments.ALPHAS_FIG4"),
        dict(item="rewards, starts", paper="mountain car −1 a step; cart-pole (Barto et al.)",
             ours=f"mountain car −1, start x ~ U[{mc.START_LOW:g}, {mc.START_HIGH:g}), v = 0; "
                  f"cart-pole +1 a step (the failing step too), start ~ "
                  f"U[±{cp.START_HIGH:g}]^4, fail at |θ| > 12° or |x| > {cp.X_THRESHOLD:g}",
             where="ftd_lib.envs.mountain_car.MountainCarBatch; ftd_lib.envs.cartpole"),
    ]


def choices_markdown(rows: list[dict] | None = None) -> str:
    """:func:`choices` as a Markdown table."""
    rows = choices() if rows is None else rows
    out = ["| choice | the paper | this course | set in |", "|---|---|---|---|"]
    for r in rows:
        cells = [str(r[k]).replace("|", "\\|") for k in ("item", "paper", "ours")]
        out.append(f"| {cells[0]} | {cells[1]} | {cells[2]} | `{r['where']}` |")
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# The tasks
# --------------------------------------------------------------------------------------------


def hill_height(x):
    r"""The height :math:`\sin(3x)` of the mountain car's hill at position ``x``: gravity
    pulls with :math:`-0.0025\cos(3x)`, i.e. along its slope (used for drawing only)."""
    return np.sin(3 * np.asarray(x, dtype=float))


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


def fixed_action_steps(action, start=(0.0, 0.0, 0.0, 0.0), max_steps: int = 1000) -> int:
    """Steps a cart-pole survives when the same action is taken every step (the failing step
    counted, as the reward is)."""
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
    t = _task(task)
    env = t.batch_cls(seed, np.arange(int(n)))
    env.reset()
    return env.state.copy()


# --------------------------------------------------------------------------------------------
# Learning live: the engine, with the agent's trajectories recorded
# --------------------------------------------------------------------------------------------


class RecordingEnv:
    """A batch environment that remembers every episode it plays (states and actions).

    Wraps :class:`ftd_lib.envs.mountain_car.MountainCarBatch` or
    :class:`ftd_lib.envs.cartpole.CartPoleBatch` and passes every call through unchanged, so
    the engine computes exactly what it computes on the bare environment (tested). After the
    run, ``episodes[b][k]`` is episode ``k`` of row ``b``: a dict with ``states``
    ``(T + 1, d)`` raw states (the start state first), ``actions`` ``(T,)``, and ``end``:
    ``"terminal"``, ``"truncated"`` or ``None`` (still running).
    """

    def __init__(self, inner):
        self.inner = inner
        self.n_actions = inner.n_actions
        self.obs_dim = inner.obs_dim
        self.max_steps = inner.max_steps
        self.episodes = [[] for _ in range(inner.n_runs)]
        self._states = [None] * inner.n_runs
        self._actions = [None] * inner.n_runs

    @classmethod
    def factory(cls, task: str, max_steps: int | None = None, sink: list | None = None):
        """A factory ``env(seed, run_ids)`` for :func:`ftd_lib.engine.run_control`; each env it
        makes is appended to ``sink``."""
        t = _task(task)
        cap = t.default_cap if max_steps is None else int(max_steps)

        def make(seed, run_ids):
            env = cls(t.batch_cls(seed, run_ids, max_steps=cap))
            if sink is not None:
                sink.append(env)
            return env

        return make

    @property
    def state(self):
        return self.inner.state

    def reset(self, mask=None):
        obs = self.inner.reset(mask)
        rows = np.arange(self.inner.n_runs) if mask is None else np.flatnonzero(mask)
        for b in rows:
            self._close(b, None)
            self._states[b] = [self.inner.state[b].copy()]
            self._actions[b] = []
        return obs

    def step(self, actions, active=None):
        acts = np.array(actions, dtype=np.int64)  # the engine reuses its array: copy
        obs, reward, terminal, truncated = self.inner.step(acts, active)
        rows = np.arange(self.inner.n_runs) if active is None else np.flatnonzero(active)
        for b in rows:
            self._states[b].append(self.inner.state[b].copy())
            self._actions[b].append(int(acts[b]))
            if terminal[b] or truncated[b]:
                self._close(b, "terminal" if terminal[b] else "truncated")
        return obs, reward, terminal, truncated

    def _close(self, b, end):
        if self._states[b] is not None:
            self.episodes[b].append(dict(states=np.array(self._states[b]),
                                         actions=np.array(self._actions[b], dtype=np.int64),
                                         end=end))
            self._states[b] = None

    def finish(self):
        """Store the episodes still open (a run that diverged mid-episode)."""
        for b in range(self.inner.n_runs):
            self._close(b, None)


def _settings(alpha, lam, gamma, eta, n):
    from .engine import Settings

    return Settings.make(alpha=[float(alpha)] * n, lam=float(lam), gamma=float(gamma),
                         eta=float(eta))


def train(task: str, method: str, *, alpha: float, lam: float, runs: int = 1,
          episodes: int = 10, max_steps: int | None = None, seed: int = SEED,
          eta: float = ETA, epsilon: float = EPSILON, record: bool = True) -> dict:
    r"""Run ``method`` (``"sarsa_lambda"`` or ``"forward_sarsa_lambda"``) on ``task`` for
    ``runs`` runs (run ids ``0 .. runs-1``) of ``episodes`` episodes, with the batched engine.

    :math:`\gamma` is the task's (:data:`GAMMA`), :math:`\epsilon` and :math:`\eta` the
    paper's; ``max_steps`` overrides the episode cap (default: the task's). Returns a dict:
    ``returns`` and ``lengths`` ``(runs, episodes)`` (``nan`` / -1 after a divergence),
    ``diverged`` ``(runs,)``, ``final_weights`` ``(runs, A, P)`` (reference layout, see the
    module docstring), ``K`` (forward Sarsa's delay; ``None`` for Sarsa(λ)), the settings, and
    with ``record`` the agent's own trajectories ``episodes[r][k]`` (:class:`RecordingEnv`).
    """
    from . import engine

    if method not in ENGINE_METHOD:
        raise ValueError(f"method must be one of {tuple(ENGINE_METHOD)}, got {method!r}")
    t = _task(task)
    runs, episodes = int(runs), int(episodes)
    if runs < 1 or episodes < 1:
        raise ValueError("runs and episodes must be >= 1")
    cap = t.default_cap if max_steps is None else int(max_steps)
    gamma = GAMMA[task]
    sink: list = []
    env = RecordingEnv.factory(task, cap, sink) if record else task
    res = engine.run_control(ENGINE_METHOD[method], _settings(alpha, lam, gamma, eta, runs), seed,
                             np.arange(runs), episodes, env=env, epsilon=epsilon,
                             max_steps=None if record else cap)
    out = dict(task=task, method=method, alpha=float(alpha), lam=float(lam), gamma=gamma,
               eta=float(eta), epsilon=float(epsilon), max_steps=cap, seed=int(seed),
               returns=np.asarray(res.returns, dtype=float),
               lengths=np.asarray(res.lengths, dtype=np.int64),
               diverged=np.asarray(res.diverged, dtype=bool),
               final_weights=np.asarray(res.final_weights, dtype=float),
               K=k_bound(gamma, lam, eta) if method == "forward_sarsa_lambda" else None)
    if record:
        sink[-1].finish()
        out["episodes"] = sink[-1].episodes
    return out


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


def plot_learning_curves(runs: dict, ax=None, title: str = "", ylabel: str | None = None):
    """Return of every episode: thin lines every run, thick the mean over runs; a run that
    diverged gets a ✕ on the top edge, in the episode it diverged in. ``runs``: label ->
    :func:`train` result (the colour is the method's)."""
    if ax is None:
        import matplotlib.pyplot as plt

        use_style()
        _, ax = plt.subplots(figsize=(7.0, 4.0))
    for label, run in runs.items():
        kw = style(run["method"])
        kw["label"] = label
        ret = run["returns"]
        ep = np.arange(1, ret.shape[1] + 1)
        for r in range(ret.shape[0]):
            ax.plot(ep, ret[r], color=kw.get("color"), lw=0.8, alpha=0.45,
                    marker="." if len(ep) <= 30 else None, ms=4)  # a lone episode shows too
            if run["diverged"][r]:  # a ✕ on the top edge, in the episode it diverged in
                k = int(np.argmax(~np.isfinite(ret[r])))
                ax.plot(ep[k], 0.96, "x", color=kw.get("color"), ms=10, mew=2.5,
                        transform=ax.get_xaxis_transform(), clip_on=False)
        mean = ret.mean(axis=0)
        ax.plot(ep, mean, **kw)
    task = next(iter(runs.values()))["task"]
    ax.set(xlabel="episode", title=title,
           ylabel=ylabel or ("return (−steps to the goal)" if task == "mountain_car"
                             else "return (steps balanced)"))
    ax.legend(loc="best")
    return ax


# --------------------------------------------------------------------------------------------
# What the networks learned: greedy rollouts
# --------------------------------------------------------------------------------------------


def q_values(weights, task: str, states) -> np.ndarray:
    r""":math:`\hat Q(s, a)` of the learned networks ``weights`` ``(A, P)`` (reference layout)
    at raw states ``(N, d)``: ``(N, A)``."""
    t = _task(task)
    w = np.asarray(weights, dtype=float)
    if w.ndim != 2 or w.shape[0] != t.n_actions:
        raise ValueError(f"weights must have shape ({t.n_actions}, P), got {w.shape}")
    n_hidden = (w.shape[1] - 1) // (t.n_in + 2)
    net = MLP(t.n_in, n_hidden)
    if net.n_params != w.shape[1]:
        raise ValueError(f"{w.shape[1]} parameters do not make a {t.n_in}-H-1 network")
    x = t.obs(np.atleast_2d(np.asarray(states, dtype=float)))
    return np.stack([net.value(w[a], x) for a in range(t.n_actions)], axis=1)


def greedy_rollouts(weights, task: str, starts, max_steps: int | None = None) -> dict:
    r"""Run the learned networks greedily from every start state, without exploring and
    without learning: :math:`A_t = \arg\max_a \hat Q(S_t, a)` (ties to the lowest action,
    as the engine), stepped with the task's own dynamics.

    ``starts`` ``(N, d)`` raw states. Returns ``states`` ``(T_max + 1, N, d)`` (a row that
    ended stays at its last state), ``actions`` ``(T_max, N)`` (-1 after the end), ``steps``
    ``(N,)`` (steps played), ``terminal`` ``(N,)`` (reached the goal / the pole fell) and
    ``returns`` ``(N,)`` (undiscounted). The cap (default: the task's) ends the others.
    """
    t = _task(task)
    cap = t.default_cap if max_steps is None else int(max_steps)
    s = np.atleast_2d(np.asarray(starts, dtype=float)).copy()
    N = len(s)
    done = np.zeros(N, dtype=bool)
    terminal = np.zeros(N, dtype=bool)
    steps = np.zeros(N, dtype=np.int64)
    states, actions = [s.copy()], []
    for _ in range(cap):
        if done.all():
            break
        a = np.argmax(q_values(weights, task, s), axis=1)
        s2, term = t.step_arrays(s, a)
        live = ~done
        s = np.where(live[:, None], s2, s)
        steps += live
        terminal |= live & term
        done |= live & term
        states.append(s.copy())
        actions.append(np.where(live, a, -1))
    return dict(states=np.array(states), actions=np.array(actions, dtype=np.int64).reshape(-1, N),
                steps=steps, terminal=terminal, returns=t.reward * steps.astype(float),
                max_steps=cap)


def rollout_trajectory(rollouts: dict, i: int = 0) -> dict:
    """Start ``i`` of :func:`greedy_rollouts` as one trajectory (``states`` ``(T + 1, d)``,
    ``actions`` ``(T,)``, ``end``), the format of :func:`last_episode`."""
    T = int(rollouts["steps"][i])
    end = "terminal" if rollouts["terminal"][i] else "truncated"
    return dict(states=rollouts["states"][: T + 1, i], actions=rollouts["actions"][:T, i],
                end=end)


def greedy_summary(rollouts: dict, task: str) -> dict:
    """How good a greedy policy is from its start states: mean steps, and how many starts
    reached the goal (mountain car) or balanced to the cap (cart-pole)."""
    steps = rollouts["steps"]
    if task == "mountain_car":
        ok = rollouts["terminal"]
    else:
        ok = ~rollouts["terminal"] & (steps >= rollouts["max_steps"])
    return dict(n=len(steps), mean_steps=float(steps.mean()), n_success=int(ok.sum()),
                min_steps=int(steps.min()), max_steps=int(steps.max()))


# --------------------------------------------------------------------------------------------
# Drawing a trajectory
# --------------------------------------------------------------------------------------------

_ACTION_COLOURS = {"mountain_car": ("#d62728", "#bbbbbb", "#1f77b4"),
                   "cartpole": ("#d62728", "#1f77b4")}
_ACTION_NAMES = {"mountain_car": ("push left", "no push", "push right"),
                 "cartpole": ("push left", "push right")}


def snapshot_times(T: int, n: int) -> np.ndarray:
    """``n`` time steps spread evenly over ``0 .. T`` (first and last included, no repeats)."""
    return np.unique(np.round(np.linspace(0, int(T), max(int(n), 2))).astype(int))


def _action_strip(ax, actions, task, y0, y1):
    """The action of every step as a coloured band from ``y0`` to ``y1`` (one image)."""
    from matplotlib.colors import to_rgba

    cols = np.array([to_rgba(c, 0.45) for c in _ACTION_COLOURS[task]])
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
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(15.5, 4.3),
                                     gridspec_kw=dict(width_ratios=[1.25, 1.1, 0.9]))
    # the hill with car snapshots
    xs = np.linspace(mc.X_MIN, mc.X_MAX, 300)
    a1.fill_between(xs, hill_height(xs), -1.25, color="#d9c7a7")
    a1.plot(xs, hill_height(xs), color="#8c6d46", lw=2)
    a1.plot([mc.X_MAX, mc.X_MAX], [hill_height(mc.X_MAX), hill_height(mc.X_MAX) + 0.35],
            color="k", lw=1.5)
    a1.fill([mc.X_MAX, mc.X_MAX, mc.X_MAX - 0.12],
            [hill_height(mc.X_MAX) + 0.35, hill_height(mc.X_MAX) + 0.22,
             hill_height(mc.X_MAX) + 0.285], color="#2ca02c")
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
        if k in (0, T):
            ha = "center" if k == 0 else ("right" if x > 0 else "left")
            a1.annotate("start" if k == 0 else f"t = {T}", (x, hill_height(x) + 0.13),
                        ha=ha, fontsize=10, color="k")
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, T))
    fig.colorbar(sm, ax=a1, label="time step", fraction=0.05, pad=0.02)
    a1.set(xlim=(mc.X_MIN - 0.03, mc.X_MAX + 0.05), ylim=(-1.25, 1.45), xlabel="position x",
           ylabel="height sin(3x)", title="the car on its hill")
    a1.grid(False)
    # position and velocity over time, the actions below
    t = np.arange(T + 1)
    _action_strip(a2, acts, "mountain_car", mc.X_MIN, mc.X_MIN + 0.12)
    a2.plot(t, st[:, 0], color="k", lw=1.8, label="position x")
    a2.axhline(mc.X_MAX, color="#2ca02c", ls="--", lw=1.2, label="goal")
    a2.set(xlabel="time step", ylabel="position x", ylim=(mc.X_MIN, mc.X_MAX + 0.08),
           title="position, velocity and actions")
    b2 = a2.twinx()
    b2.plot(t, st[:, 1], color="#9467bd", lw=1.2, alpha=0.9, label="velocity v")
    b2.set_ylabel("velocity v", color="#9467bd")
    b2.set_ylim(-mc.V_MAX, mc.V_MAX)
    b2.grid(False)
    handles = a2.get_legend_handles_labels()[0] + b2.get_legend_handles_labels()[0]
    handles += [Patch(color=c, alpha=0.35, label=n) for c, n in
                zip(_ACTION_COLOURS["mountain_car"], _ACTION_NAMES["mountain_car"], strict=True)]
    a2.legend(handles=handles, loc="upper left", fontsize=8, ncol=2)
    # the (x, v) plane
    a3.scatter(st[:, 0], st[:, 1], c=t, cmap=cmap, s=4)
    a3.plot(st[0, 0], st[0, 1], "o", color=cmap(0.0), ms=8, mec="k", label="start")
    a3.axvline(mc.X_MAX, color="#2ca02c", ls="--", lw=1.2)
    a3.set(xlabel="position x", ylabel="velocity v", xlim=(mc.X_MIN, mc.X_MAX + 0.02),
           ylim=(-mc.V_MAX, mc.V_MAX), title="the (x, v) plane")
    a3.legend(loc="lower right", fontsize=9)
    end = {"terminal": f"goal after {T} steps", "truncated": f"cut at {T} steps"}.get(
        traj.get("end"), f"{T} steps")
    fig.suptitle(f"{title} — {end}" if title else end, fontsize=13)
    fig.subplots_adjust(left=0.05, right=0.985, bottom=0.13, top=0.84, wspace=0.55)  # fixed: fast
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
    fig = plt.figure(figsize=(15.5, 6.8))
    gs = fig.add_gridspec(3, n_cols, height_ratios=[1.0, 1.0, 1.45])
    pole = 2 * cp.LENGTH
    cmap = plt.get_cmap("viridis")
    for j, k in enumerate(ks):
        ax = fig.add_subplot(gs[j // n_cols, j % n_cols])
        x, th = st[k, 0], st[k, 2]
        c = cmap(k / max(T, 1))
        ax.plot([-cp.X_THRESHOLD, cp.X_THRESHOLD], [0, 0], color="0.4", lw=2)
        for edge in (-cp.X_THRESHOLD, cp.X_THRESHOLD):
            ax.plot([edge, edge], [-0.08, 0.2], color="#d62728", lw=2)
        ax.add_patch(Rectangle((x - 0.25, 0.0), 0.5, 0.22, color=c, ec="k", lw=0.8, zorder=3))
        ax.plot([x, x + pole * math.sin(th)], [0.22, 0.22 + pole * math.cos(th)],
                color="#8c564b", lw=4, solid_capstyle="round", zorder=4)
        if k < len(acts):
            d = 1 if acts[k] == 1 else -1
            ax.annotate("", xy=(x + 0.6 * d, 0.11), xytext=(x + 0.27 * d, 0.11),
                        arrowprops=dict(arrowstyle="-|>", color="k", lw=1.5))
        ax.set(xlim=(-2.6, 2.6), ylim=(-0.12, 1.3), aspect="equal")
        ax.set_title(f"t = {k} ({k * cp.TAU:.2f} s), x = {x:+.2f}, θ = {math.degrees(th):+.1f}°",
                     fontsize=9)
        ax.axis("off")
    ax = fig.add_subplot(gs[2, :])
    t = np.arange(T + 1)
    ax.plot(t, st[:, 0], color="k", lw=1.6, label="cart position x")
    ax.axhline(cp.X_THRESHOLD, color="k", ls=":", lw=1)
    ax.axhline(-cp.X_THRESHOLD, color="k", ls=":", lw=1)
    ax.set(xlabel="time step", ylabel="cart position x", ylim=(-2.6, 2.6))
    b = ax.twinx()
    lim = math.degrees(cp.THETA_THRESHOLD)
    b.plot(t, np.degrees(st[:, 2]), color="#8c564b", lw=1.2, label="pole angle θ (°)")
    b.axhline(lim, color="#8c564b", ls=":", lw=1)
    b.axhline(-lim, color="#8c564b", ls=":", lw=1)
    b.set_ylabel("pole angle θ (degrees)", color="#8c564b")
    b.set_ylim(-1.1 * lim, 1.1 * lim)
    b.grid(False)
    for k in ks:
        ax.axvline(k, color="0.75", lw=0.8)
    h = ax.get_legend_handles_labels()[0] + b.get_legend_handles_labels()[0]
    ax.legend(handles=h, loc="upper left", fontsize=9, ncol=2)
    end = {"terminal": f"the pole fell (or the cart left the track) after {T} steps",
           "truncated": f"balanced until the cap, {T} steps"}.get(traj.get("end"), f"{T} steps")
    fig.suptitle(f"{title} — {end}" if title else end, fontsize=13)
    fig.subplots_adjust(left=0.05, right=0.95, bottom=0.09, top=0.9, hspace=0.3)  # fixed: fast
    return fig


# --------------------------------------------------------------------------------------------
# Figure 4: stored data and live runs
# --------------------------------------------------------------------------------------------

#: the live runs beside the stored Fig. 4 (small: control is costly; the cost is the number
#: of steps of the longest run, and forward Sarsa(1) on mountain car, K = infinity, adds a
#: flush of a whole episode to every episode, so lambda = 1 sits out there). The mountain-car
#: episodes are capped at 500 steps (the stored data: 5000), so a live point is not the
#: paper's quantity; it shows the machinery and the first episodes.
LIVE = {
    "fig4-left": dict(lams=(0.0, 0.5, 0.9), alphas=(0.0075, 0.03), runs=2, episodes=4,
                      max_steps=500),
    "fig4-right": dict(lams=(0.0, 0.3, 0.6, 0.9, 1.0), alphas=(0.0075, 0.03), runs=2,
                       episodes=80, max_steps=None),
}
#: smaller still under ``CI`` (:func:`quick`)
LIVE_QUICK = {
    "fig4-left": dict(LIVE["fig4-left"], runs=1, episodes=2, max_steps=300),
    "fig4-right": dict(LIVE["fig4-right"], runs=1, episodes=30),
}


def results_dir() -> Path:
    """The repository's ``results/`` (:func:`ftd_lib.experiments.repo_results_dir`)."""
    return E.repo_results_dir()


def stored(figure_name: str, results=None):
    """The committed data of ``fig4-left`` or ``fig4-right`` (from :func:`results_dir` unless
    ``results`` names a folder), or ``None`` when there is none yet
    (:func:`ftd_lib.experiments.missing_message` says how to make it)."""
    _check_figure(figure_name)
    return E.load_results(figure_name, results_dir() if results is None else results)


def _check_figure(name):
    if name not in ("fig4-left", "fig4-right"):
        raise ValueError(f"figure must be 'fig4-left' or 'fig4-right', got {name!r}")


def live_figure(figure_name: str, *, lams=None, alphas=None, runs: int | None = None,
                episodes: int | None = None, max_steps: int | None = -1) -> E.Figure:
    """A small-scale definition of ``fig4-left`` / ``fig4-right``: both methods on a grid of
    ``lams`` times ``alphas``, ``runs`` runs of ``episodes`` episodes capped at ``max_steps``
    steps (``None``: the task's cap; default: :data:`LIVE`), each method one batch."""
    _check_figure(figure_name)
    d = LIVE[figure_name]
    lams = tuple(d["lams"] if lams is None else lams)
    alphas = tuple(d["alphas"] if alphas is None else alphas)
    runs = int(d["runs"] if runs is None else runs)
    episodes = int(d["episodes"] if episodes is None else episodes)
    cap = d["max_steps"] if max_steps == -1 else max_steps
    if runs < 1 or episodes < 1:
        raise ValueError("runs and episodes must be >= 1")
    base = E.figure(figure_name, "paper")
    gamma = base.cells[0].gamma
    cells = tuple(E.Cell(m, a, lam, gamma, ETA, None, curve=m)
                  for m in E.CONTROL_METHODS for lam in lams for a in alphas)
    return dataclasses.replace(base, scale="quick", cells=cells, runs=runs, episodes=episodes,
                               runs_per_chunk=runs, cells_per_chunk=len(lams) * len(alphas),
                               max_steps=None if cap is None else int(cap))


def live_fig4(figure_name: str, seed: int = SEED, **kw) -> E.Results:
    """Figure 4 left or right at a small scale, live (:func:`live_figure`; default
    :data:`LIVE`, or :data:`LIVE_QUICK` under ``CI``), computed with the engine in a scratch
    directory (nothing is written next to the committed results). Same data layout as the
    stored figure (:class:`ftd_lib.experiments.Results`)."""
    _check_figure(figure_name)
    kw = {**(LIVE_QUICK if quick() else LIVE)[figure_name], **kw}
    fig = live_figure(figure_name, **kw)
    with tempfile.TemporaryDirectory(prefix="ftd-live-") as d:
        res = E.run_figure(fig, d, seed=seed, progress=False, plot=False)
    res.path = None
    return res


scale_label = E.scale_label


def plot_pair(stored_res, live_res, figure_name: str, results_dir=E.DEFAULT_RESULTS):
    """Stored figure beside the live run (:func:`ftd_lib.experiments.plot_stored_and_live`)."""
    _check_figure(figure_name)
    return E.plot_stored_and_live(stored_res, live_res, figure_name, results_dir)


def best_points(res) -> dict:
    """Per curve (method): the plotted points -- for every λ the best mean return over α --
    as ``lam``, ``y``, ``se``, ``alpha`` (the α picked) and ``n_diverged`` arrays, plus the
    best λ overall (``best_lam``, ``best_y``)."""
    out = {}
    for curve, s in res.summary().items():
        y = np.where(np.isfinite(s["y"]), s["y"], -np.inf)
        i = int(np.argmax(y))
        out[curve] = dict(lam=np.asarray(s["x"], dtype=float), y=np.asarray(s["y"], float),
                          se=np.asarray(s["se"], float), alpha=np.asarray(s["alpha"], float),
                          n_diverged=np.asarray(s["n_diverged"], dtype=np.int64),
                          best_lam=float(s["x"][i]), best_y=float(s["y"][i]))
    return out


def format_best(res, digits: int = 1) -> str:
    """One line per method and λ: the best mean return over α, the α that gave it, and the
    runs that diverged at that α (a mean over runs with a diverged run is ``nan``)."""
    lines = []
    for curve, b in best_points(res).items():
        lines.append(f"{METHOD_LABEL.get(curve, curve)}:")
        for lam, y, a, nd in zip(b["lam"], b["y"], b["alpha"], b["n_diverged"], strict=True):
            if math.isfinite(y):
                lines.append(f"  λ = {lam:<4g} return {y:9.{digits}f}   at α = {a:<7g} "
                             f"diverged runs {nd}")
            else:
                lines.append(f"  λ = {lam:<4g} a run diverged at every α of the grid")
    return "\n".join(lines)


def forward_minus_sarsa(res) -> dict:
    """Per λ: forward Sarsa(λ)'s best-α return minus Sarsa(λ)'s (``nan`` where Sarsa(λ)
    diverged at every α, i.e. forward wins outright)."""
    b = best_points(res)
    f, s = b["forward_sarsa_lambda"], b["sarsa_lambda"]
    lams = [lam for lam in f["lam"] if lam in set(s["lam"].tolist())]
    out = {}
    for lam in lams:
        yf = f["y"][f["lam"] == lam][0]
        ys = s["y"][s["lam"] == lam][0]
        out[float(lam)] = float(yf - ys) if np.isfinite(ys) and np.isfinite(yf) else math.nan
    return out


PAPER_WORDS = {
    5: "“Forward Sarsa(λ) outperforms Sarsa(λ) for all λ values, except for λ = 1.0.”",
    6: "“In this domain, higher values of λ actually reduce the performance of Sarsa(λ).”",
    7: "“The optimal performance of forward Sarsa(λ) is obtained around λ = 0.6 …”",
    8: "“… and is substantially higher than the performance of Sarsa(0).”",
}


def claims_side_by_side(results: dict) -> list[dict]:
    """The Fig. 4 claims of the paper next to this reproduction's verdicts
    (:func:`ftd_lib.report.claims_side_by_side`); ``results``:
    ``{"fig4-left": Results or None, "fig4-right": Results or None}``."""
    from . import report

    return report.claims_side_by_side(results, ("fig4-left", "fig4-right"), PAPER_WORDS)


def claims_markdown(rows: list[dict]) -> str:
    """:func:`claims_side_by_side` as a Markdown table."""
    from . import report

    return report.claims_markdown(rows)
