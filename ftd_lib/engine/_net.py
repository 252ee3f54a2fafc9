r"""The paper's 1-hidden-layer network, batched over runs, with hand-written gradients.

Same function as :class:`ftd_lib.approx.MLP` (tanh hidden layer, linear output), but ``M``
networks at once, every op on all of them, in place where it can. No autograd.

Internal layout
---------------
The engine keeps the weights *parameter-major*: a ``(P, M)`` tensor whose column ``m`` is
network ``m``'s :math:`\theta`, in the row order ``[W1^T (n_in x H), b1 (H), b2, w2 (H)]``
(``W1^T[j]`` holds the H weights of input ``j``). Every op of the forward pass, the gradient
and the update is then an elementwise op on contiguous ``(H, M)`` blocks, vectorised over the
batch. Two more tricks cut the number of ops (at a few hundred runs the loop is bound by the
per-op cost of torch, not by arithmetic):

- inputs carry a constant 1 (``xe = [x; 1]``, shape ``(n+1, M)``), so ``[W1^T; b1]``
  (contiguous, ``(n+1, H, M)``) is updated by one broadcast ``addcmul_``;
- the hidden buffer carries a constant 1 (``[1; h]``, shape ``(H+1, M)``), so
  :math:`\hat V = b_2 + w_2^\top h` is one product with the contiguous ``[b2; w2]`` and one
  sum, and ``[b2; w2] += c [1; h]`` is one op.

Batch independence
------------------
Elementwise ops treat every column alike, but torch's reductions over the leading axis
(``sum``, ``vecdot``, ``einsum``) change their order of summation with the number of columns,
so a run's values would differ in the last bit between batches. The sum over the hidden units
is therefore done in a fixed order: on the CPU by numpy, whose reduction over a non-contiguous
axis adds row after row (documented; the buffer has at least 2 columns so that the axis is
never the contiguous one), on CUDA by a fixed pairwise tree of elementwise adds. And torch's
CPU ``sigmoid`` rounds the last ``numel mod 8`` elements of a tensor differently (another code
path), so it is applied to a zero-padded buffer whose length is a multiple of 64: no real
entry is ever in that tail. A run's numbers are then bit-for-bit the same in any batch
(``tests/engine/`` check it).

:meth:`BatchedMLP.to_internal` / :meth:`BatchedMLP.to_external` convert from/to the
reference layout ``(M, P)``, rows ``[W1 (H x n_in, row-major), b1, w2, b2]`` of
``ftd_lib.approx.MLP``; every public function of the engine takes and returns that layout.

tanh
----
On the CPU, torch's float64 ``tanh`` is slower than its ``sigmoid``; we use the identity
:math:`\tanh(z) = 2\sigma(2z) - 1` there (absolute error below 1e-15, so the engine still
matches the per-run reference to 1e-10). On CUDA the native ``tanh`` is used.
"""

from __future__ import annotations

import numpy as np
import torch

PAD = 64  # elementwise transcendental ops run on buffers of a multiple of PAD entries


def _padded(n: int) -> int:
    return -(-n // PAD) * PAD


class Views:
    """Views into a ``(P, M)`` weight tensor (made once per tensor: slicing costs an op)."""

    def __init__(self, net: BatchedMLP, th: torch.Tensor):
        n, H, M = net.n_in, net.n_hidden, th.shape[1]
        self.th = th
        self.W1b = th[: (n + 1) * H].view(n + 1, H, M)  # [W1^T; b1]
        self.W1T = [self.W1b[j] for j in range(n)]
        self.b1 = self.W1b[n]
        self.b2w2 = th[(n + 1) * H :]  # [b2; w2], (H+1, M)
        self.b2 = self.b2w2[0]
        self.w2 = self.b2w2[1:]


class Work:
    """Scratch tensors for ``M`` columns: ``h`` ``(H+1, M)`` with last row 1, ``d``, ``ones``,
    and the product buffer of the output sum (see "Batch independence")."""

    def __init__(self, net: BatchedMLP, M: int):
        H = net.n_hidden
        dev, dt = net.device, net.dtype
        self.M = M
        flat = torch.zeros(M + _padded(H * M), device=dev, dtype=dt)
        flat[:M] = 1.0
        self.h = flat[: (H + 1) * M].view(H + 1, M)  # [1; h]
        self.hh = self.h[1:]
        self.act = flat[M:]  # what tanh_ runs on: h and zero padding
        self.d = torch.empty(H, M, device=dev, dtype=dt)
        self.ones = torch.ones(H, M, device=dev, dtype=dt)
        if dev.type == "cpu":
            self.prod = torch.zeros(H + 1, max(M, 2), dtype=dt)
            self.prod_out = self.prod[:, :M]
            self.prod_np = self.prod.numpy()
        else:
            R2 = 1 << (H + 1 - 1).bit_length()  # rows, a power of 2, zero-padded
            self.prod = torch.zeros(R2, M, device=dev, dtype=dt)
            self.prod_out = self.prod[: H + 1]


class BatchedMLP:
    """``M`` independent tanh (or ``activation="sigmoid"``) networks ``n_in -> n_hidden -> 1``
    on a ``(P, M)`` tensor."""

    def __init__(self, n_in: int, n_hidden: int = 50, *, device="cpu",
                 dtype=torch.float64, tanh: str = "auto", activation: str = "tanh"):
        if activation not in ("tanh", "sigmoid"):
            raise ValueError(f"activation must be one of tanh, sigmoid, got {activation!r}")
        self.activation = activation
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
        self._m1 = torch.tensor(-1.0, device=self.device, dtype=dtype)
        self._p1 = torch.tensor(1.0, device=self.device, dtype=dtype)
        # internal row k = external entry perm[k]; external: [W1 (H x n), b1, w2, b2]
        j, h = np.meshgrid(np.arange(n), np.arange(H), indexing="ij")
        perm = np.concatenate([(h * n + j).ravel(), n * H + np.arange(H),
                               [n * H + 2 * H], n * H + H + np.arange(H)])
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
        r"""In-place :math:`\tanh`; on the CPU as :math:`2\sigma(2z) - 1` (faster, see above;
        the affine step is one ``addcmul``: :math:`-1 + 2 \cdot s \cdot 1`, exact as
        :math:`2s - 1`)."""
        if self.activation == "sigmoid":  # the sigmoid units: sigma(z), no tanh at all
            return z.sigmoid_()
        if self.tanh_mode == "native":
            return z.tanh_()
        z.mul_(2.0).sigmoid_()
        return torch.addcmul(self._m1, z, self._p1, value=2.0, out=z)

    def _sum_rows(self, w: Work) -> np.ndarray:
        """Column sums of ``w.prod_out`` in a fixed order (see "Batch independence"), on the
        host."""
        if self.device.type == "cpu":
            return w.prod_np.sum(0)[: w.M]
        p, k = w.prod, w.prod.shape[0]
        while k > 1:
            k //= 2
            p[:k].add_(p[k : 2 * k])
        return p[0].cpu().numpy()

    def value(self, V: Views, xe: torch.Tensor, w: Work) -> np.ndarray:
        r"""Values :math:`\hat V(x_m|\theta_m)` ``(M,)`` as a host (numpy) array; leaves
        ``[1; h]`` in ``w.h``.

        ``xe`` ``(n+1, M)``: features of network m's state in column m, then a row of ones.
        :math:`h = \tanh(W_1 x + b_1)`, :math:`\hat V = w_2^\top h + b_2`.
        """
        hh = w.hh
        torch.addcmul(V.b1, V.W1T[0], xe[0], out=hh)
        for j in range(1, self.n_in):
            hh.addcmul_(V.W1T[j], xe[j])
        self.tanh_(w.act)
        torch.mul(w.h, V.b2w2, out=w.prod_out)
        return self._sum_rows(w)

    def value_many(self, th: torch.Tensor, X: torch.Tensor) -> np.ndarray:
        """Values of every network (column of ``th`` ``(P, M)``) at every state of ``X``
        ``(N, n)``: ``(N, M)`` host array, each column independent of the others."""
        M = th.shape[1]
        if M == 1:  # keep the summed axis non-contiguous (see "Batch independence")
            th = torch.cat([th, torch.zeros_like(th)], 1)
        V = self.views(th)
        N, H, M2 = X.shape[0], self.n_hidden, th.shape[1]
        flat = torch.zeros(_padded(N * H * M2), device=self.device, dtype=self.dtype)
        pre = flat[: N * H * M2].view(N, H, M2)
        Xt = X[:, :, None, None]
        torch.addcmul(V.b1, Xt[:, 0], V.W1T[0], out=pre)
        for j in range(1, self.n_in):
            pre.addcmul_(Xt[:, j], V.W1T[j])
        self.tanh_(flat)
        h = pre.mul_(V.w2)
        if self.device.type == "cpu":
            v = h.numpy().sum(1)
        else:
            k = 1 << (h.shape[1] - 1).bit_length()
            h = torch.cat([h, h.new_zeros(h.shape[0], k - h.shape[1], h.shape[2])], 1)
            while k > 1:
                k //= 2
                h[:, :k].add_(h[:, k : 2 * k])
            v = h[:, 0].cpu().numpy()
        return (v + V.b2.cpu().numpy())[:, :M]

    # ----------------------------------------------------- gradient and update
    def grad_into(self, G: Views, V: Views, xe: torch.Tensor, w: Work) -> None:
        r"""Write :math:`\nabla_\theta \hat V(x|\theta)` into the tensor viewed by ``G``
        (after :meth:`value` at ``xe``, whose ``[1; h]`` is in ``w.h``).

        Backpropagation by hand: :math:`\partial V/\partial [b_2; w_2] = [1; h]`,
        :math:`\partial V/\partial b_1 = w_2\odot(1-h^2)`,
        :math:`\partial V/\partial W_1 = (w_2\odot(1-h^2))\,x^\top`.
        """
        d = self.slope_(V, w)
        torch.mul(d, xe[:, None, :], out=G.W1b)
        G.b2w2.copy_(w.h)

    def slope_(self, V: Views, w: Work) -> torch.Tensor:
        r""":math:`\partial V/\partial b_1 = w_2\odot f'` into ``w.d``, from the hidden units
        ``h`` = :math:`f(z)` in ``w.hh``: :math:`f' = 1 - h^2` (tanh) or :math:`h(1 - h)`
        (sigmoid; rounded as the kernel's :func:`.kernel.numerics.slope`)."""
        if self.activation == "sigmoid":
            return torch.sub(w.ones, w.hh, out=w.d).mul_(w.hh).mul_(V.w2)
        return torch.addcmul(w.ones, w.hh, w.hh, value=-1.0, out=w.d).mul_(V.w2)

    def update_(self, V: Views, xc: torch.Tensor, w: Work, coef: torch.Tensor) -> None:
        r""":math:`\theta_m \leftarrow \theta_m + c_m \nabla_\theta\hat V(x_m|\theta_m)` for every
        column, without materialising the gradient, after :meth:`value` at ``x``.

        ``coef`` ``(M,)``: the :math:`c_m`; ``xc`` ``(n+1, 1, M)``: :math:`c_m [x_m; 1]`
        (made on the host, where it is cheap), so that
        :math:`[W_1^T; b_1] \mathrel{+}= (w_2\odot(1-h^2)) \otimes c[x; 1]` is one op.
        """
        d = self.slope_(V, w)  # dV/db1
        V.W1b.addcmul_(d, xc)
        V.b2w2.addcmul_(w.h, coef)


class HostDeviceMixin:
    """Moving arrays between the host (numpy bookkeeping) and the device (the network), and
    the batched update, shared by the prediction and control batches. Needs ``self.dev``,
    ``self.npdt`` and ``self.net`` (a :class:`BatchedMLP`)."""

    def _upd(self, V, x, w, coef):
        """Update every column with coefficient ``coef`` (host array) at host inputs ``x``
        ``(n+1, B)``, after ``net.value`` at ``x`` with scratch ``w``."""
        coef = coef.astype(self.npdt, copy=False)
        self.net.update_(V, self._t((x * coef)[:, None, :]), w, self._t(coef))

    def _t(self, a: np.ndarray) -> torch.Tensor:
        """Host array -> tensor on the device (no copy on the CPU)."""
        t = torch.from_numpy(np.ascontiguousarray(a))
        return t if self.dev.type == "cpu" else t.to(self.dev, non_blocking=True)

    def _n(self, t: torch.Tensor) -> np.ndarray:
        """Tensor -> host array (no copy on the CPU)."""
        return t.numpy() if self.dev.type == "cpu" else t.cpu().numpy()
