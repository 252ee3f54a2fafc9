r"""Batched prediction: TD(0), TD(:math:`\lambda`), forward TD(:math:`\lambda`), online and
offline :math:`\lambda`-return algorithms, for many runs and settings at once.

Schedule
--------
Every iteration of the batch loop, every row does one *unit of work*:

- ``STEP``: one environment step (two value evaluations: :math:`\hat V(S'|\theta)` and the
  state being updated) with at most one update, or
- ``FLUSH`` (forward TD) / ``REPLAY`` (:math:`\lambda`-return algorithms): one popped / replayed
  update (one value evaluation and one update).

Rows are independent: a row whose episode ended flushes its FIFO one update per iteration
while the other rows keep stepping, so nobody waits for anybody, and each row's cost stays
about one update per step (forward TD(:math:`\lambda`) does exactly as many updates as
TD(0): T per episode). Every quantity of every row lives in a ``(B, ...)`` tensor and every
branch of Algorithm 1 is a masked tensor op: there is no per-row Python code in the loop.

Rows finish at different times (different episode lengths); a finished or diverged row is
``DONE`` and idles (its lanes are masked) until the whole batch is finished.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ._net import BatchedMLP
from .settings import Settings

STEP, FLUSH, DONE = 0, 1, 2

PREDICTION_METHODS = ("td0", "td_lambda", "forward_td", "online_lambda_return",
                      "offline_lambda_return")


class Evaluator:
    """RMS error over a fixed sample of states with exact true values (paper Fig. 3)."""

    def __init__(self, states, true_values, *, device="cpu", dtype=torch.float64):
        self.X = torch.as_tensor(np.asarray(states, dtype=np.float64)).to(device, dtype)
        self.v = torch.as_tensor(np.asarray(true_values, dtype=np.float64)).to(device, dtype)
        if self.X.ndim != 2 or self.v.shape != (self.X.shape[0],):
            raise ValueError("evaluation states must be (N, n) with true values (N,)")

    def rms(self, net: BatchedMLP, th: torch.Tensor) -> torch.Tensor:
        """RMS error of every network (row of ``th``): ``(M,)``; non-finite where diverged."""
        out = []
        for s in range(0, th.shape[0], 256):  # bound the (M, N, H) temporary
            v = net.value_many(th[s : s + 256], self.X)
            out.append((v - self.v).square_().mean(1).sqrt_())
        return torch.cat(out)


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


class PredictionBatch:
    """One batch of prediction runs; :meth:`run` does everything (see module docstring)."""

    def __init__(self, method, settings: Settings, w0, source, *, n_hidden=50, device="cpu",
                 dtype=torch.float64, evaluator: Evaluator | None = None,
                 record_weights=False, div_bound=1e6, progress=False, tanh="auto"):
        if method not in PREDICTION_METHODS:
            raise ValueError(f"method must be one of {PREDICTION_METHODS}, got {method!r}")
        self.method = method
        self.B = B = source.B
        if len(settings) != B:
            raise ValueError(f"settings has {len(settings)} rows, the source {B}")
        self.settings = settings
        self.src = source
        self.dev = dev = torch.device(device)
        self.dt = dt = dtype
        self.net = net = BatchedMLP(source.n_in, n_hidden, device=dev, dtype=dt, tanh=tanh)
        w0 = np.asarray(w0, dtype=np.float64)
        if w0.ndim == 1:
            w0 = np.broadcast_to(w0, (B, w0.shape[0]))
        if w0.shape != (B, net.n_params):
            raise ValueError(f"w0 must have shape ({B}, {net.n_params}), got {w0.shape}")
        if not np.all(np.isfinite(w0)):
            raise ValueError("w0 must be finite")
        self.th = net.to_internal(w0)
        self.P = net.n_params

        def col(a):
            return torch.as_tensor(np.asarray(a, dtype=np.float64)).to(dev, dt)

        self.alpha = col(settings.alpha)
        self.gamma = col(settings.gamma)
        self.lam = col(settings.lam)
        self.gl = col(settings.gamma * settings.lam)
        self.evaluator = evaluator
        self.div_bound = float(div_bound)
        self.progress = progress

        self.n_ep = source.n_episodes.astype(np.int64)
        self.max_ep = int(self.n_ep.max()) if B else 0
        self.ep_count = np.zeros(B, dtype=np.int64)
        self.mode = torch.full((B,), STEP, dtype=torch.long, device=dev)
        self.diverged = np.zeros(B, dtype=bool)
        self.diverged_at = np.full(B, -1, dtype=np.int64)
        self.n_running = int(np.sum(self.n_ep > 0))
        self.mode[torch.as_tensor(self.n_ep == 0, device=dev)] = DONE
        self.n_steps = torch.zeros(B, dtype=torch.long, device=dev)
        self.iterations = 0

        self.errors = self.err0 = None
        if evaluator is not None:
            self.err0 = evaluator.rms(net, self.th).cpu().numpy()
            self.errors = np.full((B, self.max_ep), np.nan)
        self.record_weights = record_weights
        if record_weights:
            L = int(np.max(source.n_steps)) if B else 0
            self.rec_L = max(L, 1)
            self.rec = torch.full((B * self.rec_L, self.P), math.nan, device=dev, dtype=dt)
            self.rec_n = torch.zeros(B, dtype=torch.long, device=dev)
            self.rec_base = torch.arange(B, device=dev) * self.rec_L
        self._pbar = None
        self._traces = []  # per-method tensors to clear when a row diverges

    # ------------------------------------------------------------------ helpers
    def _record(self, tick):
        if not self.record_weights:
            return
        idx = tick.nonzero().squeeze(1)
        if idx.numel():
            self.rec.index_copy_(0, self.rec_base[idx] + self.rec_n[idx],
                                 self.th.index_select(0, idx))
            self.rec_n[idx] += 1

    def _check_values(self, v, rows=None):
        """Divergence: a non-finite or too large value ``v`` of a running row (``rows``: the
        row of each entry of ``v``, default all rows)."""
        bad = ~(v.abs() <= self.div_bound)
        if rows is None:
            bad &= self.mode != DONE
            if bool(bad.any()):
                self._diverge(bad.nonzero().squeeze(1))
        elif bool(bad.any()):
            self._diverge(rows[bad])

    def _diverge(self, idx):
        """Freeze rows ``idx`` (tensor of row indices): report them as diverged and zero their
        weights and traces so that no inf/nan reaches the other rows' arithmetic."""
        ii = idx.cpu().numpy()
        new = ~self.diverged[ii]
        ii, idx = ii[new], idx[torch.as_tensor(new, device=self.dev)]
        if not len(ii):
            return
        self.diverged[ii] = True
        self.diverged_at[ii] = self.ep_count[ii]
        if self.errors is not None:
            for b in ii:
                self.errors[b, self.ep_count[b] : self.n_ep[b]] = math.inf
        running = self.mode[idx] != DONE
        self.n_running -= int(running.sum())
        self.mode[idx] = DONE
        self.th[idx] = 0.0
        for t in self._traces:
            t[idx] = 0.0
        if self._pbar is not None:
            self._pbar.update(int((self.n_ep[ii] - self.ep_count[ii]).sum()))

    def _complete(self, comp):
        """Rows in bool tensor ``comp`` finished an episode (after any flush). Records the
        error (a row whose weights or error are not finite, or beyond the bound, diverged in
        this episode), counts the episode, marks rows that ran all their episodes DONE.
        Returns the tensor of the rows that go on normally (not diverged)."""
        idx = comp.nonzero().squeeze(1)
        th = self.th.index_select(0, idx)
        bad = ~(th.abs().amax(1) <= self.div_bound)
        if self.evaluator is not None:
            err = self.evaluator.rms(self.net, th)
            bad |= ~torch.isfinite(err)
        if bool(bad.any()):
            self._diverge(idx[bad])
            ok = ~bad
            idx = idx[ok]
            if self.evaluator is not None:
                err = err[ok]
        ii = idx.cpu().numpy()
        if self.evaluator is not None:
            self.errors[ii, self.ep_count[ii]] = err.cpu().numpy() / self.err0[ii]
        self.ep_count[ii] += 1
        fin = self.ep_count[ii] >= self.n_ep[ii]
        if fin.any():
            self.mode[idx[torch.as_tensor(fin, device=self.dev)]] = DONE
            self.n_running -= int(fin.sum())
        if self._pbar is not None:
            self._pbar.update(len(ii))
        return idx

    # ---------------------------------------------------------------------- run
    def run(self) -> PredictionResult:
        if self.progress:
            from tqdm.auto import tqdm

            self._pbar = tqdm(total=int(self.n_ep.sum()), desc=self.method, unit="ep",
                              disable=not self.progress)
        try:
            with torch.no_grad():
                if self.method in ("td0", "td_lambda"):
                    self._loop_td(self.method == "td_lambda")
                elif self.method == "forward_td":
                    self._loop_forward()
                else:
                    self._loop_lambda_return(self.method == "online_lambda_return")
        finally:
            if self._pbar is not None:
                self._pbar.close()
        weights = None
        if self.record_weights:
            rec = self.net.to_external(self.rec.view(self.B, self.rec_L, self.P))
            weights = [rec[b, : self.src.n_steps[b]] for b in range(self.B)]
        return PredictionResult(
            errors=self.errors, initial_error=self.err0, diverged=self.diverged.copy(),
            diverged_at=self.diverged_at.copy(), weights=weights,
            final_weights=self.net.to_external(self.th), n_steps=self.n_steps.cpu().numpy(),
            iterations=self.iterations, method=self.method, settings=self.settings)

    # ------------------------------------------------------------ TD(0), TD(λ)
    def _loop_td(self, traces: bool):
        r"""TD(0) and TD(:math:`\lambda`) with accumulating traces (Sec. 3), one step an
        iteration:
        :math:`\delta = R + \gamma\hat V(S'|\theta) - \hat V(S|\theta)`,
        :math:`e \leftarrow \gamma\lambda e + \nabla\hat V(S|\theta)`,
        :math:`\theta \leftarrow \theta + \alpha\delta e` (TD(0): :math:`e = \nabla\hat V`)."""
        B, net, th, src = self.B, self.net, self.th, self.src
        H = net.n_hidden
        hA = torch.empty(B, H, device=self.dev, dtype=self.dt)
        hB = torch.empty_like(hA)
        ones = torch.ones_like(hA)
        g = net.new_grad_buffer(B)
        e = torch.zeros_like(th) if traces else None
        if traces:
            self._traces = [e]
        gl = self.gl[:, None]
        alpha, gamma = self.alpha, self.gamma
        zero = torch.zeros((), device=self.dev, dtype=self.dt)
        while self.n_running:
            self.iterations += 1
            step = self.mode == STEP
            x, r, xn, end = src.next(step)
            v_next, _ = net.value(th, xn, hA)
            v_next.masked_fill_(end, 0.0)
            v, h = net.value(th, x, hB)
            delta = torch.addcmul(r, gamma, v_next).sub_(v)
            net.grad_into(g, th, x, h, ones)
            coef = torch.where(step, alpha * delta, zero)
            if traces:
                e.mul_(gl).add_(g)
                th.addcmul_(e, coef[:, None])
            else:
                th.addcmul_(g, coef[:, None])
            self.n_steps += step
            self._record(step)
            self._check_values(torch.maximum(v_next.abs(), v.abs()))
            comp = step & end
            if bool(comp.any()):
                idx = self._complete(comp)
                if traces:
                    e[idx] = 0.0

    # --------------------------------------------------------- forward TD(λ)
    def _loop_forward(self):
        r"""Forward TD(:math:`\lambda`), Algorithm 1, every row its own K (from
        :func:`ftd_lib.returns.k_bound`), its own FIFO (a ring buffer of the batch's largest
        K), its own ``U, U_sync, c, i, ready``. A row whose episode ended pops one update an
        iteration (``FLUSH``) until its FIFO is empty; the other rows go on stepping."""
        B, net, th, src, dev, dt = self.B, self.net, self.th, self.src, self.dev, self.dt
        n, H = net.n_in, net.n_hidden
        K = self.settings.K()
        t_cap = int(src.t_cap)
        never = K > t_cap  # no sync within any episode: K behaves as infinity
        K_eff = np.where(never, t_cap + 1, K).astype(np.int64)
        gl_np = self.settings.gamma * self.settings.lam
        c_final = torch.as_tensor(np.where(never, 0.0, gl_np ** (np.minimum(K_eff, 10**6) - 1)),
                                  device=dev).to(dt)
        gl_div = torch.as_tensor(np.where((K_eff == 1) | (gl_np == 0), 1.0, gl_np),
                                 device=dev).to(dt)
        Km1 = torch.as_tensor(K_eff - 1, device=dev)
        R = int(np.minimum(K_eff, t_cap).max()) + 1 if B else 1  # ring slots per row
        self.ring_size = R
        ring = torch.zeros(B * R, n + 1, device=dev, dtype=dt)
        base = torch.arange(B, device=dev) * R
        cur = torch.zeros(B, n + 1, device=dev, dtype=dt)
        zeros = torch.zeros(B, device=dev, dtype=dt)
        U, U_sync, V_cur = zeros.clone(), zeros.clone(), zeros.clone()
        c = torch.ones(B, device=dev, dtype=dt)
        i = torch.zeros(B, dtype=torch.long, device=dev)
        p, q = i.clone(), i.clone()
        ready = torch.zeros(B, dtype=torch.bool, device=dev)
        hA = torch.empty(B, H, device=dev, dtype=dt)
        hB = torch.empty_like(hA)
        ones = torch.ones_like(hA)
        g = net.new_grad_buffer(B)
        alpha, gamma, gl = self.alpha, self.gamma, self.gl
        g1l = self.gamma * (1.0 - self.lam)
        zero = torch.zeros((), device=dev, dtype=dt)
        one = torch.ones((), device=dev, dtype=dt)
        izero = torch.zeros((), dtype=torch.long, device=dev)
        mode = self.mode
        while self.n_running:
            self.iterations += 1
            step = mode == STEP
            flush = mode == FLUSH
            x, r, xn, end = src.next(step)
            # observe R, S'; V_next = V(S'|theta), 0 if S' is terminal
            v_next, _ = net.value(th, xn, hA)
            v_next.masked_fill_(end | ~step, 0.0)
            # rho = R + gamma (1 - lambda) V_next; push <phi(S), rho> on the FIFO
            cur[:, :n] = x
            torch.addcmul(r, g1l, v_next, out=cur[:, n])
            ring.index_copy_(0, base + p % R, cur)
            p += step
            # delta' = R + gamma V_next - V_current; V_current = V_next
            d_prime = torch.addcmul(r, gamma, v_next).sub_(V_cur)
            V_cur = torch.where(step, v_next, V_cur)
            sync = step & (i == Km1)
            adv = step & ~sync
            # if i = K - 1: U = U_sync; U_sync = V_current; i = 0; c = 1; ready = true
            # else:         U_sync += c delta'; i += 1; c *= gamma lambda
            U = torch.where(sync, U_sync, U)
            U_sync = torch.where(sync, V_cur, torch.where(adv, U_sync + c * d_prime, U_sync))
            i = torch.where(sync, izero, i + adv)
            c = torch.where(sync, one, torch.where(adv, c * gl, c))
            ready |= sync
            # if ready: U += c_final delta'; pop <S_p, rho_p>; update; U = (U - rho_p)/gl
            step_upd = step & ready
            U = torch.where(step_upd, U + c_final * d_prime, U)
            upd = step_upd | flush
            item = ring.index_select(0, base + q % R)
            xp = item[:, :n]
            v_p, h = net.value(th, xp, hB)
            coef = torch.where(upd, alpha * (U - v_p), zero)
            net.grad_into(g, th, xp, h, ones)
            th.addcmul_(g, coef[:, None])
            q += upd
            U = torch.where(upd, (U - item[:, n]) / gl_div, U)
            # end of episode: if not ready, U = U_sync; then flush the FIFO
            end_step = step & end
            U = torch.where(end_step & ~ready, U_sync, U)
            left = p - q
            mode.masked_fill_(end_step & (left > 0), FLUSH)
            comp = (end_step | flush) & (left == 0)
            self.n_steps += step
            self._record((step & ~end) | comp)
            self._check_values(torch.maximum(v_next.abs(), v_p.abs()))
            if bool(comp.any()):
                idx = self._complete(comp)
                mode[idx] = torch.where(mode[idx] == DONE, DONE, STEP)
                for t, v in ((U, 0.0), (U_sync, 0.0), (V_cur, 0.0), (c, 1.0), (i, 0),
                             (p, 0), (q, 0), (ready, False)):
                    t[idx] = v

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
        B, net, th, src, dev, dt = self.B, self.net, self.th, self.src, self.dev, self.dt
        n, H = net.n_in, net.n_hidden
        Tc = int(src.t_cap)
        X = torch.zeros(B * Tc, n, device=dev, dtype=dt)
        G = torch.zeros(B, Tc, device=dev, dtype=dt)
        Pw = torch.zeros(B, Tc, device=dev, dtype=dt)  # (gamma lambda)^(t-1-k), k < t
        base = torch.arange(B, device=dev) * Tc
        t = torch.zeros(B, dtype=torch.long, device=dev)
        k = torch.zeros_like(t)
        ended = torch.zeros(B, dtype=torch.bool, device=dev)
        V_cur = torch.zeros(B, device=dev, dtype=dt)
        th0 = th.clone()
        hB = torch.empty(B, H, device=dev, dtype=dt)
        ones = torch.ones_like(hB)
        g = net.new_grad_buffer(B)
        alpha, gamma, gl = self.alpha, self.gamma, self.gl
        zero = torch.zeros((), device=dev, dtype=dt)
        mode = self.mode
        REPLAY = FLUSH
        while self.n_running:
            self.iterations += 1
            step = mode == STEP
            x, r, xn, end = src.next(step)
            s = step.nonzero().squeeze(1)
            v_next = None
            if s.numel():
                # V(S_{t+1} | theta_t), 0 if terminal, for the stepping rows only
                v_next, _ = net.value(th.index_select(0, s), xn.index_select(0, s))
                e_s = end.index_select(0, s)
                v_next.masked_fill_(e_s, 0.0)
                r_s, t_s, gam_s = r.index_select(0, s), t.index_select(0, s), gamma[s]
                d_prime = torch.addcmul(r_s, gam_s, v_next).sub_(V_cur.index_select(0, s))
                Pw_s = Pw.index_select(0, s).mul_(gl[s, None])
                G_s = G.index_select(0, s).addcmul_(Pw_s, d_prime[:, None])
                m = torch.arange(s.numel(), device=dev)
                G_s[m, t_s] = torch.addcmul(r_s, gam_s, v_next)
                Pw_s[m, t_s] = 1.0
                G.index_copy_(0, s, G_s)
                Pw.index_copy_(0, s, Pw_s)
                X.index_copy_(0, base[s] + t_s, x.index_select(0, s))
                V_cur.index_copy_(0, s, v_next)
                t[s] += 1
                ended[s] = e_s
                if online:
                    th.index_copy_(0, s, th0.index_select(0, s))
                    mode[s] = REPLAY
                else:
                    mode[s[e_s]] = REPLAY
            rep = mode == REPLAY
            xk = X.index_select(0, base + k)
            Gk = G.view(-1).index_select(0, base + k)
            v, h = net.value(th, xk, hB)
            coef = torch.where(rep, alpha * (Gk - v), zero)
            net.grad_into(g, th, xk, h, ones)
            th.addcmul_(g, coef[:, None])
            k += rep
            fin = rep & (k == t)
            k.masked_fill_(fin, 0)
            mode.masked_fill_(fin, STEP)
            self.n_steps += step
            if online:
                self._record(fin)
                comp = fin & ended
            else:
                self._record((step & ~end) | fin)
                comp = fin
            self._check_values(v)
            if v_next is not None:
                self._check_values(v_next, s)
            if bool(comp.any()):
                idx = self._complete(comp)
                for tt, val in ((t, 0), (k, 0), (ended, False), (V_cur, 0.0), (G, 0.0),
                                (Pw, 0.0)):
                    tt[idx] = val
                th0[idx] = th[idx]
