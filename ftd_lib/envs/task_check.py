r"""``check_task(name)``: what a researcher runs on a new task (in the spirit of
Stable-Baselines3's ``check_env``) before an experiment file names it: the registry row and the
batched environment keep the contract every engine relies on.

The checks (each a function here; :func:`check_task` runs them all and returns what it
checked, one line each, or raises ``ValueError`` naming the task and the first broken check):

- **interface** -- the row's ``n_actions``, ``n_in`` and cap agree with the environment's;
  ``reset`` gives ``(B, obs_dim)`` observations; ``step`` gives ``(obs, reward, terminal,
  truncated)`` of the right shapes and kinds, an inactive row is left as it was, a bad action
  is refused;
- **seeding** -- a run's start states depend on ``(seed, run id)`` only: the same for the same
  pair, whatever batch the run is in, and different for another run id or seed;
- **scalar step = batch step** -- the row's dynamics (``Task.step_arrays``) stepping one row
  at a time give bit for bit what stepping all rows at once gives, and what the batched
  environment's ``step`` stores;
- **bounds** -- along random episodes the observations stay finite and within [-1, 1] (the
  network's input scale), the reward is the row's ``reward``, an episode ends by its
  dynamics or at the cap, and never both.
"""

from __future__ import annotations

import numpy as np

from .tasks import Task, task

RUNS = (3, 5, 8, 13)  # run ids the checks use
STEPS = 300  # random steps of the bounds check


class TaskCheckError(ValueError):
    """A broken check, naming the task and the check."""


def _fail(t: Task, check: str, why: str):
    return TaskCheckError(f"check_task({t.name!r}): {check}: {why}")


def check_interface(t: Task, seed: int = 0) -> str:
    env = t.batch_cls(seed, list(RUNS))
    n = len(RUNS)
    if env.n_actions != t.n_actions:
        raise _fail(t, "interface", f"the env has {env.n_actions} actions, the row names "
                    f"{t.n_actions} ({t.action_names})")
    if env.max_steps != t.max_steps:
        raise _fail(t, "interface", f"the env's default cap is {env.max_steps}, the row's "
                    f"{t.max_steps}")
    obs = np.asarray(env.reset())
    if obs.shape != (n, t.n_in):
        raise _fail(t, "interface", f"reset gave shape {obs.shape}, expected {(n, t.n_in)}")
    before = env.state.copy()
    active = np.arange(n) % 2 == 0
    out = env.step(np.zeros(n, dtype=np.int64), active)
    if len(out) != 4:
        raise _fail(t, "interface", "step must return (obs, reward, terminal, truncated)")
    o, r, term, trunc = (np.asarray(x) for x in out)
    shapes = [o.shape == (n, t.n_in), r.shape == (n,), term.shape == (n,), trunc.shape == (n,)]
    if not all(shapes) or term.dtype != bool or trunc.dtype != bool:
        raise _fail(t, "interface", "step's (obs, reward, terminal, truncated) must be "
                    f"({n}, {t.n_in}), ({n},), ({n},) bool, ({n},) bool")
    if not np.array_equal(env.state[~active], before[~active]) or r[~active].any():
        raise _fail(t, "interface", "an inactive row was advanced (or got a reward)")
    for bad in (t.n_actions, -1):
        try:
            env.step(np.full(n, bad), active)
        except ValueError:
            continue
        raise _fail(t, "interface", f"action {bad} was accepted")
    return (f"interface: {t.n_actions} actions, {t.n_in} inputs, cap {t.max_steps}; reset "
            "and step shapes; inactive rows untouched; bad actions refused")


def check_seeding(t: Task, seed: int = 0) -> str:
    a = t.batch_cls(seed, list(RUNS))
    a.reset()
    b = t.batch_cls(seed, [RUNS[2]])
    b.reset()
    if not np.array_equal(a.state[2], b.state[0]):
        raise _fail(t, "seeding", f"run {RUNS[2]}'s start state depends on the batch it is in")
    c = t.batch_cls(seed, list(RUNS))
    c.reset()
    if not np.array_equal(a.state, c.state):
        raise _fail(t, "seeding", "the same seed and run ids gave other start states")
    if len({tuple(s) for s in a.state}) < len(RUNS):
        raise _fail(t, "seeding", "two run ids gave the same start state")
    d = t.batch_cls(seed + 1, list(RUNS))
    d.reset()
    if np.array_equal(a.state, d.state):
        raise _fail(t, "seeding", "another seed gave the same start states")
    return "seeding: start states depend on (seed, run id) only"


def check_scalar_equals_batch(t: Task, seed: int = 0) -> str:
    env = t.batch_cls(seed, list(RUNS))
    env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(20):
        if env.needs_reset.any():
            env.reset(env.needs_reset)
        s = env.state.copy()
        acts = rng.integers(0, t.n_actions, len(RUNS))
        new, term = t.step_arrays(s, acts)
        for i in range(len(RUNS)):
            one, one_term = t.step_arrays(s[i:i + 1], acts[i:i + 1])
            if not (np.array_equal(one[0], new[i]) and bool(one_term[0]) == bool(term[i])):
                raise _fail(t, "scalar step = batch step", f"row {i} stepped alone differs "
                            "from the same row stepped in the batch")
        env.step(acts)
        if not np.array_equal(env.state, new):
            raise _fail(t, "scalar step = batch step", "the env's step stored other states "
                        "than the row's dynamics (Task.step_arrays) give")
    return "scalar step = batch step: one row at a time, all rows at once and the env agree"


def check_bounds(t: Task, seed: int = 0, steps: int = STEPS) -> str:
    env = t.batch_cls(seed, list(RUNS), max_steps=min(t.max_steps, steps // 3))
    obs = env.reset()
    rng = np.random.default_rng(seed)
    ends = 0
    for _ in range(steps):
        if env.needs_reset.any():
            obs = env.reset(env.needs_reset)
        if not (np.isfinite(obs).all() and np.abs(obs).max() <= 1.0):
            raise _fail(t, "bounds", f"an observation outside [-1, 1]: {obs.min():.3g} .. "
                        f"{obs.max():.3g}")
        obs, r, term, trunc = env.step(rng.integers(0, t.n_actions, len(RUNS)))
        if not np.all(r == t.reward):
            raise _fail(t, "bounds", f"a reward other than the row's {t.reward}: {r}")
        if np.any(term & trunc):
            raise _fail(t, "bounds", "an episode both terminal and truncated")
        ends += int((term | trunc).sum())
    if not (np.isfinite(obs).all() and np.abs(obs).max() <= 1.0):
        raise _fail(t, "bounds", "an observation outside [-1, 1]")
    return (f"bounds: {steps} random steps x {len(RUNS)} runs: observations in [-1, 1], "
            f"reward {t.reward:g} a step, {ends} episode ends, none both terminal and cut")


CHECKS = (check_interface, check_seeding, check_scalar_equals_batch, check_bounds)


def check_task(name: str, seed: int = 0) -> list[str]:
    """Run every check on the task ``name`` of the registry (:data:`CHECKS`); returns what
    was checked, one line each; the first broken check raises :class:`TaskCheckError`."""
    t = task(name)
    return [check(t, seed) for check in CHECKS]
