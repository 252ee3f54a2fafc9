"""What one pass of the compiled prediction loops costs (``ftd_lib/engine/kernel/passes.py``),
each timed as a chain in which every pass needs the previous one's result, as in the loops: a
TD(0) step's pass (``update_value2``: an update and the next step's two values), a flush
pop's pass (``update_value``: an update and one value), two runs' flush pops in one pass
(``update_value_pair``, how the loops run them), a pair of values without an update
(``value2``), and the 100 tanh of a pair alone. The paper's 2-50-1 network; CPU microseconds
a pass, the median of alternating rounds, with the load average. ``docs/engine.md`` quotes it
for where forward TD(λ)'s small rise with K comes from (the flush's one-value passes).

    python scripts/measure_kernel_passes.py [--passes 200000] [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from numba import njit

from ftd_lib.engine.kernel.numerics import tanh, value
from ftd_lib.engine.kernel.passes import (
    update_value,
    update_value2,
    update_value_pair,
    value2,
)

N_IN, H = 2, 50


@njit(error_model="numpy")
def _td0_passes(th, xa, xb, hh, reps):
    va, vb = value2(th, xa, xb, N_IN, H, hh)
    s = 0.0
    for _ in range(reps):
        va, vb = update_value2(th, xb, 1e-12 * (va - vb), xa, xb, N_IN, H, hh)
        s += va
    return s


@njit(error_model="numpy")
def _flush_passes(th, xa, xb, hh, reps):
    h = hh[H:]
    v = value(th, 0, xa, N_IN, H, h)
    s = 0.0
    for _ in range(reps):
        v = update_value(th, xa, 1e-12 * v, xb, N_IN, H, h)
        s += v
    return s


@njit(error_model="numpy")
def _flush_pair_passes(th, xa, xb, hh, reps):
    th2 = th.copy()
    va = value(th, 0, xa, N_IN, H, hh[:H])
    vb = value(th2, 0, xb, N_IN, H, hh[H:])
    s = 0.0
    for _ in range(reps):
        va, vb = update_value_pair(th, xa, 1e-12 * va, xb, th2, xb, 1e-12 * vb, xa, N_IN, H,
                                   hh)
        s += va + vb
    return s


@njit(error_model="numpy")
def _pair_passes(th, xa, xb, hh, reps):
    s = 0.0
    for _ in range(reps):
        va, vb = value2(th, xa, xb, N_IN, H, hh)
        s += va
        xa[0] += 1e-12 * vb
    return s


@njit(error_model="numpy")
def _tanh_passes(th, xa, xb, hh, reps):
    s = 0.0
    for _ in range(reps):
        for k in range(2 * H):
            hh[k] = tanh(hh[k])
        s += hh[7]
        hh[0] = hh[0] * 0.5 + 0.3
    return s


PASSES = {"TD(0) step: update + 2 values (update_value2)": _td0_passes,
          "flush pop: update + 1 value (update_value)": _flush_passes,
          "two runs' flush pops: 2 x (update + 1 value) (update_value_pair)": _flush_pair_passes,
          "2 values, no update (value2)": _pair_passes,
          "100 tanh alone": _tanh_passes}


def measure(passes: int = 200_000, repeats: int = 7) -> dict:
    """``{name: (median, min, max)}`` CPU microseconds a pass over ``repeats`` rounds in
    which the kinds of pass take turns (after one warm-up round)."""
    rng = np.random.default_rng(2016)
    times = {name: [] for name in PASSES}
    for rep in range(repeats + 1):
        for name, fn in PASSES.items():
            th = rng.normal(size=(1, (N_IN + 2) * H + 1)) * 0.3
            xa, xb = rng.uniform(-1, 1, (2, N_IN))
            hh = rng.normal(size=2 * H)
            n = 10 if rep == 0 else passes
            t0 = time.process_time()
            fn(th, xa, xb, hh, n)
            if rep:
                times[name].append((time.process_time() - t0) / n * 1e6)
    return {k: (float(np.median(v)), min(v), max(v)) for k, v in times.items()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--passes", type=int, default=200_000)
    p.add_argument("--repeats", type=int, default=7)
    a = p.parse_args(argv)
    if a.passes < 1 or a.repeats < 1:
        p.error("--passes and --repeats must be at least 1")
    load0 = os.getloadavg()[0]
    for name, (med, lo, hi) in measure(a.passes, a.repeats).items():
        print(f"{name}: {med:.3f} CPU us a pass [{lo:.3f}-{hi:.3f}]")
    print(f"median of {a.repeats} alternating rounds of {a.passes} chained passes; load average "
          f"{load0:.2f} -> {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
