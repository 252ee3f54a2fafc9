"""The prediction kernel's cold compile: the CPU seconds :func:`warm_prediction` takes
(TD(0) and forward TD(lambda), paper Sec. 5, on the paper's 2-50-1 network) in a fresh
process with an empty numba cache, as a fresh clone, CI or a student's first run pays it,
then again with that cache (a second run). Each round runs a fresh interpreter per tree;
``--rev REV`` also measures the tree at a git revision (a temporary worktree), alternating
with this one, so that a before/after pair shares the machine's load.

    python scripts/measure_kernel_compile.py [--rounds 2] [--rev REV]

Prints one line per measurement and the medians; CPU time (the process's own), which other
jobs on a shared machine inflate far less than wall-clock time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import json, time
c, t = time.process_time(), time.perf_counter()
from ftd_lib.engine.kernel.prediction_warm import warm_prediction
warm_prediction()
print(json.dumps({"cpu": time.process_time() - c, "wall": time.perf_counter() - t}))
"""


def measure(tree: Path, cache: str) -> dict:
    """One fresh interpreter's :func:`warm_prediction` in ``tree`` with numba's cache in
    ``cache``: ``{"cpu": s, "wall": s}``."""
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=tree, env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--rev", default=None, help="also measure this git revision's tree")
    a = p.parse_args(argv)
    if a.rounds < 1:
        p.error(f"--rounds must be at least 1, got {a.rounds}")
    trees = {"this tree": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        if a.rev:
            wt = Path(tmp) / "rev"
            subprocess.run(["git", "worktree", "add", "-q", "--detach", str(wt), a.rev],
                           cwd=ROOT, check=True)
            trees = {a.rev: wt, **trees}
        try:
            got = {name: {"cold": [], "cached": []} for name in trees}
            for r in range(a.rounds):
                for name, tree in trees.items():
                    with tempfile.TemporaryDirectory() as cache:
                        cold = measure(tree, cache)
                        cached = measure(tree, cache)
                    got[name]["cold"].append(cold["cpu"])
                    got[name]["cached"].append(cached["cpu"])
                    print(f"round {r + 1}, {name}: cold {cold['cpu']:.1f} CPU s "
                          f"({cold['wall']:.1f} s wall), cached {cached['cpu']:.1f} CPU s",
                          flush=True)
        finally:
            if a.rev:
                subprocess.run(["git", "worktree", "remove", "--force", str(wt)], cwd=ROOT,
                               check=False)
    for name, g in got.items():
        print(f"{name}: cold {statistics.median(g['cold']):.1f}, cached "
              f"{statistics.median(g['cached']):.1f} CPU s (median of {a.rounds}); load "
              f"{os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
