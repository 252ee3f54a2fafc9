"""``run_control(..., engine="reference")``: every task through the readable per-run
reference of its method (:mod:`ftd_lib.algorithms`), one after another. Slow; it is what the
kernel and the batch are tested against, and all a new method needs before it is optimised.
"""

from __future__ import annotations

import importlib
import inspect
import time

import numpy as np

from .. import algorithms
from ..approx import MLP
from ..methods import method as method_record
from ..rng import run_generator
from .results import per_run_result


def reference_function(method: str):
    """The per-run reference of ``method``: its record's ``reference`` in
    :mod:`ftd_lib.methods`, a function of :mod:`ftd_lib.algorithms` or ``"module:function"``
    of :mod:`ftd_lib` (e.g. ``"references.watkins_q_lambda:watkins_q_lambda"``). A method
    without one, or whose reference cannot be found, raises ``ValueError`` naming the method
    and where it was looked for."""
    name = method_record(method).reference
    if name is None:
        raise ValueError(f"method {method!r} has no per-run reference (its row in "
                         "ftd_lib/methods.py names none)")
    module, _, fn = name.rpartition(":")
    where = f"ftd_lib.{module}" if module else "ftd_lib.algorithms"
    try:
        home = importlib.import_module(where) if module else algorithms
        return getattr(home, fn)
    except (ImportError, AttributeError):
        raise ValueError(f"method {method!r}: its reference {fn!r} is not in {where} (its row "
                         f"in ftd_lib/methods.py names {name!r})") from None


def run_tasks(method, settings, seed, run_ids, n_episodes, *, n_in, make_env, init,
              agent_stream, epsilon=0.05, n_hidden=50, div_bound=1e6, truncation="bootstrap",
              progress=False, params=None, activation="tanh"):
    """Task ``i`` (settings row ``i``, run ``run_ids[i]``) on ``make_env([run_id])``, its
    agent's draws from ``run_generator(seed, run_id, agent_stream)`` and initial weights
    ``init([i])[0]``; the method's own ``params`` (checked) by keyword. Returns a
    :class:`.results.ControlResult`."""
    fn = reference_function(method)
    takes = inspect.signature(fn).parameters
    run_ids = np.asarray(run_ids, dtype=np.int64).reshape(-1)
    runs = []
    t0 = time.perf_counter()
    tasks = range(len(run_ids))
    if progress:
        from tqdm.auto import tqdm

        tasks = tqdm(tasks, desc=f"{method} (reference)", unit="run")
    for i in tasks:
        rid = int(run_ids[i])
        env = make_env([rid])
        w0 = np.asarray(init(np.array([i])), dtype=float)[0]
        row = settings.row(i)
        kw = {k: row[k] for k in ("eta", "k_max") if k in takes}  # (forward methods)
        runs.append(fn(env, w0, approx=MLP(n_in, n_hidden, activation), alpha=row["alpha"],
                       lam=row["lam"], gamma=row["gamma"], n_episodes=n_episodes,
                       agent=run_generator(seed, rid, agent_stream), epsilon=epsilon,
                       truncation=truncation, div_bound=div_bound, **kw, **(params or {})))
    stack = (lambda f: np.array([getattr(r, f) for r in runs]))  # noqa: E731
    return per_run_result(method, settings, truncation, "reference", stack("returns"),
                          stack("lengths"), stack("diverged_at"),
                          stack("weights").reshape(len(runs), *np.shape(w0)),
                          stack("n_steps"), time.perf_counter() - t0)
