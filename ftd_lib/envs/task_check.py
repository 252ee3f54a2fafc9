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
- **scalar step = batch step** -- the row's dynamics (``Task.transition``, with the same
  noise draws for a stochastic task) stepping one row at a time give bit for bit what
  stepping all rows at once gives, and what the batched environment's ``step`` stores and
  rewards (given the noise it drew, ``last_noise``); a stochastic task's noise changes the
  step;
- **a run alone = the same run in a batch** -- whole trajectories (observations, rewards,
  ends, resets), each run with its own actions and idle steps, alone, in a batch and in a
  batch of another order: bit for bit the same (a task drawing its noise anywhere but the
  run's own stream fails here);
- **compiled = batch** -- a task whose row names compiled dynamics (``compiled``, the compiled
  kernel's extension point, :mod:`ftd_lib.engine.kernel.extend`): its ``kernel_reset`` and
  ``kernel_step``, drawing from the run's own start and noise streams as the kernel does,
  give the batched environment's trajectories bit for bit (states, features, rewards, ends),
  episode after episode, and the row's dynamics from states drawn over its ``state_box``
  (so that terminal ends are compared: a point without one fails), at the task's defaults
  and at each parameter's ``example``;
- **bounds** -- along random episodes the observations stay finite and within [-1, 1] (the
  network's input scale), every reward within the row's range (``Task.rewards``), an episode
  ends by its dynamics or at the cap, and never both.
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
    if getattr(env, "noise_dim", 0) != t.noise:
        raise _fail(t, "interface", f"the env draws {getattr(env, 'noise_dim', 0)} noise "
                    f"numbers a step, the row declares noise = {t.noise}")
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


def _noise(t: Task, rng, n: int):
    return rng.random((n, t.noise)) if t.noise else None


def check_scalar_equals_batch(t: Task, seed: int = 0) -> str:
    env = t.batch_cls(seed, list(RUNS))
    env.reset()
    rng = np.random.default_rng(seed)
    n = len(RUNS)
    for _ in range(20):
        if env.needs_reset.any():
            env.reset(env.needs_reset)
        s = env.state.copy()
        acts = rng.integers(0, t.n_actions, n)
        noise = _noise(t, rng, n)
        new, term, rew = t.transition(s, acts, noise)
        for i in range(n):
            one, one_term, one_r = t.transition(s[i:i + 1], acts[i:i + 1],
                                                None if noise is None else noise[i:i + 1])
            if not (np.array_equal(one[0], new[i]) and bool(one_term[0]) == bool(term[i])
                    and one_r[0] == rew[i]):
                raise _fail(t, "scalar step = batch step", f"row {i} stepped alone differs "
                            "from the same row stepped in the batch")
        _, r, _, _ = env.step(acts)
        drew = None if not t.noise else env.last_noise
        want, _, want_r = t.transition(s, acts, drew)
        if not np.array_equal(env.state, want) or not np.array_equal(r, want_r):
            raise _fail(t, "scalar step = batch step", "the env's step stored other states "
                        "(or rewards) than the row's dynamics (Task.transition) give"
                        + (" with the noise it drew (last_noise)" if t.noise else ""))
    if t.noise:
        s = np.repeat(env.state[:1], 8, axis=0)
        a = np.zeros(8, dtype=np.int64)
        moved = t.transition(s, a, rng.random((8, t.noise)))[0]
        if len({tuple(x) for x in moved}) < 2:
            raise _fail(t, "scalar step = batch step", f"the row declares noise = {t.noise} "
                        "but other noise gives the same step")
    return ("scalar step = batch step: one row at a time, all rows at once and the env agree"
            + (f" (noise: {t.noise} draws a step, and it changes the step)" if t.noise else ""))


def _trajectories(t: Task, seed: int, runs, steps: int) -> dict:
    """Each run's trajectory in an env of ``runs``: its own actions and idle steps (drawn
    from a generator of its run id), resets when an episode ends; ``{run: arrays}``."""
    env = t.batch_cls(seed, list(runs), max_steps=min(t.max_steps, 40))
    plan = {r: np.random.default_rng([seed, r]) for r in runs}
    acts = {r: g.integers(0, t.n_actions, steps) for r, g in plan.items()}
    busy = {r: plan[r].random(steps) < 0.8 for r in runs}
    out = {r: [] for r in runs}
    obs = env.reset()
    for r, o in zip(runs, obs, strict=True):
        out[r].append(o.copy())
    for k in range(steps):
        active = np.array([busy[r][k] for r in runs])
        ended = env.needs_reset & active
        if ended.any():
            obs = env.reset(ended)
            for i in np.flatnonzero(ended):
                out[runs[i]].append(obs[i].copy())
        obs, rew, term, trunc = env.step(np.array([acts[r][k] for r in runs]), active)
        for i in np.flatnonzero(active):
            out[runs[i]] += [obs[i].copy(), np.array([rew[i], term[i], trunc[i]])]
    return {r: np.concatenate(v) for r, v in out.items()}


def check_run_alone(t: Task, seed: int = 0, steps: int = 120) -> str:
    together = _trajectories(t, seed, list(RUNS), steps)
    reordered = _trajectories(t, seed, list(reversed(RUNS)), steps)
    for r in RUNS:
        alone = _trajectories(t, seed, [r], steps)[r]
        for what, got in (("alone", alone), ("in a batch of another order", reordered[r])):
            if not np.array_equal(got, together[r]):
                raise _fail(t, "a run alone = the same run in a batch", f"run {r}'s "
                            f"trajectory {what} differs from the same run in a batch"
                            + (" (is its noise drawn from the run's own stream, "
                               "BatchEnv._draw_noise?)" if t.noise else ""))
    return (f"a run alone = the same run in a batch: {len(RUNS)} runs x {steps} steps "
            "(idle steps and resets), alone, together and reordered, bit for bit")


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
        lo, hi = t.rewards
        if not np.all((r >= lo) & (r <= hi)):
            raise _fail(t, "bounds", f"a reward outside the row's range [{lo:g}, {hi:g}]: {r}")
        if np.any(term & trunc):
            raise _fail(t, "bounds", "an episode both terminal and truncated")
        ends += int((term | trunc).sum())
    if not (np.isfinite(obs).all() and np.abs(obs).max() <= 1.0):
        raise _fail(t, "bounds", "an observation outside [-1, 1]")
    lo, hi = t.rewards
    reward = f"reward {lo:g} a step" if lo == hi else f"rewards in [{lo:g}, {hi:g}]"
    return (f"bounds: {steps} random steps x {len(RUNS)} runs: observations in [-1, 1], "
            f"{reward}, {ends} episode ends, none both terminal and cut")


def compiled_pieces(t: Task) -> tuple | None:
    """``(params, reset, step)`` of the task's compiled dynamics (its row's ``compiled``:
    ``"module"`` under ``ftd_lib`` with ``kernel_params``, ``kernel_reset``, ``kernel_step``,
    or ``"module:prefix"`` with ``<prefix>_params``, ...); ``None``: it has none."""
    import importlib

    if t.compiled is None:
        return None
    module, _, prefix = t.compiled.partition(":")
    home = importlib.import_module(f"ftd_lib.{module}")
    try:
        return tuple(getattr(home, f"{prefix or 'kernel'}_{name}")
                     for name in ("params", "reset", "step"))
    except AttributeError as e:
        raise _fail(t, "compiled = batch", f"{e} (the row's compiled is {t.compiled!r})") from None


def parameter_points(t: Task) -> list[dict]:
    """The task parameters the compiled dynamics are checked at: the defaults (``{}``), then
    each parameter at its ``example``, a value other than its default (a parameter without
    one fails: the compiled step could ignore it unseen)."""
    points = [{}]
    for p in t.params:
        if p.example is None or p.example == p.default:
            raise _fail(t, "compiled = batch", f"parameter {p.name!r} has no example other "
                        "than its default (Param(..., example=...)): the compiled dynamics "
                        "are checked at both")
        points.append({p.name: p.example})
    return points


def _where(point: dict) -> str:
    return ", ".join(f"{k} = {v!r}" for k, v in point.items()) or "the defaults"


def _differs(state, want_state, x, want_x, r, want_r, end, want_end) -> str:
    """What a compiled step got wrong: ``"state, end"``, ...; ``""``: nothing."""
    same = {"state": np.array_equal(state, want_state), "features": np.array_equal(x, want_x),
            "reward": r == want_r, "end": bool(end) == bool(want_end)}
    return ", ".join(w for w, ok in same.items() if not ok)


def _compiled_runs(t: Task, pieces, point: dict, seed: int, steps: int) -> int:
    """The compiled dynamics against the batched env at the task parameters ``point``, one
    run at a time (the same start and noise streams, the same random actions); returns the
    terminal ends compared."""
    from ..rng import run_generator
    from .batch import NOISE_STREAM, START_STREAM

    params, reset, step = pieces
    tp = params(**point)
    cap = min(t.max_steps, 40)
    ends = 0
    for rid in RUNS:
        env = t.batch_cls(seed, [rid], max_steps=cap, **point)
        sgen = run_generator(seed, rid, START_STREAM)
        ngen = run_generator(seed, rid, NOISE_STREAM)
        acts = np.random.default_rng([seed, rid]).integers(0, t.n_actions, steps)
        state = np.zeros(t.batch_cls.state_dim)
        x = np.zeros(t.n_in)
        noise = np.zeros(t.noise)
        for k in range(steps):
            if k == 0 or env.needs_reset[0]:
                obs = env.reset()
                reset(sgen, state, x, tp)
                if not (np.array_equal(state, env.state[0]) and np.array_equal(x, obs[0])):
                    raise _fail(t, "compiled = batch", f"at {_where(point)}, run {rid}: a start "
                                "state (or its features) differs from the batched env's")
            for j in range(t.noise):
                noise[j] = ngen.random()
            r, term = step(state, int(acts[k]), x, noise, tp)
            obs, rew, b_term, _ = env.step(acts[k:k + 1])
            what = _differs(state, env.state[0], x, obs[0], r, rew[0], term, b_term[0])
            if what:
                raise _fail(t, "compiled = batch", f"at {_where(point)}, run {rid}, step {k}: "
                            f"the compiled step gives another {what} than the batched env's "
                            "(same state, action and noise)")
            ends += bool(term)
    return ends


def _compiled_states(t: Task, pieces, point: dict, seed: int, n: int) -> int:
    """The compiled step against :meth:`Task.transition` from ``n`` states drawn uniformly
    over the row's ``state_box``, each with a random action and noise; returns the terminal
    ends compared."""
    params, _, step = pieces
    tp = params(**point)
    if t.state_box is None or len(t.state_box) != t.batch_cls.state_dim:
        raise _fail(t, "compiled = batch", "the row's state_box must give (lo, hi) for each of "
                    f"the {t.batch_cls.state_dim} state variables (the box the check draws "
                    "states from)")
    rng = np.random.default_rng([seed, 2016])
    lo, hi = np.array(t.state_box, dtype=float).T
    states = lo + (hi - lo) * rng.random((n, len(lo)))
    acts = rng.integers(0, t.n_actions, n)
    noise = rng.random((n, t.noise))
    ends = 0
    for i in range(n):  # (one row at a time, as a run alone: numpy's loops may round a long
        # array otherwise, on CPUs where it takes SIMD versions of log1p, sin, cos)
        one, term, rew = t.transition(states[i:i + 1], acts[i:i + 1],
                                      noise[i:i + 1] if t.noise else None, **point)
        want, feat, want_r, want_t = one[0], t.obs(one)[0], rew[0], bool(term[0])
        ends += want_t
        state, x = states[i].copy(), np.zeros(t.n_in)
        r, end = step(state, int(acts[i]), x, noise[i].copy(), tp)
        what = _differs(state, want, x, feat, r, want_r, end, want_t)
        if what:
            raise _fail(t, "compiled = batch", f"at {_where(point)}, from the state "
                        f"{states[i].tolist()} with action {int(acts[i])}: the compiled step "
                        f"gives another {what} than the row's dynamics")
    return ends


def check_compiled(t: Task, seed: int = 0, steps: int = 150, pieces=None,
                   n_states: int = 2000) -> str:
    """The compiled dynamics (``pieces``: default the row's, :func:`compiled_pieces`) at the
    task's default parameters and at each parameter's example (:func:`parameter_points`):
    against the batched env, one run at a time (the same start and noise streams, the same
    random actions: every state, feature, reward and end bit for bit), and against the row's
    dynamics (:meth:`Task.transition`) from ``n_states`` states drawn over its
    ``state_box``. Fails where a point compared no terminal end (the goal would be
    unchecked)."""
    pieces = compiled_pieces(t) if pieces is None else pieces
    if pieces is None:
        return "compiled = batch: no compiled dynamics (the row's compiled is None)"
    points = parameter_points(t)
    ends = []
    for point in points:
        k = (_compiled_runs(t, pieces, point, seed, steps),
             _compiled_states(t, pieces, point, seed, n_states))
        if sum(k) == 0:
            raise _fail(t, "compiled = batch", f"at {_where(point)} no terminal end was "
                        "compared (the goal is unchecked: widen the row's state_box)")
        ends.append(k)
    at = "; ".join(f"{_where(p)}: {a} + {b}" for p, (a, b) in zip(points, ends, strict=True))
    return (f"compiled = batch: at {len(points)} parameter point(s), {len(RUNS)} runs x "
            f"{steps} steps beside the batched env and {n_states} steps from states over the "
            f"row's state_box beside its dynamics ({t.compiled}), bit for bit (terminal ends "
            f"{at})")


CHECKS = (check_interface, check_seeding, check_scalar_equals_batch, check_run_alone,
          check_compiled, check_bounds)


def check_task(name: str, seed: int = 0) -> list[str]:
    """Run every check on the task ``name`` of the registry (:data:`CHECKS`); returns what
    was checked, one line each; the first broken check raises :class:`TaskCheckError`."""
    t = task(name)
    return [check(t, seed) for check in CHECKS]
