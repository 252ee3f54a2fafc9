r"""The batched Sarsa(:math:`\lambda`) iteration (paper Sec. 6): accumulating traces, one
network per action, every action's trace decaying every step.

.. math::
    \delta = R + \gamma\hat Q(S',A'|\theta) - \hat Q(S,A|\theta),\quad
    e_a \leftarrow \gamma\lambda e_a\ \forall a,\quad
    e_A \leftarrow e_A + \nabla\hat Q(S,A|\theta),\quad
    \theta \leftarrow \theta + \alpha\delta e

The traces are kept scaled, :math:`e = s\,\hat e` with one scalar :math:`s` per row, so the
decay of all A traces is one multiplication on the host (:math:`s \leftarrow \gamma\lambda
s`), the gradient is added as :math:`\hat e_A \mathrel{+}= \nabla/s` and the update is
:math:`\theta \mathrel{+}= (\alpha\delta s)\hat e`; :math:`\hat e` is renormalised when
:math:`s` falls below ``RESCALE`` (every step when :math:`\gamma\lambda = 0`). The readable
per-run form: :func:`ftd_lib.algorithms.sarsa_lambda`.
"""

from __future__ import annotations

import numpy as np
import torch

from .schedule import STEP


class SarsaIteration:
    r"""A mixin of :class:`.control.ControlBatch`: one iteration of Sarsa(:math:`\lambda`)
    for every row."""

    def _iteration_sarsa(self):
        W, A, net, c = self.W, self.A, self.net, self.cols
        step = self.mode == STEP
        S = self.S
        xn, r, end, choose = self._env_step(step)
        Q, a_new, q_next = self._q_next(xn, choose)
        # Q(S, A): all A networks at S (one pass over the full tensor, no gather)
        rows = np.flatnonzero(step)
        xs = np.tile(S, A)
        v = net.value(self.views, self._t(xs), self.work_p).reshape(A, W)[self.act, self.ar]
        v = v[rows]
        delta = r[rows] + c["gamma"][rows] * q_next[rows] - v
        # e = s e^: decay all A traces by scaling s; e^_A += grad / s
        s_new = self.s[rows] * c["gl"][rows]
        small = s_new < self.rescale
        if small.any():  # renormalise: e^ = s e^, s = 1 (gamma lambda = 0: e^ = 0)
            self.e_keep[rows[small & (s_new == 0)]] = 0.0
            part = small & (s_new > 0)
            if part.any():
                cols = self._columns(rows[part])
                self.e.index_copy_(1, cols, self.e.index_select(1, cols).mul_(
                    self._t(np.tile(s_new[part], A))))
            s_new[small] = 1.0
        self.s[rows] = s_new
        # e^_A += grad Q(S, A) / s: the gradient of every network at S, masked to A's
        # (written out, then added: the same roundings as a gathered gradient)
        inv = np.zeros((A, W), dtype=self.npdt)
        inv[self.act[rows], rows] = 1.0 / s_new
        inv = inv.ravel()
        net.grad_into(self.g_views, self.views, self._t(xs * inv), self.work_p)
        self.g_views.b2w2.mul_(self._t(inv))
        # e^ = g + keep e^: keep = 0 clears the traces of rows that started an episode (or have
        # gamma lambda = 0) in the same pass; e^ * 1 and e^ * 0 are exact, so this adds exactly
        # as e^ + g does
        torch.addcmul(self.g, self.e, self._t(np.tile(self.e_keep, A)), out=self.e)
        self.e_keep[:] = 1.0
        # theta += alpha delta e = (alpha delta s) e^, every action's network
        coef = np.zeros(W, dtype=self.npdt)
        coef[rows] = c["alpha"][rows] * delta * s_new
        self.th.addcmul_(self.e, self._t(np.tile(coef, A)))
        self.S = np.where(step, xn, S)
        self.act = np.where(choose, a_new, self.act)
        bad = np.zeros(W)
        bad[rows] = np.abs(v)
        self._check_values(np.maximum(np.where(choose, np.abs(Q).max(0), 0.0), bad))
        end &= self.mode == STEP
        if end.any():
            ii = np.flatnonzero(end)
            self._episode_end(ii)
            self._complete(ii)
