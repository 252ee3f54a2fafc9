r"""Mountain car (Sutton & Barto, 2nd ed., Example 10.1), the task of the paper's Sec. 6.

The paper uses "the standard mountain car task" twice:

* **evaluation** (Fig. 3): a fixed near-optimal policy, rewards drawn from N(-1, 2) (mean -1,
  standard deviation 2), gamma = 1; the error is the RMS error over the on-policy state
  distribution. Here: :func:`evaluation_policy`, :class:`MountainCarEvaluation`,
  :func:`record_episodes`, :func:`true_value`, :func:`evaluation_states`.
* **control** (Fig. 4 left): deterministic reward -1 a step, epsilon-greedy (epsilon = 0.05),
  the return averaged over the first 50 episodes. Here: :class:`MountainCarBatch`.

Random streams (see :mod:`ftd_lib.rng`): run ``r`` of experiment seed ``s`` draws its start
positions from ``run_generator(s, r, START_STREAM)`` (stream 0, "environment") and, in the
evaluation task, its reward noise from ``run_generator(s, r, REWARD_STREAM)`` (stream 2).
Other stream numbers are the agent's (the engine uses 100 and 101). The fixed sample of
evaluation states belongs to the experiment seed, not to a run:
``run_generator(s, 0, EVAL_STATES_STREAM)`` (stream 3).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ftd_lib.rng import RunStreams, run_generator

from .batch import START_STREAM, BatchEnv  # noqa: F401 (START_STREAM: documented here)

# --- dynamics (Sutton & Barto, Example 10.1) -----------------------------------------------
X_MIN = -1.2
X_MAX = 0.5  # the goal: the episode ends when the position reaches X_MAX
V_MAX = 0.07  # velocity is bounded to [-V_MAX, V_MAX]
THRUST = 0.001  # velocity change per step of full throttle
GRAVITY = 0.0025  # the hill: -GRAVITY * cos(3 x)
START_LOW, START_HIGH = -0.6, -0.4  # start position ~ U[START_LOW, START_HIGH), velocity 0

# --- experiment settings -------------------------------------------------------------------
DEFAULT_MAX_STEPS = 5000  # control episode cap; our choice, the paper gives none
EVAL_MAX_STEPS = 1000  # evaluation: a safety cap only, never reached (see evaluation_policy)
REWARD_MEAN, REWARD_STD = -1.0, 2.0  # evaluation rewards N(-1, 2)

# --- random streams (see module docstring) -------------------------------------------------
REWARD_STREAM = 2
EVAL_STATES_STREAM = 3

# --- the evaluation policy's switching curve (see evaluation_policy) ------------------------
SWITCH_X = np.array([-1.2, -0.5, -0.35, 0.5])
SWITCH_V = np.array([-0.01, -0.006, 0.025, 0.0])


def scale_obs(x, v):
    """Observation in [-1, 1]^2: ``(2 (x + 1.2) / 1.7 - 1, v / 0.07)``; shape ``(..., 2)``."""
    x = np.asarray(x, dtype=float)
    v = np.asarray(v, dtype=float)
    out = np.empty(np.broadcast_shapes(x.shape, v.shape) + (2,))
    out[..., 0] = 2.0 * (x - X_MIN) / (X_MAX - X_MIN) - 1.0
    out[..., 1] = v / V_MAX
    return out


def dynamics(x, v, action):
    """One step of one car, in plain float code: the one source of the dynamics
    (:func:`mountain_car_step`, the batched envs and the compiled control kernel all run it).
    ``action`` in {0, 1, 2} is the throttle {-1, 0, +1}; returns ``(x', v', terminal)``::

        v' = clip(v + 0.001 * throttle - 0.0025 * cos(3 x), -0.07, 0.07)
        x' = clip(x + v', -1.2, 0.5)
        v' = 0 if x' hit the left wall (-1.2) while moving left
        terminal = x' >= 0.5
    """
    v = v + THRUST * (action - 1.0) - GRAVITY * math.cos(3 * x)
    v = min(max(v, -V_MAX), V_MAX)
    x = min(max(x + v, X_MIN), X_MAX)
    if x == X_MIN and v < 0:
        v = 0.0
    return x, v, x >= X_MAX


compiled_dynamics = njit(cache=True, error_model="numpy")(dynamics)


@njit(cache=True, error_model="numpy")
def _step_rows(x, v, actions, x2, v2, term):
    for i in range(x.shape[0]):
        x2[i], v2[i], term[i] = compiled_dynamics(x[i], v[i], actions[i])


def mountain_car_step(x: float, v: float, action: int) -> tuple[float, float, bool]:
    """One step of the dynamics for one car (:func:`dynamics`): returns ``(x', v',
    terminal)``."""
    if action not in (0, 1, 2):
        raise ValueError(f"action must be 0, 1 or 2, got {action!r}")
    return dynamics(float(x), float(v), int(action))


def step_arrays(x: np.ndarray, v: np.ndarray, actions: np.ndarray):
    """:func:`dynamics` on arrays (every element stepped); returns ``(x', v', term)``."""
    x, v, a = np.broadcast_arrays(np.asarray(x, dtype=np.float64),
                                  np.asarray(v, dtype=np.float64),
                                  np.asarray(actions, dtype=np.int64))
    shape = x.shape
    x, v, a = (np.ascontiguousarray(u).reshape(-1) for u in (x, v, a))
    x2, v2, term = np.empty_like(x), np.empty_like(v), np.empty(len(x), dtype=bool)
    _step_rows(x, v, a, x2, v2, term)
    return x2.reshape(shape), v2.reshape(shape), term.reshape(shape)


def _switch_velocity(x):
    """The piecewise-linear switching curve f(x) through ``(SWITCH_X, SWITCH_V)``."""
    kx, kv = SWITCH_X, SWITCH_V
    i = np.minimum(np.maximum(np.searchsorted(kx, x, side="right") - 1, 0), len(kx) - 2)
    return kv[i] + (kv[i + 1] - kv[i]) * (x - kx[i]) / (kx[i + 1] - kx[i])


def _as_action(a):
    a = a.astype(np.int64)
    return int(a) if a.ndim == 0 else a


def velocity_policy(x, v):
    """The textbook heuristic: push in the direction of the velocity (right when at rest).

    Kept as the baseline that :func:`policy_optimality_report` compares against.
    """
    return _as_action(np.where(np.asarray(v) >= 0, 2, 0))


def evaluation_policy(x, v):
    r"""The near-optimal deterministic policy of the evaluation task: right if ``v > f(x)``.

    It starts from "push in the direction of the velocity" (f = 0) and reverses *early*:
    ``f`` is piecewise linear through ``(x, f) = (-1.2, -0.01), (-0.5, -0.006), (-0.35,
    0.025), (0.5, 0)``. While rolling left up the left slope the car turns to push right
    once its speed drops below about 0.006-0.01 (near a turning point it gains little energy
    per step); while climbing the right slope near x = -0.35 with less than 0.025 speed it
    cannot reach the goal on this swing, so it starts the swing back at once. From rest
    (v = 0) it pushes right when f(x) < 0, i.e. for x < -0.471. The four points came
    from a coordinate search (then rounded) minimising the mean steps from the start
    distribution; on it the policy takes
    about 1 % more steps than the best action sequences found by search, while pushing in
    the direction of the velocity takes over 20 % more (:func:`policy_optimality_report`).
    It reaches the goal from every state of a 200 x 200 grid over the whole state space.

    Works on scalars (returns an ``int``) and arrays (returns an int array) alike.
    """
    x = np.asarray(x, dtype=float)
    v = np.asarray(v, dtype=float)
    return _as_action(np.where(v > _switch_velocity(x), 2, 0))


class MountainCarBatch(BatchEnv):
    r"""Mountain car, B independent runs stepped together (numpy, float64).

    **Dynamics** (Sutton & Barto, Example 10.1): position ``x`` in [-1.2, 0.5], velocity
    ``v`` in [-0.07, 0.07]::

        v <- clip(v + 0.001 * throttle - 0.0025 * cos(3 x), -0.07, 0.07)
        x <- clip(x + v, -1.2, 0.5);   v <- 0 if x hit -1.2 moving left

    **Actions**: 3 discrete, ``0, 1, 2`` = throttle ``-1, 0, +1`` (full left, none, full
    right).

    **Observation**: ``(2 (x + 1.2) / 1.7 - 1, v / 0.07)`` in [-1, 1]^2 (the paper scales
    the two state variables to [-1, 1]); the raw state is :attr:`state`, shape ``(B, 2)``,
    columns ``(x, v)``.

    **Reward**: -1 every step (control task, deterministic). The evaluation task's
    N(-1, 2) rewards are :class:`MountainCarEvaluation`.

    **Termination**: ``x`` reaches 0.5. **Truncation**: after ``max_steps`` steps (default
    5000 -- our choice, the paper gives no cap); a step that terminates is never also
    truncated.

    **Start state**: ``x ~ U[-0.6, -0.4)``, ``v = 0``, drawn from the run's own stream
    ``run_generator(seed, run_id, START_STREAM)`` (stream 0): one uniform per reset.

    **Paper settings** (Sec. 6, Fig. 4 left): rewards -1, epsilon-greedy with
    epsilon = 0.05, eta = 0.01, the return averaged over the first 50 episodes, 200 runs.

    Interface: ``reset(mask=None)`` resets the rows in ``mask`` (all when ``None``) and
    returns the observations ``(B, 2)``; ``step(actions, active=None)`` advances the rows in
    ``active`` and returns ``(obs (B, 2), reward (B,), terminal (B,), truncated (B,))``.
    Inactive rows are not advanced, draw no random numbers, and get reward 0, terminal and
    truncated False, and their current observation. Stepping a row that ended (or was never
    reset) without a ``reset`` raises ``RuntimeError``. ``steps`` counts each row's steps
    since its reset.
    """

    obs_dim = 2
    n_actions = 3

    state_dim = 2
    start_block = 64

    default_max_steps = DEFAULT_MAX_STEPS

    def obs(self) -> np.ndarray:
        """The scaled observations of all rows, ``(B, 2)``."""
        return scale_obs(self.state[:, 0], self.state[:, 1])

    def reset(self, mask=None) -> np.ndarray:
        """Start a new episode in the rows of ``mask``; returns all observations ``(B, 2)``."""
        mask = self._mask(mask, "mask")
        u = self._starts.draw(mask)
        self.state[mask, 0] = START_LOW + (START_HIGH - START_LOW) * u[mask]
        self.state[mask, 1] = 0.0
        return self._started(mask)

    def step(self, actions, active=None):
        """Advance the ``active`` rows by one step; returns ``(obs, reward, terminal,
        truncated)``."""
        active = self._mask(active, "active")
        a = self._check_actions(actions, active)
        x, v, term = step_arrays(self.state[:, 0], self.state[:, 1], a)
        return self._advance(np.stack([x, v], axis=1), term, active, -1.0)


class MountainCarEvaluation(MountainCarBatch):
    r"""The evaluation task of the paper's Fig. 3: :class:`MountainCarBatch` driven by
    :func:`evaluation_policy`, with noisy rewards.

    ``step(active=None)`` takes no actions (the policy chooses them) and returns the same
    ``(obs, reward, terminal, truncated)``. Rewards are ``-1 + 2 z``, ``z ~ N(0, 1)`` drawn
    from the run's own stream ``run_generator(seed, run_id, REWARD_STREAM)`` (stream 2), one
    per active step; gamma = 1. The expected reward is -1 a step, and dynamics and policy are
    deterministic, so the true value is ``v(s) = -(steps to the goal from s)`` exactly
    (:func:`true_value`). The step cap, ``EVAL_MAX_STEPS = 1000``, is a safety net that is
    never reached: the policy needs at most about 125 steps from a start state and fewer than
    200 from anywhere.

    **Paper settings** (Sec. 6, Fig. 3): lambda = 0.9, eta = 0.01, RMS error at the end of
    each episode averaged over the first 50 episodes, normalised by the initial error;
    50 runs (200 for Fig. 3 right).
    """

    def __init__(self, seed: int, run_ids, max_steps: int | None = EVAL_MAX_STEPS):
        super().__init__(seed, run_ids, max_steps=max_steps)
        self._noise = RunStreams(self.seed, self.run_ids, REWARD_STREAM, "normal", block=512)

    def _streams(self) -> list:
        return [self._starts, self._noise]

    def policy_actions(self) -> np.ndarray:
        """The actions :func:`evaluation_policy` takes in the current states, ``(B,)``."""
        return evaluation_policy(self.state[:, 0], self.state[:, 1])

    def step(self, active=None):
        active = self._mask(active, "active")
        obs, _, terminal, truncated = super().step(self.policy_actions(), active)
        z = self._noise.draw(active)
        reward = np.where(active, REWARD_MEAN + REWARD_STD * np.where(active, z, 0.0), 0.0)
        return obs, reward, terminal, truncated


def record_episodes_batch(seed: int, run_ids, n_episodes: int):
    """``n_episodes`` evaluation episodes of every run, in the per-run contract format.

    Returns a list (one entry per run) of lists of ``(features (T+1, 2), rewards (T,))``:
    ``features`` are the scaled observations, the last row the terminal state's.
    Run ``r``'s episodes are the same in any batch (:func:`record_episodes`).
    """
    if int(n_episodes) < 0:
        raise ValueError(f"n_episodes must be >= 0, got {n_episodes!r}")
    env = MountainCarEvaluation(seed, run_ids)
    B = env.n_runs
    out = [[] for _ in range(B)]
    left = np.full(B, int(n_episodes))
    obs = env.reset(left > 0)
    feats = [[obs[i]] for i in range(B)]
    rews = [[] for _ in range(B)]
    active = left > 0
    while active.any():
        obs, r, term, _ = env.step(active)
        for i in np.flatnonzero(active):
            feats[i].append(obs[i])
            rews[i].append(r[i])
        for i in np.flatnonzero(term):
            out[i].append((np.array(feats[i]), np.array(rews[i])))
            left[i] -= 1
        again = term & (left > 0)
        if again.any():
            obs = env.reset(again)
            for i in np.flatnonzero(again):
                feats[i], rews[i] = [obs[i]], []
        active = (active & ~term) | again
    return out


def record_episodes(seed: int, run_id: int, n_episodes: int):
    """Run ``run_id``'s first ``n_episodes`` evaluation episodes: a list of
    ``(features (T+1, 2) scaled obs, rewards (T,))``, ready for :mod:`ftd_lib.algorithms`."""
    return record_episodes_batch(seed, [run_id], n_episodes)[0]


def true_value(x: float, v: float, max_steps: int = 100_000) -> float:
    """``v(s) = -(number of steps to the goal)`` under :func:`evaluation_policy` (exact:
    the dynamics and the policy are deterministic and the expected reward is -1 a step).
    A state at the goal has value 0."""
    x, v = float(x), float(v)
    if x >= X_MAX:
        return 0.0
    for t in range(1, max_steps + 1):
        x, v, term = mountain_car_step(x, v, evaluation_policy(x, v))
        if term:
            return -float(t)
    raise RuntimeError(f"the evaluation policy did not reach the goal in {max_steps} steps")


def _roll_policy(x0: np.ndarray, v0: np.ndarray, policy, max_steps: int = 100_000):
    """Roll ``policy`` from many states at once; returns the visited states ``(T_max+1, N, 2)``
    (frozen after the goal) and the steps to the goal ``(N,)``."""
    x, v = np.array(x0, dtype=float), np.array(v0, dtype=float)
    n_steps = np.zeros(len(x), dtype=np.int64)
    done = x >= X_MAX
    traj = [np.stack([x, v], axis=1)]
    t = 0
    while not done.all():
        t += 1
        if t > max_steps:
            raise RuntimeError(f"the policy did not reach the goal in {max_steps} steps")
        x2, v2, term = step_arrays(x, v, policy(x, v))
        x, v = np.where(done, x, x2), np.where(done, v, v2)
        n_steps[term & ~done] = t
        done |= term
        traj.append(np.stack([x, v], axis=1))
    return np.array(traj), n_steps


def evaluation_states(n: int, seed: int, n_episodes: int | None = None,
                      return_states: bool = False):
    """A fixed sample of ``n`` on-policy states with their exact true values.

    ``n_episodes`` (default ``n``) start states are drawn from the start distribution and the
    evaluation policy is rolled to the goal from each; ``n`` of all the visited non-terminal
    states are then drawn uniformly without replacement. Each visited state counts once per
    visit, so the sample follows the on-policy state distribution (expected visits per
    episode, normalised), the distribution the paper's RMS error is taken over. A state
    visited at step ``t`` of an episode of ``T`` steps has true value ``-(T - t)``.

    Returns ``(obs (n, 2), values (n,))``, and the raw states ``(n, 2)`` too when
    ``return_states``. Drawn from ``run_generator(seed, 0, EVAL_STATES_STREAM)``.
    """
    n = int(n)
    n_episodes = n if n_episodes is None else int(n_episodes)
    if n < 1 or n_episodes < 1:
        raise ValueError("n and n_episodes must be >= 1")
    rng = run_generator(seed, 0, EVAL_STATES_STREAM)
    x0 = START_LOW + (START_HIGH - START_LOW) * rng.random(n_episodes)
    traj, n_steps = _roll_policy(x0, np.zeros(n_episodes), evaluation_policy)
    t = np.arange(traj.shape[0])[:, None]
    visited = t < n_steps[None, :]  # non-terminal states of each episode
    states = traj[visited]
    values = -(n_steps[None, :] - t)[visited].astype(float)
    if n > len(states):
        raise ValueError(f"n = {n} exceeds the {len(states)} visited states: raise n_episodes")
    idx = rng.choice(len(states), size=n, replace=False)
    states, values = states[idx], values[idx]
    obs = scale_obs(states[:, 0], states[:, 1])
    return (obs, values, states) if return_states else (obs, values)


def best_steps_to_goal(x: float, v: float = 0.0, resolution: int = 1000,
                       max_steps: int = 2000) -> tuple[int, list[int]]:
    """The fewest steps to the goal from ``(x, v)`` found by breadth-first search.

    The search expands every reachable state by the three actions, one step at a time, and
    keeps one state per cell of a ``resolution x resolution`` grid over (x, v) (the first one
    to reach the cell; later ones are dropped). Every state kept is reached exactly by the
    true dynamics, so the action sequence returned is a real one, and the step count an
    achievable number: an upper bound on the optimum, exact in the limit of a fine grid (over
    50 starts spread over [-0.6, -0.4) the mean is 97.76 at resolution 300, 97.70 at 1000
    and 97.68 at 2000). Dropping later arrivals in a seen cell is what keeps the search fast;
    on a very coarse grid (about 100) it can drop every state, and then raises
    ``RuntimeError``: use a finer grid.

    Returns ``(steps, actions)``.
    """
    if x >= X_MAX:
        return 0, []
    seen = np.zeros(resolution * resolution, dtype=bool)
    X, V = np.array([float(x)]), np.array([float(v)])
    history = []  # per step: (parent index, action) of each kept state
    for t in range(1, max_steps + 1):
        n = len(X)
        A = np.repeat(np.arange(3), n)
        parent = np.tile(np.arange(n), 3)
        X3, V3, term = step_arrays(np.tile(X, 3), np.tile(V, 3), A)
        if term.any():
            k = int(np.flatnonzero(term)[0])
            actions = [int(A[k])]
            p = parent[k]
            for par, act in reversed(history):
                actions.append(int(act[p]))
                p = par[p]
            return t, actions[::-1]
        ix = np.minimum(((X3 - X_MIN) / (X_MAX - X_MIN) * resolution).astype(np.int64),
                        resolution - 1)
        iv = np.minimum(((V3 + V_MAX) / (2 * V_MAX) * resolution).astype(np.int64),
                        resolution - 1)
        key, first = np.unique(ix * resolution + iv, return_index=True)
        new = ~seen[key]
        first = first[new]
        seen[key[new]] = True
        X, V = X3[first], V3[first]
        history.append((parent[first], A[first]))
    raise RuntimeError(f"no path to the goal within {max_steps} steps")


def policy_optimality_report(n_starts: int = 50, resolution: int = 1000) -> dict:
    """How near optimal :func:`evaluation_policy` is, measured from ``n_starts`` start
    positions evenly spread over [-0.6, -0.4) (cell midpoints), velocity 0.

    For each start: the policy's steps to the goal, the textbook :func:`velocity_policy`'s,
    and the search's, :func:`best_steps_to_goal` (whose action sequence is replayed with
    :func:`mountain_car_step` as a check). ``best_steps`` is the fewest of the three: every
    one of them is the length of a real action sequence, so it bounds the optimum from
    above (at a coarse grid the policy now and then beats the search by a step).

    Returns a dict of arrays (``starts``, ``best_steps``, ``search_steps``,
    ``policy_steps``, ``velocity_rule_steps``) and numbers (``best_mean``, ``policy_mean``,
    ``velocity_rule_mean``, ``ratio`` = policy_mean / best_mean, ``velocity_rule_ratio``,
    ``max_ratio`` = the policy's worst per-start ratio, ``resolution``).
    """
    starts = START_LOW + (START_HIGH - START_LOW) * (np.arange(n_starts) + 0.5) / n_starts
    search = np.zeros(n_starts, dtype=np.int64)
    for i, x0 in enumerate(starts):
        search[i], actions = best_steps_to_goal(x0, 0.0, resolution=resolution)
        x, v, term = float(x0), 0.0, False
        for a in actions:
            x, v, term = mountain_car_step(x, v, a)
        if not term:
            raise AssertionError("the search's action sequence does not reach the goal")
    zeros = np.zeros(n_starts)
    _, pol = _roll_policy(starts, zeros, evaluation_policy)
    _, vel = _roll_policy(starts, zeros, velocity_policy)
    best = np.minimum(search, np.minimum(pol, vel))
    return {
        "starts": starts, "best_steps": best, "search_steps": search, "policy_steps": pol,
        "velocity_rule_steps": vel, "best_mean": float(best.mean()),
        "policy_mean": float(pol.mean()), "velocity_rule_mean": float(vel.mean()),
        "ratio": float(pol.mean() / best.mean()),
        "velocity_rule_ratio": float(vel.mean() / best.mean()),
        "max_ratio": float(np.max(pol / best)), "resolution": int(resolution),
    }
