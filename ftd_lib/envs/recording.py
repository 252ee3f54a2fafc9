"""A batch environment that records the episodes it plays, for pictures of what an agent did.

The batched engine (:func:`ftd_lib.engine.run_control`) returns only returns and lengths; run
it on :class:`RecordingEnv` (``env=RecordingEnv.factory(task, sink=...)``) to keep the states
and actions of every episode as well. It passes every call through unchanged, so the engine
computes exactly what it computes on the bare environment (tested).
"""

from __future__ import annotations

import numpy as np

from . import tasks


class RecordingEnv:
    """A batch environment that remembers every episode it plays (states and actions).

    Wraps :class:`ftd_lib.envs.mountain_car.MountainCarBatch` or
    :class:`ftd_lib.envs.cartpole.CartPoleBatch` and passes every call through unchanged, so
    the engine computes exactly what it computes on the bare environment (tested). After the
    run, ``episodes[r][k]`` is episode ``k`` of run ``r`` (a run id; the engine may hand a
    row from one run to the next, :meth:`assign`): a dict with ``states`` ``(T + 1, d)`` raw
    states (the start state first), ``actions`` ``(T,)``, and ``end``: ``"terminal"``,
    ``"truncated"`` or ``None`` (cut short: the run ended or diverged mid-episode).
    """

    def __init__(self, inner):
        self.inner = inner
        self.n_actions = inner.n_actions
        self.obs_dim = inner.obs_dim
        self.max_steps = inner.max_steps
        self.episodes: dict[int, list] = {}
        self._states = [None] * inner.n_runs
        self._actions = [None] * inner.n_runs

    @classmethod
    def factory(cls, task: str, max_steps: int | None = None, sink: list | None = None):
        """A factory ``env(seed, run_ids)`` for :func:`ftd_lib.engine.run_control` of the task
        ``task`` (:mod:`ftd_lib.envs.tasks`), episodes capped at ``max_steps`` (default: the
        task's cap); each env it makes is appended to ``sink``."""
        t = tasks.task(task)
        cap = t.max_steps if max_steps is None else int(max_steps)

        def make(seed, run_ids):
            env = cls(t.batch_cls(seed, run_ids, max_steps=cap))
            if sink is not None:
                sink.append(env)
            return env

        return make

    @property
    def state(self):
        return self.inner.state

    @property
    def run_ids(self):
        return self.inner.run_ids

    def assign(self, rows, run_ids) -> None:
        """Rows ``rows`` go to the runs ``run_ids``: their open episodes end there."""
        for b in np.asarray(rows, dtype=np.int64).reshape(-1):
            self._close(b, None)
        self.inner.assign(rows, run_ids)

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
        if self._states[b] is not None and (self._actions[b] or end is not None):
            run = int(self.inner.run_ids[b])
            self.episodes.setdefault(run, []).append(
                dict(states=np.array(self._states[b]),
                     actions=np.array(self._actions[b], dtype=np.int64), end=end))
        self._states[b] = None  # (a reset that no step followed is not an episode)

    def finish(self):
        """Store the episodes still open (a run that diverged mid-episode)."""
        for b in range(self.inner.n_runs):
            self._close(b, None)
