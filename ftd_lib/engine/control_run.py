"""Control through any engine (:func:`run_control`, paper Fig. 4): the compiled per-run kernel,
the torch batch or the readable per-run reference, chosen by :func:`choose_engine`. The API
is described in :mod:`ftd_lib.engine`."""

from __future__ import annotations

import numpy as np
import torch

from .. import methods as _methods
from .. import validate as V
from ..approx import ACTIVATIONS
from ..envs.tasks import TASKS, check_task_params
from ..rng import AGENT_STREAM
from . import checks
from .control import TRUNCATIONS, ControlBatch
from .results import ControlResult
from .settings import Settings
from .weights import INITS, initial_weights

DEFAULT_WIDTH = 1024  # control: rows of the batch the tasks go through
ENGINES = ("auto", "kernel", "batch", "reference")  # how run_control runs its tasks


def _control_env(env, seed, run_ids, max_steps=None, task_params=None):
    """The batched env of ``run_ids``: a task of :data:`ftd_lib.envs.tasks.TASKS` by name
    (with its ``task_params``), or a factory ``env(seed, run_ids)``."""
    if isinstance(env, str) and env in TASKS:
        kw = {} if max_steps is None else dict(max_steps=max_steps)
        return TASKS[env].batch_cls(seed, run_ids, **kw, **(task_params or {}))
    if callable(env):
        return env(seed, run_ids)
    raise ValueError(f"env must be one of {', '.join(map(repr, TASKS))} or a factory "
                     f"env(seed, run_ids), got {env!r}")


def kernel_takes(m, env: str, task) -> bool:
    """The compiled kernel runs method row ``m`` on the registry's task ``env`` (row
    ``task``): through its own run (a task flagged ``kernel``, :func:`.kernel.own_run`) or
    through the method's pieces on the task's compiled dynamics."""
    from .kernel import own_run

    return ((task.kernel and own_run(m.id, env))
            or (m.compiled is not None and task.compiled is not None))


def choose_engine(method, env, engine, dtype, device) -> str:
    """The engine that runs ``method`` on ``env``: ``"kernel"`` (a task whose registry entry
    has ``kernel=True``, float64, the CPU, a method with a kernel), ``"batch"`` (a method with
    a batch implementation) or ``"reference"``; ``"auto"`` takes the first of these that can
    run. A named engine that cannot run raises ``ValueError`` saying why."""
    m = _methods.method(method)
    task = TASKS.get(env) if isinstance(env, str) else None
    why = {"kernel": [], "batch": [], "reference": []}
    if task is None:
        why["kernel"].append(f"env={env!r} is not a task the kernel runs")
    elif not kernel_takes(m, env, task):
        why["kernel"].append(f"task {env!r} has no compiled dynamics (its row's compiled)"
                             if m.compiled is not None else
                             f"env={env!r} is not a task the kernel runs {method!r} on")
    if dtype != torch.float64 or torch.device(device).type != "cpu":
        why["kernel"].append(f"it runs float64 on the CPU only (dtype={dtype}, "
                             f"device={torch.device(device).type!r})")
    for name in ("kernel", "batch"):
        if name not in m.engines:
            why[name].append(f"method {method!r} has no {name} implementation")
    if m.reference is None:
        why["reference"].append(f"method {method!r} has no per-run reference")
    if engine == "auto":
        return next(name for name in ("kernel", "batch", "reference") if not why[name])
    if why[engine]:
        raise ValueError(f"engine={engine!r} cannot run this: " + "; ".join(why[engine]))
    return engine


def run_control(method, settings: Settings, seed: int, run_ids, n_episodes: int, *,
                env="mountain_car", epsilon=0.05, n_hidden=50, device="cpu",
                dtype=torch.float64, div_bound=1e6, progress=False, w0=None,
                max_steps=None, truncation="bootstrap", width=None,
                engine="auto", params=None, activation="tanh",
                init="uniform", task_params=None) -> ControlResult:
    """Run Sarsa(lambda) or forward Sarsa(lambda) live on a vectorised control task (Fig. 4).

    Task ``i`` (one run) has settings ``settings.row(i)`` and run id ``run_ids[i]``. The tasks
    go through a batch of ``width`` rows (default: all of them, at most
    :data:`DEFAULT_WIDTH`) that stays full: a row whose run ends takes the next task at once
    (:mod:`ftd_lib.engine.control`). A run's numbers do not depend on the width or on the
    other tasks.

    ``env``: ``"mountain_car"`` (:class:`ftd_lib.envs.mountain_car.MountainCarBatch`),
    ``"cartpole"`` (:class:`ftd_lib.envs.cartpole.CartPoleBatch`) or a factory
    ``env(seed, run_ids)`` returning an object with ``reset(mask=None)``,
    ``step(actions, active=None) -> (obs, reward, terminal, truncated)``,
    ``assign(rows, run_ids)``, ``n_actions`` and ``max_steps``. ``max_steps`` overrides the
    env's episode cap; ``truncation``: ``"bootstrap"`` (a cap is a time limit: the last
    target bootstraps from Q(S', A')) or ``"terminal"`` (a cap ends the episode like a
    terminal state). ``w0``: initial weights ``(N, A, P)`` (default: :func:`initial_weights`
    of every run id). Returns a :class:`ControlResult` (``returns`` ``(N, n_episodes)``,
    ``diverged``, ``utilisation``, ...).

    ``engine`` (:func:`choose_engine`): ``"kernel"`` runs each task on its own through
    compiled code (:mod:`ftd_lib.engine.kernel`: the tasks flagged ``kernel`` in
    :data:`ftd_lib.envs.tasks.TASKS`, float64, CPU), ``"batch"`` through the batched torch
    engine (any env, dtype and device; ``width`` applies to it only), ``"reference"`` through
    the readable per-run reference (:mod:`ftd_lib.algorithms`, slow); ``"auto"`` (default)
    takes the first that can run. ``params``: the method's own parameters (its row's
    ``params`` in :mod:`ftd_lib.methods`, checked by :func:`ftd_lib.methods.check_params`),
    the same for every task, passed to its implementation by keyword. ``task_params``: the
    task's own (its row's ``params`` in :data:`ftd_lib.envs.tasks.TASKS`, checked by
    :func:`ftd_lib.envs.tasks.check_task_params`), passed to its environment (the compiled
    kernel's own Sarsa(lambda) and forward Sarsa(lambda) run a task at its defaults only; a
    method written as pieces of its extension point, :mod:`ftd_lib.engine.kernel.extend`,
    takes them). The network, in every
    engine: ``n_hidden`` units, ``activation`` ``"tanh"`` or ``"sigmoid"``
    (:data:`ftd_lib.approx.ACTIVATIONS`), first weights by ``init`` (:data:`INITS`,
    :func:`initial_weights`; ignored when ``w0`` is given). All follow the
    reference's semantics; the kernel and the batch agree bit for bit where torch's CPU
    arithmetic is the one the kernel emulates (``tests/engine/test_engine_kernel.py``).
    """
    control = tuple(m.id for m in _methods.METHODS.values() if m.kind == "control")
    n_hidden, dev, dtype, div_bound = checks.check_engine_args(
        method, control, settings, n_hidden=n_hidden, device=device, dtype=dtype,
        div_bound=div_bound)
    seed, run_ids, n_episodes, w0 = checks.check_live_args(settings, seed, run_ids, n_episodes, w0,
                                                      control=True)
    epsilon = V.check_unit("epsilon", epsilon)
    params = _methods.check_params(method, params)
    if task_params and not (isinstance(env, str) and env in TASKS):
        raise ValueError(f"task_params: only a task of the registry takes them, got env={env!r}")
    try:  # (a ValueError naming task_params.<name>)
        task_params = (check_task_params(env, task_params)
                       if isinstance(env, str) and env in TASKS else {})
    except ValueError as e:
        raise ValueError(f"task_{e}") from None
    V.check_choice("activation", activation, ACTIVATIONS)
    first = V.check_choice("init", init, INITS)  # (``init`` below: the tasks' weights)
    if max_steps is not None:
        max_steps = V.check_int("max_steps", max_steps, 1)
    if width is not None:
        width = V.check_int("width", width, 1)
    V.check_choice("truncation", truncation, TRUNCATIONS)
    V.check_choice("engine", engine, ENGINES)
    N = len(run_ids)
    W = min(N, DEFAULT_WIDTH) if width is None else int(width)
    if not 1 <= W:
        raise ValueError(f"width must be an integer >= 1, got {width!r}")
    W = min(W, N)
    dev = checks.check_device(device)
    engine = choose_engine(method, env, engine, dtype, dev)
    if engine == "kernel" and _methods.method(method).compiled is None and any(
            v != p.default for p in TASKS[env].params
            for k, v in task_params.items() if k == p.name):
        raise ValueError(f"task_params: the compiled kernel runs {env} at its defaults only "
                         f"(engine='batch' or 'reference' run {task_params})")
    e = _control_env(env, seed, run_ids[: W if engine == "batch" else 1], max_steps,
                     task_params)
    A = int(e.n_actions)
    n_in = int(getattr(e, "obs_dim", 0)) or np.asarray(e.reset()).shape[1]
    if w0 is None:
        def init(tasks):
            return initial_weights(seed, run_ids[tasks], n_in, n_hidden, n_nets=A, init=first)
    else:
        w0 = V.check_finite_array("w0", w0, (N, A, n_hidden * (n_in + 2) + 1))

        def init(tasks):
            return w0[tasks]
    if engine == "kernel":
        from .kernel import run_tasks

        return run_tasks(method, settings, seed, run_ids, n_episodes, env=env, init=init,
                         epsilon=epsilon, n_hidden=n_hidden, div_bound=div_bound,
                         progress=progress, truncation=truncation, max_steps=max_steps,
                         hidden=activation, params=params, task_params=task_params)
    if engine == "reference":
        from .reference import run_tasks

        return run_tasks(method, settings, seed, run_ids, n_episodes, n_in=n_in,
                         make_env=lambda ids: _control_env(env, seed, ids, max_steps,
                                                           task_params),
                         init=init, agent_stream=AGENT_STREAM, epsilon=epsilon,
                         n_hidden=n_hidden, div_bound=div_bound, truncation=truncation,
                         progress=progress, params=params, activation=activation)
    batch = ControlBatch(method, settings, e, n_episodes, seed=seed, run_ids=run_ids,
                         agent_stream=AGENT_STREAM, init=init, epsilon=epsilon,
                         n_hidden=n_hidden, device=dev, dtype=dtype, div_bound=div_bound,
                         progress=progress, truncation=truncation, activation=activation)
    return batch.run()
