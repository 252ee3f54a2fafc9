r"""Batched control: Sarsa(:math:`\lambda`) and forward Sarsa(:math:`\lambda`) (paper Sec. 6,
Fig. 4), one network per action, :math:`\epsilon`-greedy, on a batch that is always full.
This batch serves CUDA, float32 and any environment with the batched interface; on the CPU
in float64 the paper's tasks run through the compiled per-run kernel (:mod:`.kernel`).

A full batch
------------
The batch has a fixed width ``W`` and works through a queue of tasks, one task = one run
(its settings row and its run id): the moment a row's run ends (all its episodes done, or
diverged) the row takes the next task -- its initial weights, settings, fresh random streams
of its run id, a reset -- in the same iteration, so only the final tail has idle rows. A
run's numbers do not depend on the width, on the tasks beside it or on its row: every row's
arithmetic is independent of the others (:mod:`._net`) and its random numbers come from its
run's own streams (:class:`ftd_lib.rng.RunStreams`). ``utilisation`` = run-steps /
(iterations x W).

Layout
------
Every row has A networks, the columns ``b, W+b, .., (A-1)W+b`` of a parameter-major
``(P, A*W)`` weight tensor (:mod:`._net`). An iteration of a row takes its action, observes
:math:`R, S'`, evaluates :math:`\hat Q(S', \cdot|\theta)` (one pass over the full tensor),
chooses :math:`A'` and updates the network of the state-action pair it updates: with the
coefficient masked to that network in one full pass when more than a share
:data:`.control_forward.MASKED_SHARE` of the rows update, else on a gathered sub-batch (both
give the same numbers). An episode's end resets the row at once (its first action chosen on
a sub-batch of the rows that restart). The methods' iterations: :mod:`.control_sarsa`,
:mod:`.control_forward`.

Time limits
-----------
An episode cap ends an episode because of time, which the network does not see.
``truncation="bootstrap"`` (the default; Pardo et al. 2018) treats the last state as
non-terminal: :math:`A'` is chosen there and the last target bootstraps from
:math:`\hat Q(S', A'|\theta)`; ``"terminal"`` treats the cap like termination.

:math:`\epsilon`-greedy: two uniform draws per choice from the run's own stream
``AGENT_STREAM``: if the first is below :math:`\epsilon` the action is
``floor(A * second)``, else the greedy action, ties broken towards the lowest action index
(:func:`ftd_lib.algorithms.epsilon_greedy`).
"""

from __future__ import annotations

import time

import numpy as np
import torch

from ..rng import RunStreams
from ._net import BatchedMLP, HostDeviceMixin
from .control_forward import ForwardSarsaIteration
from .control_sarsa import SarsaIteration
from .prediction import NP_DTYPE
from .results import ControlResult
from .schedule import DONE, STEP, algorithm1_constants, episode_cap

#: the batch's implementation of each control method (a lookup: an unknown method raises)
ITERATIONS = {"sarsa_lambda": "_iteration_sarsa", "forward_sarsa_lambda": "_iteration_forward"}
TRUNCATIONS = ("bootstrap", "terminal")
REPACK = 0.75  # in the final tail, drop the idle rows once fewer than this share run
BUCKET = 64  # sub-batches are rounded up to a multiple of this many columns
RESCALE = {np.float64: 1e-60, np.float32: 1e-8}  # renormalise scaled traces below this s


class ControlBatch(SarsaIteration, ForwardSarsaIteration, HostDeviceMixin):
    """A queue of control runs on a batch of ``width`` rows (see the module docstring).

    ``env``: the batched environment of the first ``width`` tasks (rows); it must have
    ``assign(rows, run_ids)`` (each row's random streams start afresh when it takes a run).
    ``init(tasks)`` returns the initial weights ``(m, A, P)`` (reference layout) of tasks.
    """

    def __init__(self, method, settings, env, n_episodes: int, *, seed: int, run_ids,
                 agent_stream: int, init, epsilon=0.05, n_hidden=50, device="cpu",
                 dtype=torch.float64, div_bound=1e6, progress=False, truncation="bootstrap",
                 flush_pops=4, tanh="auto", activation="tanh"):
        if method not in ITERATIONS:
            raise ValueError(f"the batched engine runs the methods {tuple(ITERATIONS)}, got "
                             f"{method!r}")
        if dtype not in NP_DTYPE:
            raise ValueError(f"dtype must be torch.float64 or torch.float32, got {dtype!r}")
        if truncation not in TRUNCATIONS:
            raise ValueError(f"truncation must be one of {TRUNCATIONS}, got {truncation!r}")
        eps = float(epsilon)
        if not 0.0 <= eps <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        self.method, self.settings, self.env, self.eps = method, settings, env, eps
        self.bootstrap = truncation == "bootstrap"
        self.truncation = truncation
        self.dev = dev = torch.device(device)
        self.dt = dt = dtype
        self.npdt = npdt = NP_DTYPE[dtype]
        self.run_ids = np.asarray(run_ids, dtype=np.int64).reshape(-1)
        self.N = N = len(self.run_ids)
        if len(settings) != N:
            raise ValueError(f"settings has {len(settings)} rows, run_ids {N}")
        obs = np.asarray(env.reset(), dtype=np.float64)
        self.W, self.n_in = W, n = obs.shape
        if W > N:
            raise ValueError(f"the env has {W} rows, more than the {N} tasks")
        if not hasattr(env, "assign"):
            raise ValueError("a control env needs assign(rows, run_ids): see ftd_lib.envs.batch")
        self.A = A = int(env.n_actions)
        self.net = net = BatchedMLP(n, n_hidden, device=dev, dtype=dt, tanh=tanh,
                                    activation=activation)
        self.P = P = net.n_params
        self.init = init
        self.n_ep = int(n_episodes)
        self.t_cap = episode_cap(env)
        self.streams = RunStreams(seed, self.run_ids[:W], stream=agent_stream, kind="uniform")
        self.div_bound = float(div_bound)
        self.progress = progress
        self.rescale = RESCALE[npdt]
        self.flush_pops = int(flush_pops)
        if self.flush_pops < 1:
            raise ValueError(f"flush_pops must be an integer >= 1, got {flush_pops!r}")

        # per task: settings and Algorithm 1's constants
        gam, lam = settings.gamma, settings.lam
        K, c_final, gl_div, ring = algorithm1_constants(settings, self.t_cap, npdt)
        self.task_cols = dict(alpha=settings.alpha.astype(npdt), gamma=gam.astype(npdt),
                              gl=(gam * lam).astype(npdt), g1l=(gam * (1 - lam)).astype(npdt),
                              Km1=K - 1, c_final=c_final, gl_div=gl_div)
        self.R = R = int(ring.max()) if method == "forward_sarsa_lambda" else 1
        # per row: the same columns for the task each row holds
        self.cols = {k: np.zeros(W, dtype=v.dtype) for k, v in self.task_cols.items()}
        self.task = np.full(W, -1, dtype=np.int64)
        self.next_task = 0

        # results, per task
        self.returns = np.full((N, self.n_ep), np.nan)
        self.lengths = np.full((N, self.n_ep), -1, dtype=np.int64)
        self.diverged = np.zeros(N, dtype=bool)
        self.diverged_at = np.full(N, -1, dtype=np.int64)
        self.final_w = np.zeros((N, A, P))
        self.task_steps = np.zeros(N, dtype=np.int64)

        # per row
        self.th = torch.zeros(P, A * W, device=dev, dtype=dt)
        self.views = net.views(self.th)
        self.work_q = net.work(A * W)
        self.work_p = net.work(A * W)  # second full-width pass (the updated state)
        self._scratch = {}  # sub-batch buffers by size (see _gather)
        self._grads = {}  # and gradient buffers
        self.S = np.ones((n + 1, W), dtype=npdt)  # [phi(S); 1]
        self.act = np.zeros(W, dtype=np.int64)
        self.mode = np.full(W, DONE, dtype=np.int8)
        self.ep_count = np.zeros(W, dtype=np.int64)
        self.ep_len = np.zeros(W, dtype=np.int64)
        self.ret = np.zeros(W)
        self.ar = np.arange(W)
        self.iterations = 0
        self.steps_total = 0
        self.queue_iterations = self.queue_steps = 0  # before the final tail
        self.queue_seconds = 0.0
        self.repacks = 0
        self.row_iterations = 0
        self.width0 = W
        self.n_running = 0
        self._pbar = None
        self.e = None  # Sarsa(lambda): scaled traces (P, A*W) and their scales s (W,)
        self.s = np.ones(W, dtype=npdt)
        self.e_keep = np.ones(W, dtype=npdt)  # 0: clear the row's traces at the next step
        if method == "forward_sarsa_lambda":
            self.ring = np.zeros((n + 3, W * R), dtype=npdt)  # columns: [phi(S); 1], A, rho
            self.base = self.ar * R
            self.alg = {k: np.zeros(W, dtype=npdt) for k in ("U", "U_sync", "V_cur", "c")}
            self.i = np.zeros(W, dtype=np.int64)
            self.p = np.zeros(W, dtype=np.int64)
            self.q = np.zeros(W, dtype=np.int64)
            self.ready = np.zeros(W, dtype=bool)
        else:
            self.e = torch.zeros(P, A * W, device=dev, dtype=dt)
            self.g = torch.zeros(P, A * W, device=dev, dtype=dt)  # masked gradients
            self.g_views = net.views(self.g)

    # ------------------------------------------------------------------ helpers
    def _ext(self, obs):
        xe = np.ones((self.n_in + 1, self.W), dtype=self.npdt)
        xe[: self.n_in] = np.asarray(obs).T
        return xe

    def _columns(self, rows, actions=None):
        """Weight columns of ``rows``: of their ``actions`` (one each), or of all A networks
        (action-major, ``(A*m,)``)."""
        rows = np.asarray(rows, dtype=np.int64)
        if actions is None:
            c = (np.arange(self.A)[:, None] * self.W + rows).ravel()
        else:
            c = np.asarray(actions, dtype=np.int64) * self.W + rows
        return torch.as_tensor(c, device=self.dev)

    def _choose(self, Q, choose):
        """Epsilon-greedy actions ``(W,)`` from ``Q`` ``(A, W)`` for rows in ``choose``."""
        u1 = self.streams.draw(choose)  # nan where not choosing (then: greedy, unused)
        u2 = self.streams.draw(choose)
        explore = u1 < self.eps
        greedy = Q.argmax(0)  # first maximal index: ties go to the lowest action
        rand = np.minimum((np.where(explore, u2, 0.0) * self.A).astype(np.int64), self.A - 1)
        return np.where(explore, rand, greedy)

    def _gather(self, idx):
        """The weight columns ``idx`` gathered into a scratch tensor: ``(sub, views, work,
        m)``; ``sub`` has room for ``m`` rounded up to :data:`BUCKET` columns (reused between
        iterations; the columns beyond ``m`` repeat the first and are never written back)."""
        m = len(idx)
        M = max(-(-m // BUCKET) * BUCKET, 2)
        got = self._scratch.get(M)
        if got is None:
            sub = torch.empty(self.P, M, device=self.dev, dtype=self.dt)
            got = self._scratch[M] = (sub, self.net.views(sub), self.net.work(M))
            self._grads[M] = torch.empty(self.P, M, device=self.dev, dtype=self.dt)
        sub = got[0]
        if M > m:
            idx = torch.cat([idx, idx[:1].expand(M - m)])
        torch.index_select(self.th, 1, idx, out=sub)
        return (*got, m)

    def _pad(self, a, M):
        """Host columns ``a`` (``(..., m)``) padded to ``M`` with copies of the first."""
        m = a.shape[-1]
        return a if M == m else np.concatenate([a, np.repeat(a[..., :1], M - m, -1)], -1)

    # --------------------------------------------------------- the task queue
    def _load(self, rows):
        """Rows ``rows`` (a prefix of the queue's length) take the next tasks."""
        m = min(len(rows), self.N - self.next_task)
        rows = rows[:m]
        if not m:
            return rows
        tasks = np.arange(self.next_task, self.next_task + m)
        self.next_task += m
        self.task[rows] = tasks
        for k, v in self.task_cols.items():
            self.cols[k][rows] = v[tasks]
        rid = self.run_ids[tasks]
        self.env.assign(rows, rid)  # fresh streams: as if the run had the row from the start
        self.streams.assign(rows, rid)
        w0 = np.asarray(self.init(tasks), dtype=np.float64).reshape(m, self.A, self.P)
        self.th.index_copy_(1, self._columns(rows), self.net.to_internal(
            w0.transpose(1, 0, 2).reshape(self.A * m, self.P)))
        self.mode[rows] = STEP
        self.ep_count[rows] = 0
        self.n_running += m
        return rows

    def _finish(self, rows):
        """The runs of ``rows`` ended: store their weights, take the next tasks."""
        t = self.task[rows]
        w = self.net.to_external(self.th.index_select(1, self._columns(rows)))
        self.final_w[t] = w.reshape(self.A, len(rows), self.P).transpose(1, 0, 2)
        self.task[rows] = -1
        self.mode[rows] = DONE
        self.n_running -= len(rows)
        return self._load(rows)

    def _restart(self, rows):
        """Start a new episode in ``rows``: reset, clear the per-episode state, choose
        :math:`A_0` from :math:`\\hat Q(S_0, \\cdot|\\theta)` (a sub-batch)."""
        if not len(rows):
            return
        mask = np.zeros(self.W, dtype=bool)
        mask[rows] = True
        obs = self._ext(self.env.reset(mask=mask))
        self.S[:, rows] = obs[:, rows]
        self.ret[rows] = 0.0
        self.ep_len[rows] = 0
        if self.e is not None:
            self.e_keep[rows] = 0.0  # e = 0: done by the next accumulation (see below)
            self.s[rows] = 1.0
        else:
            for v in self.alg.values():
                v[rows] = 0.0
            self.alg["c"][rows] = 1.0
            self.i[rows] = self.p[rows] = self.q[rows] = 0
            self.ready[rows] = False
        self.mode[rows] = STEP
        m = len(rows)
        sub, V, w, _ = self._gather(self._columns(rows))
        x = self._pad(np.tile(obs[:, rows], self.A), sub.shape[1])
        q = self.net.value(V, self._t(x), w)[: self.A * m].reshape(self.A, m)
        ok = rows[~self._check_values(np.abs(q).max(0), rows)]
        Q = np.zeros((self.A, self.W))
        Q[:, rows] = q
        mask[:] = False
        mask[ok] = True
        self.act[ok] = self._choose(Q, mask)[ok]

    def _episode_end(self, rows):
        """Record the return and length of the episodes of ``rows`` that ended."""
        t = self.task[rows]
        self.returns[t, self.ep_count[rows]] = self.ret[rows]
        self.lengths[t, self.ep_count[rows]] = self.ep_len[rows]

    def _complete(self, rows):
        """``rows`` finished an episode (its flush included): count it; rows whose run is
        done take the next task; all start an episode."""
        self.ep_count[rows] += 1
        if self._pbar is not None:
            self._pbar.update(len(rows))
        fin = self.ep_count[rows] >= self.n_ep
        new = self._finish(rows[fin]) if fin.any() else rows[:0]
        self._restart(np.concatenate([rows[~fin], new]))

    def _check_values(self, v, rows=None):
        """Divergence: rows (all, or ``rows``) whose value ``v`` is non-finite or beyond the
        bound are frozen (``DONE``), recorded as diverged, and replaced by the next task at the
        end of the iteration (:meth:`_replace_diverged`). Returns the bad entries (bool)."""
        rows = self.ar if rows is None else np.asarray(rows)
        bad = ~(v <= self.div_bound) & (self.mode[rows] != DONE)
        if not bad.any():
            return bad
        ii = rows[bad]
        t = self.task[ii]
        self.diverged[t] = True
        self.diverged_at[t] = self.ep_count[ii]
        after = np.arange(self.n_ep) >= self.ep_count[ii][:, None]
        self.returns[t[:, None], np.arange(self.n_ep)] = np.where(after, np.nan, self.returns[t])
        # (an episode whose final flush diverged was recorded: its length goes too)
        self.lengths[t[:, None], np.arange(self.n_ep)] = np.where(after, -1, self.lengths[t])
        if self._pbar is not None:
            self._pbar.update(int((self.n_ep - self.ep_count[ii]).sum()))
        cols = self._columns(ii)
        self.th[:, cols] = 0.0
        if self.e is not None:
            self.e[:, cols] = 0.0
        self.mode[ii] = DONE
        self._dead.append(ii)
        return bad

    # ---------------------------------------------------------------------- run
    def run(self) -> ControlResult:
        if self.progress:
            from tqdm.auto import tqdm

            self._pbar = tqdm(total=self.N * self.n_ep, desc=self.method, unit="ep")
        self._dead = []
        try:
            with torch.no_grad(), np.errstate(all="ignore"):
                if self.n_ep > 0:
                    t0 = time.perf_counter()
                    self._restart(self._load(self.ar))
                    self._replace_diverged()
                    loop = getattr(self, ITERATIONS[self.method])
                    while self.n_running:
                        self.iterations += 1
                        self.row_iterations += self.W
                        if self.next_task < self.N:  # the queue is not empty yet
                            self.queue_iterations += self.W
                            self.queue_steps = self.steps_total
                            self.queue_seconds = time.perf_counter() - t0
                        loop()
                        self._replace_diverged()
                        if (self.next_task >= self.N and self.n_running < REPACK * self.W
                                and hasattr(self.env, "take")):
                            self._repack(np.flatnonzero(self.mode != DONE))
        finally:
            if self._pbar is not None:
                self._pbar.close()
        return ControlResult(curves=self.returns, lengths=self.lengths,
                             diverged=self.diverged.copy(), diverged_at=self.diverged_at.copy(),
                             final_weights=self.final_w, n_steps=self.task_steps,
                             iterations=self.iterations, width=self.width0,
                             repacks=self.repacks,
                             utilisation=self.steps_total / max(self.row_iterations, 1),
                             utilisation_before_tail=self.queue_steps / max(
                                 self.queue_iterations, 1),
                             steps_before_tail=self.queue_steps,
                             seconds_before_tail=self.queue_seconds,
                             method=self.method, settings=self.settings,
                             truncation=self.truncation, engine="batch")

    def _repack(self, rows):
        """Keep only the rows ``rows`` (the final tail: no task is waiting, and idle rows would
        still cost full-width work). Every per-row structure -- weights, traces, FIFOs,
        bookkeeping, the environment and the random streams -- is cut to those rows; each
        kept run goes on exactly where it was."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = self._columns(rows)
        self.th = self.th.index_select(1, cols)
        if self.e is not None:
            self.e = self.e.index_select(1, cols)
        else:
            n3, R = self.ring.shape[0], self.R
            self.ring = np.ascontiguousarray(
                self.ring.reshape(n3, self.W, R)[:, rows].reshape(n3, len(rows) * R))
            for k in self.alg:
                self.alg[k] = self.alg[k][rows]
            self.i, self.p, self.q = self.i[rows], self.p[rows], self.q[rows]
            self.ready = self.ready[rows]
        self.S = np.ascontiguousarray(self.S[:, rows])
        for name in ("act", "mode", "ep_count", "ep_len", "ret", "task", "s", "e_keep"):
            setattr(self, name, getattr(self, name)[rows])
        for k in self.cols:
            self.cols[k] = self.cols[k][rows]
        self.env.take(rows)
        self.streams.take(rows)
        self.W = W = len(rows)
        self.ar = np.arange(W)
        if self.e is None:
            self.base = self.ar * self.R
        self.views = self.net.views(self.th)
        self.work_q = self.net.work(self.A * W)
        self.work_p = self.net.work(self.A * W)
        if self.e is not None:
            self.g = torch.zeros_like(self.e)
            self.g_views = self.net.views(self.g)
        self._scratch, self._grads = {}, {}
        self.repacks += 1

    def _replace_diverged(self):
        """Rows whose run diverged store it and take the next task (which starts at once)."""
        while self._dead:
            rows = np.concatenate(self._dead)
            self._dead = []
            self._restart(self._finish(rows))

    def _env_step(self, step):
        """Step the rows in ``step``: ``(xn, r, end, choose)`` -- the next states (extended),
        rewards, episode ends, and the rows that choose :math:`A'` at :math:`S'` (all that go
        on, and with ``bootstrap`` the truncated ones too)."""
        obs, rew, term, trunc = self.env.step(self.act, active=step)
        r = np.where(step, np.asarray(rew, dtype=np.float64), 0.0)
        term = np.asarray(term) & step
        trunc = np.asarray(trunc) & step
        end = term | trunc
        self.ret += r
        self.ep_len += step
        self.steps_total += int(step.sum())
        self.task_steps[self.task[step]] += 1  # (a task is in one row at most)
        choose = step & ~term if self.bootstrap else step & ~end
        return self._ext(obs), r.astype(self.npdt), end, choose

    def _q_next(self, xn, choose):
        """:math:`\\hat Q(S', \\cdot|\\theta)` of every row (all A networks, one pass over the
        full tensor) and :math:`A'` for the rows in ``choose``."""
        W, A = self.W, self.A
        Q = self.net.value(self.views, self._t(np.tile(xn, A)), self.work_q).reshape(A, W)
        a_new = self._choose(Q, choose)
        return Q, a_new, np.where(choose, Q[a_new, self.ar], 0.0)
