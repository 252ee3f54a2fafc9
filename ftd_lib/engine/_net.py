r"""The paper's 1-hidden-layer network, batched over runs, with hand-written gradients.

Same function as :class:`ftd_lib.approx.MLP` (tanh hidden layer, linear output), but every
row of a ``(M, P)`` tensor :math:`\theta` is a separate network and every op works on all
rows at once, in place where it can. No autograd.

Internal layout
---------------
The engine keeps :math:`\theta` in a column order that makes the hot loop's memory access
contiguous: ``[W1^T (n_in x H), b1 (H), w2 (H), b2]`` (``W1^T[j]`` is the H weights of input
``j``). :meth:`BatchedMLP.to_internal` / :meth:`BatchedMLP.to_external` convert from/to the
reference layout ``[W1 (H x n_in, row-major), b1, w2, b2]`` of ``ftd_lib.approx.MLP``; every
public function of the engine takes and returns the reference layout.

tanh
----
On the CPU, torch's float64 ``tanh`` is about twice as slow as its ``sigmoid``; we use the
identity :math:`\tanh(z) = 2\sigma(2z) - 1` there (absolute error below 1e-15, so the engine
still matches the per-run reference to 1e-10). On CUDA the native ``tanh`` is used.
"""

from __future__ import annotations

import numpy as np
import torch


class BatchedMLP:
    """``M`` independent tanh networks ``n_in -> n_hidden -> 1`` on a ``(M, P)`` tensor."""

    def __init__(self, n_in: int, n_hidden: int = 50, *, device="cpu",
                 dtype=torch.float64, tanh: str = "auto"):
        self.n_in = int(n_in)
        self.n_hidden = int(n_hidden)
        n, H = self.n_in, self.n_hidden
        self.n_params = H * (n + 2) + 1
        self.device = torch.device(device)
        self.dtype = dtype
        if tanh == "auto":
            tanh = "sigmoid" if self.device.type == "cpu" else "native"
        if tanh not in ("sigmoid", "native"):
            raise ValueError(f"tanh must be 'auto', 'sigmoid' or 'native', got {tanh!r}")
        self.tanh_mode = tanh
        self.o_b1 = n * H
        self.o_w2 = n * H + H
        self.o_b2 = n * H + 2 * H
        # internal[k] = external[perm[k]]
        perm = np.arange(self.n_params)
        j, h = np.meshgrid(np.arange(n), np.arange(H), indexing="ij")
        perm[: n * H] = (h * n + j).ravel()
        self.perm = perm
        self.inv_perm = np.argsort(perm)

    # ----------------------------------------------------------------- layout
    def to_internal(self, w) -> torch.Tensor:
        """Reference layout (``(..., P)`` array) -> internal layout tensor on the device."""
        w = torch.as_tensor(np.asarray(w, dtype=np.float64)[..., self.perm])
        return w.to(device=self.device, dtype=self.dtype).contiguous()

    def to_external(self, th: torch.Tensor) -> np.ndarray:
        """Internal layout tensor -> reference layout float64 numpy array."""
        return th.detach().to("cpu", torch.float64).numpy()[..., self.inv_perm]

    def views(self, th: torch.Tensor):
        """Views ``W1T (M, n, H), b1 (M, H), w2 (M, H), b2 (M,)`` into ``th``."""
        n, H = self.n_in, self.n_hidden
        W1T = th[:, : n * H].view(th.shape[0], n, H)
        return W1T, th[:, self.o_b1 : self.o_w2], th[:, self.o_w2 : self.o_b2], th[:, self.o_b2]

    # ---------------------------------------------------------------- forward
    def tanh_(self, z: torch.Tensor) -> torch.Tensor:
        r"""In-place :math:`\tanh`; on the CPU as :math:`2\sigma(2z) - 1` (faster, see above)."""
        if self.tanh_mode == "native":
            return z.tanh_()
        z.mul_(2.0).sigmoid_()
        return z.mul_(2.0).sub_(1.0)

    def value(self, th: torch.Tensor, x: torch.Tensor, h_out: torch.Tensor | None = None):
        r"""Values :math:`\hat V(x_m|\theta_m)` ``(M,)`` and hidden activations ``h`` ``(M, H)``.

        :math:`h = \tanh(W_1 x + b_1)`, :math:`\hat V = w_2^\top h + b_2`, row by row.
        """
        W1T, b1, w2, b2 = self.views(th)
        h = torch.addcmul(b1, W1T[:, 0, :], x[:, 0:1], out=h_out) if h_out is not None \
            else torch.addcmul(b1, W1T[:, 0, :], x[:, 0:1])
        for j in range(1, self.n_in):
            h.addcmul_(W1T[:, j, :], x[:, j : j + 1])
        self.tanh_(h)
        v = torch.linalg.vecdot(h, w2).add_(b2)
        return v, h

    def value_many(self, th: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        """Values of every network (row of ``th``, ``(M, P)``) at every state ``X`` ``(N, n)``:
        ``(M, N)``."""
        W1T, b1, w2, b2 = self.views(th)
        pre = b1[:, None, :] + torch.einsum("nj,mjh->mnh", X, W1T)
        h = self.tanh_(pre)
        return torch.einsum("mnh,mh->mn", h, w2) + b2[:, None]

    # --------------------------------------------------------------- gradient
    def grad_into(self, g: torch.Tensor, th: torch.Tensor, x: torch.Tensor, h: torch.Tensor,
                  ones: torch.Tensor) -> torch.Tensor:
        r"""Write :math:`\nabla_\theta \hat V(x|\theta)` into ``g`` ``(M, P)`` (internal layout).

        Backpropagation by hand: :math:`\partial V/\partial b_2 = 1`,
        :math:`\partial V/\partial w_2 = h`, :math:`\partial V/\partial b_1 = w_2\odot(1-h^2)`,
        :math:`\partial V/\partial W_1 = (w_2\odot(1-h^2))\,x^\top`. ``ones`` is a ``(M, H)``
        tensor of ones (kept by the caller to avoid allocations); ``g[:, -1]`` must already
        hold 1.
        """
        _, _, w2, _ = self.views(th)
        gW1T, gb1, gw2, _ = self.views(g)
        torch.addcmul(ones, h, h, value=-1.0, out=gb1)  # 1 - h^2
        gb1.mul_(w2)
        for j in range(self.n_in):
            torch.mul(gb1, x[:, j : j + 1], out=gW1T[:, j, :])
        gw2.copy_(h)
        return g

    def new_grad_buffer(self, M: int) -> torch.Tensor:
        g = torch.zeros(M, self.n_params, device=self.device, dtype=self.dtype)
        g[:, self.o_b2] = 1.0
        return g
