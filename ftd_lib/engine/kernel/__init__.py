r"""The compiled per-run control engine: Sarsa(:math:`\lambda`) and forward
Sarsa(:math:`\lambda`) on the tasks flagged ``kernel`` in :data:`ftd_lib.envs.tasks.TASKS`,
one run after another, in float64 on the CPU (``run_control``'s default there).

A run alone needs none of a batch's overhead (full-width passes, sub-batches, per-iteration
numpy work on the whole batch): its step is a handful of small loops over the hidden units,
compiled with numba (speed: ``python -m ftd_lib bench``, ``control:`` lines). It follows the
per-run references :func:`ftd_lib.algorithms.sarsa_lambda` and
:func:`ftd_lib.algorithms.forward_sarsa_lambda` and, on torch's vectorised CPU paths, gives
the batched engine's numbers bit for bit (:mod:`.numerics`).

Modules: :mod:`.numerics` (the network's arithmetic), :mod:`.env` (the tasks), :mod:`.runs`
(one run of each method, :class:`.runs.RunParams`), :mod:`.extend` (the extension point: a
method and a task written as pieces outside these files, e.g. n-step Sarsa on Puddle World
and acrobot); here the driver. numba caches each
compiled function by its own file only, so :func:`_drop_stale_cache` first drops the cache
when any source the kernel compiles has changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from ...envs import cartpole as _cartpole
from ...envs import mountain_car as _mountain_car
from ...envs.tasks import TASKS


def _drop_stale_cache() -> None:
    """Delete numba's cache of the kernel and of the envs' dynamics when any of their source
    files changed since it was written (numba would not notice a change in another file)."""
    here = Path(__file__).parent
    sources = sorted(here.glob("*.py")) + [Path(_cartpole.__file__),
                                           Path(_mountain_car.__file__)]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()
    caches = {p.parent / "__pycache__" for p in sources}
    stamp = here / "__pycache__" / "sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        for cache in caches:
            for f in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
                f.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only install: numba then compiles in memory
        pass


_drop_stale_cache()

from . import extend  # noqa: E402  (the extension point: a method and a task as pieces)
from .env import ENVS, INPUTS, STARTS, env_obs, env_reset, env_step  # noqa: E402
from .numerics import HIDDEN, choose, fma, sigmoid, sleef_exp, tanh, update, value  # noqa: E402
from .runs import RunParams, forward_sarsa_run, sarsa_run  # noqa: E402

#: the kernel's implementation of each control method (a lookup: an unknown method raises)
RUNS = {"sarsa_lambda": sarsa_run, "forward_sarsa_lambda": forward_sarsa_run}


def own_run(method: str, env) -> bool:
    """``method`` on ``env`` goes through the kernel's own run (:data:`RUNS` on the tasks of
    :data:`.env.ENVS`), not through pieces of its extension point."""
    return method in RUNS and isinstance(env, str) and env in ENVS

__all__ = ["ENVS", "HIDDEN", "INPUTS", "RUNS", "STARTS", "RunParams", "choose", "env_obs",
           "env_reset", "env_step", "fma", "forward_sarsa_run", "own_run", "run_tasks",
           "sarsa_run", "sigmoid", "sleef_exp", "tanh", "update", "value", "warm"]


def run_tasks(method, settings, seed, run_ids, n_episodes, *, env, init, epsilon=0.05,
              n_hidden=50, div_bound=1e6, progress=False, truncation="bootstrap",
              max_steps=None, flush_pops=4, hidden="tanh", inputs="symmetric",
              start="bottom", params=None, task_params=None):
    r"""Every task (one run: settings row ``i``, run id ``run_ids[i]``) through the compiled
    per-run loop of ``method`` (:data:`RUNS`), one after another; a
    :class:`..results.ControlResult` with the numbers of :class:`..control.ControlBatch` on
    the same tasks.

    ``env``: ``"cartpole"`` or ``"mountain_car"``; ``init(tasks)``: the initial weights
    ``(m, A, P)`` (reference layout) of tasks. The batch's statistics are those of a batch
    of width 1 that is never idle (``utilisation`` 1).

    Set-up variants beyond the batch's (the claim-5 study, :mod:`ftd_lib.repro.paper.study`; the
    defaults are the paper's set-up as the batch runs it): ``hidden`` ``"tanh"`` or
    ``"sigmoid"`` (:data:`HIDDEN`); mountain car only: ``inputs`` ``"symmetric"`` ([-1, 1])
    or ``"unit"`` ([0, 1]) (:data:`INPUTS`), ``start`` ``"bottom"`` or ``"anywhere"``
    (:data:`STARTS`).

    A method whose row names a compiled form (:mod:`.extend`: n-step Sarsa) runs through
    :func:`.extend.run_tasks` on any task whose row names compiled dynamics, with its own
    ``params`` and the task's ``task_params``.
    """
    from ... import validate as V
    from ...envs.batch import START_STREAM
    from ...rng import AGENT_STREAM, run_generator
    from .._net import BatchedMLP
    from ..control import RESCALE
    from ..results import run_each
    from ..schedule import algorithm1_constants

    run = RUNS[method] if own_run(method, env) else None
    if run is None and extend.pair_runs(method, env):
        if (flush_pops, inputs, start) != (4, "symmetric", "bottom"):
            raise ValueError("flush_pops, inputs and start are set-up variants of the kernel's "
                             f"own runs, not of {method!r}")
        return extend.run_tasks(method, settings, seed, run_ids, n_episodes, env=env,
                                init=init, epsilon=epsilon, n_hidden=n_hidden,
                                div_bound=div_bound, progress=progress,
                                truncation=truncation, max_steps=max_steps, hidden=hidden,
                                params=params, task_params=task_params)
    if run is None:
        raise ValueError(f"the kernel runs the methods {tuple(RUNS)}, got {method!r}")
    if env not in ENVS:
        raise ValueError(f"the kernel runs the tasks {tuple(ENVS)}, got env={env!r}")
    env_id, task = ENVS[env], TASKS[env]
    V.check_choice("hidden", hidden, tuple(HIDDEN))
    V.check_choice("inputs", inputs, tuple(INPUTS))
    V.check_choice("start", start, tuple(STARTS))
    if env != "mountain_car" and (inputs, start) != ("symmetric", "bottom"):
        raise ValueError(f"inputs and start have variants for mountain_car only, got "
                         f"inputs={inputs!r}, start={start!r} for env={env!r}")
    var = (HIDDEN[hidden], INPUTS[inputs], STARTS[start])
    n_in, A = task.n_in, task.n_actions
    cap = task.max_steps if max_steps is None else int(max_steps)
    run_ids = np.asarray(run_ids, dtype=np.int64).reshape(-1)
    perm = BatchedMLP(n_in, n_hidden).perm
    K, c_final, gl_div, ring = algorithm1_constants(settings, cap, np.float64)
    gam, lam = settings.gamma, settings.lam
    alpha = settings.alpha.astype(np.float64)
    gl = (gam * lam).astype(np.float64)
    g1l = (gam * (1 - lam)).astype(np.float64)
    gamma = gam.astype(np.float64)
    bootstrap = truncation == "bootstrap"
    n_ep = int(n_episodes)

    def one(i, th, returns, lengths):
        if n_ep == 0:
            return -1, 0
        rid = int(run_ids[i])
        p = RunParams(env_id, n_ep, cap, bootstrap, float(epsilon), alpha[i], gamma[i], gl[i],
                      g1l[i], int(K[i] - 1), c_final[i], gl_div[i], int(ring[i]),
                      float(div_bound), int(flush_pops), RESCALE[np.float64], *var)
        return run(th, p, run_generator(seed, rid, START_STREAM),
                   run_generator(seed, rid, AGENT_STREAM), returns, lengths)

    return run_each(method, settings, truncation, "kernel", run_ids, n_ep, shape=(A, len(perm)),
                    perm=perm, init=init, run=one, progress=progress)


def warm() -> None:
    """Compile (or load from numba's cache) both methods' kernels for both tasks, a one-step
    run of each, every pair of the extension point (:mod:`.extend`: a method whose row names
    compiled pieces on a task whose row names compiled dynamics) and the batched envs'
    compiled steps. The first compile is cached in the ``__pycache__`` folders;
    ``binder/postBuild`` calls this so that the image ships the cache."""
    from ...methods import METHODS, example_params
    from ..settings import Settings

    s = Settings.make(alpha=0.01, lam=0.5, gamma=1.0)
    for method in RUNS:
        for env in ENVS:
            task = TASKS[env]
            n_params = 50 * (len(task.state_names) + 2) + 1  # 50 hidden units, one output

            def init(tasks, task=task, n_params=n_params):
                return np.zeros((len(tasks), len(task.action_names), n_params))

            run_tasks(method, s, 0, np.zeros(1, dtype=np.int64), 1, env=env, init=init,
                      max_steps=1)
    for m in (m for m in METHODS.values() if m.compiled is not None):
        for env, task in ((e, t) for e, t in TASKS.items()
                          if t.compiled is not None and not own_run(m.id, e)):
            def init(tasks, task=task):
                return np.zeros((len(tasks), task.n_actions, 50 * (task.n_in + 2) + 1))

            extend.run_tasks(m.id, s, 0, np.zeros(1, dtype=np.int64), 1, env=env, init=init,
                             max_steps=1, params=example_params(m.id))
    for env in ENVS:
        TASKS[env].batch_cls(0, [0]).reset()
        TASKS[env].step_arrays(np.zeros((1, len(TASKS[env].state_names))), np.zeros(1, int))
