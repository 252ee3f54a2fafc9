"""Settings rows: one (alpha, lambda, gamma, eta, K_max) per row of a batch."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..returns import k_bound
from ..validate import check_alpha, check_eta, check_k_max, check_unit

#: "no K cap" in a stored settings array (chunk identities keep it, so it stays 0); everywhere
#: else no cap is ``None``
K_MAX_NONE_STORED = 0


def _column(name, value, n=None):
    try:
        a = np.asarray(value, dtype=object if name == "k_max" else np.float64)
    except (TypeError, ValueError):
        what = "None or integers >= 1" if name == "k_max" else "numbers"
        raise ValueError(f"{name} must be a scalar or a 1-d array of {what}, got {value!r}"
                         ) from None
    if a.size == 0:
        raise ValueError(f"{name} must hold at least one value, got {value!r}")
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a scalar or a 1-d array, got shape {a.shape}")
    return a


@dataclass(frozen=True)
class Settings:
    """The step-size and return parameters of every row of a batch.

    Build with :meth:`make`, which broadcasts scalars and checks every value (bad input raises
    ``ValueError`` naming the parameter, as the per-run reference does):

    >>> s = Settings.make(alpha=[0.01, 0.02], lam=0.9, gamma=1.0, eta=0.01, k_max=[None, 50])
    >>> len(s), s.K().tolist()
    (2, [44.0, 44.0])

    ``k_max`` entries are ``None`` (no cap: the one encoding of every public interface,
    :meth:`row` included) or integers >= 1; the float column holds ``inf`` for no cap, and
    arrays of stored rows hold :data:`K_MAX_NONE_STORED` (:meth:`as_array`,
    :meth:`from_array`). ``eta`` and ``k_max`` only matter for forward TD/Sarsa(lambda).
    """

    alpha: np.ndarray
    lam: np.ndarray
    gamma: np.ndarray
    eta: np.ndarray
    k_max: np.ndarray

    @classmethod
    def from_array(cls, a) -> Settings:
        """From an array ``(N, 5)`` of rows ``(alpha, lam, gamma, eta, k_max)`` in the stored
        form (:meth:`as_array`: ``k_max`` :data:`K_MAX_NONE_STORED` = no cap)."""
        a = np.asarray(a, dtype=np.float64).reshape(-1, 5)
        k_max = [None if k == K_MAX_NONE_STORED else int(k) for k in a[:, 4]]
        return cls.make(alpha=a[:, 0], lam=a[:, 1], gamma=a[:, 2], eta=a[:, 3], k_max=k_max)

    def as_array(self) -> np.ndarray:
        """The rows as ``(N, 5)`` floats ``(alpha, lam, gamma, eta, k_max)``, no cap stored as
        :data:`K_MAX_NONE_STORED` (the form chunk identities keep)."""
        km = np.where(np.isinf(self.k_max), K_MAX_NONE_STORED, self.k_max)
        return np.stack([self.alpha, self.lam, self.gamma, self.eta, km], axis=1)

    @classmethod
    def make(cls, alpha, lam, gamma, eta=0.01, k_max=None) -> Settings:
        cols = {name: _column(name, v) for name, v in
                dict(alpha=alpha, lam=lam, gamma=gamma, eta=eta).items()}
        km = np.empty(1, dtype=object)
        km[0] = None
        if k_max is not None:
            km = _column("k_max", k_max)
        lengths = {len(v) for v in [*cols.values(), km] if len(v) != 1}
        if len(lengths) > 1:
            raise ValueError(f"settings columns have different lengths: {sorted(lengths)}")
        n = lengths.pop() if lengths else 1
        out = {k: np.broadcast_to(v, (n,)).copy() for k, v in cols.items()}
        km = np.broadcast_to(km, (n,))
        for i in range(n):
            check_alpha(out["alpha"][i])
            check_unit("lam", out["lam"][i])
            check_unit("gamma", out["gamma"][i])
            check_eta(out["eta"][i])
        kmf = np.array([math.inf if (v is None or (isinstance(v, float) and math.isinf(v)))
                        else float(check_k_max(v)) for v in km], dtype=np.float64)
        return cls(out["alpha"], out["lam"], out["gamma"], out["eta"], kmf)

    @classmethod
    def from_rows(cls, rows) -> Settings:
        """From a list of dicts with keys alpha, lam, gamma and optionally eta, k_max (a
        missing key raises ``ValueError`` naming it)."""
        rows = list(rows)
        for i, r in enumerate(rows):
            for key in ("alpha", "lam", "gamma"):
                if key not in r:
                    raise ValueError(f"settings row {i} has no {key!r}: every row needs alpha, "
                                     f"lam and gamma, got keys {sorted(r)}")
        return cls.make(alpha=[r["alpha"] for r in rows], lam=[r["lam"] for r in rows],
                        gamma=[r["gamma"] for r in rows],
                        eta=[r.get("eta", 0.01) for r in rows],
                        k_max=[r.get("k_max") for r in rows])

    def __len__(self) -> int:
        return len(self.alpha)

    def row(self, i: int) -> dict:
        km = self.k_max[i]
        return dict(alpha=float(self.alpha[i]), lam=float(self.lam[i]),
                    gamma=float(self.gamma[i]), eta=float(self.eta[i]),
                    k_max=None if math.isinf(km) else int(km))

    def select(self, idx) -> Settings:
        idx = np.asarray(idx)
        return Settings(self.alpha[idx], self.lam[idx], self.gamma[idx], self.eta[idx],
                        self.k_max[idx])

    def broadcast(self, n: int) -> Settings:
        """This settings repeated to ``n`` rows (it must have 1 or ``n`` rows)."""
        if len(self) == n:
            return self
        if len(self) != 1:
            raise ValueError(f"settings has {len(self)} rows, need 1 or {n}")
        return self.select(np.zeros(n, dtype=np.int64))

    def K(self) -> np.ndarray:
        """K of every row (:func:`ftd_lib.returns.k_bound`), float array, ``inf`` for
        gamma*lambda = 1 without a cap; computed once per distinct ``(gamma, lam, eta,
        k_max)`` (a sweep's rows share a few)."""
        keys = np.stack([self.gamma, self.lam, self.eta, self.k_max]).astype(np.float64).T
        if len(keys) and (keys == keys[0]).all():  # one setting (np.unique's sort: ~0.5 ms)
            uniq, back = keys[:1], np.zeros(len(keys), dtype=np.int64)
        else:
            uniq, back = np.unique(keys, axis=0, return_inverse=True)
        out = []
        for gamma, lam, eta, km in uniq:
            k_max = None if math.isinf(km) else int(km)
            out.append(float(k_bound(float(gamma), float(lam), float(eta), k_max)))
        return np.array(out, dtype=np.float64)[back.reshape(-1)]
