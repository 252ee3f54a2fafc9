r"""Batched control: Sarsa(:math:`\lambda`) and forward Sarsa(:math:`\lambda`) (paper Sec. 6,
Fig. 4), one network per action, :math:`\epsilon`-greedy.

Every row is one run. Its A networks are rows ``b*A .. b*A+A-1`` of a ``(B*A, P)`` weight
tensor. Each iteration a row does one unit of work:

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
"""

from __future__ import annotations

import numpy as np
import torch

from ..rng import RunStreams
from ._net import BatchedMLP
from .settings import Settings

STEP, FLUSH, DONE, START = 0, 1, 2, 3

CONTROL_METHODS = ("sarsa_lambda", "forward_sarsa")


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


class ControlBatch:
    def __init__(self, method, settings: Settings, w0, env, n_episodes: int, *, seed: int,
                 run_ids, agent_stream: int, epsilon=0.05, n_hidden=50, device="cpu",
                 dtype=torch.float64, div_bound=1e6, progress=False, tanh="auto"):
        if method not in CONTROL_METHODS:
            raise ValueError(f"method must be one of {CONTROL_METHODS}, got {method!r}")
        eps = float(epsilon)
        if not 0.0 <= eps <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
        self.method, self.settings, self.env, self.eps = method, settings, env, eps
        self.dev = dev = torch.device(device)
        self.dt = dt = dtype
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
        self.th = net.to_internal(w0.reshape(B * A, P))
        self.t_cap = int(getattr(env, "max_steps", 10_000))
        self.n_ep = int(n_episodes)
        self.streams = RunStreams(seed, run_ids, stream=agent_stream, kind="uniform")

        def col(a):
            return torch.as_tensor(np.asarray(a, dtype=np.float64)).to(dev, dt)

        self.alpha, self.gamma = col(settings.alpha), col(settings.gamma)
        self.lam, self.gl = col(settings.lam), col(settings.gamma * settings.lam)
        self.div_bound = float(div_bound)
        self.progress = progress
        self.S = torch.as_tensor(obs).to(dev, dt)
        self.act = torch.zeros(B, dtype=torch.long, device=dev)
        self.mode = torch.full((B,), START, dtype=torch.long, device=dev)
        self.ep_count = np.zeros(B, dtype=np.int64)
        self.ep_len = np.zeros(B, dtype=np.int64)
        self.ret = np.zeros(B)
        self.returns = np.full((B, self.n_ep), np.nan)
        self.lengths = np.full((B, self.n_ep), -1, dtype=np.int64)
        self.diverged = np.zeros(B, dtype=bool)
        self.diverged_at = np.full(B, -1, dtype=np.int64)
        self.n_running = B if self.n_ep > 0 else 0
        if self.n_ep == 0:
            self.mode.fill_(DONE)
        self.n_steps = np.zeros(B, dtype=np.int64)
        self.iterations = 0
        self._traces = []
        self._pbar = None
        self.ar = torch.arange(B, device=dev)

    # ------------------------------------------------------------------ helpers
    def _env_step(self, step):
        """Step the env for the rows in ``step``; returns (obs, r, end) tensors and the numpy
        ``end`` mask; resets the rows whose episode ended (if they have episodes left)."""
        B, n = self.B, self.n_in
        act = step.cpu().numpy()
        if not act.any():
            z = torch.zeros(B, device=self.dev, dtype=self.dt)
            return self.S, z, torch.zeros(B, dtype=torch.bool, device=self.dev), act, act
        obs, rew, term, trunc = self.env.step(self.act.cpu().numpy(), active=act)
        obs = np.asarray(obs, dtype=np.float64)
        rew = np.where(act, np.asarray(rew, dtype=np.float64), 0.0)
        end = (np.asarray(term) | np.asarray(trunc)) & act
        self.ret += rew
        self.ep_len += act
        self.n_steps += act
        buf = np.empty((B, n + 2))
        buf[:, :n] = obs
        buf[:, n] = rew
        buf[:, n + 1] = end
        item = torch.from_numpy(buf).to(self.dev, self.dt)
        return item[:, :n], item[:, n], item[:, n + 1] > 0.5, act, end

    def _reset_env(self, end_np):
        again = end_np & (self.ep_count + 1 < self.n_ep) & ~self.diverged
        if again.any():
            obs0 = np.asarray(self.env.reset(mask=again), dtype=np.float64)
            rows = torch.as_tensor(np.flatnonzero(again), device=self.dev)
            self.S[rows] = torch.as_tensor(obs0[again]).to(self.dev, self.dt)

    def _choose(self, Q, choose):
        """Epsilon-greedy actions ``(B,)`` from ``Q`` ``(B, A)`` for rows in ``choose``."""
        c = choose.cpu().numpy()
        u1 = self.streams.draw(c)
        u2 = self.streams.draw(c)
        u = torch.as_tensor(np.stack([np.nan_to_num(u1, nan=1.0),
                                      np.nan_to_num(u2, nan=0.0)])).to(self.dev)
        greedy = Q.argmax(1)  # first maximal index: ties go to the lowest action
        rand = torch.clamp((u[1] * self.A).long(), max=self.A - 1)
        return torch.where(u[0] < self.eps, rand, greedy)

    def _episode_end(self, rows_np):
        """Record the return of the episodes of rows ``rows_np`` (bool numpy) that ended."""
        ii = np.flatnonzero(rows_np & ~self.diverged)
        self.returns[ii, self.ep_count[ii]] = self.ret[ii]
        self.lengths[ii, self.ep_count[ii]] = self.ep_len[ii]
        self.ret[ii] = 0.0
        self.ep_len[ii] = 0

    def _complete(self, comp):
        """Rows in ``comp`` (bool tensor) finished an episode including any flush."""
        idx = comp.nonzero().squeeze(1)
        ii = idx.cpu().numpy()
        self.ep_count[ii] += 1
        fin = self.ep_count[ii] >= self.n_ep
        m = torch.as_tensor(fin, device=self.dev)
        self.mode[idx] = torch.where(m, DONE, START)
        self.n_running -= int(fin.sum())
        if self._pbar is not None:
            self._pbar.update(len(ii))
        return idx

    def _check_values(self, v):
        bad = ~(v.abs() <= self.div_bound) & (self.mode != DONE)
        if bool(bad.any()):
            self._diverge(bad.nonzero().squeeze(1))

    def _diverge(self, idx):
        ii = idx.cpu().numpy()
        self.diverged[ii] = True
        self.diverged_at[ii] = self.ep_count[ii]
        for b in ii:
            self.returns[b, self.ep_count[b]:] = np.nan
        self.n_running -= len(ii)
        if self._pbar is not None:
            self._pbar.update(int((self.n_ep - self.ep_count[ii]).sum()))
        self.mode[idx] = DONE
        A = self.A
        nets = (idx[:, None] * A + torch.arange(A, device=self.dev)).reshape(-1)
        self.th[nets] = 0.0
        for t in self._traces:
            t[nets] = 0.0

    # ---------------------------------------------------------------------- run
    def run(self) -> ControlResult:
        if self.progress:
            from tqdm.auto import tqdm

            self._pbar = tqdm(total=self.B * self.n_ep, desc=self.method, unit="ep")
        try:
            with torch.no_grad():
                if self.method == "sarsa_lambda":
                    self._loop_sarsa()
                else:
                    self._loop_forward_sarsa()
        finally:
            if self._pbar is not None:
                self._pbar.close()
        w = self.net.to_external(self.th).reshape(self.B, self.A, self.P)
        return ControlResult(returns=self.returns, lengths=self.lengths,
                             diverged=self.diverged.copy(), diverged_at=self.diverged_at.copy(),
                             final_weights=w, n_steps=self.n_steps.copy(),
                             iterations=self.iterations, method=self.method,
                             settings=self.settings)

    def _q_all(self, x, hA):
        """:math:`\\hat Q(x_b, a|\\theta)` for every row b and action a: ``(B, A)``."""
        xr = x.repeat_interleave(self.A, 0)
        return self.net.value(self.th, xr, hA)[0].view(self.B, self.A)

    def _loop_sarsa(self):
        B, A, P, net, th, dev, dt = self.B, self.A, self.P, self.net, self.th, self.dev, self.dt
        H = net.n_hidden
        hA = torch.empty(B * A, H, device=dev, dtype=dt)
        hB = torch.empty(B, H, device=dev, dtype=dt)
        ones = torch.ones_like(hB)
        g = net.new_grad_buffer(B)
        e_full = torch.zeros(B * A + 1, P, device=dev, dtype=dt)  # last row: dummy target
        e = e_full[: B * A]
        self._traces = [e]
        e_rows = e.view(B, A * P)
        th_rows = th.view(B, A * P)
        dummy = torch.full((B,), B * A, dtype=torch.long, device=dev)
        alpha, gamma, gl = self.alpha, self.gamma, self.gl[:, None]
        zero = torch.zeros((), device=dev, dtype=dt)
        ar, mode = self.ar, self.mode
        while self.n_running:
            self.iterations += 1
            step = mode == STEP
            start = mode == START
            S = self.S
            xn, r, end, act_np, end_np = self._env_step(step)
            # Q(S', .) for stepping rows, Q(S_0, .) for starting rows, before the update
            Q = self._q_all(torch.where(start[:, None], S, xn), hA)
            choose = start | (step & ~end)
            a_new = self._choose(Q, choose)
            q_next = Q.gather(1, a_new[:, None]).squeeze(1).masked_fill_(end, 0.0)
            # delta = R + gamma Q(S', A') - Q(S, A); traces; update
            nets = ar * A + self.act
            th_sa = th.index_select(0, nets)
            v, h = net.value(th_sa, S, hB)
            delta = torch.addcmul(r, gamma, q_next).sub_(v)
            net.grad_into(g, th_sa, S, h, ones)
            e_rows.mul_(gl)
            e_full.index_add_(0, torch.where(step, nets, dummy), g)
            th_rows.addcmul_(e_rows, torch.where(step, alpha * delta, zero)[:, None])
            # S <- S', A <- A'
            self.S = torch.where(step[:, None], xn, S)
            self.act = torch.where(choose, a_new, self.act)
            mode.masked_fill_(start, STEP)
            self._check_values(torch.maximum(Q.abs().amax(1), v.abs()))
            if end_np.any():
                self._episode_end(end_np)
                self._reset_env(end_np)
                end = end & (mode != DONE)
                if bool(end.any()):
                    idx = self._complete(end)
                    nets_e = (idx[:, None] * A + torch.arange(A, device=dev)).reshape(-1)
                    e[nets_e] = 0.0

    def _loop_forward_sarsa(self):
        B, A, net, th, dev, dt = self.B, self.A, self.net, self.th, self.dev, self.dt
        n, H = self.n_in, net.n_hidden
        K = self.settings.K()
        t_cap = self.t_cap
        never = K > t_cap
        K_eff = np.where(never, t_cap + 1, K).astype(np.int64)
        gl_np = self.settings.gamma * self.settings.lam
        c_final = torch.as_tensor(np.where(never, 0.0, gl_np ** (np.minimum(K_eff, 10**6) - 1)),
                                  device=dev).to(dt)
        gl_div = torch.as_tensor(np.where((K_eff == 1) | (gl_np == 0), 1.0, gl_np),
                                 device=dev).to(dt)
        Km1 = torch.as_tensor(K_eff - 1, device=dev)
        R = int(np.minimum(K_eff, t_cap).max()) + 1
        self.ring_size = R
        ring = torch.zeros(B * R, n + 2, device=dev, dtype=dt)  # phi(S), A, rho
        base = torch.arange(B, device=dev) * R
        cur = torch.zeros(B, n + 2, device=dev, dtype=dt)
        zeros = torch.zeros(B, device=dev, dtype=dt)
        U, U_sync, V_cur = zeros.clone(), zeros.clone(), zeros.clone()
        c = torch.ones(B, device=dev, dtype=dt)
        i = torch.zeros(B, dtype=torch.long, device=dev)
        p, q = i.clone(), i.clone()
        ready = torch.zeros(B, dtype=torch.bool, device=dev)
        hA = torch.empty(B * A, H, device=dev, dtype=dt)
        hB = torch.empty(B, H, device=dev, dtype=dt)
        ones = torch.ones_like(hB)
        g = net.new_grad_buffer(B)
        gc = torch.empty_like(g)
        alpha, gamma, gl = self.alpha, self.gamma, self.gl
        g1l = self.gamma * (1.0 - self.lam)
        zero = torch.zeros((), device=dev, dtype=dt)
        one = torch.ones((), device=dev, dtype=dt)
        izero = torch.zeros((), dtype=torch.long, device=dev)
        ar, mode = self.ar, self.mode
        while self.n_running:
            self.iterations += 1
            step = mode == STEP
            start = mode == START
            flush = mode == FLUSH
            S = self.S
            xn, r, end, act_np, end_np = self._env_step(step)
            Q = self._q_all(torch.where(start[:, None], S, xn), hA)
            choose = start | (step & ~end)
            a_new = self._choose(Q, choose)
            v_next = Q.gather(1, a_new[:, None]).squeeze(1).masked_fill_(end | ~step, 0.0)
            # push <phi(S), A, rho>
            cur[:, :n] = S
            cur[:, n] = self.act
            torch.addcmul(r, g1l, v_next, out=cur[:, n + 1])
            ring.index_copy_(0, base + p % R, cur)
            p += step
            d_prime = torch.addcmul(r, gamma, v_next).sub_(V_cur)
            V_cur = torch.where(step, v_next, V_cur)
            sync = step & (i == Km1)
            adv = step & ~sync
            U = torch.where(sync, U_sync, U)
            U_sync = torch.where(sync, V_cur, torch.where(adv, U_sync + c * d_prime, U_sync))
            i = torch.where(sync, izero, i + adv)
            c = torch.where(sync, one, torch.where(adv, c * gl, c))
            ready |= sync
            step_upd = step & ready
            U = torch.where(step_upd, U + c_final * d_prime, U)
            upd = step_upd | flush
            item = ring.index_select(0, base + q % R)
            xp = item[:, :n]
            nets = ar * A + item[:, n].long()
            th_p = th.index_select(0, nets)
            v_p, h = net.value(th_p, xp, hB)
            coef = torch.where(upd, alpha * (U - v_p), zero)
            net.grad_into(g, th_p, xp, h, ones)
            th.index_add_(0, nets, torch.mul(g, coef[:, None], out=gc))
            q += upd
            U = torch.where(upd, (U - item[:, n + 1]) / gl_div, U)
            end_step = step & end
            U = torch.where(end_step & ~ready, U_sync, U)
            left = p - q
            mode.masked_fill_(end_step & (left > 0), FLUSH)
            self.S = torch.where(step[:, None], xn, S)
            self.act = torch.where(choose, a_new, self.act)
            mode.masked_fill_(start, STEP)
            comp = (end_step | flush) & (left == 0)
            self._check_values(torch.maximum(Q.abs().amax(1), v_p.abs()))
            if end_np.any():
                self._episode_end(end_np)
                self._reset_env(end_np)
            comp &= mode != DONE
            if bool(comp.any()):
                idx = self._complete(comp)
                for t, val in ((U, 0.0), (U_sync, 0.0), (V_cur, 0.0), (c, 1.0), (i, 0),
                               (p, 0), (q, 0), (ready, False)):
                    t[idx] = val
        self.ring_size = R
