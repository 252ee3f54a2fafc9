"""Smoke test of the engine's benchmark (the numbers themselves are checked by hand)."""

import pytest

from ftd_lib.engine.bench import autograd_forward_td, run_bench


@pytest.mark.slow  # (minutes on a cold numba cache: it compiles both kernels' prediction loops)
def test_run_bench_quick_returns_one_line_per_measurement():
    # (the kernel: lines compile every pair the kernel runs: tests/engine/test_kernel_extend.py)
    lines = run_bench(quick=True, kernel=False)
    assert len(lines) == 14
    assert lines[0].startswith("engine vs per-run torch.nn+autograd loop")
    assert lines[1].startswith("engine vs per-run numpy reference")
    k_lines = [line for line in lines if line.startswith("forward TD(lambda) / TD(0)")]
    assert [line.split(",")[1].strip() for line in k_lines] == ["batch", "kernel"] * 2
    assert all("load average" in line and "[" in line for line in k_lines)
    assert sum(line.startswith("TD(lambda) / TD(0)") for line in lines) == 2
    assert lines[-6].startswith("us per run-step")
    assert lines[-5].startswith("online lambda-return")
    assert lines[-4].startswith("control: forward Sarsa(lambda), cart-pole, compiled")
    assert lines[-3].startswith("control: forward Sarsa(lambda), cart-pole, batched")
    assert lines[-2].startswith("control: Sarsa(lambda), cart-pole, compiled")
    assert lines[-1].startswith("control: Sarsa(lambda), cart-pole, batched")
    assert all("nan" not in line for line in lines)


def test_control_utilisation_is_a_share_of_the_rows():
    import re

    from ftd_lib.engine.bench import control_lines

    for line in control_lines(quick=True):
        u = [float(x) for x in re.findall(r"utilisation ([0-9.]+) before the tail, ([0-9.]+)",
                                           line)[0]]
        assert all(0.0 < x <= 1.0 for x in u), line


def test_autograd_baseline_runs():
    import numpy as np

    rng = np.random.default_rng(0)
    eps = [(rng.uniform(-1, 1, (6, 2)), rng.normal(size=5))]
    autograd_forward_td(eps)
