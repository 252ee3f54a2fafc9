"""The engine's argument checks (:mod:`ftd_lib.engine`): device, dtype, settings, live-run and
recorded-episode arguments. Each raises ``ValueError`` naming the parameter, before any work.

The per-parameter checks they build on (alpha, lambda, ints, arrays) are :mod:`ftd_lib.validate`'s.
"""

from __future__ import annotations

import numpy as np

from ..validate import (
    check_choice,
    check_episodes,
    check_finite_array,
    check_fits_memory,
    check_int,
    check_number,
    check_run_ids,
)
from .settings import Settings

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
