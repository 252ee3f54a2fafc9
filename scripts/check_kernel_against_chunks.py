"""Recompute sampled rows of the stored Fig. 4 chunks that the batched torch engine computed,
with the compiled per-run kernel, and compare their stored metric (mean return over the
episodes) and divergence flags bit for bit.

The kernel shares the batch's numerics version, so chunks computed by either are mixed in one
figure; this checks that on the real, paper-scale workloads (1000 cart-pole episodes, 5000-step
mountain-car episodes), beyond the unit tests' small ones. Chunks the kernel computed itself
(``width`` 1 in their metadata) are skipped.

Run: ``PYTHONPATH=. python scripts/check_kernel_against_chunks.py [rows per chunk, default 25]``.
"""

import glob
import json
import sys
import time

import numpy as np

from ftd_lib import engine
from ftd_lib.repro.chunks import engine_settings

rows_per_chunk = int(sys.argv[1]) if len(sys.argv) > 1 else 25
rng = np.random.default_rng(0)
checked = differing = runs = steps = 0
for path in sorted(glob.glob("results/pilot/chunks/fig4-*/*.npz")
                   + glob.glob("results/chunks/fig4-*/*.npz")):
    z = np.load(path, allow_pickle=True)
    ident = json.loads(str(z["__identity__"]))
    meta = json.loads(str(z["__meta__"]))
    if ident["task"] != "control" or meta.get("engine", {}).get("width") == 1:
        continue
    if ident["runner"] != f"engine-{engine.numerics_version(ident['method'])}":
        continue  # other numerics
    ids = np.asarray(ident["run_ids"])
    rows = np.sort(rng.choice(len(ids), size=min(rows_per_chunk, len(ids)), replace=False))
    t = time.perf_counter()
    res = engine.run_control(
        ident["method"], engine_settings(np.asarray(ident["settings"], float)[rows]),
        seed=ident["seed"], run_ids=ids[rows], n_episodes=ident["episodes"], env=ident["env"],
        epsilon=ident["epsilon"], max_steps=ident["max_steps"],
        truncation=ident.get("truncation", "bootstrap"), engine="kernel")
    same = (np.array_equal(res.returns.mean(axis=1), z["metric"][rows], equal_nan=True)
            and np.array_equal(res.diverged, z["diverged"][rows]))
    checked += 1
    differing += not same
    runs += len(rows)
    steps += int(res.n_steps.sum())
    print(f"{ident['figure']} {ident['method']:21s} {ident['episodes']:5d} episodes, "
          f"{len(rows)} rows: {'same' if same else 'DIFFERENT'} ({time.perf_counter() - t:.1f} s)",
          flush=True)
print(f"{checked} chunks of the batched engine, {runs} runs, {steps} run-steps recomputed by the "
      f"kernel: {differing} differ")
