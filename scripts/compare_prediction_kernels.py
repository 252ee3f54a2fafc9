"""The compiled prediction loops of a git revision against this tree's, in one process: the
same results bit for bit (final weights, steps, divergence) and each one's CPU microseconds a
run-step, TD(0) and forward TD(lambda) (paper Sec. 5, Algorithm 1), at a few K, rounds
alternating so that both share the machine's load.

    python scripts/compare_prediction_kernels.py REV [--runs 1000] [--ks 1 10 44] [--rounds 7]

The revision's ``ftd_lib/engine/kernel/`` is written into a temporary folder and imported from
there as the package ``ftd_lib.engine._kernel_rev`` (so its relative imports reach this tree's
engine); the rest of the library is this tree's. The workload is the K sweep's
(:mod:`ftd_lib.engine.bench_k`).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _load_rev(rev: str, folder: Path):
    """The revision's kernel package, written into ``folder``, imported as
    ``ftd_lib.engine._kernel_rev``; returns its ``prediction`` module."""
    import ftd_lib.engine

    names = subprocess.run(["git", "ls-tree", "--name-only", rev, "ftd_lib/engine/kernel/"],
                           cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
    for name in names:
        src = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        (folder / Path(name).name).write_text(src)
    spec = importlib.util.spec_from_file_location(
        "ftd_lib.engine._kernel_rev", folder / "__init__.py",
        submodule_search_locations=[str(folder)])
    pkg = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = pkg
    ftd_lib.engine._kernel_rev = pkg
    spec.loader.exec_module(pkg)
    return importlib.import_module("ftd_lib.engine._kernel_rev.prediction")


def _per_step(mod, method, settings, w0, src, inner):
    """CPU microseconds a run-step of ``inner`` runs, and the last run's result."""
    c = time.process_time()
    for _ in range(inner):
        res = mod.run_source(method, settings, w0, src, record_weights=False)
    return (time.process_time() - c) / inner / res.n_steps.sum() * 1e6, res


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rev")
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--ks", type=int, nargs="+", default=[1, 10, 44])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--inner", type=int, default=3, help="runs a turn (default: 3)")
    a = p.parse_args(argv)
    from ftd_lib.engine import bench_k
    from ftd_lib.engine.sources import RecordedSource

    with tempfile.TemporaryDirectory() as tmp:
        old = _load_rev(a.rev, Path(tmp))
        new = importlib.import_module("ftd_lib.engine.kernel.prediction")
        rows = bench_k.workload(a.runs)
        w0 = bench_k.initial_weights(a.runs)
        src = RecordedSource(rows, 2)
        same = True
        for k in a.ks:
            s = bench_k.settings_for_k(k, a.runs)
            for m in ("td0", "forward_td_lambda"):
                _, ro = _per_step(old, m, s, w0, src, 1)  # compiles, and the results
                _, rn = _per_step(new, m, s, w0, src, 1)
                eq = (np.array_equal(ro.final_weights, rn.final_weights, equal_nan=True)
                      and np.array_equal(ro.n_steps, rn.n_steps)
                      and np.array_equal(ro.diverged, rn.diverged))
                same &= eq
                us_o, us_n = [], []
                for _ in range(a.rounds):
                    us_o.append(_per_step(old, m, s, w0, src, a.inner)[0])
                    us_n.append(_per_step(new, m, s, w0, src, a.inner)[0])
                r = np.array(us_n) / np.array(us_o)
                print(f"K={k:3d} {m:18s} {a.rev[:9]} {np.median(us_o):.3f}, this tree "
                      f"{np.median(us_n):.3f} us a run-step; this / {a.rev[:9]} median "
                      f"{np.median(r):.3f} [{r.min():.3f}, {r.max():.3f}]; bit for bit: {eq}",
                      flush=True)
        print(f"load average {os.getloadavg()[0]:.1f}; {a.runs} runs, {a.rounds} rounds")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
