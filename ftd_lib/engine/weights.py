r"""Every run's first weights :math:`\theta_0`, from its own stream (:func:`initial_weights`)."""

from __future__ import annotations

import numpy as np

from .. import validate as V
from ..approx import MLP
from ..rng import INIT_STREAM, run_generator

#: how a network's first weights are drawn (:func:`initial_weights`)
INITS = ("uniform", "zero-output", "small")


def initial_weights(seed: int, run_ids, n_in: int, n_hidden: int = 50, n_nets: int = 1,
                    init: str = "uniform"):
    """:math:`\\theta_0` of every run (reference layout): ``(B, P)``, or ``(B, n_nets, P)``
    when ``n_nets > 1`` (control: one network per action, initialised one after another from
    the same generator). Depends only on ``(seed, run_id)``. ``init`` (:data:`INITS`):
    ``"uniform"`` (every weight uniform in :math:`\\pm 1/\\sqrt{\\text{fan-in}}`, PyTorch's
    default), ``"zero-output"`` (the same draw, output layer :math:`w_2, b_2` zeroed: every
    value 0 at first) or ``"small"`` (the same draw times 0.1)."""
    V.check_choice("init", init, INITS)
    net = MLP(n_in, n_hidden)
    out = []
    for rid in np.asarray(run_ids, dtype=np.int64).reshape(-1):
        g = run_generator(seed, int(rid), INIT_STREAM)
        out.append(np.stack([net.init(g) for _ in range(n_nets)]))
    w = np.array(out).reshape(-1, n_nets, net.n_params)
    if init == "zero-output":
        w[..., n_hidden * (n_in + 1):] = 0.0  # w2 and b2
    elif init == "small":
        w = w * 0.1
    return w[:, 0] if n_nets == 1 else w
