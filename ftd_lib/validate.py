"""Input checks shared by every algorithm: bad input raises ``ValueError`` naming the parameter."""

from __future__ import annotations

import math

import numpy as np


def check_alpha(alpha) -> float:
    """Step size: a finite number > 0."""
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a finite number > 0, got {alpha!r}") from None
    if not math.isfinite(a) or a <= 0:
        raise ValueError(f"alpha must be a finite number > 0, got {alpha!r}")
    return a


def check_unit(name: str, value) -> float:
    """A parameter in the closed interval [0, 1] (lam, gamma, epsilon)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}") from None
    if not (0.0 <= v <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return v


def check_eta(eta) -> float:
    """The K-bound fraction: a number in the open interval (0, 1)."""
    try:
        e = float(eta)
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
    w = np.asarray(w0, dtype=float)
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
            x = np.asarray(features, dtype=float)
            r = np.asarray(rewards, dtype=float)
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
    """A real number (not NaN; ``inf`` only if ``allow_inf``), above ``minimum`` if given."""
    what = "a number" if allow_inf else "a finite number"
    if minimum is not None:
        what += f" {'>' if exclusive else '>='} {minimum:g}"
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {what}, got {value!r}") from None
    if isinstance(value, (bool, np.bool_)) or math.isnan(v) or (math.isinf(v) and not allow_inf):
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
        a = np.asarray(value, dtype=np.float64)
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


DEVICE_HELP = "'cpu', 'cuda', 'cuda:<index>' or 'auto'"


def check_device(device):
    """A torch device the engine can use: ``"cpu"``, ``"cuda"``/``"cuda:<i>"`` (only when torch
    sees that GPU), ``"auto"``/``None`` (CUDA when present). Returns a ``torch.device``."""
    import torch

    if device is None or (isinstance(device, str) and device == "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if not isinstance(device, (str, torch.device)):
        raise ValueError(f"device must be {DEVICE_HELP}, got {device!r}")
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError, TypeError):
        raise ValueError(f"device must be {DEVICE_HELP}, got {device!r}") from None
    if dev.type == "cpu":
        return dev
    if dev.type != "cuda":
        raise ValueError(f"device must be {DEVICE_HELP}, got {device!r}")
    if not torch.cuda.is_available():
        raise ValueError(f"device {device!r}: torch sees no CUDA device (use device='cpu')")
    if dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ValueError(f"device {device!r}: torch sees {torch.cuda.device_count()} CUDA "
                         "device(s)")
    return dev


def check_dtype(dtype):
    """``torch.float64`` or ``torch.float32``."""
    import torch

    if dtype not in (torch.float64, torch.float32):
        raise ValueError(f"dtype must be torch.float64 or torch.float32, got {dtype!r}")
    return dtype


def check_episode_rows(episodes, n_rows: int, n_features: int):
    """The engine's ``episodes``: one list shared by every row, or one list per row (see
    :func:`check_episodes`, applied once per distinct list; the error names the row).
    Returns ``(per_row, shared)``; each row a list of float ``(features, rewards)`` pairs.

    Validation is done once, before any work, and costs a few vectorised numpy calls an
    episode: shapes, T >= 1, finite features and rewards."""
    if is_episode_list(episodes):
        eps = check_episodes(episodes, n_features)
        return [eps] * n_rows, True
    rows = list(episodes)
    if len(rows) != n_rows:
        raise ValueError(f"episodes has {len(rows)} rows, settings {n_rows}")
    done: dict[int, list] = {}
    out = []
    for b, eps in enumerate(rows):
        if id(eps) not in done:
            done[id(eps)] = check_episodes(eps, n_features, name=f"episodes[{b}]")
        out.append(done[id(eps)])
    return out, False


def is_episode_list(episodes) -> bool:
    """Whether ``episodes`` is one list of ``(features, rewards)`` pairs (rather than one such
    list per row): empty, or its first item is a pair whose second entry is 1-d."""
    try:
        if len(episodes) == 0:
            return True
        first = episodes[0]
        return len(first) == 2 and np.ndim(first[1]) == 1 and np.ndim(first[0]) == 2
    except (TypeError, ValueError, IndexError, KeyError):
        return False


def first_feature_width(episodes):
    """The feature width of the first episode found in one list or a list of lists (None if
    every list is empty or nothing has the right form)."""
    lists = [episodes] if is_episode_list(episodes) else episodes
    try:
        for eps in lists:
            for ep in eps:
                x = np.asarray(ep[0])
                if x.ndim == 2:
                    return int(x.shape[1])
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return None


def check_settings(settings):
    """An :class:`ftd_lib.engine.Settings` (built by ``Settings.make``, which checks values)."""
    from .engine.settings import Settings

    if not isinstance(settings, Settings):
        raise ValueError("settings must be an ftd_lib.engine.Settings (Settings.make(alpha=..., "
                         f"lam=..., gamma=...)), got {type(settings).__name__}")
    return settings


def check_engine_args(method, methods, settings, *, n_hidden, device, dtype, div_bound):
    """The arguments every public function of the engine shares. Returns
    ``(n_hidden, torch device, dtype, div_bound)``; raises ``ValueError`` naming the first bad
    one, before any work."""
    check_choice("method", method, methods)
    check_settings(settings)
    n_hidden = check_int("n_hidden", n_hidden, 1)
    dtype = check_dtype(dtype)
    div_bound = check_number("div_bound", div_bound, minimum=0, allow_inf=True)
    return n_hidden, check_device(device), dtype, div_bound


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


def check_live_args(settings, seed, run_ids, n_episodes, w0, *, control=False):
    """What a live run (``run_prediction``, ``run_control``) adds: ``seed`` and every run id
    integers >= 0, one run id per settings row, ``n_episodes`` an integer >= 0, ``w0`` (if
    given) finite, ``(B, P)`` (prediction; ``(P,)`` serves every row) or ``(B, A, P)``
    (``control``: one network per action; A and P are checked against the env by the batch).
    Returns ``(seed, run_ids, n_episodes, w0)``."""
    seed = check_int("seed", seed, 0)
    run_ids = check_run_ids(run_ids, len(settings))
    n_episodes = check_int("n_episodes", n_episodes, 0)
    # the per-episode results of every row (control: returns and lengths, 8 bytes each)
    check_fits_memory("n_episodes", n_episodes, 16 * len(run_ids) * n_episodes)
    if w0 is not None:
        w0 = check_finite_array("w0", w0)
        B = len(run_ids)
        if control and (w0.ndim != 3 or w0.shape[0] != B):
            raise ValueError(f"w0 must have shape ({B}, n_actions, P), got {w0.shape}")
        if not control and not (w0.ndim == 1 or (w0.ndim == 2 and w0.shape[0] == B)):
            raise ValueError(f"w0 must have shape (P,) or ({B}, P), got {w0.shape}")
    return seed, run_ids, n_episodes, w0


def check_eval_states(eval_states, n_in: int | None = None):
    """``(states (N, n_in), true_values (N,))``, N >= 1, all finite."""
    try:
        states, values = eval_states
    except (TypeError, ValueError):
        raise ValueError("eval_states must be a pair (states (N, n), true_values (N,))"
                         ) from None
    s = check_finite_array("eval_states[0] (states)", states, (None, n_in))
    v = check_finite_array("eval_states[1] (true values)", values, (s.shape[0],))
    if s.shape[0] < 1:
        raise ValueError("eval_states must hold at least one state")
    return s, v


def check_recorded_args(episodes, w0, settings, n_hidden: int):
    """``run_recorded``'s data: returns ``(episodes per row, w0, settings, n_in)``, every row's
    episodes checked once (:func:`check_episode_rows`), ``w0`` ``(P,)`` or ``(B, P)`` finite
    with ``P = n_hidden (n_in + 2) + 1``, ``B`` the rows of settings, episodes or ``w0``."""
    w0 = check_finite_array("w0", w0)
    if w0.ndim not in (1, 2):
        raise ValueError(f"w0 must have shape (P,) or (B, P), got {w0.shape}")
    shared = is_episode_list(episodes)
    if not shared and (isinstance(episodes, (str, bytes, dict)) or not hasattr(episodes,
                                                                              "__len__")):
        raise ValueError("episodes must be a list of (features, rewards) pairs, or one such "
                         "list per row")
    B = max(len(settings), 1 if shared else len(episodes), len(w0) if w0.ndim == 2 else 1)
    settings = settings.broadcast(B)
    n_in = first_feature_width(episodes)
    P = w0.shape[-1]
    if n_in is None:  # no episode at all: the width comes from w0
        n_in = (P - 1) // n_hidden - 2
        if n_in < 1 or n_hidden * (n_in + 2) + 1 != P:
            raise ValueError(f"w0 has {P} entries: no network with n_hidden={n_hidden} has "
                             "that many parameters")
    if P != n_hidden * (n_in + 2) + 1:
        raise ValueError(f"w0 must have {n_hidden * (n_in + 2) + 1} entries per row (n_in="
                         f"{n_in}, n_hidden={n_hidden}), got shape {w0.shape}")
    per_row, _ = check_episode_rows(episodes, B, n_in)
    return per_row, w0, settings, n_in
