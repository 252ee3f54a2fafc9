"""Where the transitions of a prediction batch come from: recorded episodes or a live env.

A source serves ``B`` rows. Each call of :meth:`next` gives, for the rows in ``step`` (a bool
numpy array ``(B,)``), one transition ``(x, r, xn, end)`` as numpy arrays, feature-major and
with a row of ones appended (the network's bias input): features of the current state
:math:`[\\phi(S_t); 1]` ``(n+1, B)``, reward :math:`R_{t+1}` ``(B,)``, features of the next
state :math:`[\\phi(S_{t+1}); 1]` ``(n+1, B)`` and ``end`` ``(B,)`` bool (the
episode ended: termination or truncation, after which the value is 0 -- our documented choice
for truncation). Rows not in ``step`` get arbitrary finite values and do not advance. After a
row's episode ended its next transition is the first of its next episode.

Attributes: ``B``, ``n_in``, ``t_cap`` (no episode is longer), ``n_episodes`` (int array
``(B,)``: how many episodes each row runs).
"""

from __future__ import annotations

import numpy as np

from .schedule import episode_cap


class RecordedSource:
    """Recorded episodes, one list per row (the per-run reference's format)."""

    def __init__(self, episodes_per_row, n_in: int, dtype=np.float64):
        self.B = len(episodes_per_row)
        self.n_in = n = int(n_in)
        lengths = [[len(r) for _, r in eps] for eps in episodes_per_row]
        self.n_episodes = np.array([len(ls) for ls in lengths], dtype=np.int64)
        self.n_steps = np.array([sum(ls) for ls in lengths], dtype=np.int64)
        self.t_cap = max((max(ls) for ls in lengths if ls), default=1)
        L = int(self.n_steps.max()) + 1 if self.B else 1  # + 1 padding transition
        tr = np.zeros((2 * n + 4, self.B, L))  # rows: x, 1, x', 1, r, end
        tr[n] = tr[2 * n + 1] = 1.0
        for b, eps in enumerate(episodes_per_row):
            pos = 0
            for x, r in eps:
                x = np.asarray(x, dtype=np.float64)
                T = len(r)
                tr[:n, b, pos : pos + T] = x[:-1].T
                tr[n + 1 : 2 * n + 1, b, pos : pos + T] = x[1:].T
                tr[2 * n + 2, b, pos : pos + T] = r
                tr[2 * n + 3, b, pos + T - 1] = 1.0
                pos += T
        self.L = L
        self.tr = tr.reshape(2 * n + 4, self.B * L).astype(dtype)
        self.base = np.arange(self.B) * L
        self.pos = np.zeros(self.B, dtype=np.int64)

    def next(self, step):
        n = self.n_in
        item = np.take(self.tr, self.base + self.pos, axis=1)
        self.pos += step
        return item[: n + 1], item[2 * n + 2], item[n + 1 : 2 * n + 2], item[2 * n + 3] > 0.5


class EnvSource:
    """A live, vectorised prediction environment (policy inside the env, e.g.
    :class:`ftd_lib.envs.mountain_car.MountainCarEvaluation`).

    The env must have ``reset(mask=None) -> obs (B, n)`` and
    ``step(active=None) -> (obs, reward, terminal, truncated)``; a row is reset as soon as its
    episode ends (its random stream is its own, so when does not matter), unless it has run
    all its ``n_episodes``.
    """

    def __init__(self, env, n_episodes: int, dtype=np.float64):
        self.env = env
        obs = np.asarray(env.reset(), dtype=np.float64)
        self.B, self.n_in = obs.shape
        self.t_cap = episode_cap(env)
        self.n_episodes = np.full(self.B, int(n_episodes), dtype=np.int64)
        self.ended = np.zeros(self.B, dtype=np.int64)
        self.dtype = dtype
        self.cur = self._ext(obs)

    def _ext(self, obs):
        xe = np.ones((self.n_in + 1, self.B), dtype=self.dtype)
        xe[: self.n_in] = np.asarray(obs).T
        return xe

    def next(self, step):
        obs, rew, term, trunc = self.env.step(active=step)
        xn = self._ext(obs)
        end = (np.asarray(term) | np.asarray(trunc)) & step
        r = np.where(step, np.asarray(rew, dtype=self.dtype), 0.0).astype(self.dtype, copy=False)
        x = self.cur
        cur = np.where(step, xn, x)
        if end.any():
            self.ended += end
            again = end & (self.ended < self.n_episodes)
            if again.any():
                cur = np.where(again, self._ext(self.env.reset(mask=again)), cur)
        self.cur = cur
        return x, r, xn, end
