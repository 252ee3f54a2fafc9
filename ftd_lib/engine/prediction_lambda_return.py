r"""The batched online and offline :math:`\lambda`-return algorithms (paper Sec. 4, eq. 3):
interim returns extended by App. B's identity, and the episode replayed from
:math:`\theta_0` one update an iteration. The readable per-run forms:
:func:`ftd_lib.algorithms.online_lambda_return`,
:func:`ftd_lib.algorithms.offline_lambda_return`.
"""

from __future__ import annotations

import numpy as np

from .schedule import DONE, FLUSH, STEP


class LambdaReturnLoop:
    """A mixin of :class:`.prediction.PredictionBatch`: its :math:`\\lambda`-return loop."""

    def _loop_lambda_return(self, online: bool):
        r"""The online and offline :math:`\lambda`-return algorithms (Sec. 4, eq. 3).

        Every row keeps its episode's states and the interim returns
        :math:`G_k^{\lambda|t}` for all k < t, extended at every step by App. B's identity
        :math:`G_k^{\lambda|t+1} = G_k^{\lambda|t} + (\gamma\lambda)^{t-k}\delta'_t` and
        :math:`G_t^{\lambda|t+1} = R_{t+1} + \gamma\hat V(S_{t+1}|\theta_t)`. Online: after
        every step the row replays its episode from :math:`\theta_0`, one update an iteration
        (``REPLAY``), so a step at time t costs t iterations. Offline: the replay happens once,
        at the episode's end, with all values from :math:`\theta_0`."""
        B, net, th = self.B, self.net, self.th
        ir = InterimReturns(B, net.n_in, int(self.src.t_cap), self.npdt)
        G, Pw, t, k, ended, V_cur = ir.G, ir.Pw, ir.t, ir.k, ir.ended, ir.V_cur
        th0 = th.clone()
        Vw, wB = net.views(th), net.work(B)
        mode = self.mode
        for step, s, x, r, xn, end in iterations(self):
            if s.size:
                cs, v_next, e_s = ir.extend(self, s, x, r, xn, end)
                if online:
                    th.index_copy_(1, cs, th0.index_select(1, cs))
                    mode[s] = REPLAY
                else:
                    mode[s[e_s]] = REPLAY
                self._check_values(v_next, s)
            rep, v = ir.replay(self, Vw, wB)
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


REPLAY = FLUSH  # the mode of a row that replays its updates


def iterations(batch):
    r"""The loop of a method on interim returns (the :math:`\lambda`-return loops,
    :mod:`.block`): while a row runs, one iteration (counted in ``batch.iterations``) in
    which the rows in ``STEP`` take an environment step; yields ``(step, s, x, r, xn,
    end)``, the stepping rows as a mask and as indices, and the source's step."""
    while batch.n_running:
        batch.iterations += 1
        step = batch.mode == STEP
        x, r, xn, end = batch.src.next(step)
        yield step, np.flatnonzero(step), x, r, xn, end


class InterimReturns:
    r"""Every row's episode (or block) so far: its states ``X`` (``[phi(S_k); 1]``), the
    interim returns ``G[b, k]`` :math:`= G_k^{\lambda|t}` for k < t and their weights
    ``Pw[b, k]`` :math:`= (\gamma\lambda)^{t-1-k}`, ``t`` (states so far), ``k`` (the next
    state to replay), ``V_cur`` (:math:`\hat V(S_t)` as bootstrapped) and ``ended``; up to
    ``L`` states a row. Shared by the :math:`\lambda`-return loops and :mod:`.block`."""

    def __init__(self, B: int, n: int, L: int, npdt):
        self.X = np.zeros((n + 1, B * L), dtype=npdt)
        self.G = np.zeros((B, L), dtype=npdt)
        self.Pw = np.zeros((B, L), dtype=npdt)
        self.Gf = self.G.reshape(-1)
        self.base = np.arange(B) * L
        self.t = np.zeros(B, dtype=np.int64)
        self.k = np.zeros(B, dtype=np.int64)
        self.ended = np.zeros(B, dtype=bool)
        self.V_cur = np.zeros(B, dtype=npdt)

    def extend(self, batch, s, x, r, xn, end):
        r"""The stepping rows ``s`` observe :math:`R_{t+1}, S_{t+1}` (App. B):
        :math:`G_k^{\lambda|t+1} = G_k^{\lambda|t} + (\gamma\lambda)^{t-k}\delta'_t`,
        :math:`G_t^{\lambda|t+1} = R_{t+1} + \gamma\hat V(S_{t+1}|\theta)`, with
        :math:`\delta'_t = R_{t+1} + \gamma\hat V(S_{t+1}) - V_{cur}`; stores :math:`S_t`.
        Returns the rows' weight columns, :math:`\hat V(S_{t+1})` (0 if terminal) and
        whether their episode ended."""
        net, th, gamma, gl = batch.net, batch.th, batch.gamma, batch.gl
        G, Pw, t, V_cur = self.G, self.Pw, self.t, self.V_cur
        # V(S_{t+1} | theta_t), 0 if terminal, for the stepping rows only
        cs = batch._cols(s)
        v_next = net.value(net.views(th.index_select(1, cs)), batch._t(xn[:, s]),
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
        self.X[:, self.base[s] + t_s] = x[:, s]
        V_cur[s] = v_next
        t[s] += 1
        self.ended[s] = e_s
        return cs, v_next, e_s

    def replay(self, batch, Vw, wB):
        r"""One replayed update for the rows in ``REPLAY``: state k of the row towards
        :math:`G_k`, :math:`\theta \mathrel{+}= \alpha(G_k - \hat V(S_k))\nabla\hat V(S_k)`,
        then k moves on. Returns the replaying rows and the values (all rows)."""
        rep = batch.mode == REPLAY
        kk = self.base + self.k
        xk = np.take(self.X, kk, axis=1)
        v = batch.net.value(Vw, batch._t(xk), wB)
        batch._upd(Vw, xk, wB, np.where(rep, batch.alpha * (self.Gf[kk] - v), 0.0))
        self.k += rep
        return rep, v
