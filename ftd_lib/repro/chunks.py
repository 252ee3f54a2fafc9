r"""A figure cut into chunks, and the runner that computes a chunk (by default the engine).

A chunk is one method's block of cells times a block of runs (:class:`ChunkTask`); the cut
(:func:`cut_chunks`) depends only on the figure's definition. Everything that determines a
chunk's numbers is its *identity* (:meth:`ChunkTask.identity`), hashed into its file name in the
store (:mod:`ftd_lib.repro.store`): a chunk computed by another engine numerics version, or by
other code (the digest of the method's, the task's and the engines' source,
:mod:`ftd_lib.repro.code`), is another chunk, and a rerun says which chunks it recomputes
because their code changed. The identity of a chunk must never change for the same chunk and
code (tests pin it).

The runner contract: ``runner(task: ChunkTask, *, device: str, progress: bool) -> dict`` with
``values`` ``(rows, n_episodes)`` and ``diverged`` ``(rows,)``; :func:`reduce_chunk` turns that
into what a chunk stores, :func:`chunk_problem` checks a stored chunk against its task.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .cells import network_only
from .definitions import DEFAULT_SEED, Figure
from .provenance import chunk_provenance

STORE_VERSION = 1  # bump when the meaning of a stored chunk changes

class ChunkTask(NamedTuple):
    """One chunk of rows for a runner: one method, a block of cells times a block of runs.

    Rows are cell-major: row ``i`` is cell ``cell_index[i]`` (an index into ``Figure.cells``)
    with run id ``run_ids[i]``. ``settings[i]`` = (alpha, lam, gamma, eta, k_max; 0 = no cap).
    ``params``: the method's own parameters, the same for every row (``None``: none).
    """

    figure: str
    scale: str
    task: str
    env: str
    method: str
    cell_index: np.ndarray
    settings: np.ndarray
    run_ids: np.ndarray
    seed: int
    n_episodes: int
    epsilon: float
    max_steps: int | None = None
    truncation: str | None = None
    variant: dict | None = None  # a set-up variant (ftd_lib.repro.setups): name, hidden, ...
    params: dict | None = None  # the method's own parameters (ftd_lib.methods: its row's)
    task_params: dict | None = None  # the task's own parameters (ftd_lib.envs.tasks: its row's)
    #: a grown chunk (:func:`ftd_lib.repro.reuse.stored_prefix`): the runs of each of its cells
    #: already stored, which it does not compute; ``prefix_rows``: their stored numbers
    #: (:func:`ftd_lib.repro.reuse.prefix_rows`), put in by the run before it computes
    prefix_runs: tuple | None = None
    prefix_rows: dict | None = None

    @property
    def rows(self) -> int:
        """The rows computed (a grown chunk's: only those of its runs not yet stored)."""
        return len(self.run_ids)

    def whole(self) -> ChunkTask:
        """The chunk a grown chunk completes: of each cell (in order), the stored runs
        ``prefix_runs`` then its own; any other chunk is itself."""
        if self.prefix_runs is None:
            return self
        cell_index, settings, run_ids = [], [], []
        for c in np.unique(self.cell_index):
            mine = np.flatnonzero(self.cell_index == c)
            runs = [*self.prefix_runs, *self.run_ids[mine].tolist()]
            cell_index += [int(c)] * len(runs)
            settings += [self.settings[mine[0]]] * len(runs)
            run_ids += runs
        return self._replace(cell_index=np.asarray(cell_index, dtype=np.int64),
                             settings=np.asarray(settings, dtype=np.float64),
                             run_ids=np.asarray(run_ids, dtype=np.int64),
                             prefix_runs=None, prefix_rows=None)

    def identity(self, runner_name: str, device_kind: str, code: str | None = None) -> dict:
        """Everything that determines the chunk's numbers (hashed into its file name);
        ``code``: the digest of the code that computes it (:mod:`ftd_lib.repro.code`; the
        engine runner's chunks have one, :func:`identity_of`). A grown chunk's is the
        identity of the chunk it completes (:meth:`whole`): its stored numbers are that
        chunk's, bit for bit."""
        if self.prefix_runs is not None:
            return self.whole().identity(runner_name, device_kind, code)
        return {
            "store_version": STORE_VERSION, "figure": self.figure, "scale": self.scale,
            "task": self.task, "env": self.env, "method": self.method,
            "settings": self.settings.tolist(), "run_ids": self.run_ids.tolist(),
            "seed": int(self.seed), "episodes": int(self.n_episodes),
            "epsilon": None if math.isnan(self.epsilon) else float(self.epsilon),
            "runner": runner_name, "device": device_kind,
            "max_steps": None if self.max_steps is None else int(self.max_steps),
            **({} if self.truncation is None else {"truncation": self.truncation}),
            **({} if self.variant is None else {"variant": self.variant}),
            **({} if not self.params else {"params": dict(sorted(self.params.items()))}),
            **({} if not self.task_params
               else {"task_params": dict(sorted(self.task_params.items()))}),
            **({} if code is None else {"code": code}),
        }


def identity_of(task: ChunkTask, runner, device_kind: str) -> dict:
    """The identity a runner's chunk is stored under: the engine runner's
    (:func:`engine_runner`) carries its numerics version and the digest of the code it runs
    (:func:`ftd_lib.repro.code.task_code`), so a changed method or task never loads a chunk
    of its old code; another runner (a test's) is named by its name only."""
    if runner is engine_runner:
        return engine_identity(task, device_kind)
    return task.identity(runner_name(runner), device_kind)


def engine_identity(task: ChunkTask, device_kind: str) -> dict:
    """The identity of the engine's chunk of ``task`` (what a plan looks for in a store):
    its numerics version and the digest of its code."""
    from .code import task_code

    return task.identity(engine_runner_name(task.method), device_kind, task_code(task)[0])


#: what a variant's spec sets beyond the chunk's own fields (epsilon, max_steps, truncation);
#: ``n_hidden`` only where it is not the engines' 50 (so older identities stay the same)
VARIANT_KEYS = ("hidden", "inputs", "start", "init", "n_hidden")


def cut_chunks(fig: Figure, seed: int = DEFAULT_SEED) -> list[ChunkTask]:
    """Cut a figure into chunks: per method (and set-up variant, and the method's own
    parameters, where the cells have them), blocks of ``cells_per_chunk`` cells times blocks
    of ``runs_per_chunk`` runs.

    The cut depends only on the definition, never on what is stored; run blocks start at
    multiples of ``runs_per_chunk``, so asking for more runs later reuses the chunks of the
    first runs. Cells appended to a figure (``Figure.appended_at``: a widened step-size grid,
    :mod:`ftd_lib.repro.protocol`) are cut on their own, so appending never re-cuts the
    blocks of the cells before them.
    """
    out = []
    bounds = [0, *fig.appended_at, len(fig.cells)]
    for method in fig.methods:
        variants = dict.fromkeys((c.variant, c.params) for c in fig.cells if c.method == method)
        for variant, params in variants:
            spec = fig.variants.get(variant, {}) if variant else {}
            task_variant = ({"name": variant, **{k: spec[k] for k in VARIANT_KEYS if k in spec}}
                            if variant else None)
            eps = spec.get("epsilon", fig.epsilon)
            cap = spec.get("max_steps", fig.max_steps)
            trunc = spec.get("truncation", fig.truncation)
            for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
                idx = [i for i in range(lo, hi) if fig.cells[i].method == method
                       and fig.cells[i].variant == variant and fig.cells[i].params == params]
                for c0 in range(0, len(idx), fig.cells_per_chunk):
                    cblock = idx[c0:c0 + fig.cells_per_chunk]
                    out += _run_blocks(fig, method, cblock, seed, eps, cap, trunc,
                                       task_variant, dict(params) or None,
                                       dict(fig.task_params) or None)
    return out


def _run_blocks(fig, method, cblock, seed, eps, cap, trunc, variant,
                params=None, task_params=None) -> list[ChunkTask]:
    """The chunks of one block of cells: one per block of ``runs_per_chunk`` runs."""
    out = []
    for r0 in range(0, fig.runs, fig.runs_per_chunk):
        runs = np.arange(r0, min(r0 + fig.runs_per_chunk, fig.runs), dtype=np.int64)
        cell_index = np.repeat(np.asarray(cblock, dtype=np.int64), len(runs))
        run_ids = np.tile(runs, len(cblock))
        settings = np.array([fig.cells[i].row() for i in cell_index], dtype=np.float64)
        out.append(ChunkTask(fig.name, fig.scale, fig.task, fig.env, method, cell_index,
                             settings, run_ids, int(seed), fig.episodes, eps, cap, trunc,
                             variant, params, task_params))
    return out


CHUNK_FIELDS = ("metric", "diverged", "cells", "curve_sum", "run_ids", "cell_index")


def chunk_problem(task: ChunkTask, data: dict) -> str | None:
    """What is inconsistent in a stored chunk's arrays for ``task`` (fields, kinds, shapes,
    its rows), or ``None``: the test :meth:`ftd_lib.repro.store.ChunkStore.load` runs on every chunk
    (checksummed or written before checksums existed)."""
    missing = [k for k in CHUNK_FIELDS if k not in data]
    if missing:
        return f"field(s) missing: {', '.join(missing)}"
    cells = np.unique(task.cell_index)
    want = {"metric": ((task.rows,), "f"), "diverged": ((task.rows,), "b"),
            "run_ids": ((task.rows,), "iu"), "cell_index": ((task.rows,), "iu"),
            "cells": ((len(cells),), "iu"), "curve_sum": ((len(cells), task.n_episodes), "f")}
    for k, (shape, kinds) in want.items():
        if data[k].shape != shape or data[k].dtype.kind not in kinds:
            return (f"{k} is {data[k].dtype}{list(data[k].shape)}, expected shape "
                    f"{list(shape)}")
    if not (np.array_equal(data["run_ids"], task.run_ids)
            and np.array_equal(data["cell_index"], task.cell_index)
            and np.array_equal(data["cells"], cells)):
        return "its run ids or cells are not the chunk's"
    return None


def chunk_check(task: ChunkTask):
    """:func:`chunk_problem` for ``task``: the check the store runs on its arrays."""
    return lambda data: chunk_problem(task, data)


def reduce_chunk(task: ChunkTask, out: dict) -> dict[str, np.ndarray]:
    """Runner output -> what a chunk stores: per-row metric and diverged flag, per-cell sums
    of the per-episode curve (so the stored data stays small at 1000 episodes x 200 runs).
    A grown chunk's (``task.prefix_runs``) are those of the chunk it completes
    (:func:`grown_chunk`)."""
    values = np.asarray(out["values"], dtype=np.float64)
    if values.shape != (task.rows, task.n_episodes):
        raise ValueError(f"runner returned values of shape {values.shape}, expected "
                         f"{(task.rows, task.n_episodes)}")
    diverged = np.asarray(out.get("diverged", np.zeros(task.rows, bool)), dtype=bool)
    if diverged.shape != (task.rows,):
        raise ValueError(f"runner returned diverged of shape {diverged.shape}, expected "
                         f"{(task.rows,)}")
    if task.task == "prediction":
        # a diverged run (or a non-finite error) is an infinite error: off the chart.
        diverged = diverged | ~np.isfinite(values).all(axis=1)
        values = np.where(diverged[:, None] & ~np.isfinite(values), np.inf, values)
        metric = np.where(diverged, np.inf, values.mean(axis=1))
    else:
        metric = values.mean(axis=1)
    if task.prefix_runs is not None:
        return grown_chunk(task, metric, diverged, values)
    cells = np.unique(task.cell_index)
    curve_sum = np.stack([values[task.cell_index == c].sum(axis=0) for c in cells])
    return {"metric": metric, "diverged": diverged, "cells": cells, "curve_sum": curve_sum,
            "run_ids": task.run_ids, "cell_index": task.cell_index}


def grown_chunk(task: ChunkTask, metric, diverged, values) -> dict[str, np.ndarray]:
    """What the chunk ``task.whole()`` stores, from its stored runs (``task.prefix_rows``:
    per cell, their ``metric``, ``diverged`` and ``curve_sum``) and the computed rows of the
    others (``metric``, ``diverged``, ``values``).

    A cell's curve sum continues the stored one row by row, in run order: numpy sums the
    rows of a ``(runs, episodes)`` array one after another when ``episodes >= 2`` (it sums
    pairwise only along a contiguous axis: a single episode), so this is bit for bit the sum
    a fresh chunk of all the runs makes (:func:`reduce_chunk`; tested). A chunk of one
    episode is therefore never grown (:func:`ftd_lib.repro.reuse.stored_prefix`)."""
    whole = task.whole()
    pre = task.prefix_rows
    cells = np.unique(task.cell_index)
    w_metric = np.empty(whole.rows)
    w_diverged = np.zeros(whole.rows, dtype=bool)
    curve_sum = []
    for j, c in enumerate(cells):
        mine, theirs = task.cell_index == c, whole.cell_index == c
        w_metric[theirs] = np.concatenate([pre["metric"][j], metric[mine]])
        w_diverged[theirs] = np.concatenate([pre["diverged"][j], diverged[mine]])
        acc = np.array(pre["curve_sum"][j], dtype=np.float64)
        for row in values[mine]:
            acc += row
        curve_sum.append(acc)
    return {"metric": w_metric, "diverged": w_diverged, "cells": cells,
            "curve_sum": np.stack(curve_sum), "run_ids": whole.run_ids,
            "cell_index": whole.cell_index}


# ----------------------------------------------------------------------------- runners

Runner = Callable[..., dict]


def runner_name(runner) -> str:
    return str(getattr(runner, "name", None) or getattr(runner, "__qualname__", "runner"))


def device_kind(device: str) -> str:
    """``cpu`` or ``cuda``: numbers from different kinds of device are kept apart."""
    return "cuda" if str(device).startswith("cuda") else "cpu"


def engine_settings(settings: np.ndarray):
    """The chunk's settings rows as :class:`ftd_lib.engine.Settings`
    (:meth:`~ftd_lib.engine.Settings.from_array`: the stored k_max 0 is no cap)."""
    from ..engine import Settings

    return Settings.from_array(settings)


def engine_runner(task: ChunkTask, *, device: str = "cpu", progress: bool = False) -> dict:
    """The default runner: :mod:`ftd_lib.engine` (float64; control on the CPU: the compiled
    kernel). Returns ``values``, ``diverged``, ``engine`` (which engine ran) and, for control,
    ``engine_stats``."""
    from .. import engine

    net = {}
    if task.variant is not None:
        if not network_only(task.variant):  # mountain car's inputs or starts: the kernel's
            from .setups import run_variant

            return _engine_result(run_variant(task, engine_settings(task.settings),
                                              progress=progress))
        v = task.variant  # a set-up of the network only: a plain parameter of every engine
        net = dict(n_hidden=v.get("n_hidden", 50), activation=v["hidden"], init=v["init"])
    kw = dict(seed=task.seed, run_ids=task.run_ids, n_episodes=task.n_episodes, device=device,
              progress=progress)
    settings = engine_settings(task.settings)
    if task.task == "prediction":
        if task.params:  # (no prediction method has parameters of its own yet)
            raise ValueError(f"{task.method}: the prediction engine takes no params, got "
                             f"{task.params}")
        res = engine.run_prediction(task.method, settings, env=task.env, **kw)
    else:
        res = engine.run_control(task.method, settings, env=task.env,
                                 epsilon=task.epsilon, max_steps=task.max_steps,
                                 truncation=task.truncation or "bootstrap",
                                 params=task.params, task_params=task.task_params, **net,
                                 **kw)
    return _engine_result(res)


def _engine_result(res) -> dict:
    values = _to_numpy(res.curves)  # errors (prediction) or returns (control), per episode
    out = {"values": values, "diverged": _to_numpy(res.diverged).astype(bool),
           "engine": str(getattr(res, "engine", "batch"))}  # prediction: the torch batch
    stats = {k: getattr(res, k) for k in ENGINE_STATS if hasattr(res, k)}
    if hasattr(res, "n_steps"):  # control: the run-steps made, whatever the engine
        stats["run_steps"] = np.sum(res.n_steps)
    if stats:  # how busy the batch was (stored in the chunk's metadata, not its arrays)
        out["engine_stats"] = {k: float(v) for k, v in stats.items()}
    return out


#: what the engine reports of its batch (control): kept in a chunk's metadata, with
#: ``run_steps`` (environment steps of all the chunk's runs, from their ``n_steps``)
ENGINE_STATS = ("width", "iterations", "utilisation", "utilisation_before_tail",
                "steps_before_tail", "seconds_before_tail", "repacks")


def _to_numpy(a):
    if hasattr(a, "detach"):
        a = a.detach().cpu().numpy()
    return np.asarray(a)


def engine_runner_name(method: str) -> str:
    """``engine-<method>-v<N>``: the engine runner's name for a method's chunks, from its
    numerics version (:data:`ftd_lib.engine.NUMERICS_VERSION`), so that moving or renaming
    code recomputes nothing while a change of numbers (a version bump) never mixes old
    chunks in."""
    from ..engine import numerics_version

    return f"engine-{numerics_version(method)}"


def chunk_result(job, progress: bool = False) -> tuple[dict, dict]:
    """Compute one chunk with its runner: ``(arrays, metadata)`` to store (not stored)."""
    _root, task, _ident, runner, device, here = job
    tc = time.time()
    raw = runner(task, device=device, progress=progress)
    data = reduce_chunk(task, raw)
    cmeta = {"compute_s": time.time() - tc, "device": device, "finished": time.time(),
             "machine": here,
             "provenance": chunk_provenance(raw.get("engine") or runner_name(runner))}
    if runner is engine_runner:  # which files the code digest covered (a rerun names changes)
        from .code import task_code

        cmeta["code_files"] = task_code(task)[1]
    if task.prefix_runs is not None:  # grown: only the runs not yet stored were computed
        cmeta["grown"] = {"stored_runs": [int(r) for r in task.prefix_runs],
                          "computed_rows": task.rows,
                          "from": task.prefix_rows.get("from")}
    if "engine_stats" in raw:
        cmeta["engine"] = raw["engine_stats"]
    return data, cmeta
