"""Prediction through the batched engine: on recorded episodes (:func:`run_recorded`, the
per-run reference's contract) and live on an evaluation task (:func:`run_prediction`, paper
Fig. 3). The API is described in :mod:`ftd_lib.engine`."""

from __future__ import annotations

import torch

from .. import validate as V
from . import checks
from .prediction import NP_DTYPE, PREDICTION_METHODS, Evaluator, PredictionBatch
from .results import PredictionResult
from .settings import Settings
from .sources import EnvSource, RecordedSource
from .weights import initial_weights


def run_recorded(method, episodes, w0, settings: Settings, *, n_hidden=50, device="cpu",
                 dtype=torch.float64, record_weights=True, eval_states=None,
                 div_bound=1e6, progress=False, engine="batch", **schedule) -> PredictionResult:
    """Run a prediction method on recorded episodes, every row on its own episodes.

    ``episodes``: a list of ``(features, rewards)`` pairs shared by every row, or a list (one
    per row) of such lists. ``w0``: ``(P,)`` or ``(B, P)``, reference layout. A settings of one
    row, shared episodes or one ``w0`` serve every row.
    ``eval_states``: optional ``(states, true_values)`` for the error metric.
    ``engine``: ``"batch"`` (:class:`.prediction.PredictionBatch`) or ``"kernel"`` (TD(0) and
    forward TD(lambda) only, float64 on the CPU: the compiled per-run loops of
    :mod:`.kernel.prediction`, the batch's numbers for every run that does not diverge).
    Returns a :class:`PredictionResult` whose ``weights[b]`` follows the per-run reference's
    contract.
    """
    n_hidden, dev, dtype, div_bound = checks.check_engine_args(
        method, PREDICTION_METHODS, settings, n_hidden=n_hidden, device=device, dtype=dtype,
        div_bound=div_bound)
    episodes, w0, settings, n_in = checks.check_recorded_args(episodes, w0, settings, n_hidden)
    src = RecordedSource(episodes, n_in, dtype=NP_DTYPE[dtype])
    ev = None
    if eval_states is not None:
        ev = Evaluator(*checks.check_eval_states(eval_states, n_in), device=dev, dtype=dtype)
    if engine == "kernel":
        from .kernel.prediction import PREDICTION_RUNS, run_source

        if method not in PREDICTION_RUNS or dtype != torch.float64 or dev.type != "cpu":
            raise ValueError(f"engine='kernel' runs {PREDICTION_RUNS} in float64 on the CPU, "
                             f"got method={method!r}, dtype={dtype}, device={dev.type!r}")
        return run_source(method, settings, w0, src, evaluator=ev,
                          record_weights=record_weights, div_bound=div_bound,
                          n_hidden=n_hidden)
    if engine != "batch":
        raise ValueError(f"engine must be 'batch' or 'kernel', got {engine!r}")
    batch = PredictionBatch(method, settings, w0, src, n_hidden=n_hidden, device=dev,
                            dtype=dtype, evaluator=ev, record_weights=record_weights,
                            div_bound=div_bound, progress=progress, **schedule)
    return batch.run()


def _prediction_env(env, seed, run_ids):
    if env == "mountain_car":
        from ..envs.mountain_car import MountainCarEvaluation

        return MountainCarEvaluation(seed, run_ids)
    if callable(env):
        return env(seed, run_ids)
    raise ValueError(f"env must be 'mountain_car' or a factory env(seed, run_ids), got {env!r}")


def _evaluation_states(env, n_eval, eval_seed):
    if env == "mountain_car":
        from ..envs.mountain_car import evaluation_states

        return evaluation_states(n_eval, eval_seed)
    raise ValueError("pass eval_states=(states, true_values) for a custom env")


def run_prediction(method, settings: Settings, seed: int, run_ids, n_episodes: int, *,
                   env="mountain_car", n_eval: int = 500, eval_seed: int = 0,
                   eval_states=None, n_hidden=50, device="cpu", dtype=torch.float64,
                   div_bound=1e6, progress=False, w0=None, engine="batch") -> PredictionResult:
    """Run a prediction method live on a vectorised evaluation environment (paper Fig. 3).

    Row ``b`` has settings ``settings.row(b)`` and run id ``run_ids[b]`` (which decides its
    :math:`\\theta_0`, see :func:`initial_weights`, and its environment's random stream).
    ``eval_states`` (``(states, true_values)``) defaults to ``n_eval`` states of
    ``evaluation_states(n_eval, eval_seed)`` of the env's module; the same states serve every
    row. ``engine``: ``"batch"`` or ``"kernel"`` (TD(0) and forward TD(lambda) on
    ``"mountain_car"``, float64 on the CPU: its policy does not learn, so every run's
    episodes are recorded first, :func:`ftd_lib.envs.mountain_car.record_episodes_batch`,
    the same transitions the live batch sees, then go through the compiled per-run loops,
    see :func:`run_recorded`). Returns a :class:`PredictionResult` (``errors``,
    ``diverged``, ...).
    """
    n_hidden, dev, dtype, div_bound = checks.check_engine_args(
        method, PREDICTION_METHODS, settings, n_hidden=n_hidden, device=device, dtype=dtype,
        div_bound=div_bound)
    seed, run_ids, n_episodes, w0 = checks.check_live_args(settings, seed, run_ids, n_episodes, w0)
    if eval_states is None:
        n_eval = V.check_int("n_eval", n_eval, 1)
        eval_seed = V.check_int("eval_seed", eval_seed, 0)
    else:
        eval_states = checks.check_eval_states(eval_states)
    if engine not in ("batch", "kernel"):
        raise ValueError(f"engine must be 'batch' or 'kernel', got {engine!r}")
    if engine == "kernel":
        if env != "mountain_car":
            raise ValueError(f"engine='kernel' runs env='mountain_car' only, got env={env!r}")
        from ..envs.mountain_car import record_episodes_batch

        episodes = record_episodes_batch(seed, run_ids, n_episodes)
        if eval_states is None:
            eval_states = _evaluation_states(env, n_eval, eval_seed)
        if w0 is None:
            w0 = initial_weights(seed, run_ids, 2, n_hidden)
        return run_recorded(method, episodes, w0, settings, n_hidden=n_hidden, device=dev,
                            dtype=dtype, record_weights=False, eval_states=eval_states,
                            div_bound=div_bound, engine="kernel")
    e = _prediction_env(env, seed, run_ids)
    src = EnvSource(e, n_episodes, dtype=NP_DTYPE[dtype])
    if eval_states is None:
        eval_states = _evaluation_states(env, n_eval, eval_seed)
    ev = Evaluator(*eval_states, device=dev, dtype=dtype)
    if w0 is None:
        w0 = initial_weights(seed, run_ids, src.n_in, n_hidden)
    batch = PredictionBatch(method, settings, w0, src, n_hidden=n_hidden, device=dev,
                            dtype=dtype, evaluator=ev, div_bound=div_bound, progress=progress)
    return batch.run()
