r"""Function approximators on a flat parameter vector :math:`\theta` (the paper's notation).

Each approximator has ``n_params``, ``init(rng)``, ``value(w, x)`` and ``grad(w, x)``:
:math:`\hat V(s|\theta)` and :math:`\nabla_\theta \hat V(s|\theta)` for a feature vector
:math:`x = \phi(s)`. ``x`` may also be a batch ``(B, n)``; then ``value`` returns ``(B,)`` and
``grad`` returns ``(B, n_params)``.

The paper (Sec. 6) uses "a single hidden layer of 50 nodes" trained by backpropagation
"in a similar way as done by Tesauro". It leaves the activation and initialisation open; we
choose tanh hidden units, a linear output, and PyTorch's default ``nn.Linear``
initialisation (uniform in :math:`\pm 1/\sqrt{\text{fan-in}}`).

The sums and the :math:`\tanh` come from :mod:`ftd_lib.portable` rather than ``@`` and
``np.tanh``: the same function, but the same bits on every CPU (BLAS and numpy pick their
vector kernels per CPU at run time), so a per-run reference's numbers can be recorded once.
"""

from __future__ import annotations

import numpy as np

from .portable import dot, matvec, sigmoid, tanh


class Linear:
    r"""Linear value function :math:`\hat V(s|\theta) = \theta^\top \phi(s)`.

    Tabular is the special case of one-hot features. ``init`` returns zeros.
    """

    def __init__(self, n: int):
        if int(n) < 1:
            raise ValueError(f"n must be >= 1, got {n!r}")
        self.n_in = int(n)
        self.n_params = int(n)

    def init(self, rng: np.random.Generator | None = None) -> np.ndarray:
        return np.zeros(self.n_params)

    def value(self, w: np.ndarray, x: np.ndarray):
        return dot(x, w)  # x @ w, added in a fixed order

    def grad(self, w: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.array(x, dtype=float)


#: the hidden units :class:`MLP` (and every engine's network) can have
ACTIVATIONS = ("tanh", "sigmoid")


class MLP:
    r"""One hidden layer of tanh units, linear output (the paper's 2-50-1 network); or
    ``activation="sigmoid"``: :math:`\sigma(z) = 1/(1 + e^{-z})` units (Tesauro's), with
    :math:`\sigma' = h(1 - h)` in place of :math:`1 - h^2` below.

    .. math::
        h = \tanh(W_1 x + b_1), \qquad \hat V(x|\theta) = w_2^\top h + b_2

    Flat layout of :math:`\theta` (length ``n_hidden * (n_in + 2) + 1``):
    ``[W1 (n_hidden x n_in, row-major), b1 (n_hidden), w2 (n_hidden), b2 (1)]``.

    Gradient by hand (backpropagation):
    :math:`\partial V/\partial w_2 = h`, :math:`\partial V/\partial b_2 = 1`,
    :math:`\partial V/\partial b_1 = w_2 \odot (1-h^2)`,
    :math:`\partial V/\partial W_1 = (w_2 \odot (1-h^2))\, x^\top`.
    """

    def __init__(self, n_in: int, n_hidden: int = 50, activation: str = "tanh"):
        if int(n_in) < 1:
            raise ValueError(f"n_in must be >= 1, got {n_in!r}")
        if int(n_hidden) < 1:
            raise ValueError(f"n_hidden must be >= 1, got {n_hidden!r}")
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got "
                             f"{activation!r}")
        self.n_in = int(n_in)
        self.n_hidden = int(n_hidden)
        self.activation = activation
        self.n_params = self.n_hidden * (self.n_in + 2) + 1

    def unpack(self, w: np.ndarray):
        """Views ``(W1, b1, w2, b2)`` into the flat vector ``w``."""
        H, n = self.n_hidden, self.n_in
        W1 = w[: H * n].reshape(H, n)
        b1 = w[H * n : H * n + H]
        w2 = w[H * n + H : H * n + 2 * H]
        b2 = w[H * n + 2 * H]
        return W1, b1, w2, b2

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """PyTorch-default init: every weight uniform in :math:`\\pm 1/\\sqrt{\\text{fan-in}}`."""
        H, n = self.n_hidden, self.n_in
        s1, s2 = 1.0 / np.sqrt(n), 1.0 / np.sqrt(H)
        return np.concatenate(
            [
                rng.uniform(-s1, s1, H * n),
                rng.uniform(-s1, s1, H),
                rng.uniform(-s2, s2, H),
                rng.uniform(-s2, s2, 1),
            ]
        )

    def hidden(self, w: np.ndarray, x: np.ndarray) -> np.ndarray:
        r""":math:`h = \tanh(W_1 x + b_1)` (``np.tanh(x @ W1.T + b1)``, in a fixed order)."""
        W1, b1, _, _ = self.unpack(w)
        z = matvec(W1, x) + b1
        return tanh(z) if self.activation == "tanh" else sigmoid(z)

    def value(self, w: np.ndarray, x: np.ndarray):
        r""":math:`\hat V = w_2^\top h + b_2` (``h @ w2 + b2``, in a fixed order)."""
        _, _, w2, b2 = self.unpack(w)
        return dot(self.hidden(w, x), w2) + b2

    def grad(self, w: np.ndarray, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        _, _, w2, _ = self.unpack(w)
        h = self.hidden(w, x)
        slope = 1.0 - h * h if self.activation == "tanh" else h * (1.0 - h)
        d_pre = w2 * slope  # dV/d(pre-activation), shape (..., H)
        d_W1 = d_pre[..., :, None] * x[..., None, :]
        lead = x.shape[:-1]
        return np.concatenate(
            [
                d_W1.reshape(*lead, -1),
                d_pre,
                h,
                np.ones((*lead, 1)),
            ],
            axis=-1,
        )
