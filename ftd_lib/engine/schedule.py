r"""What the prediction and control batches share: the rows' modes and Algorithm 1's per-row
constants.

Modes: every row of a batch is a small state machine. ``STEP``: the row takes an environment
step (and at most one update); ``FLUSH``: forward TD/Sarsa(:math:`\lambda`) pops the updates
left in its FIFO at the end of an episode (Algorithm 1's last loop); ``DONE``: the row has no
work (its run finished or diverged, and no run is waiting for it).
"""

from __future__ import annotations

import numpy as np

STEP, FLUSH, DONE = 0, 1, 2

NO_CAP = 100_000  # episode cap assumed for an env that has none


def episode_cap(env) -> int:
    """The env's episode cap (``max_steps``); :data:`NO_CAP` when it has none."""
    m = getattr(env, "max_steps", None)
    return NO_CAP if m is None else int(m)


def algorithm1_constants(settings, t_cap: int, npdt=np.float64):
    r"""Algorithm 1's set-up for every settings row (paper Sec. 5), given that no episode is
    longer than ``t_cap`` steps.

    Returns ``(K, c_final, gl_div, ring)``:

    - ``K`` (int array): :math:`K = \lceil\log\eta/\log\gamma\lambda\rceil` (1 when
      :math:`\gamma\lambda = 0`), capped by :math:`K_{max}`
      (:func:`ftd_lib.returns.k_bound`); a K beyond ``t_cap`` (including :math:`K = \infty`
      for :math:`\gamma\lambda = 1`) becomes ``t_cap + 1``: no update before the episode ends,
      which is what K does within an episode of at most ``t_cap`` steps;
    - ``c_final`` :math:`= (\gamma\lambda)^{K-1}` (0 when K never arrives);
    - ``gl_div``: the divisor of :math:`U \leftarrow (U - \rho_p)/\gamma\lambda`, 1 where it is
      never used (K = 1, or :math:`\gamma\lambda = 0`);
    - ``ring``: the FIFO length every row needs, :math:`\min(K, t_{cap}) + 1`.
    """
    K = settings.K()
    never = K > t_cap
    K_eff = np.where(never, t_cap + 1, K).astype(np.int64)
    gl = settings.gamma * settings.lam
    c_final = np.where(never, 0.0, gl ** (np.minimum(K_eff, 10**6) - 1)).astype(npdt)
    gl_div = np.where((K_eff == 1) | (gl == 0), 1.0, gl).astype(npdt)
    ring = np.minimum(K_eff, t_cap) + 1
    return K_eff, c_final, gl_div, ring
