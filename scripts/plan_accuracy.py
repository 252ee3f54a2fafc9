"""The plan beside the measured wall time of whole commands (issue 36): each command computed
from scratch into a fresh folder, in a fresh process timed from outside, beside the plan's
prediction for it with rates calibrated on this machine just before that command
(:func:`measure_command`). Prints a markdown table: the
command, its wall time measured and planned, measured / planned, the load average before and
after (the machine may be shared: a load above its CPUs slows everything), and where the time
went -- the figures' stages (workers' start and chunks) and the command's own process (start-up,
the engine's import, the pictures), each measured (planned).

    python scripts/plan_accuracy.py [--workers N] [--scale quick|paper] [FILE ...]

Default: quick Figs. 3 left, 3 right and 4 right (``reproduce NAME`` is ``run
experiments/NAME.toml``), and two files off the paper's path at their own counts (acrobot with
the torch batch and a per-run reference; n-step Sarsa on cart-pole as a curve of the kernel and
as its per-run reference).
"""

from __future__ import annotations

import argparse
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
    (computed), ``run_steps`` and ``predicted_run_steps``."""
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
    if rates is None:
        pred, ctrl, engines = methods_to_calibrate([figure(n, scale) for n in names])
        rates = calibrate(pred, ctrl, worker_start=max(workers_list) > 1,
                          workers=max(workers_list), engines=engines)
    return [{"figure": name, **measure_command(
                experiment_path(name), Path(out) / f"{name}-{w}", scale=scale, workers=w,
                rates=rates)}
            for name in names for w in workers_list]


def main(argv) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--scale", choices=("quick", "paper"), default="quick")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
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
