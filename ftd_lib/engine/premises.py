"""Whether this machine's torch rounds as the compiled kernel emulates it.

The kernel (:mod:`.kernel`) gives the batched engine's numbers bit for bit only where torch's
CPU ``addcmul`` is one fused multiply-add and its sigmoid's exponential is SLEEF's
``expd_u10`` (torch's vectorised CPU paths; ``ATEN_CPU_CAPABILITY=default`` takes others).
Both engines follow the per-run reference either way; only the bit-for-bit cross-check
between them needs these premises.
"""

from __future__ import annotations

import functools

import numpy as np
import torch
from numba import njit

from .kernel import fma, sleef_exp


@njit(cache=True)
def _fma_into(s, a, b, out):
    for i in range(s.size):
        out[i] = fma(a[i], b[i], s[i])


@njit(cache=True)
def _sigmoid_into(z, out):
    for i in range(z.size):
        out[i] = 1.0 / (1.0 + sleef_exp(-z[i]))


def fma_array(s, a, b) -> np.ndarray:
    """:math:`s + a b` rounded once, elementwise (the kernel's :func:`.kernel.fma`)."""
    out = np.empty_like(s)
    _fma_into(s, a, b, out)
    return out


def sigmoid_array(z) -> np.ndarray:
    """:math:`1/(1 + e^{-z})` elementwise with the kernel's :func:`.kernel.sleef_exp`."""
    out = np.empty_like(z)
    _sigmoid_into(z, out)
    return out


def cpu_path() -> str:
    """torch's CPU vector path (``"AVX2"``, ``"AVX512"``, ``"DEFAULT"``, ...)."""
    try:
        return str(torch.backends.cpu.get_cpu_capability())
    except AttributeError:  # (older torch)
        return "unknown"


@functools.lru_cache(maxsize=1)
def kernel_premises() -> str | None:
    """``None`` where torch's CPU ``addcmul`` and ``sigmoid`` round exactly as the kernel's
    :func:`.kernel.fma` and :func:`.kernel.sleef_exp` (checked on a few thousand values),
    else the reason why not."""
    rng = np.random.default_rng(2016)
    s, a, b = rng.normal(size=(3, 4096))
    with torch.no_grad():
        got = torch.addcmul(*(torch.from_numpy(v) for v in (s, a, b))).numpy()
        if not np.array_equal(got, fma_array(s, a, b)):
            return (f"torch's CPU addcmul is not one fused multiply-add on this path "
                    f"({cpu_path()})")
        z = rng.normal(size=4096) * 30.0  # (a multiple of 64, as the batch pads it)
        if not np.array_equal(torch.from_numpy(z.copy()).sigmoid_().numpy(), sigmoid_array(z)):
            return (f"torch's CPU sigmoid does not use SLEEF's expd_u10 on this path "
                    f"({cpu_path()})")
    return None
