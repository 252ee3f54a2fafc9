"""``reproduce all`` from scratch, measured beside its plan.

First the plan for an empty folder (rates calibrated on this machine now, or read from
``--rates``), for ``--workers`` and for 16 and 64 workers; then the real command,
``python -m ftd_lib reproduce all --scale SCALE --workers N --out DIR``, its progress bars
on this terminal; then, from what it stored (:func:`measured_run`),
each figure's wall time, chunks and the workers' utilisation beside the plan's, as a markdown
table, also kept in ``DIR/measured.json``.

    python scripts/measure_paper_run.py --out /tmp/paper_all [--workers 2] [--scale paper]
        [--rates FILE] [--started EPOCH_S]

``--started``: the run was started by hand at that moment (``date +%s``) into ``--out`` and
has finished; only measure it. Keep the machine otherwise idle while it runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ftd_lib.repro.definitions import FIGURES, figure
from ftd_lib.repro.planning.calibrate import calibrate, with_stored_control
from ftd_lib.repro.planning.cost import Costing, chunk_records, history_dirs, machine_rates
from ftd_lib.repro.planning.plan import FigurePlan, methods_to_calibrate, plan_figure, utilisation
from ftd_lib.repro.planning.progress import format_seconds
from ftd_lib.repro.results import results_paths


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
    lines = ["| figure | pieces computed (planned) | wall measured | wall predicted | "
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


def plans_for_empty_folder(scale: str, workers: int, rates) -> list:
    with tempfile.TemporaryDirectory() as empty:
        costing = Costing(rates, history_dirs(empty))
        return [plan_figure(n, scale, workers, costing, out=empty) for n in FIGURES]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--scale", choices=("quick", "paper"), default="paper")
    p.add_argument("--rates", default=None,
                   help="a calibration kept by `plan` (rates.json) instead of calibrating now")
    p.add_argument("--started", type=float, default=None,
                   help="measure a finished run started at this time (seconds since the epoch)")
    args = p.parse_args(argv)
    out = Path(args.out)
    if args.rates:  # (with the control rates of stored chunks of this CPU, as calibrate's)
        rates = with_stored_control(machine_rates(args.rates))
    else:
        rates = calibrate(*methods_to_calibrate(
            [figure(n, args.scale) for n in FIGURES])[:2], workers=args.workers)
    plans = {w: plans_for_empty_folder(args.scale, w, rates) for w in (args.workers, 16, 64)}
    print(f"plan ({rates.source}): " + "; ".join(
        f"{w} workers {format_seconds(sum(fp.wall_s for fp in ps))}"
        for w, ps in plans.items()), flush=True)
    started = args.started
    if started is None:
        if out.exists() and any(out.iterdir()):
            p.error(f"--out {out} is not empty: measure from scratch")
        started = time.time()
        cmd = [sys.executable, "-m", "ftd_lib", "reproduce", "all", "--scale", args.scale,
               "--workers", str(args.workers), "--out", str(out)]
        print(" ".join(cmd[1:]), flush=True)
        rc = subprocess.call(cmd)
        if rc != 0:
            return rc
    measured = measured_run(out, FIGURES, args.workers, started)
    lines = comparison_lines(measured, plans[args.workers])
    print("\n".join(lines))
    kept = {"started": started, "workers": args.workers, "scale": args.scale,
            "rates": rates.source, "measured": measured,
            "predicted_wall_s": {w: sum(fp.wall_s for fp in ps) for w, ps in plans.items()},
            "table": lines}
    (out / "measured.json").write_text(json.dumps(kept, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
