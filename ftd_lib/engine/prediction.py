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
the same dtype: at these sizes a numpy op costs about 1 microsecond against 3-5 for a torch
op, and there are dozens of them per iteration. On the CPU both share memory (no copies).

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
from .schedule import DONE, FLUSH, STEP, algorithm1_constants
from .settings import Settings

PREDICTION_METHODS = ("td0", "td_lambda", "forward_td_lambda", "online_lambda_return",
                      "offline_lambda_return", "block_lambda_return")

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


class PredictionResult:
    """What a prediction batch returns.

    Attributes
    ----------
    errors : (B, n_episodes) float array or None
        RMS error at the end of every episode divided by the row's initial RMS error (that of
        :math:`\\theta_0`); ``inf`` from the episode in which a row diverged on.
    initial_error : (B,) float array or None
    diverged : (B,) bool array
    diverged_at : (B,) int array, the episode (0-based) in which a row diverged, -1 if never
    weights : list of B arrays ``(sum T, P)`` or None: :math:`\\theta` after every time step
        (reference layout), as the per-run reference returns it; ``nan`` after divergence.
    final_weights : (B, P) array, reference layout (zeros for diverged rows)
    n_steps : (B,) int array, environment steps taken
    iterations : int, batch iterations
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)


class PredictionBatch(HostDeviceMixin):
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
                if self.method in ("td0", "td_lambda"):
                    self._loop_td(self.method == "td_lambda")
                elif self.method == "forward_td_lambda":
                    self._loop_forward()
                elif self.method == "block_lambda_return":  # PPO's value update: .block
                    from .block import loop_block

                    loop_block(self)
                else:
                    self._loop_lambda_return(self.method == "online_lambda_return")
        finally:
            if self._pbar is not None:
                self._pbar.close()
        weights = None
        if self.record_weights:
            rec = self.net.to_external(self.rec).reshape(self.B, self.rec_L, self.P)
            weights = [rec[b, : self.src.n_steps[b]] for b in range(self.B)]
        return PredictionResult(
            errors=self.errors, initial_error=self.err0, diverged=self.diverged.copy(),
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

    # --------------------------------------------------------- forward TD(λ)
    def _loop_forward(self):
        r"""Forward TD(:math:`\lambda`), Algorithm 1, every row its own K (from
        :func:`ftd_lib.returns.k_bound`), its own FIFO (a ring buffer of the batch's largest
        K), its own ``U, U_sync, c, i, ready``.

        An iteration has two value slots: A evaluates :math:`\hat V(S'|\theta)` of a step,
        B the popped state of the step's update. Where one of them would idle, it does the
        row's next piece of work instead, so that a row needs about one iteration per step
        whatever K (the other rows never wait):

        - during the first K-1 steps of an episode no update happens, so the weights are the
          same for two consecutive steps: the row takes *two* environment steps, B evaluating
          the second one's :math:`\hat V(S''|\theta)`;
        - at the end of an episode the row pops (``FLUSH``) *two* updates an iteration, one
          in each slot (A's update first, B evaluates with the updated weights).
        """
        B, net, th, src, npdt = self.B, self.net, self.th, self.src, self.npdt
        n = net.n_in
        K_eff, c_final, gl_div, ring_len = algorithm1_constants(self.settings, int(src.t_cap),
                                                                npdt)
        R = int(ring_len.max()) if B else 1
        Km1 = K_eff - 1
        Km2 = K_eff - 2
        self.ring_size = R
        ring = np.zeros((n + 2, B * R), dtype=npdt)  # columns: <[phi(S); 1], rho>
        rows = list(ring)
        base = np.arange(B) * R
        U = np.zeros(B, dtype=npdt)
        U_sync, V_cur = U.copy(), U.copy()
        c = np.ones(B, dtype=npdt)
        i = np.zeros(B, dtype=np.int64)
        p, q = i.copy(), i.copy()
        ready = np.zeros(B, dtype=bool)
        Vw, wA, wB = net.views(th), net.work(B), net.work(B)
        alpha, gamma, gl = self.alpha, self.gamma, self.gl
        g1l = (self.settings.gamma * (1.0 - self.settings.lam)).astype(npdt)
        mode = self.mode
        rec = self.record_weights
        bound = self.div_bound
        while self.n_running:
            self.iterations += 1
            step = mode == STEP
            flush = mode == FLUSH
            n_flush = self.double_pops and flush.any()
            x, r, xn, end = src.next(step)
            # rows whose this and next step are both update-free take both now
            if self.double_steps:
                dbl = step & ~end & ~ready & (i < Km2)
                two = dbl.any()
            else:
                two = False
            if two:
                x2, r2, xn2, end2 = src.next(dbl)
            # ---- slot A: V(S'|theta) of the stepping rows; first pop of the flushing rows
            if n_flush:
                itA = np.take(ring, base + q % R, axis=1)
                xA = np.where(flush, itA[: n + 1], xn)
                vA = net.value(Vw, self._t(xA), wA)
                self._upd(Vw, xA, wA, np.where(flush, alpha * (U - vA), 0.0))
                q += flush
                U = np.where(flush, (U - itA[n + 1]) / gl_div, U)
            else:
                vA = net.value(Vw, self._t(xn), wA)
            # observe R, S'; V_next = V(S'|theta), 0 if S' is terminal
            v_next = np.where(step & ~end, vA, 0.0)
            # push <phi(S), rho>, rho = R + gamma (1 - lambda) V_next (a non-stepping row
            # writes into a slot it does not use)
            slot = base + p % R
            for j in range(n + 1):  # (1-d fancy sets are faster than one 2-d set)
                rows[j][slot] = x[j]
            rows[n + 1][slot] = r + g1l * v_next
            p += step
            # delta' = R + gamma V_next - V_current; V_current = V_next
            # (V_current, U_sync, i, c of a row that does not step are not read before its
            # episode's end resets them: no masks needed for them)
            d_prime = r + gamma * v_next - V_cur
            V_cur = v_next
            # if i = K - 1: U = U_sync; U_sync = V_current; i = 0; c = 1; ready = true
            # else:         U_sync += c delta'; i += 1; c *= gamma lambda
            sync = step & (i == Km1)
            U = np.where(sync, U_sync, U)
            U_sync = np.where(sync, V_cur, U_sync + c * d_prime)
            i += 1
            i[sync] = 0
            c = np.where(sync, 1.0, gl * c).astype(npdt, copy=False)
            ready |= sync
            # if ready: U += c_final delta'; pop <S_p, rho_p>; update theta; U = (U-rho_p)/gl
            step_upd = step & ready
            U = np.where(step_upd, U + c_final * d_prime, U)
            # ---- slot B: the step's pop, a flushing row's second pop, or V(S'') of a
            # double step
            upd = step_upd | (flush & (p > q))
            itB = np.take(ring, base + q % R, axis=1)
            xB = np.where(dbl, xn2, itB[: n + 1]) if two else itB[: n + 1]
            vB = net.value(Vw, self._t(xB), wB)
            self._upd(Vw, xB, wB, np.where(upd, alpha * (U - vB), 0.0))
            q += upd
            U = np.where(upd, (U - itB[n + 1]) / gl_div, U)
            # end of the episode: if not ready, U = U_sync; then flush the FIFO
            end_step = step & end
            U = np.where(end_step & ~ready, U_sync, U)
            self.n_steps += step
            if rec:
                self._record(step & ~end)
            if not max(np.abs(vA).max(), np.abs(vB).max()) <= bound:  # rare: find the rows
                self._check_values(np.maximum(np.abs(vA), np.abs(vB)))
            if two:
                # the second step of the double-stepping rows (no sync, no update possible)
                v2 = np.where(end2, 0.0, vB)
                slot = base + p % R
                for j in range(n + 1):
                    rows[j][slot] = x2[j]
                rows[n + 1][slot] = r2 + g1l * v2
                p += dbl
                d2 = r2 + gamma * v2 - V_cur
                V_cur = np.where(dbl, v2, V_cur)
                U_sync = np.where(dbl, U_sync + c * d2, U_sync)
                i += dbl
                c = np.where(dbl, gl * c, c).astype(npdt, copy=False)
                e2 = dbl & end2
                U = np.where(e2, U_sync, U)
                end_step |= e2
                self.n_steps += dbl
                if rec:
                    self._record(dbl & ~end2)
            empty = p == q
            if self.frozen_now:  # not a row frozen in this iteration
                end_step &= mode != DONE
                flush &= mode != DONE
                self.frozen_now = False
            mode[end_step & ~empty] = FLUSH
            comp = (end_step | flush) & empty
            if comp.any():
                if rec:
                    self._record(comp)
                ii = self._complete(comp)
                mode[ii[mode[ii] == FLUSH]] = STEP
                U[ii] = U_sync[ii] = V_cur[ii] = 0.0
                c[ii] = 1.0
                i[ii] = p[ii] = q[ii] = 0
                ready[ii] = False

    # ------------------------------------------------- online/offline λ-return
    def _loop_lambda_return(self, online: bool):
        r"""The online and offline :math:`\lambda`-return algorithms (Sec. 4, eq. 3).

        Every row keeps its episode's states and the interim returns
        :math:`G_k^{\lambda|t}` for all k < t, extended at every step by App. B's identity
        :math:`G_k^{\lambda|t+1} = G_k^{\lambda|t} + (\gamma\lambda)^{t-k}\delta'_t` and
        :math:`G_t^{\lambda|t+1} = R_{t+1} + \gamma\hat V(S_{t+1}|\theta_t)`. Online: after
        every step the row replays its episode from :math:`\theta_0`, one update an iteration
        (``REPLAY``), so a step at time t costs t iterations. Offline: the replay happens once,
        at the episode's end, with all values from :math:`\theta_0`."""
        B, net, th, src, npdt = self.B, self.net, self.th, self.src, self.npdt
        n = net.n_in
        Tc = int(src.t_cap)
        X = np.zeros((n + 1, B * Tc), dtype=npdt)
        G = np.zeros((B, Tc), dtype=npdt)
        Pw = np.zeros((B, Tc), dtype=npdt)  # (gamma lambda)^(t-1-k), k < t
        Gf = G.reshape(-1)
        base = np.arange(B) * Tc
        t = np.zeros(B, dtype=np.int64)
        k = np.zeros(B, dtype=np.int64)
        ended = np.zeros(B, dtype=bool)
        V_cur = np.zeros(B, dtype=npdt)
        th0 = th.clone()
        Vw, wB = net.views(th), net.work(B)
        alpha, gamma, gl = self.alpha, self.gamma, self.gl
        mode = self.mode
        REPLAY = FLUSH
        while self.n_running:
            self.iterations += 1
            step = mode == STEP
            x, r, xn, end = src.next(step)
            s = np.flatnonzero(step)
            if s.size:
                # V(S_{t+1} | theta_t), 0 if terminal, for the stepping rows only
                cs = self._cols(s)
                v_next = net.value(net.views(th.index_select(1, cs)), self._t(xn[:, s]),
                                   net.work(s.size))
                e_s = end[s]
                v_next[e_s] = 0.0
                r_s, t_s, gam_s = r[s], t[s], gamma[s]
                d_prime = r_s + gam_s * v_next - V_cur[s]
                Pw_s = Pw[s] * gl[s, None]
                G_s = G[s] + Pw_s * d_prime[:, None]
                m = np.arange(s.size)
                G_s[m, t_s] = r_s + gam_s * v_next
                Pw_s[m, t_s] = 1.0
                G[s] = G_s
                Pw[s] = Pw_s
                X[:, base[s] + t_s] = x[:, s]
                V_cur[s] = v_next
                t[s] += 1
                ended[s] = e_s
                if online:
                    th.index_copy_(1, cs, th0.index_select(1, cs))
                    mode[s] = REPLAY
                else:
                    mode[s[e_s]] = REPLAY
                self._check_values(v_next, s)
            rep = mode == REPLAY
            kk = base + k
            xk = np.take(X, kk, axis=1)
            v = net.value(Vw, self._t(xk), wB)
            self._upd(Vw, xk, wB, np.where(rep, alpha * (Gf[kk] - v), 0.0))
            k += rep
            fin = rep & (k == t)
            k[fin] = 0
            mode[fin] = STEP
            self.n_steps += step
            if online:
                self._record(fin)
                comp = fin & ended
            else:
                self._record((step & ~end) | fin)
                comp = fin
            self._check_values(v)
            comp &= mode != DONE
            if comp.any():
                ii = self._complete(comp)
                t[ii] = k[ii] = 0
                ended[ii] = False
                V_cur[ii] = 0.0
                G[ii] = Pw[ii] = 0.0
                cols = self._cols(ii)
                th0[:, cols] = th[:, cols]
