"""A chunk's rows read from a stored chunk that holds them among others (stores written before
appended cells had chunks of their own, :mod:`ftd_lib.repro.protocol`): :func:`rows_from_stored`.
A run's numbers never depend on its chunk, so these are the numbers the chunk would compute.
"""

from __future__ import annotations

import json

import numpy as np

from .chunks import CHUNK_FIELDS
from .store import canonical_json, chunk_key

#: what may differ between a chunk and a stored chunk that holds its rows: the block of cells
#: and runs (everything else of the identity -- figure, runner, seed, episodes, ... -- agrees)
_BLOCK_KEYS = ("settings", "run_ids")


def rows_from_stored(cstore, tasks, idents, done, checks) -> int:
    """Fill the chunks missing from ``done`` (``None``) from stored chunks that hold all their
    rows: same identity apart from the block of cells (settings rows) and runs, and, for
    every cell of the chunk, the same run ids (so that the stored per-cell episode curves are
    the chunk's). A run's numbers never depend on its chunk, so these are the numbers the
    chunk would compute. Nothing is written. Returns how many chunks were filled."""
    missing = [i for i, d in enumerate(done) if d is None]
    if not missing:
        return 0
    want = {_block_free(idents[i]) for i in missing}
    stored = []
    for key in cstore.keys():
        try:
            ident = json.loads(str(np.load(cstore.path(key))["__identity__"]))
        except Exception:  # unreadable: not a source
            continue
        if _block_free(ident) in want:
            stored.append(ident)
    n = 0
    for i in missing:
        for ident in stored:
            if _block_free(ident) != _block_free(idents[i]) or ident == idents[i]:
                continue  # (the chunk's own file is there but unusable: recomputed)
            try:
                data = _rows_of(tasks[i], ident, cstore)
            except (KeyError, IndexError, ValueError):  # an inconsistent source: not one
                data = None
            if data is not None and checks[i](data[0]) is None:
                done[i] = data
                n += 1
                break
    return n


def _block_free(ident: dict) -> str:
    return canonical_json({k: v for k, v in ident.items() if k not in _BLOCK_KEYS})


def _rows_of(task, ident: dict, cstore):
    """``(arrays, meta)`` of ``task`` cut out of the stored chunk ``ident``, or ``None``."""
    src_rows = {}
    settings = np.asarray(ident["settings"], dtype=np.float64)
    runs = np.asarray(ident["run_ids"], dtype=np.int64)
    for r, (row, rid) in enumerate(zip(map(tuple, settings), runs, strict=True)):
        src_rows[(row, int(rid))] = r
    want = [(tuple(row), int(rid)) for row, rid in zip(task.settings, task.run_ids,
                                                       strict=True)]
    if not all(w in src_rows for w in want):
        return None
    loaded = cstore.load(ident, _has_fields)
    if loaded is None:
        return None
    src, meta = loaded
    pick = np.array([src_rows[w] for w in want], dtype=np.int64)
    cells = np.unique(task.cell_index)
    curve_sum = []
    for c in cells:
        mine = pick[task.cell_index == c]
        src_cell = src["cell_index"][mine[0]]
        if not np.all(src["cell_index"][mine] == src_cell):
            return None
        theirs = np.flatnonzero(src["cell_index"] == src_cell)
        if set(src["run_ids"][theirs].tolist()) != set(task.run_ids[task.cell_index == c]
                                                       .tolist()):
            return None  # the stored curve sums over other runs
        curve_sum.append(src["curve_sum"][int(np.flatnonzero(src["cells"] == src_cell)[0])])
    data = {"metric": src["metric"][pick], "diverged": src["diverged"][pick], "cells": cells,
            "curve_sum": np.asarray(curve_sum), "run_ids": task.run_ids,
            "cell_index": task.cell_index}
    return data, {**meta, "rows_from": _store_key(ident)}


def _has_fields(data: dict) -> str | None:
    missing = [k for k in CHUNK_FIELDS if k not in data]
    return f"field(s) missing: {', '.join(missing)}" if missing else None


def _store_key(ident: dict) -> str:
    return chunk_key(ident)
