r"""How long a list of chunks takes on N workers: list scheduling (Graham, 1969).

The workers of :func:`ftd_lib.repro.runs.run_figure` (a process pool, or a Dask cluster) take
the chunks in the order they are given: whenever a worker is free it takes the next chunk. With
known costs :math:`c_1, \dots, c_n` that is *list scheduling*: chunk :math:`j` starts on the
worker that frees first, at :math:`\min_w L_w`, and the wall time (the *makespan*) is
:math:`\max_w L_w` at the end. Given the chunks largest first (LPT, "longest processing time
first") the makespan is at most :math:`(4/3 - 1/(3N))` times the best possible
(Graham, 1969), and never below :math:`\max(\max_j c_j, \sum_j c_j / N)`.

Utilisation is the busy share of the workers' time: :math:`\sum_j c_j / (N \cdot
\mathrm{makespan})`.
"""

from __future__ import annotations

import heapq
from typing import NamedTuple

from ... import validate


class Schedule(NamedTuple):
    """Where and when each chunk runs: ``start[j]``, ``worker[j]``; the workers' loads
    (busy seconds), the ``makespan`` (wall time) and the ``utilisation``."""

    start: list[float]
    worker: list[int]
    loads: list[float]
    makespan: float
    utilisation: float


def list_schedule(costs, workers: int, start_at: float = 0.0, keys=None,
                  first=None) -> Schedule:
    """List scheduling in the given order: chunk ``j`` goes to the worker that is free first
    (the lowest-numbered among ties) and starts when it is free; every worker is free at
    ``start_at`` (e.g. the seconds a worker process needs to start). ``keys[j]``: what chunk
    ``j`` loads in the worker that computes it (its compiled pair); the first chunk of a key
    on a worker costs ``first[key]`` more (a later one on that worker nothing)."""
    workers = validate.check_int("workers", workers, 1)
    costs = [float(c) for c in costs]
    if any(c < 0 or c != c for c in costs):
        raise ValueError("costs: must be numbers >= 0")
    keys = [None] * len(costs) if keys is None else list(keys)
    if len(keys) != len(costs):
        raise ValueError("keys: one for each cost")
    first = first or {}
    free = [(float(start_at), w) for w in range(workers)]  # (free at, worker)
    heapq.heapify(free)
    start, worker, taken = [], [], []
    loads = [0.0] * workers
    seen: list[set] = [set() for _ in range(workers)]
    for c, k in zip(costs, keys, strict=True):
        t, w = heapq.heappop(free)
        if k is not None and k not in seen[w]:
            seen[w].add(k)
            c += float(first.get(k, 0.0))
        start.append(t)
        worker.append(w)
        taken.append(c)
        loads[w] += c
        heapq.heappush(free, (t + c, w))
    makespan = max((s + c for s, c in zip(start, taken, strict=True)), default=0.0)
    busy = sum(taken)
    util = busy / (workers * makespan) if makespan > 0 else 1.0
    return Schedule(start, worker, loads, makespan, util)


def largest_first(costs) -> list[int]:
    """The order LPT gives the chunks: indices by cost, largest first (stable among ties)."""
    costs = list(costs)
    return sorted(range(len(costs)), key=lambda j: -float(costs[j]))


def lpt(costs, workers: int, start_at: float = 0.0) -> Schedule:
    """List scheduling with the chunks largest first; ``start``/``worker`` are indexed like
    ``costs`` (not like the order they ran in)."""
    costs = [float(c) for c in costs]
    order = largest_first(costs)
    s = list_schedule([costs[j] for j in order], workers, start_at)
    start, worker = [0.0] * len(costs), [0] * len(costs)
    for k, j in enumerate(order):
        start[j], worker[j] = s.start[k], s.worker[k]
    return Schedule(start, worker, s.loads, s.makespan, s.utilisation)


def lower_bound(costs, workers: int) -> float:
    """No schedule of ``costs`` on ``workers`` ends before this: the largest chunk, or the
    total work spread evenly."""
    costs = [float(c) for c in costs]
    return max(max(costs, default=0.0), sum(costs) / validate.check_int("workers", workers, 1))


def stage_schedule(seconds, keys, workers: int, rates) -> Schedule:
    """The schedule of a stage's chunks (their ``seconds`` each in a process of its own,
    largest first; ``keys``: their compiled pairs) on ``workers`` workers with a machine's
    ``rates`` (:class:`ftd_lib.repro.planning.cost.Rates`): chunks that run at once each
    slowed down as measured (:meth:`~ftd_lib.repro.planning.cost.Rates.parallel`), the
    worker processes' start first (:meth:`~ftd_lib.repro.planning.cost.Rates.start`: none
    where the command computes the chunks itself, one worker or one chunk), and the first
    chunk of each pair on each process its load (:attr:`~ftd_lib.repro.planning.cost.Rates.
    pair_load_s`). The plan (:func:`ftd_lib.repro.planning.plan.plan_stage`) and the plan a
    run stores (:func:`ftd_lib.repro.runs.run_figure`) are both this one."""
    seconds = list(seconds)
    n = len(seconds)
    slow = rates.parallel(min(workers, n)) if n > 1 else 1.0
    start = rates.start(workers) if workers > 1 and n > 1 else 0.0
    keys = list(keys)
    first = {k: slow * rates.pair_load(k) for k in set(keys)}
    return list_schedule([slow * s for s in seconds], workers, start_at=start, keys=keys,
                         first=first)


def stage_compute(seconds, keys, kinds, workers: int, rates) -> float:
    """What the pieces' own clocks (each piece's ``compute_s``) will sum to on ``workers``
    workers: their busy seconds in :func:`stage_schedule` (slowed down, each process's first
    piece of a pair loading it), plus, once for each process and task kind (``kinds[j]``:
    piece ``j``'s, ``prediction`` or ``control``) of the pieces it computes, the kind's first
    chunk (:attr:`~ftd_lib.repro.planning.cost.Rates.kind_load_s`: its code loaded), and for
    each worker process the engine's import (:attr:`~ftd_lib.repro.planning.cost.Rates.
    engine_import_s`): a worker starts bare; the command's own process -- one worker or one
    piece -- imported the engine at its start. The wall counts these in the workers' start
    or the command's first chunk. They are not slowed down: measured in a fresh process at
    the machine's load of the moment, and mostly loading, not arithmetic the workers share
    cores for."""
    seconds, kinds = list(seconds), list(kinds)
    if not seconds:
        return 0.0
    sched = stage_schedule(seconds, keys, workers, rates)
    firsts = set(zip(sched.worker, kinds, strict=True))
    workers_started = len(set(sched.worker)) if workers > 1 and len(seconds) > 1 else 0
    return (sum(sched.loads) + sum(float(rates.kind_load_s.get(k, 0.0)) for _w, k in firsts)
            + workers_started * float(rates.engine_import_s))
