"""One paper-scale control figure on a lent GPU machine: its CPU cores, then its GPU.

The prepared script for a device session (nothing depends on it). It calibrates the plan's
rates on the machine (a few seconds), then computes the figure from scratch -- both stages of
the protocol -- first with ``--workers`` local worker processes on the CPU (the compiled
kernel; ``--executor dask``: a Dask LocalCluster of as many), then with one process on the GPU
through the batched torch engine (``--device cuda``), each into its own empty folder. Per
run it prints, beside the plan's prediction (the plan has CPU rates only):

- µs per run-step of wall time (the machine's throughput) and of compute (one worker's speed),
- the wall time, the run-steps the engine counted, the chunks.

Every result is added to ``--json`` as it lands, so a run cut short by the device's time
limit keeps what finished. ``--scale quick`` and ``--skip-gpu`` try it on any machine.

    python scripts/measure_device.py --json $OUT/device.json [--figure fig4-right]
        [--workers 16] [--executor local|dask] [--scale paper] [--skip-gpu]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from ftd_lib.repro.definitions import figure
from ftd_lib.repro.planning.calibrate import calibrate
from ftd_lib.repro.planning.cost import Costing, chunk_records, history_dirs
from ftd_lib.repro.planning.plan import methods_to_calibrate, plan_figure
from ftd_lib.repro.protocol import run_protocol, two_stage
from ftd_lib.repro.runs import run_figure


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


def _line(r: dict) -> str:
    def us(v):
        return "-" if v is None else f"{v:.3f}"

    where = (f"{r['device']}, {r['workers']} worker(s), {r['executor']}")
    return (f"{r['figure']} ({r['scale']}) on {where}: wall {r['wall_s']:.1f} s "
            f"(plan {r['predicted_wall_s']:.1f} s), {r['chunks']} chunks, run-steps "
            f"{r['run_steps'] or 0:.3g} (plan {r['predicted_run_steps']:.3g}); µs a run-step: "
            f"wall {us(r['us_per_run_step'])} (plan {us(r['predicted_us_per_run_step'])}), "
            f"compute {us(r['us_per_worker_step'])} (plan "
            f"{us(r['predicted_us_per_worker_step'])})")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", required=True, help="where the results are kept")
    p.add_argument("--figure", default="fig4-right", choices=("fig4-left", "fig4-right"))
    p.add_argument("--scale", choices=("quick", "paper"), default="paper")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--executor", choices=("local", "dask"), default="local")
    p.add_argument("--skip-gpu", action="store_true")
    args = p.parse_args(argv)
    os.environ["OMP_NUM_THREADS"] = "1"  # one torch thread a worker, as reproduce runs them
    rates = calibrate(*methods_to_calibrate([figure(args.figure, args.scale)])[:2],
                      workers=args.workers)
    kept = {"rates": rates.source, "runs": []}
    path = Path(args.json)

    def keep(r: dict) -> None:
        print(_line(r), flush=True)
        kept["runs"].append(r)
        path.write_text(json.dumps(kept, indent=1))

    executor = None
    if args.executor == "dask":
        from ftd_lib.repro.executors import DaskExecutor

        executor = DaskExecutor(None, threads=1, workers=args.workers)
    try:
        with tempfile.TemporaryDirectory() as d:
            keep(measure_figure(args.figure, args.scale, Path(d) / "cpu", workers=args.workers,
                                executor=executor, rates=rates))
    finally:
        if executor is not None:
            executor.close()
    if not args.skip_gpu:
        import torch

        if not torch.cuda.is_available():
            print("no CUDA device: the GPU run is skipped", flush=True)
            return 0
        with tempfile.TemporaryDirectory() as d:
            keep(measure_figure(args.figure, args.scale, Path(d) / "gpu", workers=1,
                                device="cuda", rates=rates))
    return 0


if __name__ == "__main__":
    sys.exit(main())
