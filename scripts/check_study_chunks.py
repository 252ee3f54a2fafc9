"""Recompute sampled rows of the stored claim-5 study chunks on this machine and compare their
stored metric (mean return over the episodes) and divergence flags bit for bit.

The study's chunks may be computed on another machine (another CPU, numpy, numba, C library)
and mixed with chunks computed here; their identity does not name the machine, so this checks
that the numbers do not depend on it. Per chunk it takes the cheapest rows (highest return:
fewest steps) and a diverged row where there is one.

Run: ``PYTHONPATH=. python scripts/check_study_chunks.py [rows per chunk, default 2]``.
"""

import glob
import json
import sys
import time

import numpy as np

from ftd_lib.repro.chunks import ChunkTask
from ftd_lib.repro.setups import run_variant

rows_per_chunk = int(sys.argv[1]) if len(sys.argv) > 1 else 2
checked = differing = steps = 0
by_machine: dict[str, int] = {}
t0 = time.perf_counter()
for path in sorted(glob.glob("results/chunks/claim5-study/*.npz")):
    z = np.load(path, allow_pickle=True)
    ident = json.loads(str(z["__identity__"]))
    meta = json.loads(str(z["__meta__"]))
    metric, diverged = z["metric"], z["diverged"]
    order = np.argsort(np.where(np.isfinite(metric), -metric, np.inf), kind="stable")
    rows = list(order[:rows_per_chunk])
    if diverged.any():
        rows.append(int(np.flatnonzero(diverged)[0]))
    rows = np.unique(np.asarray(rows, dtype=np.int64))
    settings = np.asarray(ident["settings"], dtype=np.float64)[rows]
    task = ChunkTask(ident["figure"], ident["scale"], ident["task"], ident["env"],
                     ident["method"], z["cell_index"][rows], settings,
                     np.asarray(ident["run_ids"], dtype=np.int64)[rows], ident["seed"],
                     ident["episodes"], ident["epsilon"], ident["max_steps"],
                     ident.get("truncation"), ident["variant"])
    res = run_variant(task)
    same = (np.array_equal(res.returns.mean(axis=1), metric[rows], equal_nan=True)
            and np.array_equal(res.diverged, diverged[rows]))
    checked += len(rows)
    differing += 0 if same else len(rows)
    steps += int(res.n_steps.sum())
    mach = meta.get("machine", {})
    cpu = f"{mach.get('cpu', '?')} ({mach.get('cpu_count', '?')} CPUs, {mach.get('platform', '?')})"
    by_machine[cpu] = by_machine.get(cpu, 0) + len(rows)
    if not same:
        print(f"DIFFERS: {path} rows {rows.tolist()} ({ident['variant']['name']}, "
              f"{ident['method']})", flush=True)
print(f"{checked} rows of {len(glob.glob('results/chunks/claim5-study/*.npz'))} chunks "
      f"({steps} run-steps, {time.perf_counter() - t0:.0f} s) recomputed here; computed on: "
      + "; ".join(f"{k}: {v} rows" for k, v in by_machine.items())
      + f"; {differing} differ")
sys.exit(1 if differing else 0)
