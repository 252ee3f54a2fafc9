r"""Chunks cut by cost, not by count: what :func:`ftd_lib.repro.runs.run_figure` computes.

The definition cuts a figure into chunks of a fixed shape (:func:`ftd_lib.repro.chunks.cut_chunks`:
a block of cells times a block of runs); its chunks are what the store is searched for, and
what the figure is assembled from. What is *computed* is cut here, from what is missing:

1. :func:`remainders`: of every chunk not in the store, the cells that no stored chunk holds
   with its runs (:mod:`ftd_lib.repro.reuse`) -- rows already stored are read, never
   recomputed, however the store was cut;
2. :func:`cut_by_cost`: for ``N > 1`` workers, each remainder split by its cells into pieces
   of similar predicted cost (:mod:`~ftd_lib.repro.planning.cost`), about
   :data:`PER_WORKER` chunks per worker where the cells allow -- unless another count is predicted
   to end clearly sooner
   (a prediction chunk is one torch batch: each piece pays the batch's per-iteration
   overhead again, so splitting it is not free) -- then largest first (list scheduling's
   best simple order, :mod:`ftd_lib.repro.planning.schedule`).

A piece holds, of every cell, the same block of runs as the definition's chunk, so the
definition's chunk is read back from the pieces bit for bit
(:func:`ftd_lib.repro.reuse.rows_from_stored`): the numbers never depend on the cut (tested).
"""

from __future__ import annotations

import math

import numpy as np

from ..chunks import ChunkTask
from ..reuse import missing_cells, stored_prefix
from .schedule import largest_first, lpt

#: chunks per worker a cut aims at (more than one: costs are predicted, not known)
PER_WORKER = 4
#: the cuts tried: about this many chunks per worker
CHUNKS_PER_WORKER = (1, 2, 4, 8, 16)
#: the cut of :data:`PER_WORKER` chunks a worker is kept when its predicted wall time is
#: within this share of the best cut's
TOLERANCE = 0.03


def sub_task(task: ChunkTask, cells) -> ChunkTask:
    """The rows of ``task`` that belong to ``cells`` (cell indices), in the task's order."""
    keep = np.isin(task.cell_index, np.asarray(list(cells), dtype=np.int64))
    return task._replace(cell_index=task.cell_index[keep], settings=task.settings[keep],
                         run_ids=task.run_ids[keep])


def remainders(tasks, idents, done, index: dict) -> list[ChunkTask]:
    """What must be computed: of every chunk missing from ``done`` (``None``), the rows of its
    cells that no stored chunk in ``index`` (:func:`ftd_lib.repro.reuse.stored_index`) holds;
    a chunk none of whose cells is stored is kept whole (its own identity). A cell whose
    first runs are stored (the runs grew: :func:`ftd_lib.repro.reuse.stored_prefix`) is
    computed for its other runs only, in a grown chunk (:func:`grown`) of the cells that
    share those first runs."""
    out = []
    for i, d in enumerate(done):
        if d is not None:
            continue
        cells = missing_cells(tasks[i], idents[i], index)
        groups: dict = {}
        for c in cells:
            groups.setdefault(stored_prefix(tasks[i], idents[i], c, index), []).append(c)
        n_cells = len(np.unique(tasks[i].cell_index))
        for prefix, group in groups.items():
            whole = tasks[i] if len(group) == n_cells else sub_task(tasks[i], group)
            out.append(whole if prefix is None else grown(whole, prefix))
    return [t for t in out if t.rows]


def grown(task: ChunkTask, prefix) -> ChunkTask:
    """The rows of ``task`` beyond the runs ``prefix`` that each of its cells has stored: a
    grown chunk (:meth:`~ftd_lib.repro.chunks.ChunkTask.whole` is ``task`` again)."""
    keep = ~np.isin(task.run_ids, np.asarray(prefix, dtype=np.int64))
    return task._replace(cell_index=task.cell_index[keep], settings=task.settings[keep],
                         run_ids=task.run_ids[keep], prefix_runs=tuple(prefix))


def split(task: ChunkTask, k: int, cell_cost) -> list[ChunkTask]:
    """``task`` split by its cells into ``k`` pieces of similar cost: the cells largest first,
    each to the piece with the least so far (``cell_cost(c)``: the predicted cost of cell
    ``c``'s rows)."""
    cells = [int(c) for c in np.unique(task.cell_index)]
    k = max(1, min(int(k), len(cells)))
    if k == 1:
        return [task]
    bins: list[list[int]] = [[] for _ in range(k)]
    loads = [0.0] * k
    for c in sorted(cells, key=lambda c: (-cell_cost(c), c)):
        j = int(np.argmin(loads))
        bins[j].append(c)
        loads[j] += cell_cost(c)
    return [sub_task(task, sorted(b)) for b in bins if b]


def cut_for(tasks, costs, target: float, cell_costs) -> list[ChunkTask]:
    """Each task split into ``ceil(cost / target)`` pieces of similar cost (at most one a
    cell), largest first."""
    out = []
    for task, c, cc in zip(tasks, costs, cell_costs, strict=True):
        k = math.ceil(c / target) if target > 0 else 1
        out += split(task, k, cc.__getitem__)
    return out


def cut_by_cost(tasks, workers: int, cost, *, per_worker: int = PER_WORKER,
                tolerance: float = TOLERANCE) -> list[ChunkTask]:
    """The chunks to compute on ``workers`` workers: with one worker ``tasks`` as they are;
    with more, every task split into pieces of about ``total / (m * workers)`` predicted
    seconds (``cost(task)``), for ``m`` in :data:`CHUNKS_PER_WORKER`; the cut whose
    predicted wall time (largest first on the workers) is least wins -- ``per_worker``
    chunks a worker whenever its wall time is within ``tolerance`` of the least, since the
    costs are only predicted -- its chunks largest first."""
    tasks = list(tasks)
    if workers <= 1 or not tasks:
        return tasks
    costs = [cost(t) for t in tasks]
    cell_costs = [{int(x): cost(sub_task(t, [x])) for x in np.unique(t.cell_index)}
                  for t in tasks]
    total = sum(costs)
    best = None
    for m in sorted(set(CHUNKS_PER_WORKER) | {per_worker}):
        cut = cut_for(tasks, costs, total / (m * workers), cell_costs)
        pieces = [cost(t) for t in cut]
        wall = lpt(pieces, workers).makespan
        if best is None or wall < best[0]:
            best = (wall, m, cut, pieces)
        if m == per_worker:
            preferred = (wall, m, cut, pieces)
    if preferred[0] <= (1 + tolerance) * best[0]:
        best = preferred
    _wall, _m, cut, pieces = best
    order = largest_first(pieces)
    return [cut[j] for j in order]
