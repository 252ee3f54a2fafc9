r"""Batched control: Sarsa(:math:`\lambda`) and forward Sarsa(:math:`\lambda`) (paper Sec. 6,
Fig. 4), one network per action, :math:`\epsilon`-greedy.

Every row is one run. Its A networks are the columns ``b, B+b, .., (A-1)B+b`` of a
parameter-major ``(P, A*B)`` weight tensor (action-major blocks, so each action's networks are
one contiguous view). Each iteration a row does one unit of work:

- ``START``: choose the first action of an episode, :math:`\epsilon`-greedily from
  :math:`\hat Q(S_0, \cdot|\theta)` (no environment step);
- ``STEP``: take the chosen action, observe :math:`R, S'`, choose :math:`A'`
  :math:`\epsilon`-greedily from :math:`\hat Q(S', \cdot|\theta)` (before the update), then
  at most one update;
- ``FLUSH`` (forward Sarsa only): one popped update at the end of an episode.

Sarsa(:math:`\lambda`), accumulating traces, every action's trace decays every step:

.. math::
    \delta = R + \gamma\hat Q(S',A'|\theta) - \hat Q(S,A|\theta),\quad
    e_a \leftarrow \gamma\lambda e_a\ \forall a,\quad
    e_A \leftarrow e_A + \nabla\hat Q(S,A|\theta),\quad
    \theta \leftarrow \theta + \alpha\delta e

Forward Sarsa(:math:`\lambda`): Algorithm 1 with :math:`V_{next} = \hat Q(S', A'|\theta)`
(0 at the end of an episode), the FIFO holding :math:`\langle\phi(S), A, \rho\rangle`, and the
update going to the network of the popped state's action.

:math:`\epsilon`-greedy: two uniform draws per choice from the run's own stream
(:class:`ftd_lib.rng.RunStreams`, stream ``AGENT_STREAM``): if the first is below
:math:`\epsilon` the action is ``floor(A * second)``, else the greedy action, ties broken
towards the lowest action index. Truncation (the episode cap) is treated like termination.

As in :mod:`.prediction`, the network arithmetic is torch on the chosen device and the per-row
scalars (and the environment, and the random streams) are numpy on the host.
"""

from __future__ import annotations

import numpy as np
import torch

from ..rng import RunStreams
from ._net import BatchedMLP, HostDeviceMixin
from .prediction import NP_DTYPE
from .settings import Settings
from .sources import _cap

STEP, FLUSH, DONE, START = 0, 1, 2, 3

CONTROL_METHODS = ("sarsa_lambda", "forward_sarsa_lambda")


class ControlResult:
    """What a control batch returns.

    Attributes
    ----------
    returns : (B, n_episodes) float array, the return (sum of rewards) of every episode;
        ``nan`` from the episode in which a run diverged on
    lengths : (B, n_episodes) int array, steps of every episode (-1 where not run)
    diverged : (B,) bool array; diverged_at : (B,) int array (-1: never)
    final_weights : (B, A, P) array, reference layout
    n_steps : (B,) environment steps; iterations : batch iterations
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)


class ControlBatch(HostDeviceMixin):
    def __init__(self, method, settings: Settings, w0, env, n_episodes: int, *, seed: int,
                 run_ids, agent_stream: int, epsilon=0.05, n_hidden=50, device="cpu",
                 dtype=torch.float64, div_bound=1e6, progress=False, tanh="auto"):
        if method not in CONTROL_METHODS:
            raise ValueError(f"method must be one of {CONTROL_METHODS}, got {method!r}")
        if dtype not in NP_DTYPE:
            raise ValueError(f"dtype must be torch.float64 or torch.float32, got {dtype!r}")
        eps = float(epsilon)
        if not 0.0 <= eps <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        self.method, self.settings, self.env, self.eps = method, settings, env, eps
        self.dev = dev = torch.device(device)
        self.dt = dt = dtype
        self.npdt = npdt = NP_DTYPE[dtype]
        obs = np.asarray(env.reset(), dtype=np.float64)
        self.B, self.n_in = B, n = obs.shape
        self.A = A = int(env.n_actions)
        if len(settings) != B:
            raise ValueError(f"settings has {len(settings)} rows, the env {B}")
        self.net = net = BatchedMLP(n, n_hidden, device=dev, dtype=dt, tanh=tanh)
        self.P = P = net.n_params
        w0 = np.asarray(w0, dtype=np.float64)
        if w0.shape != (B, A, P):
            raise ValueError(f"w0 must have shape ({B}, {A}, {P}), got {w0.shape}")
        self.th = net.to_internal(w0.transpose(1, 0, 2).reshape(A * B, P))  # (P, A*B)
        self.t_cap = _cap(env)
        self.n_ep = int(n_episodes)
        self.streams = RunStreams(seed, run_ids, stream=agent_stream, kind="uniform")
        self.alpha = settings.alpha.astype(npdt)
        self.gamma = settings.gamma.astype(npdt)
        self.lam = settings.lam.astype(npdt)
        self.gl = (settings.gamma * settings.lam).astype(npdt)
        self.div_bound = float(div_bound)
        self.progress = progress
        self.S = self._ext(obs)  # [phi(S); 1], (n+1, B)
        self.act = np.zeros(B, dtype=np.int64)
        self.mode = np.full(B, START if self.n_ep > 0 else DONE, dtype=np.int8)
        self.ep_count = np.zeros(B, dtype=np.int64)
        self.ep_len = np.zeros(B, dtype=np.int64)
        self.ret = np.zeros(B)
        self.returns = np.full((B, self.n_ep), np.nan)
        self.lengths = np.full((B, self.n_ep), -1, dtype=np.int64)
        self.diverged = np.zeros(B, dtype=bool)
        self.diverged_at = np.full(B, -1, dtype=np.int64)
        self.n_running = B if self.n_ep > 0 else 0
        self.n_steps = np.zeros(B, dtype=np.int64)
        self.iterations = 0
        self._traces = []
        self._pbar = None
        self.ar = np.arange(B)
        self.all_views = net.views(self.th)
        self.blocks = [self.th[:, a * B : (a + 1) * B] for a in range(A)]
        self.sel = torch.empty(P, B, device=dev, dtype=dt)
        self.sel_views = net.views(self.sel)
        self.act_views = [net.views(self.th[:, a * B : (a + 1) * B]) for a in range(A)]

    # ------------------------------------------------------------------ helpers
    def _ext(self, obs):
        xe = np.ones((self.n_in + 1, self.B), dtype=self.npdt)
        xe[: self.n_in] = np.asarray(obs).T
        return xe

    def _env_step(self, step):
        """Step the env for the rows in ``step``: ``(xn, r, end)`` (``xn`` extended)."""
        B = self.B
        if not step.any():
            return self.S, np.zeros(B, dtype=self.npdt), np.zeros(B, dtype=bool)
        obs, rew, term, trunc = self.env.step(self.act, active=step)
        r = np.where(step, np.asarray(rew, dtype=np.float64), 0.0)
        end = (np.asarray(term) | np.asarray(trunc)) & step
        self.ret += r
        self.ep_len += step
        self.n_steps += step
        return self._ext(obs), r.astype(self.npdt), end

    def _reset_env(self, end):
        again = end & (self.ep_count + 1 < self.n_ep) & ~self.diverged
        if again.any():
            self.S = np.where(again, self._ext(self.env.reset(mask=again)), self.S)

    def _q_all(self, xe, w):
        """:math:`\\hat Q(x_b, a|\\theta)` for every action a and row b: ``(A, B)``."""
        q = self.net.value(self.all_views, self._t(xe).repeat(1, self.A), w)
        return q.reshape(self.A, self.B)

    def _choose(self, Q, choose):
        """Epsilon-greedy actions ``(B,)`` from ``Q`` ``(A, B)`` for rows in ``choose``."""
        u1 = self.streams.draw(choose)  # nan where not choosing (then: greedy, unused)
        u2 = self.streams.draw(choose)
        explore = u1 < self.eps
        greedy = Q.argmax(0)  # first maximal index: ties go to the lowest action
        rand = np.minimum((np.where(explore, u2, 0.0) * self.A).astype(np.int64), self.A - 1)
        return np.where(explore, rand, greedy)

    def _select(self, a):
        """Views of the weights of action ``a[b]``'s network of every row (a ``(P, B)``
        scratch tensor)."""
        blocks, buf = self.blocks, self.sel
        if self.A == 1:
            buf.copy_(blocks[0])
        else:
            torch.where(self._t(a == self.A - 2), blocks[-2], blocks[-1], out=buf)
            for j in range(self.A - 3, -1, -1):
                torch.where(self._t(a == j), blocks[j], buf, out=buf)
        return self.sel_views

    def _episode_end(self, rows):
        """Record the return of the episodes of ``rows`` (bool) that ended."""
        ii = np.flatnonzero(rows & ~self.diverged)
        self.returns[ii, self.ep_count[ii]] = self.ret[ii]
        self.lengths[ii, self.ep_count[ii]] = self.ep_len[ii]
        self.ret[rows] = 0.0
        self.ep_len[rows] = 0

    def _complete(self, comp):
        """Rows in ``comp`` (bool) finished an episode including any flush."""
        ii = np.flatnonzero(comp)
        self.ep_count[ii] += 1
        fin = self.ep_count[ii] >= self.n_ep
        self.mode[ii] = np.where(fin, DONE, START)
        self.n_running -= int(fin.sum())
        if self._pbar is not None:
            self._pbar.update(len(ii))
        return ii

    def _check_values(self, v):
        bad = ~(v <= self.div_bound) & (self.mode != DONE)
        if bad.any():
            self._diverge(np.flatnonzero(bad))

    def _diverge(self, ii):
        self.diverged[ii] = True
        self.diverged_at[ii] = self.ep_count[ii]
        for b in ii:
            self.returns[b, self.ep_count[b] :] = np.nan
        self.n_running -= len(ii)
        if self._pbar is not None:
            self._pbar.update(int((self.n_ep - self.ep_count[ii]).sum()))
        self.mode[ii] = DONE
        cols = torch.as_tensor((np.arange(self.A)[:, None] * self.B + ii).ravel(),
                               device=self.dev)
        self.th[:, cols] = 0.0
        for t in self._traces:
            t[:, cols] = 0.0

    # ---------------------------------------------------------------------- run
    def run(self) -> ControlResult:
        if self.progress:
            from tqdm.auto import tqdm

            self._pbar = tqdm(total=self.B * self.n_ep, desc=self.method, unit="ep")
        try:
            with torch.no_grad(), np.errstate(all="ignore"):
                if self.method == "sarsa_lambda":
                    self._loop_sarsa()
                else:
                    self._loop_forward_sarsa()
        finally:
            if self._pbar is not None:
                self._pbar.close()
        P, A, B = self.P, self.A, self.B
        w = self.net.to_external(self.th).reshape(A, B, P).transpose(1, 0, 2).copy()
        return ControlResult(returns=self.returns, lengths=self.lengths,
                             diverged=self.diverged.copy(), diverged_at=self.diverged_at.copy(),
                             final_weights=w, n_steps=self.n_steps.copy(),
                             iterations=self.iterations, method=self.method,
                             settings=self.settings)

    def _loop_sarsa(self):
        B, A, P, net, th = self.B, self.A, self.P, self.net, self.th
        wQ, wB = net.work(A * B), net.work(B)
        g = torch.zeros(P, B, device=self.dev, dtype=self.dt)
        Gv = net.views(g)
        e = torch.zeros_like(th)
        self._traces = [e]
        e3, th3 = e.view(P, A, B), th.view(P, A, B)
        gl_t = self._t(self.gl.copy())
        alpha, gamma = self.alpha, self.gamma
        mode = self.mode
        acts = np.arange(A)[:, None]
        while self.n_running:
            self.iterations += 1
            step = mode == STEP
            start = mode == START
            S = self.S
            xn, r, end = self._env_step(step)
            # Q(S', .) for stepping rows, Q(S_0, .) for starting rows, before the update
            Q = self._q_all(np.where(start, S, xn), wQ)
            choose = start | (step & ~end)
            a_new = self._choose(Q, choose)
            q_next = np.where(end, 0.0, Q[a_new, self.ar])
            # delta = R + gamma Q(S', A') - Q(S, A); every trace decays; e_A += grad
            St = self._t(S)
            Vsa = self._select(self.act)
            v = net.value(Vsa, St, wB)
            delta = r + gamma * q_next - v
            net.grad_into(Gv, Vsa, St, wB)
            e3.mul_(gl_t)
            e3.addcmul_(g[:, None, :], self._t(((acts == self.act) & step).astype(self.npdt)))
            th3.addcmul_(e3, self._t(np.where(step, alpha * delta, 0.0).astype(self.npdt)))
            # S <- S', A <- A'
            self.S = np.where(step, xn, S)
            self.act = np.where(choose, a_new, self.act)
            mode[start] = STEP
            self._check_values(np.maximum(np.abs(Q).max(0), np.abs(v)))
            if end.any():
                self._episode_end(end)
                self._reset_env(end)
                comp = end & (mode != DONE)
                if comp.any():
                    ii = self._complete(comp)
                    e[:, torch.as_tensor((acts * B + ii).ravel(), device=self.dev)] = 0.0

    def _loop_forward_sarsa(self):
        B, A, net, npdt = self.B, self.A, self.net, self.npdt
        n = self.n_in
        K = self.settings.K()
        t_cap = self.t_cap
        never = K > t_cap
        K_eff = np.where(never, t_cap + 1, K).astype(np.int64)
        gl_np = self.settings.gamma * self.settings.lam
        c_final = np.where(never, 0.0, gl_np ** (np.minimum(K_eff, 10**6) - 1)).astype(npdt)
        gl_div = np.where((K_eff == 1) | (gl_np == 0), 1.0, gl_np).astype(npdt)
        Km1 = K_eff - 1
        R = int(np.minimum(K_eff, t_cap).max()) + 1
        self.ring_size = R
        ring = np.zeros((n + 3, B * R), dtype=npdt)  # columns: [phi(S); 1], A, rho
        base = np.arange(B) * R
        U = np.zeros(B, dtype=npdt)
        U_sync, V_cur = U.copy(), U.copy()
        c = np.ones(B, dtype=npdt)
        i = np.zeros(B, dtype=np.int64)
        p, q = i.copy(), i.copy()
        ready = np.zeros(B, dtype=bool)
        wQ, wB = net.work(A * B), net.work(B)
        alpha, gamma, gl = self.alpha, self.gamma, self.gl
        g1l = (self.settings.gamma * (1.0 - self.settings.lam)).astype(npdt)
        mode = self.mode
        while self.n_running:
            self.iterations += 1
            step = mode == STEP
            start = mode == START
            flush = mode == FLUSH
            S = self.S
            xn, r, end = self._env_step(step)
            Q = self._q_all(np.where(start, S, xn), wQ)
            choose = start | (step & ~end)
            a_new = self._choose(Q, choose)
            v_next = np.where(end | ~step, 0.0, Q[a_new, self.ar])
            # push <phi(S), A, rho>
            slot = base + p % R
            ring[: n + 1, slot] = S
            ring[n + 1, slot] = self.act
            ring[n + 2, slot] = r + g1l * v_next
            p += step
            d_prime = r + gamma * v_next - V_cur
            V_cur = np.where(step, v_next, V_cur)
            sync = step & (i == Km1)
            adv = step ^ sync
            U = np.where(sync, U_sync, U)
            U_sync = np.where(sync, V_cur, np.where(adv, U_sync + c * d_prime, U_sync))
            i = np.where(sync, 0, i + adv)
            c = np.where(sync, 1.0, np.where(adv, gl * c, c)).astype(npdt, copy=False)
            ready |= sync
            step_upd = step & ready
            U = np.where(step_upd, U + c_final * d_prime, U)
            upd = step_upd | flush
            # pop <S_p, A_p, rho_p>; update the network of A_p
            item = np.take(ring, base + q % R, axis=1)
            a_p = item[n + 1].astype(np.int64)
            xp = item[: n + 1]
            v_p = net.value(self._select(a_p), self._t(xp), wB)
            coef = np.where(upd, alpha * (U - v_p), 0.0)
            for a in range(A):
                self._upd(self.act_views[a], xp, wB, np.where(a_p == a, coef, 0.0))
            q += upd
            U = np.where(upd, (U - item[n + 2]) / gl_div, U)
            end_step = step & end
            U = np.where(end_step & ~ready, U_sync, U)
            self.S = np.where(step, xn, S)
            self.act = np.where(choose, a_new, self.act)
            mode[start] = STEP
            self._check_values(np.maximum(np.abs(Q).max(0), np.abs(v_p)))
            alive = mode != DONE
            empty = p == q
            mode[end_step & ~empty & alive] = FLUSH
            if end.any():
                self._episode_end(end)
                self._reset_env(end)
            comp = (end_step | flush) & empty & alive
            if comp.any():
                ii = self._complete(comp)
                U[ii] = U_sync[ii] = V_cur[ii] = 0.0
                c[ii] = 1.0
                i[ii] = p[ii] = q[ii] = 0
                ready[ii] = False
