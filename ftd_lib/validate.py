"""Input checks shared by every algorithm: bad input raises ``ValueError`` naming the parameter."""

from __future__ import annotations

import math

import numpy as np


def _real(value) -> float:
    """``float(value)`` of a real number; a bool (``True`` is not 1.0 here), a string
    (``"0.5"`` is text, not a number) or bytes raise ``TypeError``, as a non-number does."""
    if isinstance(value, (bool, np.bool_, str, bytes, np.str_, np.bytes_)):
        raise TypeError(f"not a number: {value!r}")
    return float(value)


def _real_array(value) -> np.ndarray:
    """``value`` as a float64 array; booleans or text anywhere in it raise ``TypeError``
    (numpy would turn ``True`` into 1.0 and ``"0.5"`` into 0.5 without a word)."""
    raw = np.asarray(value)
    if raw.dtype.kind in "bUSV":
        raise TypeError(f"not numbers: {raw.dtype}")
    if not isinstance(value, np.ndarray):  # a list: numpy makes [0.1, True] floats
        items = np.asarray(value, dtype=object).ravel()
        if any(isinstance(x, (bool, np.bool_, str, bytes)) for x in items):
            raise TypeError("not numbers: a bool or a string among them")
    return raw.astype(np.float64)


def check_alpha(alpha) -> float:
    """Step size: a finite number > 0 (not a bool or a string)."""
    try:
        a = _real(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a finite number > 0, got {alpha!r}") from None
    if not math.isfinite(a) or a <= 0:
        raise ValueError(f"alpha must be a finite number > 0, got {alpha!r}")
    return a


def check_unit(name: str, value) -> float:
    """A parameter in the closed interval [0, 1] (lam, gamma, epsilon); not a bool or a
    string."""
    try:
        v = _real(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}") from None
    if not (0.0 <= v <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return v


def check_eta(eta) -> float:
    """The K-bound fraction: a number in the open interval (0, 1) (not a bool or a string)."""
    try:
        e = _real(eta)
    except (TypeError, ValueError):
        raise ValueError(f"eta must be a number in (0, 1), got {eta!r}") from None
    if not (0.0 < e < 1.0):
        raise ValueError(f"eta must be in (0, 1), got {eta!r}")
    return e


def check_k_max(k_max):
    """Optional cap on K: ``None`` or an integer >= 1."""
    if k_max is None:
        return None
    if isinstance(k_max, bool) or not isinstance(k_max, (int, np.integer)):
        if isinstance(k_max, float) and k_max.is_integer():
            k_max = int(k_max)
        else:
            raise ValueError(f"k_max must be None or an integer >= 1, got {k_max!r}")
    if k_max < 1:
        raise ValueError(f"k_max must be None or an integer >= 1, got {k_max!r}")
    return int(k_max)


def check_w0(w0, n_params: int) -> np.ndarray:
    """Initial weights: a finite 1-d vector of the approximator's length."""
    try:
        w = _real_array(w0)
    except (TypeError, ValueError):
        raise ValueError(f"w0 must be a vector of numbers, got {type(w0).__name__}") from None
    if w.ndim != 1 or w.shape[0] != n_params:
        raise ValueError(f"w0 must have shape ({n_params},), got {np.shape(w0)}")
    if not np.all(np.isfinite(w)):
        raise ValueError("w0 must be finite")
    return w.copy()


def check_episodes(episodes, n_features: int, name: str = "episodes"
                   ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Episodes: a list of ``(features (T+1, n), rewards (T,))`` with T >= 1, all finite.

    ``name`` is how the error messages call the list (the engine passes ``episodes[b]``)."""
    if isinstance(episodes, tuple) and len(episodes) == 2 and np.ndim(episodes[1]) == 1:
        raise ValueError(f"{name} must be a list of (features, rewards) pairs, got one pair")
    if isinstance(episodes, (str, bytes, np.ndarray)):
        raise ValueError(f"{name} must be a list of (features, rewards) pairs")
    try:
        items = list(episodes)
    except TypeError:
        raise ValueError(f"{name} must be a list of (features, rewards) pairs") from None
    out = []
    for i, ep in enumerate(items):
        try:
            features, rewards = ep
        except (TypeError, ValueError):
            raise ValueError(f"{name}[{i}] must be a (features, rewards) pair") from None
        try:
            x = _real_array(features)
            r = _real_array(rewards)
        except (TypeError, ValueError):
            raise ValueError(f"{name}[{i}] features and rewards must be arrays of numbers"
                             ) from None
        if x.ndim != 2 or x.shape[1] != n_features:
            raise ValueError(
                f"{name}[{i}] features must have shape (T+1, {n_features}), got {x.shape}"
            )
        if r.ndim != 1 or r.shape[0] < 1:
            raise ValueError(f"{name}[{i}] rewards must have shape (T,) with T >= 1, got "
                             f"shape {r.shape}")
        if x.shape[0] != r.shape[0] + 1:
            raise ValueError(
                f"{name}[{i}] features and rewards disagree: {x.shape[0]} feature rows "
                f"need {x.shape[0] - 1} rewards, got {r.shape[0]}"
            )
        if not (np.isfinite(x).all() and np.isfinite(r).all()):
            raise ValueError(f"{name}[{i}] features and rewards must be finite (nan or inf "
                             "found)")
        out.append((x, r))
    return out


# ----------------------------------------------------------------------------- shared by the
# batched engine (ftd_lib.engine) and the command line: the same rules, the same messages


def check_int(name: str, value, minimum: int = 0) -> int:
    """An integer >= ``minimum`` (an integral float such as 3.0 is accepted; 2.5, True, "3"
    and NaN are not: nothing is truncated silently)."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not ok and isinstance(value, (float, np.floating)) and float(value).is_integer():
        value, ok = int(value), True
    if not ok or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_choice(name: str, value, choices) -> object:
    """One of ``choices``."""
    if not any(isinstance(value, type(c)) and value == c for c in choices):
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_number(name: str, value, *, minimum=None, exclusive=True, allow_inf=False) -> float:
    """A real number (not NaN, a bool or a string; ``inf`` only if ``allow_inf``), above
    ``minimum`` if given."""
    what = "a number" if allow_inf else "a finite number"
    if minimum is not None:
        what += f" {'>' if exclusive else '>='} {minimum:g}"
    try:
        v = _real(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {what}, got {value!r}") from None
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise ValueError(f"{name} must be {what}, got {value!r}")
    if minimum is not None and (v <= minimum if exclusive else v < minimum):
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return v


def check_run_ids(run_ids, n_rows: int | None = None) -> np.ndarray:
    """Run ids: integers >= 0, a scalar or 1-d, one per settings row if ``n_rows`` is given."""
    a = np.asarray(run_ids)
    if a.ndim > 1:
        raise ValueError(f"run_ids must be a 1-d sequence of integers >= 0, got shape {a.shape}")
    a = a.reshape(-1)
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer)
                               or (np.issubdtype(a.dtype, np.floating)
                                   and np.all(np.isfinite(a)) and np.all(a == np.round(a)))):
        if a.size:  # an empty list is float64 to numpy
            raise ValueError(f"run_ids must be integers >= 0, got {run_ids!r}")
    if a.size and a.min() < 0:
        raise ValueError(f"run_ids must be integers >= 0, got {int(a.min())} among them")
    a = a.astype(np.int64)
    if n_rows is not None and len(a) != n_rows:
        raise ValueError(f"run_ids has {len(a)} entries, settings {n_rows} rows")
    return a


def check_finite_array(name: str, value, shape=None) -> np.ndarray:
    """A finite float array (of ``shape`` if given; ``None`` entries in ``shape`` are free)."""
    try:
        a = _real_array(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers, got {type(value).__name__}"
                         ) from None
    if shape is not None and (a.ndim != len(shape) or any(
            s is not None and s != n for s, n in zip(shape, a.shape, strict=True))):
        want = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"{name} must have shape {want}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite (it holds nan or inf)")
    return a


def available_memory() -> int | None:
    """Bytes of memory available now (``MemAvailable``, else the physical memory), or None."""
    import os

    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def check_fits_memory(name: str, value, n_bytes: int, available: int | None = None) -> None:
    """Refuse at once (naming ``name``) what would need more than the available memory."""
    available = available_memory() if available is None else available
    if available is not None and n_bytes > available:
        raise ValueError(f"{name}={value!r} would need about {n_bytes / 2**30:.3g} GiB of "
                         f"memory, more than the {available / 2**30:.3g} GiB available")
