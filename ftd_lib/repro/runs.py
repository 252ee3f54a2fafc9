r"""Running a figure: :func:`run_figure` computes (or resumes) it chunk by chunk -- in this
process or in parallel worker processes -- stores every chunk as it finishes, then assembles the
figure from the store in the fixed chunk order and writes its data, metadata and picture;
:func:`reproduce` runs several figures.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sys
import time

import numpy as np

from .. import __version__, validate
from . import chunks, executors, store
from .chunks import Runner
from .code import why_recomputed
from .counts import chunk_counts
from .definitions import DEFAULT_SEED, FIGURES, STUDIES, Figure, figure, format_sets
from .planning import cost, cut
from .planning.progress import FigureBar
from .provenance import figure_provenance
from .results import (
    DEFAULT_RESULTS,
    Results,
    load_results,
    reproduce_command,
    results_paths,
)
from .reuse import prefix_rows, rows_from_stored, stored_index


class ScaleConflict(RuntimeError):
    """Refusing to overwrite paper-scale data with a smaller run."""


def run_figure(fig: Figure, out=DEFAULT_RESULTS, *, seed: int = DEFAULT_SEED,
               runner: Runner | None = None, device: str = "cpu", progress: bool = True,
               plot: bool = True, force: bool = False, command: str | None = None,
               workers: int = 1, threads: int = 1, executor=None, stage: str | None = None,
               later_s: float = 0.0, rates=None) -> Results:
    """Compute (or resume) a figure, store its data, metadata and PNG under ``out``.

    Finished chunks found in ``out/chunks/<figure>/`` are loaded, the others computed and
    stored one by one -- in this process (``workers=1``) or in ``workers`` processes at once
    (each with ``threads`` torch threads; a worker computes one chunk at a time and stores it
    atomically). The figure is then assembled from the stored chunks in their fixed order, so
    the numbers never depend on ``workers`` nor on which chunks were loaded (tested).
    Interrupting (Ctrl-C, kill -9) loses at most the chunks in progress; calling again with
    the same arguments resumes. ``executor="dask"`` computes the chunks on a Dask
    ``LocalCluster`` of ``workers`` processes instead, and a started
    :class:`ftd_lib.repro.executors.DaskExecutor` on its cluster; either way only this
    process writes the store (:mod:`ftd_lib.repro.executors`). Writes ``out/<figure>.npz``
    (arrays + metadata), ``out/<figure>.json`` (metadata) and ``out/<figure>.png``.

    What is computed is cut by cost (:mod:`ftd_lib.repro.planning.cut`): the rows not yet stored, in
    chunks of similar predicted cost, about four per worker, largest first; whatever cut
    computed them, the figure's chunks are read back from the store bit for bit. The progress
    bar shows ``stage`` (e.g. the pilot of :mod:`ftd_lib.repro.protocol`), chunks done of
    chunks planned and the plan's ETA (:mod:`ftd_lib.repro.planning.progress`): the remaining
    chunks' predicted seconds (``rates``, default
    :func:`ftd_lib.repro.planning.cost.machine_rates`) scheduled on the workers, plus ``later_s``
    for the stages still to come.

    Refuses (:class:`ScaleConflict`) to replace paper-scale data in ``out`` with data below
    paper scale unless ``force``.
    """
    seed = validate.check_int("seed", seed, 0)
    workers = validate.check_int("workers", workers, 1)
    threads = validate.check_int("threads", threads, 1)
    executors.check_executor(executor)
    paths = results_paths(fig.name, out)
    store.check_writable_dir(out, "out")  # before any work: hours may go into the first chunk
    store.check_writable_dir(paths["chunks"], "out")
    if not force:
        _check_overwrite(fig, paths["npz"], load_results(fig.name, out))
    if runner is None:
        runner = chunks.engine_runner  # looked up now: tests put a cheap one in its place

    def rname(method):
        if runner is chunks.engine_runner:
            return chunks.engine_runner_name(method)
        return chunks.runner_name(runner)

    dkind = chunks.device_kind(device)
    cstore = store.ChunkStore(paths["chunks"])
    cstore.sweep_temp()
    tasks = chunks.cut_chunks(fig, seed)
    idents = [chunks.identity_of(task, runner, dkind) for task in tasks]
    t0 = time.time()
    started = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    # (arrays, meta) or None; a damaged or inconsistent chunk is None (recomputed), named once
    checks = [chunks.chunk_check(t) for t in tasks]
    done: list = store.load_chunks(cstore, idents, checks)
    # rows held by stored chunks of another cut (cells appended by a widening, once cut
    # together with earlier ones; rows cut by cost): read from those, not recomputed
    index = stored_index(cstore, [idents[i] for i, d in enumerate(done) if d is None])
    rows_from_stored(cstore, tasks, idents, done, checks, index)
    n_loaded = sum(d is not None for d in done)
    todo = [i for i, d in enumerate(done) if d is None]
    for line in why_recomputed(cstore, tasks, idents, todo):  # (a changed method or task)
        print(f"{fig.name}: {line}", file=sys.stderr, flush=True)
    here = store.machine_description(device)
    here = {k: here[k] for k in ("cpu", "cpu_count", "device_name", "platform")}
    costing = cost.Costing(rates, cost.history_dirs(out))
    seconds = costing.seconds
    work = cut.cut_by_cost(cut.remainders(tasks, idents, done, index),
                           1 if executor is None and int(workers) == 1 else workers, seconds)
    work = _with_prefix_rows(cstore, work, runner, dkind, index, fig.name)
    bar = FigureBar(f"{fig.name} ({fig.scale}{', ' + stage if stage else ''})",
                    [seconds(t) for t in work], workers, loaded=n_loaded, later_s=later_s,
                    disable=not progress, known=costing.rates.calibrated)
    finished = bar.finished  # the k-th chunk to compute is stored
    if work and runner is chunks.engine_runner:  # (another runner reads device its way)
        from ..engine.checks import check_device  # (torch only when the engine runs)

        # e.g. cuda without a GPU: before any work, not in a worker; a figure whose chunks
        # are all stored is assembled on any machine (GPU chunks on a CPU-only one)
        check_device(device)
    jobs = [(cstore.root, t, chunks.identity_of(t, runner, dkind), runner, device, here)
            for t in work]
    try:
        if executor not in (None, "local"):  # e.g. a Dask cluster: workers compute, we store
            def save(k, data, cmeta):
                _store_chunk(jobs[k], data, cmeta)
                finished(k)

            executors.compute_with(executor, jobs, workers=workers, threads=threads, save=save)
        elif int(workers) == 1 or len(jobs) <= 1:
            # per-episode bars from the engine only at paper scale (quick chunks take
            # seconds; their bars would only clutter the output)
            inner = progress and fig.scale == "paper"
            for k, job in enumerate(jobs):
                _compute_chunk(job, progress=inner)
                finished(k)
        else:
            _compute_in_processes(jobs, min(int(workers), len(jobs)), threads, finished)
    finally:
        bar.close()
    for i in todo:  # everything is assembled from the store, in the chunk order
        done[i] = cstore.load(idents[i], chunks.chunk_check(tasks[i]))
    if any(d is None for d in done):  # computed in pieces of another cut: read back by cell
        rows_from_stored(cstore, tasks, idents, done, checks)
    for i in todo:
        if done[i] is None:
            raise RuntimeError(f"chunk {i} of {fig.name} was computed but cannot be read back "
                               f"from {cstore.root}")
    compute_s = sum(float(m.get("compute_s", 0.0)) for _, m in done)
    machines: list[dict] = []
    for _, m in done:
        if m.get("machine") and m["machine"] not in machines:
            machines.append(m["machine"])
    arrays = _assemble(fig, tasks, [d for d, _ in done])
    default = figure(fig.name, fig.scale) if fig.name in FIGURES + STUDIES else fig
    meta = {
        "figure": fig.name, "title": fig.title, "scale": fig.scale, "seed": int(seed),
        "runs": fig.runs, "episodes": fig.episodes, "paper_runs": fig.paper_runs,
        "paper_episodes": fig.paper_episodes, "at_paper_scale": fig.at_paper_scale,
        "definition": fig.describe(),
        "chunks": chunk_counts(len(tasks), n_loaded, work),
        "plan": _predicted(bar.costs, workers, costing.rates,
                           [cost.pair_key(t, device) for t in work], [t.task for t in work]),
        "compute_s": compute_s, "elapsed_s": time.time() - t0,
        "started": started,
        "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "runner": sorted({rname(m) for m in fig.methods}), "device": device,
        "git": store.git_commit(),
        "machine": store.machine_description(device), "machines_used": machines,
        "ftd_lib_version": __version__,
        "provenance": figure_provenance([m for _, m in done], [t.method for t in tasks],
                                        [store.chunk_key(i) for i in idents]),
        "command": command or reproduce_command(
            fig.name, fig.scale, out, runs=None if fig.runs == default.runs else fig.runs,
            seed=seed, device=device, chunk_rows=fig.chunk_rows,
            episodes=None if fig.episodes == default.episodes else fig.episodes,
            grid=fig.overrides),
    }
    meta["checksum"] = store.arrays_checksum(arrays)
    old = load_results(fig.name, out) if not work else None
    if old is not None and old.meta.get("checksum") == meta["checksum"] and paths["png"].is_file():
        # nothing computed, the same numbers: the figure keeps how it was made (command,
        # commit, date, machine, picture); this assembly is added beside it
        meta = assembled(old.meta, meta)
        plot = False
    if work:  # what the uncommitted changes were (new, untracked files included)
        _keep_diff(meta, paths["json"].with_suffix(".diff"))
    store.save_npz_atomic(paths["npz"],
                          __meta__=np.array(json.dumps(meta, default=store._jsonable)), **arrays)
    store.atomic_write_json(paths["json"], meta)
    res = Results(fig.name, arrays, meta, paths["npz"])
    if plot:
        from .plots import save_plot

        save_plot(res, paths["png"])
    return res


def _with_prefix_rows(cstore, work, runner, dkind, index, name: str) -> list:
    """The chunks to compute, each grown one (:func:`ftd_lib.repro.planning.cut.grown`) with
    the stored numbers of its first runs (:func:`ftd_lib.repro.reuse.prefix_rows`), or whole
    where they cannot be read; says what the grown ones reuse."""
    out, loaded, said = [], {}, set()
    for t in work:
        if t.prefix_runs is not None:
            rows = prefix_rows(cstore, t, chunks.identity_of(t, runner, dkind), index, loaded)
            if rows is None:
                t = t.whole()
            else:
                t = t._replace(prefix_rows=rows)
                said.add((t.method, _runs_text(t.prefix_runs),
                          _runs_text(sorted(set(t.run_ids.tolist())))))
        out.append(t)
    for method, old, new in sorted(said):
        print(f"{name}: {method}: runs {old} read from the store, runs {new} computed",
              file=sys.stderr, flush=True)
    return out


def _runs_text(runs) -> str:
    """``0..3`` for consecutive run ids, else the ids."""
    runs = [int(r) for r in runs]
    if runs == list(range(runs[0], runs[-1] + 1)) and len(runs) > 1:
        return f"{runs[0]}..{runs[-1]}"
    return ", ".join(map(str, runs))


def _keep_diff(meta: dict, path) -> None:
    """Store the working tree's uncommitted changes (:func:`ftd_lib.repro.store.git_diff`)
    beside the results as ``<figure>.diff`` and name it, with its sha256, in ``meta["git"]``:
    the commit a run records does not hold code that was not committed."""
    import hashlib

    diff = store.git_diff()
    if not diff:
        return
    store.atomic_write_text(path, diff)
    meta["git"] = {**meta["git"], "dirty": True, "diff": {
        "file": path.name, "sha256": hashlib.sha256(diff.encode()).hexdigest(),
        "files": sorted({line[6:] for line in diff.splitlines()
                         if line.startswith("+++ b/")})}}


def assembled(old: dict, now: dict) -> dict:
    """``old``'s metadata (how the stored figure was made: command, commit, dates, machine,
    wall) with ``now``'s assembly from stored chunks only appended to ``assembled_by``
    (command, commit, date, wall, chunks); ``chunks`` says what this last session did."""
    keep = dict(old, chunks=now["chunks"])
    keep["assembled_by"] = [*old.get("assembled_by", []), {
        k: now.get(k) for k in ("command", "git", "finished", "elapsed_s", "chunks",
                                "ftd_lib_version")}]
    return keep


def last_session(meta: dict) -> dict:
    """What the last session did (``chunks`` computed and loaded, ``elapsed_s``): the last
    assembly where nothing was computed (:func:`assembled`), else the figure's own."""
    return {**meta, **(meta.get("assembled_by") or [{}])[-1]}


def _predicted(costs, workers: int, rates, keys=None, kinds=None) -> dict:
    """What the plan predicted for the pieces computed (:mod:`ftd_lib.repro.planning.plan`),
    kept beside the measured ``elapsed_s`` and the pieces' measured compute: wall and compute
    seconds (``None`` where this machine was never calibrated, ``rates`` then says so),
    workers, where the rates came from (``keys``: the pieces' compiled pairs,
    :func:`ftd_lib.repro.planning.cost.pair_key`; ``kinds``: their task kinds)."""
    from .planning.cost import NO_CALIBRATION
    from .planning.schedule import stage_compute, stage_schedule

    if not rates.calibrated:
        return {"workers": int(workers), "wall_s": None, "compute_s": None,
                "rates": f"{rates.source}: {NO_CALIBRATION}"}
    # the schedule of plan_stage (ftd_lib.repro.planning.plan): the same costs, workers at
    # once slowed down as measured, each process's first piece of a pair loading it, so the
    # stored plan is the printed one (its compute: what the pieces' clocks will sum to)
    keys = [None] * len(costs) if keys is None else keys
    kinds = [None] * len(costs) if kinds is None else kinds
    wall = stage_schedule(costs, keys, workers, rates).makespan if costs else 0.0
    return {"workers": int(workers), "wall_s": wall,
            "compute_s": stage_compute(costs, keys, kinds, workers, rates),
            "rates": rates.source}


def _check_overwrite(fig: Figure, path, old) -> None:
    """The overwrite guard: paper-scale data stored at ``path`` (``old``) is replaced only by a
    paper-scale run of the same definition changes (``--set``); else :class:`ScaleConflict`."""
    if old is None or not old.at_paper_scale:
        return
    full = "paper-scale data" if fig.paper_counts else "data at the file's counts"
    if not fig.at_paper_scale:
        raise ScaleConflict(
            f"{path} holds {full}; refusing to overwrite it with a "
            f"{fig.scale}-scale run ({fig.runs} runs, {fig.episodes} episodes). Use another "
            f"--out directory or --force.")
    was = format_sets(old.meta.get("definition", {}).get("overrides") or {}).strip()
    now = format_sets(fig.overrides).strip()
    if was != now:
        paper = "the paper's grid" if fig.paper_counts else "the file's definition"
        raise ScaleConflict(
            f"{path} holds {full} of {was or paper}; refusing to overwrite it with "
            f"{now or paper}. Use another --out directory or --force.")


def _compute_chunk(job, progress: bool = False) -> None:
    """Compute one chunk with its runner and store it atomically (in a worker or in place)."""
    _store_chunk(job, *chunks.chunk_result(job, progress))


def _store_chunk(job, data: dict, cmeta: dict) -> None:
    store.ChunkStore(job[0]).save(job[2], data, cmeta)


def _init_worker(threads: int) -> None:
    """A worker process: Ctrl-C is the parent's to handle (it stops the workers), and torch
    gets ``threads`` threads (one per worker: more threads than free cores slow torch down)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["OMP_NUM_THREADS"] = str(int(threads))
    import torch

    torch.set_num_threads(int(threads))


def _compute_in_processes(jobs, workers: int, threads: int, finished) -> None:
    """Compute ``jobs`` in ``workers`` fresh ("spawn") processes, calling ``finished(k)`` as
    job ``k`` is stored. On any exception (Ctrl-C included) the workers are stopped at once:
    the chunks they were computing are lost (never half-written), the stored ones stay."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(workers, initializer=_init_worker, initargs=(threads,))
    try:
        for k in pool.imap_unordered(_compute_job, list(enumerate(jobs))):
            finished(k)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _compute_job(numbered_job) -> int:
    k, job = numbered_job
    _compute_chunk(job)
    return k


def _assemble(fig: Figure, tasks: list[chunks.ChunkTask], done: list[dict]
              ) -> dict[str, np.ndarray]:
    """Chunks -> the figure's arrays, in a fixed order (so the result never depends on which
    chunks were loaded and which computed)."""
    n = len(fig.cells)
    metric = np.full((n, fig.runs), np.nan)
    diverged = np.zeros((n, fig.runs), dtype=bool)
    curve_sum = np.zeros((n, fig.episodes))
    for _task, data in zip(tasks, done, strict=True):
        metric[data["cell_index"], data["run_ids"]] = data["metric"]
        diverged[data["cell_index"], data["run_ids"]] = data["diverged"]
        for c, s in zip(data["cells"], data["curve_sum"], strict=True):
            curve_sum[c] += s
    cells = fig.cells
    return {
        "method": np.array([c.method for c in cells]),
        "curve": np.array([c.curve for c in cells]),
        "alpha": np.array([c.alpha for c in cells]),
        "lam": np.array([c.lam for c in cells]),
        "gamma": np.array([c.gamma for c in cells]),
        "eta": np.array([c.eta for c in cells]),
        "k_max": np.array([c.k_max or 0 for c in cells], dtype=np.int64),
        "metric": metric, "diverged": diverged, "curve_mean": curve_sum / fig.runs,
    }
