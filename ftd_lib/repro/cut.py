r"""Chunks cut by cost, not by count: what :func:`ftd_lib.repro.runs.run_figure` computes.

The definition cuts a figure into chunks of a fixed shape (:func:`ftd_lib.repro.chunks.cut_chunks`:
a block of cells times a block of runs); its chunks are what the store is searched for, and
what the figure is assembled from. What is *computed* is cut here, from what is missing:

1. :func:`remainders`: of every chunk not in the store, the cells that no stored chunk holds
   with its runs (:mod:`ftd_lib.repro.reuse`) -- rows already stored are read, never
   recomputed, however the store was cut;
2. :func:`cut_by_cost`: for ``N > 1`` workers, each remainder split by its cells into pieces
   of similar predicted cost (:mod:`ftd_lib.repro.cost`), so that there are about
   :data:`PER_WORKER` chunks per worker where the cells allow, as long as splitting does not
   add more than :data:`MAX_OVERHEAD` to the predicted work (a prediction chunk is one torch
   batch: each piece pays the batch's per-iteration overhead again); then largest first
   (list scheduling's best simple order, :mod:`ftd_lib.repro.schedule`).

A piece holds, of every cell, the same block of runs as the definition's chunk, so the
definition's chunk is read back from the pieces bit for bit
(:func:`ftd_lib.repro.reuse.rows_from_stored`): the numbers never depend on the cut (tested).
"""

from __future__ import annotations

import math

import numpy as np

from .chunks import ChunkTask
from .reuse import missing_cells

#: chunks per worker a cut aims at (more than one: costs are predicted, not known)
PER_WORKER = 4
#: splitting stops where the pieces together are predicted to cost this much more than whole
MAX_OVERHEAD = 0.10


def sub_task(task: ChunkTask, cells) -> ChunkTask:
    """The rows of ``task`` that belong to ``cells`` (cell indices), in the task's order."""
    keep = np.isin(task.cell_index, np.asarray(list(cells), dtype=np.int64))
    return task._replace(cell_index=task.cell_index[keep], settings=task.settings[keep],
                         run_ids=task.run_ids[keep])


def remainders(tasks, idents, done, index: dict) -> list[ChunkTask]:
    """What must be computed: of every chunk missing from ``done`` (``None``), the rows of its
    cells that no stored chunk in ``index`` (:func:`ftd_lib.repro.reuse.stored_index`) holds;
    a chunk none of whose cells is stored is kept whole (its own identity)."""
    out = []
    for i, d in enumerate(done):
        if d is not None:
            continue
        cells = missing_cells(tasks[i], idents[i], index)
        n_cells = len(np.unique(tasks[i].cell_index))
        out.append(tasks[i] if len(cells) == n_cells else sub_task(tasks[i], cells))
    return [t for t in out if t.rows]


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


def cut_by_cost(tasks, workers: int, cost, *, per_worker: int = PER_WORKER,
                max_overhead: float = MAX_OVERHEAD) -> list[ChunkTask]:
    """The chunks to compute on ``workers`` workers: with one worker ``tasks`` as they are;
    with more, each split into pieces of about ``total / (per_worker * workers)`` predicted
    seconds (``cost(task)``) -- fewer where its cells run out or where the pieces would cost
    more than ``1 + max_overhead`` times the whole -- and all of them largest first."""
    tasks = list(tasks)
    if workers <= 1 or not tasks:
        return tasks
    costs = [cost(t) for t in tasks]
    target = sum(costs) / (per_worker * workers)
    out = []
    for task, c in zip(tasks, costs, strict=True):
        cell_costs = {int(x): cost(sub_task(task, [x])) for x in np.unique(task.cell_index)}
        k = math.ceil(c / target) if target > 0 else 1
        while k > 1:
            pieces = split(task, k, cell_costs.__getitem__)
            if sum(cost(p) for p in pieces) <= (1 + max_overhead) * c:
                break
            k //= 2
        out += split(task, k, cell_costs.__getitem__) if k > 1 else [task]
    return sorted(out, key=lambda t: -cost(t))
