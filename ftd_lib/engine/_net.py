r"""The paper's 1-hidden-layer network, batched over runs, with hand-written gradients.

Same function as :class:`ftd_lib.approx.MLP` (tanh hidden layer, linear output), but ``M``
networks at once, every op on all of them, in place where it can. No autograd.

Internal layout
---------------
The engine keeps the weights *parameter-major*: a ``(P, M)`` tensor whose column ``m`` is
network ``m``'s :math:`\theta`, in the row order ``[W1^T (n_in x H), b1 (H), w2 (H), b2]``
(``W1^T[j]`` holds the H weights of input ``j``). Every op of the forward pass, the gradient
and the update is then an elementwise op on contiguous ``(H, M)`` blocks, vectorised over the
batch. Two more tricks cut the number of ops (at a few hundred runs the loop is bound by the
per-op cost of torch, not by arithmetic):

- inputs carry a constant 1 (``xe = [x; 1]``, shape ``(n+1, M)``), so ``[W1^T; b1]``
  (contiguous, ``(n+1, H, M)``) is updated by one broadcast ``addcmul_``;
- the hidden buffer carries a constant 1 (``[h; 1]``, shape ``(H+1, M)``), so
  :math:`\hat V = w_2^\top h + b_2` is one ``vecdot`` with the contiguous ``[w2; b2]`` and
  ``[w2; b2] += c [h; 1]`` is one op.

:meth:`BatchedMLP.to_internal` / :meth:`BatchedMLP.to_external` convert from/to the
reference layout ``(M, P)``, rows ``[W1 (H x n_in, row-major), b1, w2, b2]`` of
``ftd_lib.approx.MLP``; every public function of the engine takes and returns that layout.

tanh
----
On the CPU, torch's float64 ``tanh`` is about 3 times slower than its ``sigmoid``; we use the
identity :math:`\tanh(z) = 2\sigma(2z) - 1` there (absolute error below 1e-15, so the engine
still matches the per-run reference to 1e-10). On CUDA the native ``tanh`` is used.
"""

from __future__ import annotations

import numpy as np
import torch


class Views:
    """Views into a ``(P, M)`` weight tensor (made once per tensor: slicing costs an op)."""

    def __init__(self, net: BatchedMLP, th: torch.Tensor):
        n, H, M = net.n_in, net.n_hidden, th.shape[1]
        self.th = th
        self.W1b = th[: (n + 1) * H].view(n + 1, H, M)  # [W1^T; b1]
        self.W1T = [self.W1b[j] for j in range(n)]
        self.b1 = self.W1b[n]
        self.w2b2 = th[(n + 1) * H :]  # [w2; b2], (H+1, M)
        self.w2 = self.w2b2[:H]


class Work:
    """Scratch tensors for ``M`` columns: ``h`` ``(H+1, M)`` with last row 1, ``d``, ``ones``."""

    def __init__(self, net: BatchedMLP, M: int):
        H = net.n_hidden
        self.h = torch.empty(H + 1, M, device=net.device, dtype=net.dtype)
        self.h[H] = 1.0
        self.hh = self.h[:H]
        self.d = torch.empty(H, M, device=net.device, dtype=net.dtype)
        self.ones = torch.ones(H, M, device=net.device, dtype=net.dtype)


class BatchedMLP:
    """``M`` independent tanh networks ``n_in -> n_hidden -> 1`` on a ``(P, M)`` tensor."""

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
        # internal row k = external entry perm[k]
        perm = np.arange(self.n_params)
        j, h = np.meshgrid(np.arange(n), np.arange(H), indexing="ij")
        perm[: n * H] = (h * n + j).ravel()
        self.perm = perm
        self.inv_perm = np.argsort(perm)

    # ----------------------------------------------------------------- layout
    def to_internal(self, w) -> torch.Tensor:
        """Reference layout ``(M, P)`` array -> internal ``(P, M)`` tensor on the device."""
        w = np.asarray(w, dtype=np.float64).reshape(-1, self.n_params)
        t = torch.as_tensor(np.ascontiguousarray(w[:, self.perm].T))
        return t.to(device=self.device, dtype=self.dtype).contiguous()

    def to_external(self, th: torch.Tensor) -> np.ndarray:
        """Internal ``(P, ...)`` tensor -> reference layout ``(..., P)`` float64 array."""
        a = th.detach().to("cpu", torch.float64).numpy()
        return np.moveaxis(a, 0, -1)[..., self.inv_perm].copy()

    def views(self, th: torch.Tensor) -> Views:
        return Views(self, th)

    def work(self, M: int) -> Work:
        return Work(self, M)

    # ---------------------------------------------------------------- forward
    def tanh_(self, z: torch.Tensor) -> torch.Tensor:
        r"""In-place :math:`\tanh`; on the CPU as :math:`2\sigma(2z) - 1` (faster, see above)."""
        if self.tanh_mode == "native":
            return z.tanh_()
        z.mul_(2.0).sigmoid_()
        return z.mul_(2.0).sub_(1.0)

    def value(self, V: Views, xe: torch.Tensor, w: Work) -> torch.Tensor:
        r"""Values :math:`\hat V(x_m|\theta_m)` ``(M,)``; leaves ``[h; 1]`` in ``w.h``.

        ``xe`` ``(n+1, M)``: features of network m's state in column m, then a row of ones.
        :math:`h = \tanh(W_1 x + b_1)`, :math:`\hat V = w_2^\top h + b_2`.
        """
        hh = w.hh
        torch.addcmul(V.b1, V.W1T[0], xe[0], out=hh)
        for j in range(1, self.n_in):
            hh.addcmul_(V.W1T[j], xe[j])
        self.tanh_(hh)
        return torch.linalg.vecdot(w.h, V.w2b2, dim=0)

    def value_many(self, th: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
        """Values of every network (column of ``th`` ``(P, M)``) at every state of ``X``
        ``(N, n)``: ``(M, N)``."""
        V = self.views(th)
        pre = torch.einsum("nj,jhm->nhm", X, V.W1b[: self.n_in]).add_(V.b1)
        h = self.tanh_(pre)
        return torch.einsum("nhm,hm->mn", h, V.w2) + V.w2b2[-1][:, None]

    # ----------------------------------------------------- gradient and update
    def grad_into(self, G: Views, V: Views, xe: torch.Tensor, w: Work) -> None:
        r"""Write :math:`\nabla_\theta \hat V(x|\theta)` into the tensor viewed by ``G``
        (after :meth:`value` at ``xe``, whose ``[h; 1]`` is in ``w.h``).

        Backpropagation by hand: :math:`\partial V/\partial [w_2; b_2] = [h; 1]`,
        :math:`\partial V/\partial b_1 = w_2\odot(1-h^2)`,
        :math:`\partial V/\partial W_1 = (w_2\odot(1-h^2))\,x^\top`.
        """
        d = torch.addcmul(w.ones, w.hh, w.hh, value=-1.0, out=w.d).mul_(V.w2)
        torch.mul(d, xe[:, None, :], out=G.W1b)
        G.w2b2.copy_(w.h)

    def update_(self, V: Views, xe: torch.Tensor, w: Work, coef: torch.Tensor) -> None:
        r""":math:`\theta_m \leftarrow \theta_m + c_m \nabla_\theta\hat V(x_m|\theta_m)` for every
        column, without materialising the gradient (``coef`` ``(M,)``; after :meth:`value`
        at ``xe``)."""
        d = torch.addcmul(w.ones, w.hh, w.hh, value=-1.0, out=w.d)
        d.mul_(V.w2).mul_(coef)  # c * dV/db1
        V.W1b.addcmul_(d, xe[:, None, :])
        V.w2b2.addcmul_(w.h, coef)
