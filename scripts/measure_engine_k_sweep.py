"""The engine's forward TD(λ) / TD(0) cost per step by K (paper Sec. 5: "at the cost of
TD(0)"), for the torch batch and the compiled per-run kernel, at 200 and 1000 runs, measured
in one process and stored with the machine and the load average
(``results/engine_k_sweep.json``, figure ``results/engine_k_sweep.png``), so that the bench's
claim and notebook 04 show this measurement.

    python scripts/measure_engine_k_sweep.py [--repeats 7] [--runs 200 1000] [--min-seconds 0.25]

:func:`ftd_lib.engine.bench_k.sweep`: for each K, ``--repeats`` rounds in which TD(0) and
forward TD(λ) take turns; the record keeps each K's median ratio with its min and max, the
microseconds per run-step (median, min, max), each sweep's flatness over K, the loops'
counted work, the load average and the commit measured (``code``). Run it on a quiet machine;
a before/after pair is two runs of it on two commits.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results"


def _commit() -> str | None:
    """The repository's commit (with ``+changes`` if its tree has uncommitted changes): the
    code measured, so that a before/after pair names both."""
    import subprocess

    root = RESULTS.parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+changes" if dirty.strip() else "")


def main(argv=None) -> int:
    from ftd_lib.engine import bench_k
    from ftd_lib.repro.store import machine_description

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=7, help="alternating rounds (default: 7)")
    p.add_argument("--runs", type=int, nargs="+", default=[200, 1000])
    p.add_argument("--engines", nargs="+", default=["kernel", "batch"])
    p.add_argument("--ks", type=int, nargs="+", default=None, help="the K (default: "
                   "1 2 5 10 20 30 40 44 50)")
    p.add_argument("--min-seconds", type=float, default=0.25, help="each method's turn in a "
                   "round repeats the workload to last about this long in CPU time (default: "
                   "0.25; 0: once)")
    p.add_argument("--out", type=Path, default=RESULTS / "engine_k_sweep.json")
    a = p.parse_args(argv)
    if a.repeats < 1:
        p.error(f"--repeats must be at least 1, got {a.repeats}")
    if not a.min_seconds >= 0:
        p.error(f"--min-seconds must be >= 0, got {a.min_seconds}")
    sweeps = []
    for n in a.runs:
        for engine in a.engines:
            rec = bench_k.sweep(n, engine=engine, repeats=a.repeats, progress=True,
                                ks=bench_k.KS if a.ks is None else a.ks,
                                min_seconds=a.min_seconds)
            print(bench_k.format_sweep(rec), flush=True)
            sweeps.append(rec)
    rec = dict(date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
               command="scripts/measure_engine_k_sweep.py --repeats "
                       f"{a.repeats} --runs {' '.join(map(str, a.runs))}"
                       + ("" if a.ks is None else f" --ks {' '.join(map(str, a.ks))}")
                       + f" --min-seconds {a.min_seconds:g}",
               machine=machine_description("cpu"), code=_commit(), sweeps=sweeps)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(rec, indent=1) + "\n")
    bench_k.plot_sweeps(rec, a.out.with_suffix(".png"))
    print(f"wrote {a.out} and {a.out.with_suffix('.png')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
