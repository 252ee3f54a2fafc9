"""The paper's two control methods as pieces of the kernel's extension point
(ftd_lib/engine/compiled/forward_sarsa_lambda.py, sarsa_lambda.py), so that they run compiled
on every task with compiled dynamics, and the compiled epsilon_greedy_probs the pieces share.
Where the kernel's own runs exist (cart-pole, mountain car) the pieces give their numbers bit
for bit; the bit-for-bit test compiles two (method, task) pairs (slow tier)."""

import math

import numpy as np
import pytest

from ftd_lib.engine import Settings, initial_weights, run_control
from ftd_lib.engine.kernel import extend
from ftd_lib.engine.kernel import run_tasks as kernel_run_tasks
from ftd_lib.references.common import epsilon_greedy_probs


def test_compiled_epsilon_greedy_probs_are_the_reference_s():
    """Ties (the first maximum), nan (the first nan), one action, every epsilon."""
    out = np.empty(5)
    cases = [[0.0, 1.0, 1.0, -2.0, 0.5], [3.0, math.nan, 1.0, math.nan, 9.0],
             [-1.0, -1.0, -1.0, -1.0, -1.0], [0.1, 0.2, 0.3, 0.4, 0.5]]
    for q in cases:
        for eps in (0.0, 0.05, 1 / 3, 1.0):
            extend.epsilon_greedy_probs(np.array(q), eps, out)
            assert out.tolist() == epsilon_greedy_probs(np.array(q), eps), (q, eps)
    one = np.empty(1)
    extend.epsilon_greedy_probs(np.array([2.0]), 0.3, one)
    assert one.tolist() == [1.0]
    assert [extend.greedy(np.array(q)) for q in cases] == [1, 1, 0, 4]


def test_the_paper_s_methods_run_compiled_on_every_task_with_compiled_dynamics():
    import torch

    from ftd_lib.engine.control_run import choose_engine
    from ftd_lib.envs.tasks import TASKS

    for method in ("sarsa_lambda", "forward_sarsa_lambda"):
        for env, task in TASKS.items():
            if task.compiled is not None:
                assert choose_engine(method, env, "auto", torch.float64, "cpu") == "kernel"
                assert extend.pair_runs(method, env)


@pytest.mark.slow  # (compiles forward Sarsa(λ)'s pieces on cart-pole and mountain car)
@pytest.mark.parametrize("env, truncation", [("cartpole", "bootstrap"),
                                             ("mountain_car", "terminal")])
def test_forward_sarsa_as_pieces_is_the_kernel_s_own_run_bit_for_bit(env, truncation):
    """Every return, length, weight, step count and the episode each run diverges in; λ = 0,
    0.6 with K_max = 3, 0.9, 1 (K beyond the cap) and 0.95. One run diverges in its first
    episode's final flush: both give that episode's length -1, as the per-run reference does
    (``diverged``)."""
    s = Settings.make(alpha=[0.03, 0.1, 0.01, 0.3, 0.05], lam=[0.0, 0.9, 0.6, 1.0, 0.95],
                      gamma=0.99, k_max=[None, None, 3, None, None])
    ids = np.arange(5)
    A, n = (2, 4) if env == "cartpole" else (3, 2)

    def init(tasks):
        return initial_weights(7, ids[tasks], n, 50, n_nets=A)

    kw = dict(env=env, init=init, max_steps=120, truncation=truncation)
    a = kernel_run_tasks("forward_sarsa_lambda", s, 7, ids, 6, **kw)
    b = extend.run_tasks("forward_sarsa_lambda", s, 7, ids, 6, **kw)
    for f in ("returns", "lengths", "final_weights", "n_steps", "diverged_at"):
        np.testing.assert_array_equal(getattr(b, f), getattr(a, f), err_msg=f)
    assert a.diverged_at.tolist()[3] == 0 and (a.diverged_at < 0).sum() >= 3
    flush = 3  # (run 3 diverges in episode 0's flush)
    ref = run_control("forward_sarsa_lambda", s.select([flush]), 7, [flush], 2,
                      engine="reference", env=env, max_steps=120, truncation=truncation)
    assert ref.lengths[0].tolist() == a.lengths[flush, :2].tolist() == [-1, -1]
