"""Forward Sarsa(λ), the paper's baseline, on the tasks whose own kernel run it lacks (acrobot,
Puddle World): the batched torch engine it ran in before its pieces existed (one torch
thread), against its pieces in the compiled kernel now; CPU µs a run-step, the median of
alternating rounds, one process, the load average before and after.

    python scripts/forward_sarsa_before_after.py [ROUNDS]      # default 3
"""

from __future__ import annotations

import sys

import numpy as np

from ftd_lib.engine.bench import _kernel_run, machine_line

N_RUNS, N_EP, CAP = 100, 20, 200  # a batch of 100 rows, as an experiment's chunk


def main(rounds: int = 3) -> None:
    import torch

    torch.set_num_threads(1)  # (one thread: CPU time is then the work's, as the bench's)
    print(machine_line() + "; 1 torch thread")
    for task in ("acrobot", "puddle_world"):
        for engine in ("batch", "kernel"):  # (compiles, warms torch)
            _kernel_run(task, "forward_sarsa_lambda", None, engine, 2, 1, 5)
        us = {"batch": [], "kernel": []}
        for _ in range(rounds):
            for engine in us:
                us[engine].append(_kernel_run(task, "forward_sarsa_lambda", None, engine,
                                              N_RUNS, N_EP, CAP)[0])
        b, k = (float(np.median(us[e])) for e in ("batch", "kernel"))
        print(f"forward Sarsa(lambda), {task}, {N_RUNS} runs x {N_EP} episodes, cap {CAP}: "
              f"batch (before) {b:.2f}, kernel pieces (after) {k:.2f} CPU us per run-step "
              f"= {b / k:.1f}x faster (medians of {rounds}; spreads "
              f"{min(us['batch']):.2f}-{max(us['batch']):.2f}, "
              f"{min(us['kernel']):.2f}-{max(us['kernel']):.2f})")
    print(machine_line().replace("machine", "at the end, machine"))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
