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
