"""What every batched control environment shares: B independent runs, one row each.

A subclass sets ``obs_dim``, ``n_actions``, ``state_dim`` and ``start_block``, and either
declares its task module's pieces -- ``scale`` (:meth:`obs`), ``start_high`` (a uniform start,
:meth:`reset`), ``step_arrays`` and ``reward_per_step`` (deterministic dynamics with one
reward a step, :meth:`step`) -- or writes that method itself; this base class owns the rows'
bookkeeping: per-row step counters, which rows need a reset, masks, action checks, and the
end of an episode (terminal, or truncated at ``max_steps``). A task that neither declares a
piece nor writes its method gets a ``ValueError`` naming the class and the attribute.

A stochastic task sets ``noise_dim`` (uniform draws in [0, 1) per step of a run) and takes
its noise from :meth:`_draw_noise`: each run's own stream :data:`NOISE_STREAM`
(:class:`ftd_lib.rng.RunStreams`), drawn only by the rows that step, so a run's noise -- like
its start states -- never depends on the batch it is in; the last step's draws stay in
``last_noise`` (what :func:`ftd_lib.envs.task_check.check_task` replays).
"""

from __future__ import annotations

import numpy as np

from ..rng import RunStreams

START_STREAM = 0  # each run's stream of start states
NOISE_STREAM = 1  # each run's stream of noise in its steps (a stochastic task)


class BatchEnv:
    obs_dim: int
    n_actions: int
    state_dim: int
    start_block: int = 64
    noise_dim: int = 0  # uniform draws of the run's noise stream per step (0: deterministic)
    #: the episode cap when the caller names none (the task module's ``DEFAULT_MAX_STEPS``)
    default_max_steps: int | None = None
    #: a start draws each state variable uniformly in ``[-start_high, start_high]``
    #: (:meth:`reset`; a task with another start writes its own)
    start_high: float | None = None
    #: the task module's ``scale_obs``: the network's inputs from the states (:meth:`obs`)
    scale = None
    #: the task module's ``step_arrays(states, actions) -> (states', terminal)`` and the
    #: reward of every step (:meth:`step`; a task with noise or a varying reward writes its own)
    step_arrays = None
    reward_per_step: float | None = None

    def __init__(self, seed: int, run_ids, max_steps: int | None | str = "default"):
        if isinstance(max_steps, str) and max_steps == "default":
            max_steps = self.default_max_steps
        self.seed = int(seed)
        self.run_ids = np.atleast_1d(np.asarray(run_ids, dtype=np.int64))
        if self.run_ids.ndim != 1 or len(self.run_ids) == 0:
            raise ValueError("run_ids must be a non-empty 1-d sequence of ints")
        if max_steps is not None and int(max_steps) < 1:
            raise ValueError(f"max_steps must be >= 1 or None, got {max_steps!r}")
        self.max_steps = None if max_steps is None else int(max_steps)
        self.n_runs = len(self.run_ids)
        self._starts = RunStreams(self.seed, self.run_ids, START_STREAM, "uniform",
                                  block=self.start_block)
        self._noise = (RunStreams(self.seed, self.run_ids, NOISE_STREAM, "uniform")
                       if self.noise_dim else None)
        self.last_noise = np.full((self.n_runs, self.noise_dim), np.nan)
        self.state = np.zeros((self.n_runs, self.state_dim))
        self.steps = np.zeros(self.n_runs, dtype=np.int64)
        self.needs_reset = np.ones(self.n_runs, dtype=bool)

    def _declared(self, name: str):
        """The class attribute ``name`` that a default method needs; a ``ValueError`` naming
        the class and the attribute where the task declares none."""
        value = getattr(type(self), name)
        if value is None:
            raise ValueError(f"{type(self).__name__} sets no {name}: declare the task's {name} "
                             "as a class attribute or write the method that needs it")
        return value

    def obs(self) -> np.ndarray:
        """The scaled observations of all rows, ``(B, obs_dim)``: :attr:`scale` of the states."""
        return self._declared("scale")(self.state)

    def reset(self, mask=None) -> np.ndarray:
        """Start a new episode in the rows of ``mask``, uniformly in
        ``[-start_high, start_high]`` (:meth:`_started_uniform`); returns all observations."""
        return self._started_uniform(self._mask(mask, "mask"), self._declared("start_high"))

    def step(self, actions, active=None):
        """Advance the ``active`` rows by one step of :attr:`step_arrays` (inactive rows are
        stepped with action 0 and keep their state), reward :attr:`reward_per_step`; returns
        ``(obs, reward, terminal, truncated)``."""
        active = self._mask(active, "active")
        a = self._check_actions(actions, active)
        step_arrays, reward = self._declared("step_arrays"), self._declared("reward_per_step")
        new, term = step_arrays(self.state, np.where(active, a, 0))
        return self._advance(new, term, active, reward)

    def _streams(self) -> list:
        """The per-run random streams of this env (subclasses with more add theirs)."""
        return [self._starts] + ([self._noise] if self._noise is not None else [])

    def assign(self, rows, run_ids) -> None:
        """Give the rows ``rows`` to the runs ``run_ids`` (a batch taking its next runs): their
        streams start afresh and they need a :meth:`reset`, exactly as a new env of those
        runs would."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        for s in self._streams():
            s.assign(rows, run_ids)
        self.run_ids[rows] = np.asarray(run_ids, dtype=np.int64).reshape(-1)
        self.steps[rows] = 0
        self.needs_reset[rows] = True

    def take(self, rows) -> None:
        """Keep only the rows ``rows``, in that order (a batch dropping finished rows); each
        kept row goes on exactly where it was."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        for s in self._streams():
            s.take(rows)
        self.run_ids = self.run_ids[rows]
        self.state = self.state[rows]
        self.steps = self.steps[rows]
        self.needs_reset = self.needs_reset[rows]
        self.last_noise = self.last_noise[rows]
        self.n_runs = len(rows)

    def _mask(self, mask, name: str) -> np.ndarray:
        if mask is None:
            return np.ones(self.n_runs, dtype=bool)
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (self.n_runs,):
            raise ValueError(f"{name} must have shape ({self.n_runs},), got {mask.shape}")
        return mask

    def _started(self, mask) -> np.ndarray:
        """Mark the rows of ``mask`` as started; returns all observations."""
        self.steps[mask] = 0
        self.needs_reset[mask] = False
        return self.obs()

    def _started_uniform(self, mask, high: float) -> np.ndarray:
        """Start the rows of ``mask`` in a state drawn uniformly from ``[-high, high]`` in every
        dimension (one draw of the start stream per dimension, in order); returns all
        observations."""
        for j in range(self.state_dim):
            u = self._starts.draw(mask)
            self.state[mask, j] = -high + 2 * high * u[mask]
        return self._started(mask)

    def _draw_noise(self, active) -> np.ndarray:
        """This step's noise ``(B, noise_dim)``: ``noise_dim`` draws of each active row's own
        noise stream, in order (``nan`` for inactive rows, whose streams are untouched);
        kept in ``last_noise``."""
        out = np.full((self.n_runs, self.noise_dim), np.nan)
        for j in range(self.noise_dim):
            out[:, j] = self._noise.draw(active)
        self.last_noise = out
        return out

    def _check_actions(self, actions, active) -> np.ndarray:
        a = np.asarray(actions)
        if a.shape != (self.n_runs,):
            raise ValueError(f"actions must have shape ({self.n_runs},), got {a.shape}")
        a = a.astype(np.int64)
        if np.any(active & ((a < 0) | (a >= self.n_actions))):
            raise ValueError(f"actions must be in 0..{self.n_actions - 1}")
        if np.any(active & self.needs_reset):
            raise RuntimeError("stepping a row whose episode ended (or never began): reset it")
        return a

    def _advance(self, new_state, term, active, reward_per_step):
        """Store the active rows' new states and close their episodes where they end:
        ``terminal`` where the dynamics say so, ``truncated`` (never both) at ``max_steps``.
        ``reward_per_step``: a number, or one per row (a reward that varies).
        Returns ``(obs, reward, terminal, truncated)``; inactive rows get 0 and False."""
        np.copyto(self.state, new_state, where=active[:, None])
        self.steps += active
        terminal = active & term
        truncated = active & ~terminal
        if self.max_steps is None:
            truncated[:] = False
        else:
            truncated &= self.steps >= self.max_steps
        self.needs_reset |= terminal | truncated
        reward = np.where(active, reward_per_step, 0.0)
        return self.obs(), reward, terminal, truncated
