"""A chunk's rows read from stored chunks cut another way: :func:`rows_from_stored`.

Stores written before appended cells had chunks of their own (:mod:`ftd_lib.repro.protocol`)
hold the cells of several widenings in one chunk; a run with several workers cuts the missing
rows by cost (:mod:`ftd_lib.repro.planning.cut`), not the way the definition does. Either
way a stored chunk holds, for each of its cells, one block of runs with its per-row numbers and the
sum of
that block's episode curves. A chunk of the definition's cut is read back cell by cell from
any stored chunks that hold its cells with exactly its runs (:func:`cell_sources`). A run's
numbers never depend on its chunk, and a cell's curve sum is the sum of the same rows in the
same order, so these are bit for bit the numbers the chunk would compute.
"""

from __future__ import annotations

import json

import numpy as np

from .chunks import CHUNK_FIELDS
from .store import canonical_json, chunk_key

#: what may differ between a chunk and a stored chunk that holds its rows: the block of cells
#: and runs (everything else of the identity -- figure, runner, seed, episodes, ... -- agrees)
_BLOCK_KEYS = ("settings", "run_ids")


def stored_index(cstore, idents) -> dict:
    """Where each (cell, block of runs) of the stored chunks is: ``{(block-free identity,
    settings row, run ids): identity of a stored chunk}`` for the stored chunks whose identity
    agrees with one of ``idents`` apart from the block. A stored chunk that holds a settings
    row twice with the same run (two cells of one setting) is left out: its rows are
    ambiguous."""
    want = {_block_free(i) for i in idents}
    index: dict = {}
    if not want:
        return index
    for key in cstore.keys():
        try:
            ident = json.loads(str(np.load(cstore.path(key))["__identity__"]))
        except Exception:  # unreadable: not a source
            continue
        if _block_free(ident) in want:
            add_to_index(index, [ident])
    return index


def add_to_index(index: dict, idents) -> dict:
    """Put the cells of the chunks ``idents`` into ``index`` (:func:`stored_index`'s form):
    the stored ones, or -- for a plan -- those an earlier stage will have stored by then."""
    for ident in idents:
        cells: dict = {}
        for row, rid in zip(map(tuple, ident["settings"]), ident["run_ids"], strict=True):
            cells.setdefault(tuple(float(x) for x in row), []).append(int(rid))
        if any(len(set(r)) != len(r) for r in cells.values()):
            continue
        bf = _block_free(ident)
        for row, runs in cells.items():
            index.setdefault((bf, row, tuple(runs)), ident)
    return index


def _cells_of(task):
    """The cells of a chunk in order: ``(cell index, settings row, run ids)``."""
    out = []
    for c in np.unique(task.cell_index):
        rows = np.flatnonzero(task.cell_index == c)
        out.append((int(c), tuple(task.settings[rows[0]].tolist()),
                    tuple(int(r) for r in task.run_ids[rows])))
    return out


def cell_sources(task, ident: dict, index: dict) -> dict:
    """For each cell of ``task`` (its identity ``ident``), the identity of a stored chunk that
    holds it with exactly its runs, or ``None``."""
    bf = _block_free(ident)
    return {c: index.get((bf, row, runs)) for c, row, runs in _cells_of(task)}


def rows_from_stored(cstore, tasks, idents, done, checks, index: dict | None = None) -> int:
    """Fill the chunks missing from ``done`` (``None``) from stored chunks that hold all their
    cells (:func:`cell_sources`; one or several stored chunks). Nothing is written. Returns
    how many chunks were filled."""
    missing = [i for i, d in enumerate(done) if d is None]
    if not missing:
        return 0
    if index is None:
        index = stored_index(cstore, [idents[i] for i in missing])
    loaded: dict = {}
    n = 0
    for i in missing:
        sources = cell_sources(tasks[i], idents[i], index)
        if not sources or any(s is None for s in sources.values()):
            continue
        if all(s == idents[i] for s in sources.values()):
            continue  # (the chunk's own file is there but unusable: recomputed)
        try:
            data = _rows_of(tasks[i], sources, cstore, loaded)
        except (KeyError, IndexError, ValueError):  # an inconsistent source: not one
            data = None
        if data is not None and checks[i](data[0]) is None:
            done[i] = data
            n += 1
    return n


def missing_cells(task, ident: dict, index: dict) -> list[int]:
    """The cells of ``task`` that no stored chunk holds with exactly its runs, other than the
    task's own file (asked about when that file is missing or unusable: damaged)."""
    return [c for c, s in cell_sources(task, ident, index).items() if s is None or s == ident]


def stored_prefix(task, ident: dict, cell: int, index: dict) -> tuple | None:
    """The longest first runs of ``cell``'s runs in ``task`` (not all of them) that a stored
    chunk in ``index`` holds, or ``None``: a chunk whose runs grew (``runs = 3`` after
    ``runs = 2``, or more runs in one chunk's block) computes only the others
    (:func:`ftd_lib.repro.planning.cut.remainders`). Never for a chunk of one episode: its
    curve sum cannot be continued bit for bit (:func:`ftd_lib.repro.chunks.grown_chunk`)."""
    if task.n_episodes < 2:
        return None
    bf = _block_free(ident)
    for c, row, runs in _cells_of(task):
        if c != cell:
            continue
        for k in range(len(runs) - 1, 0, -1):
            if (bf, row, runs[:k]) in index:
                return runs[:k]
    return None


def prefix_rows(cstore, task, ident: dict, index: dict, loaded: dict | None = None
                ) -> dict | None:
    """The stored numbers of a grown chunk's stored runs (``task.prefix_runs``; ``ident``:
    its identity, :meth:`~ftd_lib.repro.chunks.ChunkTask.identity`), per cell in
    order: ``metric`` and ``diverged`` ``(cells, runs)``, ``curve_sum`` ``(cells,
    episodes)``, and ``from`` (the keys of the stored chunks read); ``None`` when they
    cannot be read (then the whole chunk is computed)."""
    whole = task.whole()
    keep = np.isin(whole.run_ids, np.asarray(task.prefix_runs, dtype=np.int64))
    prefix = whole._replace(cell_index=whole.cell_index[keep], settings=whole.settings[keep],
                            run_ids=whole.run_ids[keep])
    sources = cell_sources(prefix, ident, index)
    if not sources or any(s is None for s in sources.values()):
        return None
    try:
        got = _rows_of(prefix, sources, cstore, {} if loaded is None else loaded)
    except (KeyError, IndexError, ValueError):
        return None
    if got is None:
        return None
    data, meta = got
    k = len(task.prefix_runs)
    cells = np.unique(prefix.cell_index)
    return {"metric": data["metric"].reshape(len(cells), k),
            "diverged": data["diverged"].reshape(len(cells), k),
            "curve_sum": data["curve_sum"], "from": meta["rows_from"]}


def _block_free(ident: dict) -> str:
    return canonical_json({k: v for k, v in ident.items() if k not in _BLOCK_KEYS})


def _load(ident: dict, cstore, loaded: dict):
    key = chunk_key(ident)
    if key not in loaded:
        loaded[key] = cstore.load(ident, _has_fields)
    return loaded[key]


def _rows_of(task, sources: dict, cstore, loaded: dict):
    """``(arrays, meta)`` of ``task`` put together from the stored chunks ``sources`` (one per
    cell), or ``None``. The metadata: the sources' keys, and their compute time shared out by
    rows."""
    metric = np.empty(task.rows)
    diverged = np.zeros(task.rows, dtype=bool)
    cells, curve_sum, used, compute_s = [], [], {}, 0.0
    for c, row, runs in _cells_of(task):
        ident = sources[c]
        src_loaded = _load(ident, cstore, loaded)
        if src_loaded is None:
            return None
        src, meta = src_loaded
        settings = np.asarray(ident["settings"], dtype=np.float64)
        theirs = np.flatnonzero((settings == np.asarray(row)).all(axis=1))
        src_cells = np.unique(src["cell_index"][theirs])
        if len(src_cells) != 1 or tuple(src["run_ids"][theirs].tolist()) != runs:
            return None
        mine = np.flatnonzero(task.cell_index == c)
        metric[mine] = src["metric"][theirs]
        diverged[mine] = src["diverged"][theirs]
        cells.append(c)
        curve_sum.append(src["curve_sum"][int(np.flatnonzero(src["cells"] == src_cells[0])[0])])
        key = chunk_key(ident)
        used[key] = meta
        compute_s += float(meta.get("compute_s", 0.0)) * len(mine) / max(len(settings), 1)
    first = next(iter(used.values()))
    meta = {k: first[k] for k in ("machine", "provenance", "device") if k in first}
    meta.update(compute_s=compute_s, rows_from=sorted(used) if len(used) > 1
                else next(iter(used)))
    # each stored piece read, with its own record (ftd_lib.repro.provenance counts pieces)
    meta["pieces"] = {k: used[k].get("provenance") for k in sorted(used)}
    data = {"metric": metric, "diverged": diverged, "cells": np.asarray(cells, dtype=np.int64),
            "curve_sum": np.asarray(curve_sum), "run_ids": task.run_ids,
            "cell_index": task.cell_index}
    return data, meta


def _has_fields(data: dict) -> str | None:
    missing = [k for k in CHUNK_FIELDS if k not in data]
    return f"field(s) missing: {', '.join(missing)}" if missing else None
