"""Where the transitions of a prediction batch come from: recorded episodes or a live env.

A source serves ``B`` rows. Each call of :meth:`next` gives, for the rows in ``step`` (a bool
tensor ``(B,)``), one transition ``(x, r, xn, end)``: features of the current state
:math:`\\phi(S_t)` ``(B, n)``, reward :math:`R_{t+1}` ``(B,)``, features of the next state
:math:`\\phi(S_{t+1})` ``(B, n)`` and ``end`` ``(B,)`` (the episode ended: termination or
truncation, after which the value is 0 -- our documented choice for truncation). Rows not in
``step`` get arbitrary finite values and do not advance. After a row's episode ended its next
transition is the first of its next episode.

Attributes: ``B``, ``n_in``, ``t_cap`` (no episode is longer), ``n_episodes`` (numpy int
array ``(B,)``: how many episodes each row runs).
"""

from __future__ import annotations

import numpy as np
import torch


class RecordedSource:
    """Recorded episodes, one list per row (the per-run reference's format)."""

    def __init__(self, episodes_per_row, n_in: int, *, device="cpu", dtype=torch.float64):
        self.B = len(episodes_per_row)
        self.n_in = n = int(n_in)
        lengths = [[len(r) for _, r in eps] for eps in episodes_per_row]
        self.n_episodes = np.array([len(ls) for ls in lengths], dtype=np.int64)
        self.n_steps = np.array([sum(ls) for ls in lengths], dtype=np.int64)
        self.t_cap = max((max(ls) for ls in lengths if ls), default=1)
        L = int(self.n_steps.max()) + 1  # + 1 padding transition
        tr = np.zeros((self.B, L, 2 * n + 2))
        for b, eps in enumerate(episodes_per_row):
            pos = 0
            for x, r in eps:
                x = np.asarray(x, dtype=np.float64)
                T = len(r)
                tr[b, pos : pos + T, :n] = x[:-1]
                tr[b, pos : pos + T, n : 2 * n] = x[1:]
                tr[b, pos : pos + T, 2 * n] = r
                tr[b, pos + T - 1, 2 * n + 1] = 1.0
                pos += T
        self.L = L
        self.tr = torch.as_tensor(tr).to(device=device, dtype=dtype).view(self.B * L, -1)
        self.base = torch.arange(self.B, device=device) * L
        self.pos = torch.zeros(self.B, dtype=torch.long, device=device)

    def next(self, step):
        n = self.n_in
        item = self.tr.index_select(0, self.base + self.pos)
        self.pos += step
        return item[:, :n], item[:, 2 * n], item[:, n : 2 * n], item[:, 2 * n + 1] > 0.5


class EnvSource:
    """A live, vectorised prediction environment (policy inside the env, e.g.
    :class:`ftd_lib.envs.mountain_car.MountainCarEvaluation`).

    The env must have ``reset(mask=None) -> obs (B, n)`` and
    ``step(active=None) -> (obs, reward, terminal, truncated)``; a row is reset as soon as its
    episode ends (its random stream is its own, so when does not matter), unless it has run
    all its ``n_episodes``.
    """

    def __init__(self, env, n_episodes: int, *, device="cpu", dtype=torch.float64):
        self.env = env
        obs = np.asarray(env.reset(), dtype=np.float64)
        self.B, self.n_in = obs.shape
        self.t_cap = int(getattr(env, "max_steps", 10_000))
        self.n_episodes = np.full(self.B, int(n_episodes), dtype=np.int64)
        self.ended = np.zeros(self.B, dtype=np.int64)
        self.cur = obs.copy()
        self.buf = np.zeros((self.B, 2 * self.n_in + 2))
        self.device, self.dtype = device, dtype

    def next(self, step):
        n = self.n_in
        act = step.cpu().numpy()
        obs, rew, term, trunc = self.env.step(active=act)
        obs = np.asarray(obs, dtype=np.float64)
        end = (np.asarray(term) | np.asarray(trunc)) & act
        buf = self.buf
        buf[:, :n] = self.cur
        buf[:, n : 2 * n] = obs
        buf[:, 2 * n] = np.where(act, rew, 0.0)
        buf[:, 2 * n + 1] = end
        self.cur[act] = obs[act]
        if end.any():
            self.ended += end
            again = end & (self.ended < self.n_episodes)
            if again.any():
                obs0 = np.asarray(self.env.reset(mask=again), dtype=np.float64)
                self.cur[again] = obs0[again]
        item = torch.from_numpy(buf).to(device=self.device, dtype=self.dtype)
        return item[:, :n], item[:, 2 * n], item[:, n : 2 * n], item[:, 2 * n + 1] > 0.5
