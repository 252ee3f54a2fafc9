r"""Batched prediction: TD(0), TD(:math:`\lambda`), forward TD(:math:`\lambda`), online and
offline :math:`\lambda`-return algorithms, for many runs and settings at once.

Schedule
--------
Each row (one run) is a small state machine; every iteration of the batch loop, every row
does one *unit of work*, whatever the other rows do, so no row ever waits for another:

- ``STEP``: one environment step -- the value of the next state (slot A) and, if the method
  updates now, the value, gradient and update of the state being updated (slot B);
- ``FLUSH`` (forward TD, after the episode's last step): popped updates of the FIFO;
- ``REPLAY`` (:math:`\lambda`-return algorithms): one replayed update.

Forward TD(:math:`\lambda`) keeps both slots busy so that a row needs about one iteration
per step for *any* K (its total work is TD(0)'s: T value evaluations and T updates an
episode, Sec. 5): during the first K-1 steps of an episode no update happens, so a row there
takes two environment steps per iteration (slot B evaluates the second one); during the
flush it pops two updates per iteration (slot A's update first, then slot B's at the updated
weights). Rows finish at different times; a finished or diverged row is ``DONE`` and idles
(its lanes are masked). Every branch of Algorithm 1 is a masked array op over the batch:
there is no per-row Python code in the loop.

Where things live
-----------------
The weights and all network arithmetic (forward pass, hand-written gradient, update) are
torch tensors on the chosen device, parameter-major ``(P, B)`` (see :mod:`._net`). The
per-row scalars of the algorithms (``U, U_sync, c, i, ready``, FIFO pointers, the FIFO itself,
the interim returns of the :math:`\lambda`-return algorithms) are numpy arrays on the host, in
the same dtype: at these sizes a numpy op costs less than a torch op, and there are dozens of
them per iteration. On the CPU both share memory (no copies).

Exactness
---------
Every row reproduces the per-run reference (:mod:`ftd_lib.algorithms`) on the same episodes
to rounding (tested to 1e-10 in float64), and its numbers are bit for bit the same in any
batch (fixed-order sums, see :mod:`._net`).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ._net import BatchedMLP, HostDeviceMixin
from .prediction_forward import ForwardTDLoop
from .prediction_lambda_return import LambdaReturnLoop
from .results import PredictionResult
from .schedule import DONE, STEP
from .settings import Settings

#: the batch's implementation of each prediction method: (loop, its argument); a lookup,
#: so an unknown method raises
LOOPS = {"td0": ("_loop_td", False), "td_lambda": ("_loop_td", True),
         "forward_td_lambda": ("_loop_forward", None),
         "online_lambda_return": ("_loop_lambda_return", True),
         "offline_lambda_return": ("_loop_lambda_return", False),
         "block_lambda_return": ("_loop_block", None)}
PREDICTION_METHODS = tuple(LOOPS)

NP_DTYPE = {torch.float64: np.float64, torch.float32: np.float32}


class Evaluator:
    """RMS error over a fixed sample of states with exact true values (paper Fig. 3)."""

    def __init__(self, states, true_values, *, device="cpu", dtype=torch.float64):
        self.X = torch.as_tensor(np.asarray(states, dtype=np.float64)).to(device, dtype)
        self.v_np = np.asarray(true_values, dtype=NP_DTYPE[dtype])
        if self.X.ndim != 2 or self.v_np.shape != (self.X.shape[0],):
            raise ValueError("evaluation states must be (N, n) with true values (N,)")

    def rms(self, net: BatchedMLP, th: torch.Tensor) -> np.ndarray:
        """RMS error of every network (column of ``th``): ``(M,)`` float64 numpy; non-finite
        where diverged. Each column's error is independent of the others (same bits in any
        batch)."""
        out = []
        v = self.v_np[:, None]
        for s in range(0, th.shape[1], 64):  # bound the (N, H, 64) temporary
            err = (net.value_many(th[:, s : s + 64], self.X) - v) ** 2  # (N, m)
            m = err.shape[1]
            if m == 1:  # the mean over states must not run along the contiguous axis
                err = np.repeat(err, 2, axis=1)
            out.append(np.sqrt(err.mean(0))[:m])
        return np.concatenate(out).astype(np.float64) if out else np.zeros(0)


class PredictionBatch(ForwardTDLoop, LambdaReturnLoop, HostDeviceMixin):
    """One batch of prediction runs; :meth:`run` does everything (see module docstring)."""

    def __init__(self, method, settings: Settings, w0, source, *, n_hidden=50, device="cpu",
                 dtype=torch.float64, evaluator: Evaluator | None = None,
                 record_weights=False, div_bound=1e6, progress=False, tanh="auto",
                 double_steps=True, double_pops=True):
        if method not in PREDICTION_METHODS:
            raise ValueError(f"method must be one of {PREDICTION_METHODS}, got {method!r}")
        if dtype not in NP_DTYPE:
            raise ValueError(f"dtype must be torch.float64 or torch.float32, got {dtype!r}")
        self.method = method
        self.B = B = source.B
        if len(settings) != B:
            raise ValueError(f"settings has {len(settings)} rows, the source {B}")
        self.settings = settings
        self.src = source
        self.dev = dev = torch.device(device)
        self.dt = dt = dtype
        self.npdt = npdt = NP_DTYPE[dtype]
        self.net = net = BatchedMLP(source.n_in, n_hidden, device=dev, dtype=dt, tanh=tanh)
        w0 = np.asarray(w0, dtype=np.float64)
        if w0.ndim == 1:
            w0 = np.broadcast_to(w0, (B, w0.shape[0]))
        if w0.shape != (B, net.n_params):
            raise ValueError(f"w0 must have shape ({B}, {net.n_params}), got {w0.shape}")
        if not np.all(np.isfinite(w0)):
            raise ValueError("w0 must be finite")
        self.th = net.to_internal(w0)  # (P, B)
        self.P = net.n_params
        self.alpha = settings.alpha.astype(npdt)
        self.gamma = settings.gamma.astype(npdt)
        self.lam = settings.lam.astype(npdt)
        self.gl = (settings.gamma * settings.lam).astype(npdt)
        self.evaluator = evaluator
        self.div_bound = float(div_bound)
        self.progress = progress

        self.n_ep = source.n_episodes.astype(np.int64)
        self.max_ep = int(self.n_ep.max()) if B else 0
        self.ep_count = np.zeros(B, dtype=np.int64)
        self.mode = np.where(self.n_ep > 0, STEP, DONE).astype(np.int8)
        self.diverged = np.zeros(B, dtype=bool)
        self.diverged_at = np.full(B, -1, dtype=np.int64)
        self.n_running = int(np.sum(self.n_ep > 0))
        self.n_steps = np.zeros(B, dtype=np.int64)
        self.iterations = 0

        self.errors = self.err0 = None
        if evaluator is not None:
            self.err0 = evaluator.rms(net, self.th)
            self.errors = np.full((B, self.max_ep), np.nan)
        self.record_weights = record_weights
        if record_weights:
            L = int(np.max(source.n_steps)) if B else 0
            self.rec_L = max(L, 1)
            self.rec = torch.full((self.P, B * self.rec_L), math.nan, device=dev, dtype=dt)
            self.rec_n = np.zeros(B, dtype=np.int64)
            self.rec_base = np.arange(B) * self.rec_L
        self._pbar = None
        self._traces = []  # per-method tensors to clear when a row diverges
        self.frozen_now = False  # a row was frozen (diverged) in this iteration
        # forward TD's schedule (see _loop_forward): double steps in the update-free phase,
        # double pops in the flush; either can be switched off (the results do not change)
        self.double_steps = bool(double_steps)
        self.double_pops = bool(double_pops)

    # ------------------------------------------------------------------ helpers
    def _cols(self, idx):
        return torch.as_tensor(np.asarray(idx, dtype=np.int64), device=self.dev)

    def _record(self, tick):
        if not self.record_weights:
            return
        idx = np.flatnonzero(tick)
        if idx.size:
            self.rec.index_copy_(1, self._cols(self.rec_base[idx] + self.rec_n[idx]),
                                 self.th.index_select(1, self._cols(idx)))
            self.rec_n[idx] += 1

    def _check_values(self, v, rows=None):
        """Divergence: a non-finite or too large value ``v`` of a running row (``rows``: the
        row of each entry of ``v``, default all rows)."""
        bad = ~(np.abs(v) <= self.div_bound)
        if rows is None:
            bad &= self.mode != DONE
            if bad.any():
                self._diverge(np.flatnonzero(bad))
        elif bad.any():
            self._diverge(rows[bad])

    def _diverge(self, ii):
        """Freeze rows ``ii``: report them as diverged and zero their weights and traces so
        that no inf/nan is carried further."""
        ii = np.asarray(ii)[~self.diverged[ii]]
        if not len(ii):
            return
        self.diverged[ii] = True
        self.diverged_at[ii] = self.ep_count[ii]
        if self.errors is not None:
            for b in ii:
                self.errors[b, self.ep_count[b] : self.n_ep[b]] = math.inf
        self.n_running -= int(np.sum(self.mode[ii] != DONE))
        self.mode[ii] = DONE
        self.frozen_now = True
        cols = self._cols(ii)
        self.th[:, cols] = 0.0
        for t in self._traces:
            t[:, cols] = 0.0
        if self._pbar is not None:
            self._pbar.update(int((self.n_ep[ii] - self.ep_count[ii]).sum()))

    def _complete(self, comp):
        """Rows in bool array ``comp`` finished an episode (after any flush). Records the
        error (a row whose weights or error are not finite, or beyond the bound, diverged in
        this episode), counts the episode, marks rows that ran all their episodes DONE.
        Returns the indices of the rows that go on normally (not diverged)."""
        ii = np.flatnonzero(comp)
        th = self.th.index_select(1, self._cols(ii))
        bad = ~(self._n(th.abs().amax(0).double()) <= self.div_bound)
        if self.evaluator is not None:
            err = self.evaluator.rms(self.net, th)
            bad |= ~np.isfinite(err)
        if bad.any():
            self._diverge(ii[bad])
            ii = ii[~bad]
            if self.evaluator is not None:
                err = err[~bad]
        if self.evaluator is not None:
            self.errors[ii, self.ep_count[ii]] = err / self.err0[ii]
        self.ep_count[ii] += 1
        fin = ii[self.ep_count[ii] >= self.n_ep[ii]]
        self.mode[fin] = DONE
        self.n_running -= len(fin)
        if self._pbar is not None:
            self._pbar.update(len(ii))
        return ii

    # ---------------------------------------------------------------------- run
    def run(self) -> PredictionResult:
        if self.progress:
            from tqdm.auto import tqdm

            self._pbar = tqdm(total=int(self.n_ep.sum()), desc=self.method, unit="ep")
        try:
            # inf/nan of a diverging row must not print warnings: it is detected and frozen
            with torch.no_grad(), np.errstate(all="ignore"):
                loop, arg = LOOPS[self.method]
                getattr(self, loop)(*(() if arg is None else (arg,)))
        finally:
            if self._pbar is not None:
                self._pbar.close()
        weights = None
        if self.record_weights:
            rec = self.net.to_external(self.rec).reshape(self.B, self.rec_L, self.P)
            weights = [rec[b, : self.src.n_steps[b]] for b in range(self.B)]
        return PredictionResult(
            curves=self.errors, initial_error=self.err0, diverged=self.diverged.copy(),
            diverged_at=self.diverged_at.copy(), weights=weights,
            final_weights=self.net.to_external(self.th), n_steps=self.n_steps.copy(),
            iterations=self.iterations, method=self.method, settings=self.settings)

    # ------------------------------------------------------------ TD(0), TD(λ)
    def _loop_td(self, traces: bool):
        r"""TD(0) and TD(:math:`\lambda`) with accumulating traces (Sec. 3), one step an
        iteration:
        :math:`\delta = R + \gamma\hat V(S'|\theta) - \hat V(S|\theta)`,
        :math:`e \leftarrow \gamma\lambda e + \nabla\hat V(S|\theta)`,
        :math:`\theta \leftarrow \theta + \alpha\delta e` (TD(0): :math:`e = \nabla\hat V`)."""
        net, th, src = self.net, self.th, self.src
        Vw, wA, wB = net.views(th), net.work(self.B), net.work(self.B)
        if traces:
            g = torch.zeros_like(th)
            Gv = net.views(g)
            e = torch.zeros_like(th)
            self._traces = [e]
            gl = self._t(self.gl.copy())
        alpha, gamma = self.alpha, self.gamma
        while self.n_running:
            self.iterations += 1
            step = self.mode == STEP
            x, r, xn, end = src.next(step)
            v_next = net.value(Vw, self._t(xn), wA)
            v_next[end] = 0.0
            xt = self._t(x)
            v = net.value(Vw, xt, wB)
            delta = r + gamma * v_next - v
            coef = np.where(step, alpha * delta, 0.0).astype(self.npdt, copy=False)
            if traces:
                net.grad_into(Gv, Vw, xt, wB)
                torch.addcmul(g, e, gl, out=e)  # e = gamma lambda e + grad
                th.addcmul_(e, self._t(coef))
            else:
                self._upd(Vw, x, wB, coef)
            self.n_steps += step
            self._record(step)
            self._check_values(np.maximum(np.abs(v_next), np.abs(v)))
            comp = step & end & (self.mode != DONE)  # not a row frozen just now
            if comp.any():
                ii = self._complete(comp)
                if traces:
                    e[:, self._cols(ii)] = 0.0

    def _loop_block(self):
        r"""The block :math:`\lambda`-return method, GAE targets, one SGD pass (:mod:`.block`)."""
        from .block import loop_block

        loop_block(self)
