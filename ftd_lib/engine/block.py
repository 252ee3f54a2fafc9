r"""The block :math:`\lambda`-return method in the batched prediction engine: GAE targets,
one SGD pass (values frozen over a block of B steps, then one pass of semi-gradient steps
toward the block's GAE targets) for many runs and settings at once.

The per-run reference is :func:`ftd_lib.algorithms.block_lambda_return`; this loop reproduces
it row by row to rounding (tested to 1e-10 in float64), bit for bit the same in any batch.

Settings: a row's block length B is its ``k_max`` (the longest distance from a state to its
target's horizon, which is what :math:`K_{max}` bounds for forward TD(:math:`\lambda`));
``k_max = None`` (no cap) means one block per episode, the offline :math:`\lambda`-return
algorithm. ``eta`` is not used.

Schedule (the rows' modes of :mod:`.schedule`; ``REPLAY`` is the ``FLUSH`` code):

- ``STEP``: one environment step. The weights are frozen inside a block, so
  :math:`\hat V(S_{t+1}|\theta_s)` is what the step evaluates; the block's interim returns
  :math:`G_k^{\lambda|t+1}` (k in the block) are extended by App. B's first identity,
  :math:`G_k^{\lambda|t+1} = G_k^{\lambda|t} + (\gamma\lambda)^{t-k}\delta'_t`, and
  :math:`G_t^{\lambda|t+1} = R_{t+1} + \gamma\hat V(S_{t+1}|\theta_s)`. When the block has B
  states or the episode ends, the row turns to ``REPLAY``; at the block's last step the returns
  are :math:`G_k^{\lambda|e}`, the GAE targets :math:`A_k + \hat V(S_k|\theta_s)`.
- ``REPLAY``: one update an iteration, the block's states in time order, each at the current
  weights; after the last one the next block starts (or the episode is complete).

The same loop with B = the episode's length is the offline branch of
:meth:`ftd_lib.engine.prediction.PredictionBatch._loop_lambda_return`.
"""

from __future__ import annotations

import numpy as np

from .prediction_lambda_return import REPLAY, InterimReturns, iterations
from .schedule import DONE, STEP

METHOD = "block_lambda_return"


def block_lengths(settings, t_cap: int) -> np.ndarray:
    """Every row's block length B (``k_max``; no cap: ``t_cap``, a whole episode), at most
    ``t_cap``: int array."""
    k = np.asarray(settings.k_max, dtype=np.float64)
    return np.where(np.isinf(k), t_cap, np.minimum(k, t_cap)).astype(np.int64)


def loop_block(batch) -> None:
    """Run the block :math:`\\lambda`-return method on a
    :class:`ftd_lib.engine.prediction.PredictionBatch` (see the module docstring)."""
    b = batch
    B, net, th, src = b.B, b.net, b.th, b.src
    blk = block_lengths(b.settings, int(src.t_cap))
    ir = InterimReturns(B, net.n_in, int(blk.max()) if B else 1, b.npdt)  # the blocks
    G, Pw, t, k, ended, V_cur = ir.G, ir.Pw, ir.t, ir.k, ir.ended, ir.V_cur
    Vw, wB = net.views(th), net.work(B)
    mode = b.mode
    for step, s, x, r, xn, end in iterations(b):
        close = np.zeros(B, dtype=bool)
        if s.size:
            _, v_next, e_s = ir.extend(b, s, x, r, xn, end)
            c_s = s[e_s | (t[s] >= blk[s])]  # the block closes: B states, or the episode ended
            close[c_s] = True
            mode[c_s] = REPLAY
            b._check_values(v_next, s)
        rep, v = ir.replay(b, Vw, wB)
        fin = rep & (k == t)
        b.n_steps += step
        b._record((step & ~close) | fin)
        t[fin] = k[fin] = 0
        G[fin] = Pw[fin] = 0.0
        mode[fin] = STEP
        b._check_values(v)
        comp = fin & ended & (mode != DONE)  # not a row frozen just now
        ended[fin] = False
        if comp.any():
            ii = b._complete(comp)
            V_cur[ii] = 0.0
