"""The plan held against the clock: :func:`measure_command` runs a command from scratch in a
fresh process and puts its measured wall time beside the plan's prediction for it
(:mod:`ftd_lib.repro.planning.plan`), with rates calibrated on this machine just before
(:func:`ftd_lib.repro.planning.calibrate.calibrate`). What
``tests/repro/test_plan_accuracy.py`` pins and ``scripts/plan_accuracy.py`` prints.

A long run is measured from what it stored (:func:`measured_run`: the wall time of each figure
of ``reproduce all``, the compute seconds of its chunks, the utilisation of the workers;
``scripts/measure_paper_run.py``), and one figure on a given device and executor by
:func:`measure_figure` (µs per run-step; ``scripts/measure_device.py``)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from .. import store
from ..definitions import figure
from ..protocol import run_protocol, two_stage
from ..results import load_results, results_paths
from ..runs import run_figure
from .calibrate import calibrate
from .cost import Costing, history_dirs
from .plan import FigurePlan, command_wall, methods_to_calibrate, plan_figure, utilisation
from .progress import format_seconds


def measure_command(path, out, *, scale: str = "paper", sets=(), workers: int = 2,
                    rates=None) -> dict:
    """``python -m ftd_lib run PATH --scale SCALE --set ... --workers N`` into a fresh
    ``out`` (``reproduce NAME`` is ``run experiments/NAME.toml``): its plan
    (:func:`ftd_lib.repro.planning.plan.command_wall`; ``rates`` default: calibrated just
    before, for its experiment and workers), then the command itself in a fresh process, its
    wall time taken from outside as a researcher's shell would. Returns ``command``,
    ``workers``, ``predicted_s``, ``measured_s``, ``ratio`` (measured / predicted), ``load``
    (the 1-minute load average before and after), ``stages_s`` and ``predicted_stages_s``
    (the stages, each measured by its figure from its first chunk read to its data saved:
    the rest is the command's own process -- start-up, the engine, pictures), ``chunks``
    (computed), ``run_steps`` and ``predicted_run_steps``."""
    from ..experiment import load_experiment
    from ..launch import run_command
    from ..runs import last_session
    from .plan import default_device, plan_experiment

    fig, run = load_experiment(path, scale, sets)
    device = default_device(fig, out, run)
    if rates is None:
        pred, ctrl, engines = methods_to_calibrate([fig])
        rates = calibrate(pred, ctrl, worker_start=workers > 1, workers=workers,
                          engines=engines)
    plan = plan_experiment(fig, out, workers, Costing(rates, history_dirs(out)),
                           seed=run["seed"], device=device)
    command = f"{run_command(path, scale, sets)} --workers {workers}"
    before = os.getloadavg()[0]
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ftd_lib", *shlex.split(command)[3:], "--out",
                    str(out), "--no-progress"], check=True, capture_output=True)
    measured = time.perf_counter() - t0
    wheres = [Path(out) / "pilot", Path(out)] if fig.two_stage else [Path(out)]
    metas = [last_session(load_results(fig.name, w).meta) for w in wheres]
    steps = [r["run_steps"] for r in chunk_records(out, fig.name)]
    predicted = command_wall([plan], rates)
    return {"command": command, "workers": workers, "predicted_s": predicted,
            "measured_s": measured, "ratio": measured / predicted,
            "load": (before, os.getloadavg()[0]),
            "stages_s": sum(m["elapsed_s"] for m in metas), "predicted_stages_s": plan.wall_s,
            "chunks": sum(m["chunks"]["computed"] for m in metas),
            "run_steps": None if None in steps else sum(steps),
            "predicted_run_steps": plan.steps}


def measure_against_plan(names, scale: str, workers_list, out, rates=None) -> list[dict]:
    """:func:`measure_command` of ``reproduce NAME --scale SCALE --workers N`` for every
    figure ``name`` and worker count, each into its own folder under ``out``, the rates
    calibrated once for them all (unless given); the rows also name the ``figure``."""
    from ..keys import experiment_path

    if rates is None:
        pred, ctrl, engines = methods_to_calibrate([figure(n, scale) for n in names])
        rates = calibrate(pred, ctrl, worker_start=max(workers_list) > 1,
                          workers=max(workers_list), engines=engines)
    return [{"figure": name, **measure_command(
                experiment_path(name), Path(out) / f"{name}-{w}", scale=scale, workers=w,
                rates=rates)}
            for name in names for w in workers_list]


# ----------------------------------------------------------------------------- long runs


def chunk_records(out, name: str) -> list[dict]:
    """Every chunk of figure ``name`` stored under ``out`` (its pilot's under ``out/pilot``
    too): ``stage`` (``pilot`` or ``final``), ``compute_s``, ``finished`` (seconds since the
    epoch), ``device`` and ``run_steps`` -- the engine's count of environment steps, or the
    kernel's iterations (one run at a time: one step each) in chunks stored before the count
    was kept; ``None`` for prediction chunks."""
    recs = []
    for stage, base in (("pilot", Path(out) / "pilot"), ("final", Path(out))):
        for _ident, meta in store.chunk_metas(results_paths(name, base)["chunks"]):
            eng = meta.get("engine") or {}
            steps = eng.get("run_steps")
            if steps is None and eng.get("width") == 1.0:
                steps = eng.get("iterations")
            recs.append({"stage": stage, "compute_s": float(meta["compute_s"]),
                         "finished": float(meta["finished"]), "device": meta.get("device"),
                         "run_steps": None if steps is None else float(steps)})
    return recs


def _finished(out, name: str) -> float:
    """When figure ``name`` in ``out`` was last written: its data, metadata and picture's
    latest modification time (to the sub-second, where the metadata's ``finished`` has whole
    seconds)."""
    paths = results_paths(name, out)
    return max(paths[k].stat().st_mtime for k in ("npz", "json", "png") if paths[k].exists())


def measured_run(out, names, workers: int, started: float) -> list[dict]:
    """A reproduction of the figures ``names`` (in the order they ran) started at ``started``
    (seconds since the epoch) into ``out``, measured from what it stored: per figure its wall
    time -- from the end of the figure before (the start for the first) to its own end, so
    the workers' start, every stage and the picture are in it -- the ``compute_s`` of the
    chunks it computed (finished after ``started``), their number and the workers'
    ``utilisation`` = compute / (workers x wall)."""
    rows, before = [], float(started)
    for name in names:
        end = _finished(out, name)
        recs = [r for r in chunk_records(out, name) if r["finished"] >= started]
        compute = sum(r["compute_s"] for r in recs)
        wall = end - before
        rows.append({"figure": name, "wall_s": wall, "compute_s": compute,
                     "chunks": len(recs), "utilisation": utilisation(compute, wall, workers)})
        before = end
    return rows


def comparison_lines(measured: list[dict], plans: list[FigurePlan]) -> list[str]:
    """A markdown table: each figure's measured wall time, chunks and utilisation beside the
    plan's (``plans``: made before the run, for an empty folder), and the whole run."""
    workers = plans[0].workers
    lines = ["| figure | chunks computed (planned) | wall measured | wall predicted | "
             "measured / predicted | utilisation measured | utilisation predicted |",
             "|---|---|---|---|---|---|---|"]

    def line(name, chunks, planned, wall, pwall, util, putil):
        return (f"| {name} | {chunks} ({planned}) | {format_seconds(wall)} | "
                f"{format_seconds(pwall)} | {wall / pwall:.2f} | {100 * util:.0f} % | "
                f"{100 * putil:.0f} % |")

    for m, p in zip(measured, plans, strict=True):
        planned = sum(len(s.chunks) for s in p.stages)
        lines.append(line(m["figure"], m["chunks"], planned, m["wall_s"], p.wall_s,
                          m["utilisation"], p.utilisation))
    wall, pwall = sum(m["wall_s"] for m in measured), sum(p.wall_s for p in plans)
    comp, pcomp = sum(m["compute_s"] for m in measured), sum(p.compute_s for p in plans)
    lines.append(line("all", sum(m["chunks"] for m in measured),
                      sum(len(s.chunks) for p in plans for s in p.stages), wall, pwall,
                      utilisation(comp, wall, workers), utilisation(pcomp, pwall, workers)))
    return lines


def measure_figure(name: str, scale: str, out, *, workers: int = 1, device: str = "cpu",
                   executor=None, rates=None, **kw) -> dict:
    """Compute figure ``name`` from scratch into ``out`` (both stages where ``reproduce``
    runs two) on ``workers`` workers (``executor``: e.g. a Dask cluster) and ``device``, and
    put its speed beside the plan's (made first, for the empty folder, with ``rates``:
    default this machine's last calibration): ``wall_s``, ``compute_s``, ``run_steps`` (the
    engine's count), ``us_per_run_step`` (wall time per run-step: the machine's throughput),
    ``us_per_worker_step`` (compute per run-step: one worker's speed), and the same
    ``predicted_*`` (the plan's rates are the CPU's; there are none for a GPU). ``kw`` go to
    :func:`~ftd_lib.repro.runs.run_figure` (e.g. ``threads``)."""
    if any(chunk_records(out, name)):
        raise ValueError(f"out: {out} already holds chunks of {name}; measure into an empty "
                         "folder")
    fp = plan_figure(name, scale, workers, Costing(rates, history_dirs(out)), out=out)
    fig = figure(name, scale)
    kw = dict(workers=workers, device=device, executor=executor, progress=False, plot=False,
              **kw)
    t0 = time.time()
    if two_stage(fig):
        run_protocol(name, out, **kw)
    else:
        run_figure(fig, out, **kw)
    wall = time.time() - t0
    recs = chunk_records(out, name)
    steps = [r["run_steps"] for r in recs]
    run_steps = None if any(s is None for s in steps) else sum(steps)
    compute = sum(r["compute_s"] for r in recs)
    per = (lambda s: 1e6 * s / run_steps) if run_steps else (lambda s: None)
    return {"figure": name, "scale": scale, "device": device, "workers": workers,
            "executor": "local" if executor is None else type(executor).__name__,
            "chunks": len(recs), "wall_s": wall, "compute_s": compute, "run_steps": run_steps,
            "us_per_run_step": per(wall), "us_per_worker_step": per(compute),
            "predicted_wall_s": fp.wall_s, "predicted_compute_s": fp.compute_s,
            "predicted_run_steps": fp.steps,
            "predicted_us_per_run_step": 1e6 * fp.wall_s / fp.steps if fp.steps else None,
            "predicted_us_per_worker_step": (1e6 * fp.compute_s / fp.steps if fp.steps
                                             else None)}
