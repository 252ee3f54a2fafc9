r"""The compiled kernel's extension point: a control method and a task at compiled speed,
written outside the kernel's files.

The kernel gives the run: episodes, the cap and its two meanings (``truncation``),
:math:`\epsilon`-greedy from :math:`\hat Q(S', \cdot)` with the run's agent stream, the start
and noise streams, divergence (a run frozen as diverged, as every engine does), the returns
and lengths, and the network's arithmetic rounding as the batched engine rounds
(:mod:`.numerics`). A method writes only what is its own, as numba ``@njit`` functions in a
module of its own (the worked example: :mod:`ftd_lib.engine.compiled.n_step_sarsa`):

``kernel_params(row, **params) -> tuple``
    (plain Python) its compiled parameters from the run's settings ``row`` (a dict:
    ``alpha``, ``lam``, ``gamma``, ``eta``, ``k_max``, ``epsilon``, ``cap``) and its own
    parameters (its row's ``params`` in :mod:`ftd_lib.methods`): numbers and numpy arrays.
``kernel_init(A, P, n_in, mp) -> mem``
    its memory for a run (a tuple of numpy arrays: buffers, traces, counters), from the
    sizes (A actions, P weights a network, ``n_in`` features) and ``mp``.
``kernel_step(th, mem, net, mp, t, x, a, r, xn, a2, q2, Q, chose) -> ok``
    one step of an episode, after the kernel took :math:`A_t` = ``a`` at :math:`S_t`
    (features ``x``), saw :math:`R_{t+1}` = ``r`` and :math:`S_{t+1}` (``xn``) and, if the
    episode goes on (``chose``), chose :math:`A_{t+1}` = ``a2`` from :math:`\hat Q(S_{t+1},
    \cdot)` = ``Q`` (``q2`` = ``Q[a2]``; 0 and ``a2`` = ``a`` when it did not choose).
    ``t`` counts the episode's steps from 0 (a method resets its per-episode memory at
    ``t == 0``). It updates the weights ``th`` ``(A, P)`` in place through :func:`value` and
    :func:`update` and returns whether every value it read is within the divergence bound
    (:func:`within`). A target that averages over the policy reads :math:`\pi(\cdot|S')`
    from :func:`epsilon_greedy_probs` (``Q``, ``eps`` from ``mp``, an ``out`` array), the
    probabilities of the kernel's own choice, tie rule included (:func:`greedy`).
``kernel_end(th, mem, net, mp, T) -> ok``
    the episode's end after ``T`` steps (a method that updates late flushes here).

A task writes its dynamics, as numba ``@njit`` functions beside its batched environment
(:func:`ftd_lib.envs.puddle_world.kernel_step`):

``kernel_params(**task_params) -> tuple``
    (plain Python) the compiled form of the task's parameters (its row's ``params``).
``kernel_reset(sgen, state, x, tp)``
    a start state into ``state`` (the task's ``state_dim`` numbers) from the run's start
    stream ``sgen`` (``sgen.random()``, in the order the batched env draws), its features
    into ``x``.
``kernel_step(state, a, x, noise, tp) -> (reward, terminal)``
    one step with action ``a``: ``state`` in place, the features into ``x``; ``noise``: the
    row's ``noise`` uniform draws of the run's noise stream, drawn by the kernel as the
    batched env draws them.

Registration is one field of each row: the method's ``compiled`` in
:data:`ftd_lib.methods.METHODS` (and ``"kernel"`` in its ``engines``), the task's
``compiled`` in :data:`ftd_lib.envs.tasks.TASKS`, each a module under ``ftd_lib``
(``"engine.compiled.n_step_sarsa"``), or ``"module:prefix"`` for pieces named
``<prefix>_params``, ``<prefix>_reset``, ... Then ``run_control(..., engine="kernel")`` runs
every such pair (:func:`pair_runs`), ``check_method`` holds the compiled method to its
per-run reference and ``check_task`` the compiled dynamics to the batched step, bit for bit.

The run (:func:`extended_run`) takes the pieces as arguments, so numba compiles one
specialisation per (method, task) pair: 4-30 s the first time (``python -m ftd_lib bench
--kernel`` prints it). numba does not cache a function specialised on other compiled
functions (the dispatchers' types differ from process to process), so :func:`compiled_run`
writes a small module per pair whose one function calls :func:`extended_run` with the pieces
as globals, which numba does cache; the digest of every source the pieces reach is written
into it, so an edited piece (or anything it calls) is compiled again, and an unchanged one
loads from the cache in well under a second.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from .numerics import _ok, choose, epsilon_greedy_probs, greedy, q_all  # noqa: F401  (for pieces: pi, argmax)
from .numerics import update as _update
from .numerics import value as _value
from .runs import _freeze  # (the kernel's own runs freeze a diverged run alike)

# the network a piece computes with: (n_in, H, h, d, hidden, bound); h (H,) holds the hidden
# units of the last value, d (H,) is scratch, hidden the activation (.numerics.HIDDEN)


@njit(error_model="numpy", inline="always")
def value(th, a, x, net):
    r""":math:`\hat Q(x, a|\theta)` of network ``a`` (:func:`.numerics.value`); leaves the
    hidden units in the ``net`` for :func:`update`."""
    return _value(th, a, x, net[0], net[1], net[2], net[4])


@njit(error_model="numpy", inline="always")
def update(th, a, x, net, coef):
    r""":math:`\theta_a \leftarrow \theta_a + c\,\nabla\hat Q(x, a|\theta)`, right after
    :func:`value` of the same ``(a, x)`` (:func:`.numerics.update`: the batch's rounding)."""
    _update(th, a, x, net[0], net[1], net[2], net[3], coef, net[4])


@njit(error_model="numpy", inline="always")
def within(v, net):
    """``v`` is a number within the divergence bound (else the run has diverged)."""
    return abs(v) <= net[5]


@njit(error_model="numpy")
def extended_run(m_init, m_step, m_end, t_reset, t_step, th, mp, tp, n, state_dim, n_noise,
                 n_ep, cap, bootstrap, eps, bound, hidden, sgen, agen, ngen, returns,
                 lengths):
    r"""One run of a method written as pieces on a task written as pieces (the module
    docstring), in the order of the kernel's own runs (:func:`.runs.sarsa_run`): take
    :math:`A_t`, observe, choose :math:`A_{t+1}` (unless the episode ended; a capped episode
    still chooses when it ``bootstrap``\ s), the method's step, then the divergence check of
    its values and of :math:`\hat Q(S_{t+1}, \cdot)`; at the episode's end the method's end.
    ``th`` ``(A, P)`` is updated in place (``n`` features, so ``H = (P - 1) / (n + 2)``
    hidden units); ``returns``/``lengths`` ``(n_ep,)`` are filled. Returns
    ``(diverged_at, steps)`` (-1: never diverged); a diverged run's weights are zeroed and
    its returns ``nan`` from that episode on."""
    A, P = th.shape
    H = (P - 1) // (n + 2)
    net = (n, H, np.empty(H), np.empty(H), hidden, bound)
    Q = np.empty(A)
    x = np.empty(n)
    xn = np.empty(n)
    state = np.zeros(state_dim)
    noise = np.zeros(n_noise)
    mem = m_init(A, P, n, mp)
    steps = 0
    ep = 0
    while ep < n_ep:
        t_reset(sgen, state, x, tp)
        q_all(th, x, n, H, net[2], Q, hidden)
        if not _ok(Q, bound):
            return _freeze(th, returns, ep), steps
        act = choose(Q, eps, agen)
        ret = 0.0
        t = 0
        while True:
            for j in range(n_noise):
                noise[j] = ngen.random()
            r, term = t_step(state, act, xn, noise, tp)
            end = term or t + 1 >= cap
            chose = (not term) if bootstrap else (not end)
            a2 = act
            q2 = 0.0
            if chose:
                q_all(th, xn, n, H, net[2], Q, hidden)
                a2 = choose(Q, eps, agen)
                q2 = Q[a2]
            steps += 1
            ret += r
            ok = m_step(th, mem, net, mp, t, x, act, r, xn, a2, q2, Q, chose)
            t += 1
            x[:] = xn
            act = a2
            if not ok or (chose and not _ok(Q, bound)):
                return _freeze(th, returns, ep), steps
            if end:
                break
        if not m_end(th, mem, net, mp, t):
            return _freeze(th, returns, ep), steps
        returns[ep] = ret
        lengths[ep] = t
        ep += 1
    return -1, steps


_GENERATED = '''# generated by ftd_lib.engine.kernel.extend.compiled_run: {what}
# the sources of the pieces and of what they call: {digest}
import numpy as np
from numba import njit

from ftd_lib.engine.kernel.runs import _freeze
from ftd_lib.engine.kernel.numerics import _ok, choose, q_all
{imports}


{loop}'''
_RUNS: dict = {}


def _source_files(pieces) -> list[Path]:
    """The files of the compiled ``pieces`` and of every compiled function they call, call by
    call (the names of their code that are numba dispatchers), and the kernel's own files."""
    from numba.core.registry import CPUDispatcher

    files, seen, todo = set(Path(__file__).parent.glob("*.py")), set(), list(pieces)
    while todo:
        d = todo.pop()
        if id(d) in seen or not isinstance(d, CPUDispatcher):
            continue
        seen.add(id(d))
        fn = d.py_func
        files.add(Path(inspect.getsourcefile(fn)))
        todo += [fn.__globals__.get(name) for name in fn.__code__.co_names]
    return sorted(files)


_DIGESTS: dict = {}


def sources_digest(pieces) -> str:
    """sha256 of the source files :func:`_source_files` finds for ``pieces``, kept for the
    process by the files' modification times and sizes (a file changed in the last two
    seconds, which a coarse clock could stamp alike twice, is read again)."""
    files = _source_files(pieces)
    stats = [p.stat() for p in files]
    stamp = tuple((str(p), st.st_mtime_ns, st.st_size) for p, st in zip(files, stats,
                                                                           strict=True))
    settled = all(time.time_ns() - st.st_mtime_ns > 2_000_000_000 for st in stats)
    if settled and stamp in _DIGESTS:
        return _DIGESTS[stamp]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()
    _DIGESTS[stamp] = digest
    return digest


def compiled_run(m_init, m_step, m_end, t_reset, t_step):
    r""":func:`extended_run` specialised on the pieces, kept in numba's cache: a generated
    module (``__pycache__/extended/`` beside this file) whose one function calls
    :func:`extended_run` with the pieces as its globals, the digest of every source the
    pieces reach (:func:`sources_digest`) written into it, so that an edited piece changes the
    file and numba compiles it again. Where that folder cannot be written (a read-only
    install), :func:`extended_run` itself (compiled in memory, each process)."""
    pieces = (m_init, m_step, m_end, t_reset, t_step)
    names = ("m_init", "m_step", "m_end", "t_reset", "t_step")
    imports = "\n".join(f"from {p.py_func.__module__} import {p.py_func.__name__} as {n}"
                         for p, n in zip(pieces, names, strict=True))
    what = ", ".join(f"{p.py_func.__module__}.{p.py_func.__name__}" for p in pieces)
    loop = inspect.getsource(extended_run.py_func).replace(
        "@njit(error_model=\"numpy\")", "@njit(cache=True, error_model=\"numpy\")").replace(
        "def extended_run(m_init, m_step, m_end, t_reset, t_step, th,", "def run(th,")
    src = _GENERATED.format(what=what, digest=sources_digest(pieces), imports=imports,
                            loop=loop)
    key = hashlib.sha256(imports.encode()).hexdigest()[:20]
    if _RUNS.get(key, (None,))[0] == src:
        return _RUNS[key][1]
    path = Path(__file__).parent / "__pycache__" / "extended" / f"run_{key}.py"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != src:  # (atomic: workers may race)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(src)
            os.replace(tmp, path)
    except OSError:
        def run(*args):
            return extended_run(*pieces, *args)
    else:
        name = f"_ftd_lib_extended_run_{key}"  # (in sys.modules: numba's cache imports it)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        run = module.run
    _RUNS[key] = (src, run)
    return run


def _pieces(where: str, names: tuple[str, ...]) -> tuple:
    """The pieces ``names`` of the module a row's ``compiled`` names (``"module"``: its
    ``kernel_<name>``; ``"module:prefix"``: its ``<prefix>_<name>``), under ``ftd_lib``."""
    module, _, prefix = where.partition(":")
    home = importlib.import_module(f"ftd_lib.{module}")
    prefix = prefix or "kernel"
    try:
        return tuple(getattr(home, f"{prefix}_{name}") for name in names)
    except AttributeError as e:
        raise ValueError(f"compiled pieces {where!r}: {e} (it needs "
                         f"{', '.join(prefix + '_' + n for n in names)})") from None


METHOD_PIECES = ("params", "init", "step", "end")
TASK_PIECES = ("params", "reset", "step")


def method_pieces(method: str) -> tuple:
    """``(params, init, step, end)`` of ``method``'s compiled form (its row's ``compiled``);
    a ``ValueError`` if it has none."""
    from ...methods import method as row

    where = row(method).compiled
    if where is None:
        raise ValueError(f"method {method!r} has no compiled form (its row's compiled is None)")
    return _pieces(where, METHOD_PIECES)


def task_pieces(env: str) -> tuple:
    """``(params, reset, step)`` of task ``env``'s compiled dynamics (its row's
    ``compiled``); a ``ValueError`` if it has none."""
    from ...envs.tasks import task

    where = task(env).compiled
    if where is None:
        raise ValueError(f"task {env!r} has no compiled dynamics (its row's compiled is None)")
    return _pieces(where, TASK_PIECES)


def pair_runs(method: str, env) -> bool:
    """The kernel runs ``method`` on ``env`` through :func:`extended_run`: the method's row
    names a compiled form and the task's row compiled dynamics."""
    from ...envs.tasks import TASKS
    from ...methods import METHODS

    m, t = METHODS.get(method), TASKS.get(env) if isinstance(env, str) else None
    return m is not None and t is not None and m.compiled is not None and t.compiled is not None


def run_tasks(method, settings, seed, run_ids, n_episodes, *, env, init, epsilon=0.05,
              n_hidden=50, div_bound=1e6, progress=False, truncation="bootstrap",
              max_steps=None, hidden="tanh", params=None, task_params=None, pieces=None):
    r"""Every task (settings row ``i``, run id ``run_ids[i]``) through :func:`extended_run`
    with ``method``'s and ``env``'s pieces, one after another: a
    :class:`..results.ControlResult`, as :func:`ftd_lib.engine.kernel.run_tasks`. ``params``:
    the method's own (checked), ``task_params`` the task's (checked); ``pieces``: a module
    of pieces in place of the row's ``compiled`` (a method's compiled form before its row
    names it; :mod:`ftd_lib.engine.compiled.sarsa_lambda`)."""
    from ...envs.batch import NOISE_STREAM, START_STREAM
    from ...envs.tasks import TASKS
    from ...rng import AGENT_STREAM, run_generator
    from .._net import BatchedMLP
    from ..results import run_each
    from .numerics import HIDDEN

    m_params, m_init, m_step, m_end = (method_pieces(method) if pieces is None
                                       else _pieces(pieces, METHOD_PIECES))
    t_params, t_reset, t_step = task_pieces(env)
    task = TASKS[env]
    n_in, A = task.n_in, task.n_actions
    cap = task.max_steps if max_steps is None else int(max_steps)
    tp = t_params(**(task_params or {}))
    run_ids = np.asarray(run_ids, dtype=np.int64).reshape(-1)
    perm = BatchedMLP(n_in, n_hidden).perm
    run = compiled_run(m_init, m_step, m_end, t_reset, t_step)

    def one(i, th, returns, lengths):
        rid = int(run_ids[i])
        row = dict(settings.row(i), epsilon=float(epsilon), cap=cap)
        return run(th, m_params(row, **(params or {})), tp, n_in, task.batch_cls.state_dim,
                   task.noise, int(n_episodes), cap, truncation == "bootstrap", float(epsilon),
                   float(div_bound), HIDDEN[hidden], run_generator(seed, rid, START_STREAM),
                   run_generator(seed, rid, AGENT_STREAM), run_generator(seed, rid, NOISE_STREAM),
                   returns, lengths)

    return run_each(method, settings, truncation, "kernel", run_ids, n_episodes,
                    shape=(A, len(perm)), perm=perm, init=init, run=one, progress=progress)
