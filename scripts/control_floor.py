"""How close can the torch engine get to the target of control at <= 2x forward TD(lambda)'s
cost per run-step)? The floor of one forward Sarsa(lambda) step, measured in one process.

A forward Sarsa(lambda) step on cart-pole cannot do less network work than:

- Q(S', .) of both action networks (the greedy choice needs every action's value): one
  forward pass over 2 networks of 4-50-1, 301 parameters each;
- one pop: the forward pass and the update of the popped state's action network, either
  masked over both networks (what the engine does when many rows pop) or on gathered columns
  (index_select, update, index_copy);
- one environment step.

Forward TD(lambda), the baseline, does one forward pass and one pop on a single 2-50-1 network
(201 parameters). This script times each piece on 1000 rows with the engine's own network code
(:mod:`ftd_lib.engine._net`), one torch thread, best of ``REPEATS``, and prints the pieces as
multiples of forward TD(lambda)'s whole step measured just before (``bench``'s number).
Run: ``PYTHONPATH=. python scripts/control_floor.py``.
"""

import time

import numpy as np
import torch

from ftd_lib.engine import Settings, bench, initial_weights
from ftd_lib.engine._net import BatchedMLP
from ftd_lib.envs.cartpole import CartPoleBatch

torch.set_num_threads(1)
W, A, REPEATS, LOOPS = 1000, 2, 5, 200


def best_us(fn) -> float:
    """Best over REPEATS of the mean time of LOOPS calls, in microseconds."""
    fn()
    best = np.inf
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(LOOPS):
            fn()
        best = min(best, (time.perf_counter() - t0) / LOOPS * 1e6)
    return best


rows = bench._tile(bench._episodes(50, 2), W)
fwd = bench._us_per_step("forward_td_lambda", rows,
                         Settings.make(alpha=0.01, lam=0.9, gamma=1.0), repeats=2)

net = BatchedMLP(4, 50)
w0 = initial_weights(2016, np.arange(W), 4, n_nets=A)  # (W, A, P)
th = net.to_internal(w0.transpose(1, 0, 2).reshape(A * W, net.n_params))
V = net.views(th)
work_full, work_sub = net.work(A * W), net.work(W)
rng = np.random.default_rng(0)
x_full = torch.as_tensor(np.vstack([rng.uniform(-1, 1, (4, A * W)), np.ones((1, A * W))]))
x_sub = x_full[:, :W].contiguous()
act = rng.integers(0, A, W)
idx = torch.as_tensor(act * W + np.arange(W))
sub = torch.empty(net.n_params, W, dtype=torch.float64)
Vs = net.views(sub)
tiny = 1e-12  # an update too small to move the weights far between repeats


def q_pass():
    net.value(V, x_full, work_full)


def pop_masked():
    net.value(V, x_full, work_full)
    coef = np.zeros(A * W)
    coef[act * W + np.arange(W)] = tiny
    net.update_(V, torch.as_tensor(x_full.numpy() * coef)[:, None, :], work_full,
                torch.as_tensor(coef))


def pop_gathered():
    torch.index_select(th, 1, idx, out=sub)
    net.value(Vs, x_sub, work_sub)
    coef = np.full(W, tiny)
    net.update_(Vs, torch.as_tensor(x_sub.numpy() * coef)[:, None, :], work_sub,
                torch.as_tensor(coef))
    th.index_copy_(1, idx, sub)


env = CartPoleBatch(2016, np.arange(W))
env.reset()


def env_step():
    _, _, term, trunc = env.step(rng.integers(0, 2, W))
    if (term | trunc).any():
        env.reset(mask=term | trunc)


pieces = {"Q(S', .) of both networks": best_us(q_pass) / W,
          "pop, masked over both networks": best_us(pop_masked) / W,
          "pop, gathered columns": best_us(pop_gathered) / W,
          "cart-pole step (with resets)": best_us(env_step) / W}
print(f"forward TD(lambda), 1000 runs, recorded steps: {fwd:.2f} us per run-step (= 1x)")
for name, us in pieces.items():
    print(f"  {name}: {us:.2f} us per run-step = {us / fwd:.2f}x")
floor = (pieces["Q(S', .) of both networks"] + min(pieces["pop, masked over both networks"],
                                                    pieces["pop, gathered columns"])
         + pieces["cart-pole step (with resets)"])
print(f"floor of a forward Sarsa(lambda) step (Q pass + cheaper pop + env, no bookkeeping): "
      f"{floor:.2f} us per run-step = {floor / fwd:.2f}x forward TD(lambda) [target <= 2x]")
