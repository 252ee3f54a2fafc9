"""What the engines return: one dataclass per kind of run, each with its learning curves in
the field ``curves`` (one row per run, one column per episode)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .settings import Settings


@dataclass
class PredictionResult:
    """A prediction batch's result (B rows).

    ``curves``: ``(B, n_episodes)`` RMS error at the end of every episode divided by the
    row's initial error (``inf`` from the episode a row diverged in), or ``None`` without
    evaluation states (also as ``errors``); ``initial_error`` ``(B,)`` or ``None``;
    ``diverged`` ``(B,)``; ``diverged_at`` ``(B,)`` (-1: never); ``weights``: per row
    ``(sum T, P)``, :math:`\\theta` after every step (reference layout; ``nan`` after a
    divergence) or ``None``; ``final_weights`` ``(B, P)`` (zeros if diverged); ``n_steps``
    ``(B,)``; ``iterations``: batch iterations (the compiled kernel: run-steps); ``work``:
    the kernel's ``(B, 2)`` counts of values and updates computed per row (``None`` from the
    batch).
    """

    curves: np.ndarray | None
    initial_error: np.ndarray | None
    diverged: np.ndarray
    diverged_at: np.ndarray
    weights: list | None
    final_weights: np.ndarray
    n_steps: np.ndarray
    iterations: int
    method: str
    settings: Settings
    work: np.ndarray | None = None

    @property
    def errors(self) -> np.ndarray | None:
        """The curves by their meaning: normalised RMS errors."""
        return self.curves


@dataclass
class ControlResult:
    """A control run's result (N runs, in the order of the tasks).

    ``curves``: ``(N, n_episodes)`` return (sum of rewards) of every episode, ``nan`` from
    the episode a run diverged in (also as ``returns``); ``lengths``: steps of every episode
    (-1 where not run); ``diverged``, ``diverged_at`` (-1: never); ``final_weights``
    ``(N, A, P)`` (reference layout); ``n_steps``: environment steps per run.
    Batch statistics: ``iterations``, ``width`` (rows), ``repacks``, ``utilisation`` =
    run-steps / (iterations x rows), and the same before the final tail
    (``utilisation_before_tail``, ``steps_before_tail``, ``seconds_before_tail``); the kernel
    and the reference count as one row that is never idle. ``engine``: ``"batch"``,
    ``"kernel"`` or ``"reference"``.
    """

    curves: np.ndarray
    lengths: np.ndarray
    diverged: np.ndarray
    diverged_at: np.ndarray
    final_weights: np.ndarray
    n_steps: np.ndarray
    iterations: int
    width: int
    repacks: int
    utilisation: float
    utilisation_before_tail: float
    steps_before_tail: int
    seconds_before_tail: float
    method: str
    settings: Settings
    truncation: str
    engine: str

    @property
    def returns(self) -> np.ndarray:
        """The curves by their meaning: the return of every episode."""
        return self.curves


def per_run_result(method, settings, truncation, engine, returns, lengths, diverged_at,
                   final_weights, n_steps, seconds) -> ControlResult:
    """A :class:`ControlResult` of runs made one after another (kernel, reference): one row
    that is never idle."""
    total = int(np.sum(n_steps))
    diverged_at = np.asarray(diverged_at, dtype=np.int64)
    return ControlResult(curves=returns, lengths=lengths, diverged=diverged_at >= 0,
                         diverged_at=diverged_at, final_weights=final_weights,
                         n_steps=np.asarray(n_steps, dtype=np.int64), iterations=total,
                         width=1, repacks=0, utilisation=1.0, utilisation_before_tail=1.0,
                         steps_before_tail=total, seconds_before_tail=seconds, method=method,
                         settings=settings, truncation=truncation, engine=engine)


def run_each(method, settings, truncation, engine, run_ids, n_episodes, *, shape, perm, init,
             run, progress=False, block=256) -> ControlResult:
    """Runs made one after another by a per-run engine (the compiled kernel's own runs and its
    extension point): the result arrays, the progress bar and the clock, then
    :func:`per_run_result`. ``shape`` ``(A, P)``: a run's weights; ``perm``: the engine's
    order of a network's weights (the reference layout's index of each); ``init(tasks)``:
    the initial weights of tasks (reference layout), taken ``block`` tasks at a time;
    ``run(i, th, returns, lengths) -> (diverged_at, steps)`` runs task ``i`` from the
    weights ``th`` ``(A, P)`` (engine order, updated in place), filling its rows of returns
    and lengths."""
    import time

    A, P = shape
    N, n_ep = len(run_ids), int(n_episodes)
    inv_perm = np.argsort(perm)
    returns = np.full((N, n_ep), np.nan)
    lengths = np.full((N, n_ep), -1, dtype=np.int64)
    diverged_at = np.full(N, -1, dtype=np.int64)
    final_w = np.zeros((N, A, P))
    n_steps = np.zeros(N, dtype=np.int64)
    pbar = None
    if progress:
        from tqdm.auto import tqdm

        pbar = tqdm(total=N * n_ep, desc=method, unit="ep")
    t0 = time.perf_counter()
    try:
        for lo in range(0, N, block):
            tasks = np.arange(lo, min(lo + block, N))
            w0 = np.asarray(init(tasks), dtype=np.float64).reshape(len(tasks), A, P)
            for b, i in enumerate(tasks):
                th = np.ascontiguousarray(w0[b][:, perm])
                diverged_at[i], n_steps[i] = run(int(i), th, returns[i], lengths[i])
                final_w[i] = th[:, inv_perm]
                if pbar is not None:
                    pbar.update(n_ep)
    finally:
        if pbar is not None:
            pbar.close()
    return per_run_result(method, settings, truncation, engine, returns, lengths, diverged_at,
                          final_w, n_steps, time.perf_counter() - t0)
