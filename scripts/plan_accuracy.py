"""The plan beside the measured wall time of whole commands: each command computed
from scratch into a fresh folder, in a fresh process timed from outside, beside the plan's
prediction for it with rates calibrated on this machine just before that command
(:func:`measure_command`). Prints a markdown table: the
command, its wall time measured and planned, measured / planned, the load average before and
after (the machine may be shared: a load above its CPUs slows everything), and where the time
went -- the figures' stages (workers' start and chunks) and the command's own process (start-up,
the engine's import, the pictures), each measured (planned).

    python scripts/plan_accuracy.py [--workers N] [--scale quick|paper] [FILE ...]
    python scripts/plan_accuracy.py FILE --between-runs 2,4,8 [--set KEY=VALUE ...]
    python scripts/plan_accuracy.py --store results/plan_compute.json [--workers N]

The second: a researcher's session between runs, :func:`measure_between_runs`. The third: the
plan's compute against the pieces' measured compute, stored (:func:`store_compute`).

Default: quick Figs. 3 left, 3 right and 4 right (``reproduce NAME`` is ``run
experiments/NAME.toml``), and two files off the paper's path at their own counts (acrobot with
the torch batch and a per-run reference; n-step Sarsa on cart-pole as a curve of the kernel and
as its per-run reference).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ftd_lib.repro.definitions import figure
from ftd_lib.repro.experiment import load_experiment
from ftd_lib.repro.keys import experiment_path
from ftd_lib.repro.launch import run_command
from ftd_lib.repro.planning.calibrate import calibrate
from ftd_lib.repro.planning.cost import Costing, chunk_records, history_dirs
from ftd_lib.repro.planning.plan import (
    chunk_engine_name,
    command_wall,
    default_device,
    methods_to_calibrate,
    plan_experiment,
)
from ftd_lib.repro.results import load_results
from ftd_lib.repro.runs import last_session

DEFAULT = [("experiments/fig3-left.toml", "quick"), ("experiments/fig3-right.toml", "quick"),
           ("experiments/fig4-right.toml", "quick"), ("experiments/acrobot-watkins.toml", "paper"),
           ("experiments/cartpole-n-step.toml", "paper")]


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
    (the pieces computed), ``run_steps`` and ``predicted_run_steps``; ``compute_s`` (the
    pieces' own clocks summed) beside ``predicted_compute_s`` (the plan's compute: the same
    sum predicted, :attr:`~ftd_lib.repro.planning.plan.StagePlan.compute_s`) and
    ``alone_compute_s`` (the pieces each alone in a warm process: what the plan called compute
    before), ``by_method`` (per method: its engine, pieces, measured and predicted alone
    seconds) and the ``rates`` used."""
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
    t_start = time.time()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ftd_lib", *shlex.split(command)[3:], "--out",
                    str(out), "--no-progress"], check=True, capture_output=True)
    measured = time.perf_counter() - t0
    wheres = [Path(out) / "pilot", Path(out)] if fig.two_stage else [Path(out)]
    metas = [last_session(load_results(fig.name, w).meta) for w in wheres]
    recs = [r for r in chunk_records(out, fig.name) if r["finished"] >= t_start]
    steps = [r["run_steps"] for r in recs]
    predicted = command_wall([plan], rates)
    return {"command": command, "workers": workers, "predicted_s": predicted,
            "measured_s": measured, "ratio": measured / predicted,
            "load": (before, os.getloadavg()[0]),
            "stages_s": sum(m["elapsed_s"] for m in metas), "predicted_stages_s": plan.wall_s,
            "chunks": sum(m["chunks"]["pieces"] for m in metas),  # (what it stored)
            "run_steps": None if None in steps else sum(steps),
            "predicted_run_steps": plan.steps,
            "compute_s": sum(r["compute_s"] for r in recs),
            "predicted_compute_s": plan.compute_s,
            "alone_compute_s": sum(sum(s.seconds) for s in plan.stages),
            "by_method": _by_method(plan, out, fig.name, t_start),
            "rates": dataclasses.asdict(rates)}


def _by_method(plan, out, name: str, started: float) -> dict:
    """Per method: its engine (:func:`ftd_lib.repro.planning.plan.chunk_engine_name`), the
    pieces planned and their predicted seconds alone, the pieces computed (finished after
    ``started``) and their measured seconds."""
    from ftd_lib.repro.results import results_paths
    from ftd_lib.repro.store import chunk_metas

    per: dict = {}

    def row(method):
        return per.setdefault(method, {"engine": None, "planned": 0, "alone_s": 0.0,
                                       "computed": 0, "measured_s": 0.0})

    for s in plan.stages:
        for t, sec in zip(s.chunks, s.seconds, strict=True):
            r = row(t.method)
            r["engine"] = chunk_engine_name(t)
            r["planned"] += 1
            r["alone_s"] += sec
    for w in (Path(out) / "pilot", Path(out)):
        for ident, meta in chunk_metas(results_paths(name, w)["chunks"]):
            if float(meta["finished"]) >= started:
                r = row(ident["method"])
                r["computed"] += 1
                r["measured_s"] += float(meta["compute_s"])
    return per


def measure_against_plan(names, scale: str, workers_list, out, rates=None) -> list[dict]:
    """:func:`measure_command` of ``reproduce NAME --scale SCALE --workers N`` for every
    figure ``name`` and worker count, each into its own folder under ``out``, the rates
    calibrated once for them all (unless given); the rows also name the ``figure``."""
    if rates is None:
        pred, ctrl, engines = methods_to_calibrate([figure(n, scale) for n in names])
        rates = calibrate(pred, ctrl, worker_start=max(workers_list) > 1,
                          workers=max(workers_list), engines=engines)
    return [{"figure": name, **measure_command(
                experiment_path(name), Path(out) / f"{name}-{w}", scale=scale, workers=w,
                rates=rates)}
            for name in names for w in workers_list]


#: what ``--store`` measures by default: a prediction figure (the torch batch), a file of the
#: kernel (its own runs and a method's pieces), a file of a per-run reference beside pieces
COMPUTE = [("experiments/fig3-right.toml", "quick"), ("experiments/cartpole-n-step.toml", "paper"),
           ("experiments/acrobot-watkins.toml", "paper")]


#: how near its measured compute a plan should be, by workers (more: the last), measured /
#: planned within [1 / bound, bound]: the benchmark's verdict, stored as ``within_bound``
BOUND = {1: 2.5, 2: 1.5}


def _bound(workers: int) -> float:
    """:data:`BOUND` for ``workers`` (more than its largest: the largest's)."""
    return BOUND[min(workers, max(BOUND))]


def _judge(row: dict) -> dict:
    """``row`` with its ``compute_ratio`` (measured / predicted) and ``within_bound``."""
    row["compute_ratio"] = row["compute_s"] / row["predicted_compute_s"]
    bound = _bound(row["workers"])
    row["within_bound"] = 1 / bound <= row["compute_ratio"] <= bound
    return row


def store_compute(todo, path, workers=(1, 2)) -> dict:
    """The plan's compute beside the pieces' measured compute (:func:`measure_command`) for
    each ``(file, scale)`` of ``todo`` on each number of ``workers``, each into a fresh
    folder, on rates calibrated once for them all just before; written to ``path`` (JSON:
    commit, date, machine and one row per file and workers with its ratio measured /
    predicted and the load before and after) and returned. ``tests/repro/
    test_plan_compute.py`` plans each file again with the stored rates and holds the record
    to the model."""
    from ftd_lib.repro.store import atomic_write_json, git_commit, machine_description

    figs = [load_experiment(f, s)[0] for f, s in todo]
    pred, ctrl, engines = methods_to_calibrate(figs)
    rates = calibrate(pred, ctrl, worker_start=max(workers) > 1, workers=max(workers),
                      engines=engines)
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for k, ((f, scale), w) in enumerate((t, w) for w in workers for t in todo):
            r = measure_command(f, Path(d) / str(k), scale=scale, workers=w, rates=rates)
            rows.append(_judge({"file": Path(f).stem, "scale": scale, **r,
                                "alone_ratio": r["compute_s"] / r["alone_compute_s"]}))
            print(f"{Path(f).stem} ({scale}, {w} workers): compute measured "
                  f"{r['compute_s']:.1f} s, planned {r['predicted_compute_s']:.1f} s "
                  f"(x{rows[-1]['compute_ratio']:.2f}, within x{_bound(w)}: "
                  f"{rows[-1]['within_bound']}; each piece alone "
                  f"{r['alone_compute_s']:.1f} s, x{rows[-1]['alone_ratio']:.2f}); load "
                  f"{r['load'][0]:.1f} -> {r['load'][1]:.1f}", flush=True)
    rec = {"commit": git_commit(), "date": time.strftime("%Y-%m-%d", time.gmtime()),
           "machine": machine_description(), "rows": rows}
    atomic_write_json(path, rec)
    return rec


def replan_compute(path) -> dict:
    """A record of :func:`store_compute` planned again with the current model from the rates
    it stored (its measurements kept: they do not depend on the model), ``replanned`` dated."""
    from ftd_lib.repro.planning.rates import Rates
    from ftd_lib.repro.store import atomic_write_json, git_commit

    rec = json.loads(Path(path).read_text())
    with tempfile.TemporaryDirectory() as d:
        for k, row in enumerate(rec["rows"]):
            rates = Rates.from_json(row["rates"])
            fig, run = load_experiment(experiment_path(row["file"]), row["scale"])
            out = Path(d) / str(k)
            plan = plan_experiment(fig, out, row["workers"], Costing(rates, history_dirs(out)),
                                   seed=run["seed"])
            row["predicted_compute_s"] = plan.compute_s
            _judge(row)
            print(f"{row['file']} ({row['workers']} workers): x{row['compute_ratio']:.2f}, "
                  f"within its bound: {row['within_bound']}")
    rec["replanned"] = {"date": time.strftime("%Y-%m-%d", time.gmtime()),
                        "commit": git_commit()}
    atomic_write_json(path, rec)
    return rec


def _ftd(args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ftd_lib", *args], check=True,
                          capture_output=True, text=True)


def measure_between_runs(path, out, *, scale: str = "quick", sets=(), runs=(2, 4, 8),
                         workers: int = 2) -> list[dict]:
    """A researcher's session in one folder ``out``: for each count in ``runs`` (the first a
    fresh run, then more runs of the same experiment -- ``grown`` while they stay inside the
    first block of ``[chunks] runs``, ``added`` for new blocks), ``plan`` twice from outside
    (the first calibrates unless this machine's calibration of the same code is fresh, the
    second reuses it; the session's first plan is given ``--recalibrate``), then ``run`` from
    outside. Each row: ``label``, ``runs``,
    ``plan_s`` (the two plan commands' wall times), ``predicted_s`` (the command's wall,
    with the rates the plan saved), ``measured_s``, ``ratio``, ``printed`` (the plan's
    figure line) and ``stored`` (the plan in the run's JSON: wall and compute) beside the
    in-process plan's ``planned_wall_s``/``planned_compute_s``, ``compute_by_workers``
    (the plan's compute on 1 and on ``workers`` workers), the chunks computed and loaded,
    the run-steps planned and made, and the load average before and after."""
    from ftd_lib.repro.planning.cost import machine_rates

    rows, before_runs = [], None
    for n in runs:
        s = [*sets, f"runs={n}"]
        fig, run = load_experiment(path, scale, s)
        common = [str(path), "--scale", scale, *[a for x in s for a in ("--set", x)],
                  "--out", str(out), "--workers", str(workers)]
        plan_s, printed = [], ""
        for k in range(2):  # (the session's first plan measures: what a first plan costs)
            again = ["--recalibrate"] if before_runs is None and k == 0 else []
            t0 = time.perf_counter()
            printed = _ftd(["plan", *common, "--summary", *again]).stdout
            plan_s.append(time.perf_counter() - t0)
        rates = machine_rates()  # what the plan used and saved, and the run reads
        device = default_device(fig, out, run)
        plans = {w: plan_experiment(fig, out, w, Costing(rates, history_dirs(out)),
                                    seed=run["seed"], device=device) for w in (1, workers)}
        plan = plans[workers]
        predicted = command_wall([plan], rates)
        load0, t_start = os.getloadavg()[0], time.time()
        t0 = time.perf_counter()
        _ftd(["run", *common, "--no-progress", "--force"])
        measured = time.perf_counter() - t0
        meta = last_session(load_results(fig.name, out).meta)
        stored = load_results(fig.name, out).meta.get("plan", {})
        new = [r for r in chunk_records(out, fig.name) if r["finished"] >= t_start]
        # grown: the last block of runs was not full, so its chunks grow; added: new blocks
        label = ("fresh" if before_runs is None
                 else "grown" if before_runs % fig.runs_per_chunk else "added")
        rows.append({
            "label": label, "runs": n, "plan_s": plan_s, "predicted_s": predicted,
            "measured_s": measured, "ratio": measured / predicted,
            "printed": next((ln for ln in printed.splitlines()
                             if ln.startswith(f"{fig.name}: predicted wall")), ""),
            "planned_wall_s": plan.wall_s, "planned_compute_s": plan.compute_s,
            "stored": {"wall_s": stored.get("wall_s"), "compute_s": stored.get("compute_s")},
            "compute_by_workers": {w: p.compute_s for w, p in plans.items()},
            "stages_s": meta["elapsed_s"], "computed": meta["chunks"]["computed"],
            "loaded": meta["chunks"]["loaded"],
            "compute_s": sum(r["compute_s"] for r in new),
            "run_steps": sum(r["run_steps"] or 0 for r in new),
            "predicted_run_steps": plan.steps,
            "load": (load0, os.getloadavg()[0])})
        before_runs = n
    return rows


def between_runs_table(rows, workers: int) -> str:
    """:func:`measure_between_runs`'s rows as a markdown table."""
    out = ["| run | runs | chunks computed, loaded | run-steps made (planned) | compute "
           f"measured (planned; on 1 / {workers} workers) | plan stored in the JSON: wall, "
           "compute | stage measured (planned) | wall measured | wall planned | measured / "
           "planned | `plan` itself (first, second) | load before, after |", "|---" * 12 + "|"]
    for r in rows:
        cw = r["compute_by_workers"]
        out.append(
            f"| {r['label']} | {r['runs']} | {r['computed']}, {r['loaded']} | "
            f"{r['run_steps']:.3g} ({r['predicted_run_steps']:.3g}) | {r['compute_s']:.1f} s "
            f"({r['planned_compute_s']:.1f} s; {cw[1]:.1f} / {cw[workers]:.1f} s) | "
            f"{r['stored']['wall_s']:.1f} s, {r['stored']['compute_s']:.1f} s (plan: "
            f"{r['planned_wall_s']:.1f} s, {r['planned_compute_s']:.1f} s) | "
            f"{r['stages_s']:.1f} s ({r['planned_wall_s']:.1f} s) | {r['measured_s']:.1f} s | "
            f"{r['predicted_s']:.1f} s | {r['ratio']:.2f} | "
            f"{r['plan_s'][0]:.1f} s, {r['plan_s'][1]:.1f} s | "
            f"{r['load'][0]:.1f}, {r['load'][1]:.1f} |")
    return "\n".join(out)


def main(argv) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--scale", choices=("quick", "paper"), default="quick")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--between-runs", type=str, default=None, metavar="N,N,...",
                   help="one file (FILE), run with these runs one after another in one "
                        "folder (fresh, then grown or added runs; measure_between_runs)")
    p.add_argument("--set", action="append", default=[], dest="sets")
    p.add_argument("--store", type=Path, default=None, metavar="JSON",
                   help="compute planned against measured for FILEs (default: "
                        "results/plan_compute.json's three) at --scale, kept in JSON")
    p.add_argument("--replan", type=Path, default=None, metavar="JSON",
                   help="a --store record planned again with the current model from its "
                        "stored rates (its measurements kept)")
    args = p.parse_args(argv)
    if args.replan:
        replan_compute(args.replan)
        return 0
    if args.store:
        store_compute([(f, args.scale) for f in args.files] or COMPUTE, args.store,
                      sorted({1, args.workers}))
        return 0
    if args.between_runs:
        if len(args.files) != 1:
            p.error("--between-runs takes one FILE")
        with tempfile.TemporaryDirectory() as d:
            rows = measure_between_runs(
                args.files[0], Path(d), scale=args.scale, sets=args.sets,
                runs=[int(x) for x in args.between_runs.split(",")], workers=args.workers)
        for r in rows:
            print(f"{r['label']} ({r['runs']} runs): printed: {r['printed']}")
        print(between_runs_table(rows, args.workers))
        return 0
    todo = [(f, args.scale) for f in args.files] or DEFAULT
    print("| command | wall measured | wall planned | measured / planned | load before, after "
          "| stages measured (planned) | own process measured (planned) |\n"
          "|---|---|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as d:
        for k, (path, scale) in enumerate(todo):
            r = measure_command(path, Path(d) / str(k), scale=scale, workers=args.workers)
            own, planned_own = (r["measured_s"] - r["stages_s"],
                                r["predicted_s"] - r["predicted_stages_s"])
            print(f"| `{r['command']}` | {r['measured_s']:.1f} s | {r['predicted_s']:.1f} s | "
                  f"{r['ratio']:.2f} | {r['load'][0]:.1f}, {r['load'][1]:.1f} | "
                  f"{r['stages_s']:.1f} s ({r['predicted_stages_s']:.1f} s) | {own:.1f} s "
                  f"({planned_own:.1f} s) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
