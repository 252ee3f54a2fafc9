"""n-step Sarsa's speed: the same runs through its per-run reference
(``ftd_lib/references/n_step_sarsa.py``) and, as forward Sarsa(λ = 1, K_max = n), through the
compiled kernel and the torch batch, in one process; microseconds per run-step (wall / the
runs' environment steps), the kernel and the batch warmed up first, best of ``--repeats``.

    python scripts/measure_n_step_sarsa.py [--n 4] [--runs 32] [--episodes 20]

Workload: cart-pole (gamma 0.99, cap 1000), alpha in {0.01, 0.03} alternating over the runs,
epsilon 0.05; the batch at the full width of the runs (``--batch-runs``, more runs: a batch
pays per iteration, so it is measured at a width it is meant for). It also checks that the
three give the same returns on the reference's runs.
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
import torch


def main(argv=None) -> None:
    from ftd_lib.engine import Settings, run_control
    from ftd_lib.repro.planning.calibrate import best_time

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=4)
    p.add_argument("--runs", type=int, default=32)
    p.add_argument("--batch-runs", type=int, default=512)
    p.add_argument("--episodes", type=int, default=20)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args(argv)
    torch.set_num_threads(1)

    def settings(N):
        return Settings.make(alpha=[(0.01, 0.03)[i % 2] for i in range(N)], lam=1.0,
                             gamma=0.99, k_max=a.n)

    def run(method, engine, N, **kw):
        return run_control(method, settings(N), 2016, np.arange(N), a.episodes, env="cartpole",
                           engine=engine, **kw)

    run("forward_sarsa_lambda", "kernel", 1)  # compile (or load numba's cache)
    run("forward_sarsa_lambda", "batch", 2)
    lines, results = [], {}
    for name, method, engine, N, kw in (
            ("reference (n-step Sarsa)", "n_step_sarsa", "reference", a.runs,
             dict(params={"n": a.n})),
            ("kernel (forward Sarsa, λ = 1, K_max = n)", "forward_sarsa_lambda", "kernel",
             a.runs, {}),
            ("kernel, batch's runs", "forward_sarsa_lambda", "kernel", a.batch_runs, {}),
            ("batch (forward Sarsa, λ = 1, K_max = n)", "forward_sarsa_lambda", "batch",
             a.batch_runs, {})):
        t, res = best_time(lambda m=method, e=engine, N=N, kw=kw: run(m, e, N, **kw),
                       1 if engine == "reference" else a.repeats)
        steps = int(np.sum(res.n_steps))
        results[name] = res
        lines.append((name, N, steps, t, 1e6 * t / steps))
    ref = results["reference (n-step Sarsa)"]
    for name in ("kernel (forward Sarsa, λ = 1, K_max = n)",):
        assert np.array_equal(results[name].returns, ref.returns, equal_nan=True), name
    assert np.array_equal(results["batch (forward Sarsa, λ = 1, K_max = n)"].returns,
                          results["kernel, batch's runs"].returns, equal_nan=True)
    print(f"n-step Sarsa, n = {a.n}, cart-pole, {a.episodes} episodes a run; "
          f"{platform.processor() or platform.machine()}, torch {torch.__version__}, 1 thread")
    print(f"{'engine':44s} {'runs':>5s} {'run-steps':>10s} {'wall s':>8s} {'µs/run-step':>12s}")
    for name, N, steps, t, us in lines:
        print(f"{name:44s} {N:5d} {steps:10d} {t:8.2f} {us:12.2f}")
    r = lines[0][4]
    print(f"reference / kernel: {r / lines[1][4]:.0f}x; reference / batch: {r / lines[3][4]:.0f}x "
          "(same returns: checked)")


if __name__ == "__main__":
    main()
