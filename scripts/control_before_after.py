"""The measurement behind README's before/after control numbers (one cart-pole workload).

1000 runs x 30 cart-pole episodes (lambda 0.6, alpha 0.0075, gamma 0.99) through run_control,
against forward TD(lambda) prediction at 1000 runs on recorded steps, in one process, one torch
thread, each method timed after one warm-up call (the compiled kernel, where there is one, is
loaded or compiled once per process). Run it in a checkout of the engine to measure (a worktree
of f004cb8 for "before"):
``PYTHONPATH=. python scripts/control_before_after.py``.
"""

import time

import numpy as np
import torch

import ftd_lib
from ftd_lib.engine import Settings, bench, run_control

torch.set_num_threads(1)
OLD = not hasattr(bench, "control_lines")  # the engine before the full batch
FORWARD_TD = "forward_td" if OLD else "forward_td_lambda"
METHODS = ("forward_sarsa", "sarsa_lambda") if OLD else ("forward_sarsa_lambda", "sarsa_lambda")
ENV = "cart_pole" if OLD else "cartpole"

rows = bench._tile(bench._episodes(50, 2), 1000)
fwd = bench._us_per_step(FORWARD_TD, rows, Settings.make(alpha=0.01, lam=0.9, gamma=1.0),
                         repeats=2)
print(f"{ftd_lib.__file__}: forward TD(lambda) prediction, 1000 runs: {fwd:.2f} us/run-step")
s = Settings.make(alpha=0.0075, lam=0.6, gamma=0.99)
for m in METHODS:
    t = time.perf_counter()
    run_control(m, s, 2016, [0], 1, env=ENV)  # once: the compiled kernel loads (or compiles)
    print(f"  {m}: first call (one episode) {time.perf_counter() - t:.2f} s")
    t = time.perf_counter()
    r = run_control(m, s.broadcast(1000), 2016, np.arange(1000), 30, env=ENV)
    us = (time.perf_counter() - t) / r.n_steps.sum() * 1e6
    print(f"  {m}: {us:.2f} us/run-step = {us / fwd:.1f}x forward TD; "
          f"{r.iterations} iterations")
