r"""The batched forward Sarsa(:math:`\lambda`) iteration (paper Sec. 6): Algorithm 1 with
:math:`V_{next} = \hat Q(S', A'|\theta)` (0 at a terminal state), the FIFO holding
:math:`\langle\phi(S), A, \rho\rangle`, a pop updating the network of the popped state's
action. Rows whose episode ended pop up to ``flush_pops`` updates an iteration, one after the
other. The readable per-run form: :func:`ftd_lib.algorithms.forward_sarsa_lambda`.
"""

from __future__ import annotations

import numpy as np

from .schedule import DONE, FLUSH, STEP

MASKED_SHARE = 0.4  # a pop on more than this share of the rows runs on all networks, masked


class ForwardSarsaIteration:
    r"""A mixin of :class:`.control.ControlBatch`: one iteration of forward
    Sarsa(:math:`\lambda`) for every row, and its pops."""

    def _iteration_forward(self):
        n, c, al = self.n_in, self.cols, self.alg
        ring, base, R = self.ring, self.base, self.R
        step = self.mode == STEP
        flush = self.mode == FLUSH
        S = self.S
        xn, r, end, choose = self._env_step(step)
        Q, a_new, v_next = self._q_next(xn, choose)
        # push <phi(S), A, rho>, rho = R + gamma (1 - lambda) V_next
        slot = (base + self.p % R)[step]
        ring[: n + 1, slot] = S[:, step]
        ring[n + 1, slot] = self.act[step]
        ring[n + 2, slot] = (r + c["g1l"] * v_next)[step]
        self.p += step
        # delta' = R + gamma V_next - V_current; V_current = V_next
        d_prime = r + c["gamma"] * v_next - al["V_cur"]
        al["V_cur"] = np.where(step, v_next, al["V_cur"])
        # if i = K - 1: U = U_sync; U_sync = V_current; i = 0; c = 1; ready = true
        # else:         U_sync += c delta'; i += 1; c *= gamma lambda
        sync = step & (self.i == c["Km1"])
        adv = step & ~sync
        al["U"] = np.where(sync, al["U_sync"], al["U"])
        al["U_sync"] = np.where(sync, al["V_cur"],
                                np.where(adv, al["U_sync"] + al["c"] * d_prime, al["U_sync"]))
        self.i = np.where(sync, 0, self.i + adv)
        al["c"] = np.where(sync, 1.0, np.where(adv, c["gl"] * al["c"], al["c"])).astype(
            self.npdt, copy=False)
        self.ready |= sync
        # if ready: U += c_final delta'; pop <S_p, A_p, rho_p>; update; U = (U - rho_p)/gl
        step_upd = step & self.ready
        al["U"] = np.where(step_upd, al["U"] + c["c_final"] * d_prime, al["U"])
        self._pop(step_upd | flush)
        # end of the episode: if not ready, U = U_sync; then flush the FIFO
        end_step = end & step
        al["U"] = np.where(end_step & ~self.ready, al["U_sync"], al["U"])
        # flushing rows, and rows whose episode ended now, pop more updates (one after the
        # other, each at the weights the previous left)
        for _ in range(self.flush_pops - 1):
            more = (flush | end_step) & (self.p > self.q) & (self.mode != DONE)
            if not more.any():
                break
            self._pop(more)
        self.S = np.where(step, xn, S)
        self.act = np.where(choose, a_new, self.act)
        self._check_values(np.where(choose, np.abs(Q).max(0), 0.0))
        live = self.mode != DONE
        end_step &= live
        flush &= live
        empty = self.p == self.q
        self.mode[end_step & ~empty] = FLUSH
        if end_step.any():
            self._episode_end(np.flatnonzero(end_step))
        comp = (end_step | flush) & empty
        if comp.any():
            self._complete(np.flatnonzero(comp))

    def _pop(self, upd):
        """The rows in ``upd`` pop :math:`\\langle S_p, A_p, \\rho_p\\rangle`, update the
        network of :math:`A_p` towards U, and move U on to the next state's target."""
        if not upd.any():
            return
        rows = np.flatnonzero(upd)
        al, c, n = self.alg, self.cols, self.n_in
        if len(rows) > MASKED_SHARE * self.W:  # many rows: all networks, masked (no gather)
            every = np.take(self.ring, self.base + self.q % self.R, axis=1)  # all rows
            item = every[:, rows]
            v = self._pop_update_full(rows, every[: n + 1], item[n + 1].astype(np.int64),
                                      al["U"][rows])
        else:
            item = np.take(self.ring, self.base[rows] + self.q[rows] % self.R, axis=1)
            v = self._pop_update(rows, item[: n + 1], item[n + 1].astype(np.int64),
                                 al["U"][rows])
        self.q[rows] += 1
        al["U"][rows] = (al["U"][rows] - item[n + 2]) / c["gl_div"][rows]
        self._check_values(np.abs(v), rows)

    def _pop_update_full(self, rows, x, a, target):
        """:meth:`_pop_update` for many rows: every network of every row evaluated at the
        row's ``x`` (``(n+1, W)``: all rows), updated with the coefficient masked to the
        networks ``a`` of ``rows`` (other networks are left exactly as they were)."""
        A, W = self.A, self.W
        xr = np.tile(x, A)
        v = self.net.value(self.views, self._t(xr), self.work_p).reshape(A, W)[a, rows]
        coef = np.zeros((A, W), dtype=self.npdt)
        coef[a, rows] = self.cols["alpha"][rows] * (target - v)
        self._upd(self.views, xr, self.work_p, coef.ravel())
        return v

    def _pop_update(self, rows, x, a, target):
        r""":math:`\theta_a \leftarrow \theta_a + \alpha(U - \hat Q(x, a|\theta))
        \nabla\hat Q(x, a|\theta)` for the networks ``a`` of ``rows`` (a sub-batch: gathered,
        updated, scattered back). Returns the values :math:`\hat Q(x, a|\theta)` before the
        update."""
        idx = self._columns(rows, a)
        sub, V, w, m = self._gather(idx)
        M = sub.shape[1]
        v = self.net.value(V, self._t(self._pad(x, M)), w)[:m]
        coef = np.zeros(M, dtype=self.npdt)
        coef[:m] = self.cols["alpha"][rows] * (target - v)
        self._upd(V, self._pad(x, M), w, coef)
        self.th.index_copy_(1, idx, sub[:, :m])
        return v
