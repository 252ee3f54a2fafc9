r"""The batched engine: many independent runs and settings of the paper's methods as one batch.

Every row of a batch is one independent run with its own settings
:math:`(\alpha, \lambda, \gamma, \eta, K_{max})`, its own network :math:`\theta` (the paper's
2-50-1 / 4-50-1 tanh network, :class:`ftd_lib.approx.MLP`'s function and flat layout), its
own random streams and its own episode clock. Gradients are written by hand (no autograd),
arithmetic is float64 by default (float32 optional) on any torch device (CPU default).

Public API
----------
Settings::

    s = Settings.make(alpha=[...], lam=[...], gamma=1.0, eta=0.01, k_max=None)
    # scalars broadcast; k_max entries None (no cap) or ints >= 1; len(s) = number of rows
    s = Settings.from_rows([dict(alpha=.01, lam=.9, gamma=1.), ...])

Prediction on recorded episodes (the per-run reference's contract, for exactness tests)::

    res = run_recorded(method, episodes, w0, settings, n_hidden=50, device="cpu",
                       dtype=torch.float64, eval_states=None)
    res.weights[b]     # (sum T, P): theta after every time step of row b, what
                       # ftd_lib.algorithms.<method>(episodes[b], w0[b], approx=MLP(n, 50), ...)
                       # returns, to 1e-10 in float64 (nan after a divergence)
    res.final_weights  # (B, P); res.errors if eval_states=(states, true_values) is given

``episodes``: one list of ``(features (T+1, n), rewards (T,))`` per row, or one list shared by
all rows; ``w0``: ``(P,)`` or ``(B, P)`` in the reference layout.

Prediction on the live mountain car evaluation task (paper Fig. 3)::

    res = run_prediction(method, settings, seed, run_ids, n_episodes, env="mountain_car",
                         n_eval=500, eval_seed=0, device="cpu", dtype=torch.float64,
                         progress=False)
    # env: "mountain_car" (MountainCarEvaluation) or a factory env(seed, run_ids);
    # eval_states=(states, true_values) overrides evaluation_states(n_eval, eval_seed)
    res.errors         # (B, n_episodes): RMS error over a fixed sample of on-policy states
                       # with exact true values, at the end of every episode, divided by the
                       # row's initial error; inf from the episode in which a row diverged on
    res.errors.mean(1) # the paper's metric: average over the first n_episodes
    res.diverged       # (B,) bool

Control (paper Fig. 4), one network per action, epsilon-greedy (ties: lowest action index)::

    res = run_control(method, settings, seed, run_ids, n_episodes, env="mountain_car" or
                      "cartpole", epsilon=0.05, max_steps=None, truncation="bootstrap",
                      width=None, device="cpu", dtype=torch.float64, engine="auto")
    res.curves         # (N, n_episodes): return (sum of rewards) of every episode (also
                       # res.returns); prediction results call their curves `curves` too
    res.lengths        # (N, n_episodes): steps of every episode
    res.diverged       # (N,) bool; returns of a diverged run are nan from then on
    res.engine         # which engine ran it (below)
    # max_steps: episode cap (None: the task's, 5000 mountain car, 1000 cart-pole);
    # truncation="bootstrap": a cap is a time limit, the last target bootstraps from
    # Q(S', A') (Pardo et al. 2018); "terminal": value 0 after the last state.
    # engine (choose_engine): "kernel" run by run in compiled code (ftd_lib.engine.kernel:
    # tasks flagged kernel, float64, CPU); "batch" a torch batch of `width` rows that stays
    # full (ftd_lib.engine.control: any env, dtype, device); "reference" the readable
    # per-run references (ftd_lib.algorithms.sarsa_lambda, .forward_sarsa_lambda), which
    # both others follow; "auto" the first that can run. Methods and their implementations:
    # ftd_lib.methods.

Every result also has ``diverged_at`` (episode, -1 if never), ``final_weights`` (reference
layout; control ``(B, A, P)``), ``n_steps`` (environment steps per row) and ``iterations``
(batch iterations). ``device="auto"`` picks CUDA when present.

Methods: prediction ``"td0"``, ``"td_lambda"`` (accumulating traces), ``"forward_td_lambda"``
(Algorithm 1), ``"online_lambda_return"``, ``"offline_lambda_return"``,
``"block_lambda_return"`` (GAE targets over blocks of B = ``k_max`` steps, one SGD pass,
:mod:`ftd_lib.engine.block`); control
``"sarsa_lambda"`` (accumulating traces, every action's trace decays every step),
``"forward_sarsa_lambda"`` (Algorithm 1 with :math:`\hat Q(S', A')` of the epsilon-greedily chosen
next action, the update going to the network of the popped state's action).

``run_ids`` (one per row) decide every random number of a row -- its initial weights
(:func:`initial_weights`: ``MLP.init(run_generator(seed, run_id, INIT_STREAM))``, one
network after another for control), its environment and its exploration -- so rows with the
same run id get the same :math:`\theta_0` and the same environment randomness whatever
their method, settings or batch (common random numbers), and a row's result never depends on
the rows it shares a batch with: its numbers are bit for bit the same alone or in any batch
(tested for every method, on the CPU and CUDA).

Divergence: a row whose value, weight or error becomes non-finite or larger than
``div_bound`` (default 1e6) is frozen and reported as diverged; the others go on. No
warnings are emitted.

Speed: :mod:`ftd_lib.engine.bench` (``run_bench(device="cpu", threads=1)``, the CLI's
``bench``) measures run-steps per second against per-run loops. The engine does not change
torch's thread count itself (the bench sets 1 thread while it measures). Schedule and data
layout: :mod:`ftd_lib.engine.prediction`, :mod:`ftd_lib.engine.control`,
:mod:`ftd_lib.engine._net`.
"""

from __future__ import annotations

import numpy as np
import torch

from .. import methods as _methods
from .. import validate as V
from ..approx import ACTIVATIONS, MLP
from ..envs.tasks import TASKS  # the tasks the compiled control kernel runs
from ..rng import AGENT_STREAM, INIT_STREAM, run_generator
from . import checks
from .control import TRUNCATIONS, ControlBatch
from .prediction import NP_DTYPE, PREDICTION_METHODS, Evaluator, PredictionBatch
from .results import ControlResult, PredictionResult
from .settings import Settings
from .sources import EnvSource, RecordedSource

__version__ = "2.0"

#: The numerics version of every method an engine runs (from :mod:`ftd_lib.methods`): what a
#: stored result's numbers depend on (the engine, the environments, the random streams, the
#: network's arithmetic). Stored chunks are keyed by it, not by the code, so moving or renaming
#: code recomputes nothing. Bump a method's version (its record in :mod:`ftd_lib.methods`)
#: whenever a change alters any of its numbers; ``tests/engine/test_engine_golden.py`` fails when
#: numbers change without a bump. Control is at 2: truncation at an episode cap bootstraps.
NUMERICS_VERSION = _methods.NUMERICS_VERSION
CONTROL_METHODS = _methods.CONTROL


def numerics_version(method: str) -> str:
    """``"<method>-v<N>"``: the key under which results of ``method`` are stored."""
    if method not in NUMERICS_VERSION:
        raise ValueError(f"method must be one of {tuple(NUMERICS_VERSION)}, got {method!r}")
    return f"{method}-v{NUMERICS_VERSION[method]}"

DEFAULT_WIDTH = 1024  # control: rows of the batch the tasks go through
ENGINES = ("auto", "kernel", "batch", "reference")  # how run_control runs its tasks

__all__ = [
    "AGENT_STREAM",
    "CONTROL_METHODS",
    "ControlResult",
    "INITS",
    "INIT_STREAM",
    "NUMERICS_VERSION",
    "PREDICTION_METHODS",
    "Evaluator",
    "PredictionResult",
    "Settings",
    "initial_weights",
    "numerics_version",
    "run_control",
    "run_prediction",
    "run_recorded",
]


def _device(device):
    return checks.check_device(device)


#: how a network's first weights are drawn (:func:`initial_weights`)
INITS = ("uniform", "zero-output", "small")


def initial_weights(seed: int, run_ids, n_in: int, n_hidden: int = 50, n_nets: int = 1,
                    init: str = "uniform"):
    """:math:`\\theta_0` of every run (reference layout): ``(B, P)``, or ``(B, n_nets, P)``
    when ``n_nets > 1`` (control: one network per action, initialised one after another from
    the same generator). Depends only on ``(seed, run_id)``. ``init`` (:data:`INITS`):
    ``"uniform"`` (every weight uniform in :math:`\\pm 1/\\sqrt{\\text{fan-in}}`, PyTorch's
    default), ``"zero-output"`` (the same draw, output layer :math:`w_2, b_2` zeroed: every
    value 0 at first) or ``"small"`` (the same draw times 0.1)."""
    V.check_choice("init", init, INITS)
    net = MLP(n_in, n_hidden)
    out = []
    for rid in np.asarray(run_ids, dtype=np.int64).reshape(-1):
        g = run_generator(seed, int(rid), INIT_STREAM)
        out.append(np.stack([net.init(g) for _ in range(n_nets)]))
    w = np.array(out).reshape(-1, n_nets, net.n_params)
    if init == "zero-output":
        w[..., n_hidden * (n_in + 1):] = 0.0  # w2 and b2
    elif init == "small":
        w = w * 0.1
    return w[:, 0] if n_nets == 1 else w


def run_recorded(method, episodes, w0, settings: Settings, *, n_hidden=50, device="cpu",
                 dtype=torch.float64, record_weights=True, eval_states=None,
                 div_bound=1e6, progress=False, **schedule) -> PredictionResult:
    """Run a prediction method on recorded episodes, every row on its own episodes.

    ``episodes``: a list of ``(features, rewards)`` pairs shared by every row, or a list (one
    per row) of such lists. ``w0``: ``(P,)`` or ``(B, P)``, reference layout. A settings of one
    row, shared episodes or one ``w0`` serve every row.
    ``eval_states``: optional ``(states, true_values)`` for the error metric.
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
                   div_bound=1e6, progress=False, w0=None) -> PredictionResult:
    """Run a prediction method live on a vectorised evaluation environment (paper Fig. 3).

    Row ``b`` has settings ``settings.row(b)`` and run id ``run_ids[b]`` (which decides its
    :math:`\\theta_0`, see :func:`initial_weights`, and its environment's random stream).
    ``eval_states`` (``(states, true_values)``) defaults to ``n_eval`` states of
    ``evaluation_states(n_eval, eval_seed)`` of the env's module; the same states serve every
    row. Returns a :class:`PredictionResult` (``errors``, ``diverged``, ...).
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


def _control_env(env, seed, run_ids, max_steps=None):
    """The batched env of ``run_ids``: a task of :data:`ftd_lib.envs.tasks.TASKS` by name, or
    a factory ``env(seed, run_ids)``."""
    if isinstance(env, str) and env in TASKS:
        kw = {} if max_steps is None else dict(max_steps=max_steps)
        return TASKS[env].batch_cls(seed, run_ids, **kw)
    if callable(env):
        return env(seed, run_ids)
    raise ValueError(f"env must be one of {', '.join(map(repr, TASKS))} or a factory "
                     f"env(seed, run_ids), got {env!r}")


def choose_engine(method, env, engine, dtype, device) -> str:
    """The engine that runs ``method`` on ``env``: ``"kernel"`` (a task whose registry entry
    has ``kernel=True``, float64, the CPU, a method with a kernel), ``"batch"`` (a method with
    a batch implementation) or ``"reference"``; ``"auto"`` takes the first of these that can
    run. A named engine that cannot run raises ``ValueError`` saying why."""
    m = _methods.method(method)
    task = TASKS.get(env) if isinstance(env, str) else None
    why = {"kernel": [], "batch": [], "reference": []}
    if task is None or not task.kernel:
        why["kernel"].append(f"env={env!r} is not a task the kernel runs")
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
                init="uniform") -> ControlResult:
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
    the same for every task, passed to its implementation by keyword. The network, in every
    engine: ``n_hidden`` units, ``activation`` ``"tanh"`` or ``"sigmoid"``
    (:data:`ftd_lib.approx.ACTIVATIONS`), first weights by ``init`` (:data:`INITS`,
    :func:`initial_weights`; ignored when ``w0`` is given). All follow the
    reference's semantics; the kernel and the batch agree bit for bit where torch's CPU
    arithmetic is the one the kernel emulates (``tests/engine/test_engine_kernel.py``).
    """
    n_hidden, dev, dtype, div_bound = checks.check_engine_args(
        method, CONTROL_METHODS, settings, n_hidden=n_hidden, device=device, dtype=dtype,
        div_bound=div_bound)
    seed, run_ids, n_episodes, w0 = checks.check_live_args(settings, seed, run_ids, n_episodes, w0,
                                                      control=True)
    epsilon = V.check_unit("epsilon", epsilon)
    params = _methods.check_params(method, params)
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
    dev = _device(device)
    engine = choose_engine(method, env, engine, dtype, dev)
    e = _control_env(env, seed, run_ids[: W if engine == "batch" else 1], max_steps)
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
                         hidden=activation)
    if engine == "reference":
        from .reference import run_tasks

        return run_tasks(method, settings, seed, run_ids, n_episodes, n_in=n_in,
                         make_env=lambda ids: _control_env(env, seed, ids, max_steps),
                         init=init, agent_stream=AGENT_STREAM, epsilon=epsilon,
                         n_hidden=n_hidden, div_bound=div_bound, truncation=truncation,
                         progress=progress, params=params, activation=activation)
    batch = ControlBatch(method, settings, e, n_episodes, seed=seed, run_ids=run_ids,
                         agent_stream=AGENT_STREAM, init=init, epsilon=epsilon,
                         n_hidden=n_hidden, device=dev, dtype=dtype, div_bound=div_bound,
                         progress=progress, truncation=truncation, activation=activation)
    return batch.run()
