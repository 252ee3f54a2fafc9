"""The compiled kernel's extension point (ftd_lib/engine/kernel/extend.py): a method and a task
written as pieces outside the kernel's files run at compiled speed with the numbers of their
per-run references. Compile time counts (a few seconds a (method, task) pair): the tests use
three pairs -- n-step Sarsa on cart-pole (check_method) and on Puddle World, Sarsa(λ) as
pieces on cart-pole -- and make their mutants from data (parameters), not new code."""

import numpy as np
import pytest

from ftd_lib.engine import Settings, initial_weights, run_control
from ftd_lib.engine import method_check as mc
from ftd_lib.engine.compiled import n_step_sarsa as ns_kernel
from ftd_lib.engine.kernel import extend
from ftd_lib.engine.kernel import run_tasks as kernel_run_tasks
from ftd_lib.envs import puddle_world as P
from ftd_lib.envs import task_check as tc
from ftd_lib.envs.tasks import TASKS
from ftd_lib.repro import code


def test_check_method_holds_the_compiled_n_step_sarsa_to_its_reference():
    # (cart-pole here; every task: tests/engine/test_method_check_mutants.py, slow tier)
    assert mc.check_engines("n_step_sarsa", env="cartpole") == (
        "engines: kernel agree with the reference on cartpole at 2 parameter points (2 "
        "comparisons of 3 runs)")


def test_a_mutant_piece_fails_check_method(monkeypatch):
    """The compiled form without the bootstrap term (gamma^n = 0 in its parameters): the
    reference and the kernel then disagree."""
    right = ns_kernel.kernel_params

    def no_bootstrap(row, n):
        alpha, n, powers = right(row, n)
        powers = powers.copy()
        powers[-1] = 0.0
        return alpha, n, powers

    monkeypatch.setattr(ns_kernel, "kernel_params", no_bootstrap)
    with pytest.raises(mc.MethodCheckError, match="engine 'kernel' disagrees with the "
                       "reference on cartpole at parameter point 1 .*: (diverged_at|returns|"
                       "lengths|final_weights), first at run"):
        mc.check_engines("n_step_sarsa", env="cartpole")


def test_compiled_n_step_sarsa_on_a_stochastic_task_is_its_reference():
    """Puddle World (its noise drawn by the kernel from each run's noise stream, its
    noise_sd a task parameter): returns, lengths, divergence exactly; one run diverges."""
    s = Settings.make(alpha=[0.03, 0.1, 0.01], lam=0.0, gamma=1.0)
    kw = dict(env="puddle_world", max_steps=60, params={"n": 3},
              task_params={"noise_sd": 0.02})
    ref = run_control("n_step_sarsa", s, 7, [0, 1, 2], 6, engine="reference", **kw)
    got = run_control("n_step_sarsa", s, 7, [0, 1, 2], 6, **kw)
    assert got.engine == "kernel"
    np.testing.assert_array_equal(got.returns, ref.returns)
    np.testing.assert_array_equal(got.lengths, ref.lengths)
    np.testing.assert_array_equal(got.diverged_at, ref.diverged_at)
    np.testing.assert_allclose(got.final_weights, ref.final_weights, rtol=1e-6, atol=1e-10)
    assert (ref.diverged_at >= 0).any() and (ref.diverged_at < 0).any()
    other = run_control("n_step_sarsa", s, 7, [0, 1, 2], 2, **dict(kw, task_params={}))
    assert not np.array_equal(other.returns, got.returns[:, :2], equal_nan=True)


def test_sarsa_lambda_as_pieces_is_the_kernel_s_own_run_bit_for_bit():
    """The generic run with Sarsa(λ)'s step as pieces against the hand-written
    ``sarsa_run``: every return, length, weight and the episode each run diverges in."""
    s = Settings.make(alpha=[0.03, 0.1, 0.01, 0.3], lam=[0.0, 0.9, 0.6, 1.0], gamma=0.99)
    ids = np.arange(4)

    def init(tasks):
        return initial_weights(7, ids[tasks], 4, 50, n_nets=2)

    a = kernel_run_tasks("sarsa_lambda", s, 7, ids, 8, env="cartpole", init=init,
                         max_steps=100)
    b = extend.run_tasks("sarsa_lambda", s, 7, ids, 8, env="cartpole", init=init,
                         max_steps=100, pieces="engine.compiled.sarsa_lambda")
    np.testing.assert_array_equal(b.returns, a.returns)
    np.testing.assert_array_equal(b.lengths, a.lengths)
    np.testing.assert_array_equal(b.final_weights, a.final_weights)
    np.testing.assert_array_equal(b.n_steps, a.n_steps)
    np.testing.assert_array_equal(b.diverged_at, a.diverged_at)
    assert (a.diverged_at >= 0).any() and (a.diverged_at < 0).any()


def test_check_task_finds_compiled_dynamics_that_differ_from_the_batch():
    """Puddle World's compiled step at another noise level, and with its two noise draws
    swapped: the check names the task and what differs."""
    params, reset, step = tc.compiled_pieces(TASKS["puddle_world"])
    for pieces in ((lambda: params(0.011), reset, step),
                   (params, reset, _swapped_noise(step))):
        with pytest.raises(tc.TaskCheckError, match="check_task.'puddle_world'.: compiled = "
                           "batch: at the defaults, run 3, step 0: the compiled step"):
            tc.check_compiled(TASKS["puddle_world"], pieces=pieces)


def _swapped_noise(step):
    def swapped(state, a, x, noise, tp):
        return step(state, a, x, noise[::-1].copy(), tp)
    return swapped


def test_compiled_puddle_world_is_its_numpy_step_at_hand_picked_states():
    """Inside a puddle, at the goal's edge, clipped at the square's border."""
    _, _, step = tc.compiled_pieces(TASKS["puddle_world"])
    states = np.array([[0.3, 0.72], [0.96, 0.93], [0.99, 0.01], [0.45, 0.6]])
    noise = np.array([[0.3, 0.7], [0.5, 0.1], [0.9, 0.25], [0.01, 0.99]])
    seen = []
    for a in range(4):
        new, term, rew = P.step_arrays(states, np.full(4, a), noise)
        for i in range(4):
            s, x = states[i].copy(), np.zeros(2)
            r, t = step(s, a, x, noise[i], (P.NOISE_SD,))
            assert (s.tolist(), r, t) == (new[i].tolist(), rew[i], bool(term[i]))
            assert x.tolist() == P.scale_obs(new[i]).tolist()
        seen.append(((rew < -1).any(), term.any(), (new == 1.0).any() or (new == 0.0).any()))
    assert np.any(seen, axis=0).all()


def test_the_code_digest_covers_the_compiled_pieces():
    files = code.code_files("control", "n_step_sarsa", "puddle_world")
    assert "ftd_lib/engine/compiled/n_step_sarsa.py" in files
    assert "ftd_lib/engine/kernel/extend.py" in files
    assert "ftd_lib/engine/kernel/env.py" in code.code_files("control", "n_step_sarsa",
                                                             "cartpole")
    assert "ftd_lib/engine/compiled/n_step_sarsa.py" not in code.code_files(
        "control", "sarsa_lambda", "puddle_world")


def test_the_kernel_refuses_a_pair_without_pieces():
    s = Settings.make(alpha=0.01, lam=0.0, gamma=1.0)
    with pytest.raises(ValueError, match="no kernel implementation"):
        run_control("watkins_q_lambda", s, 0, [0], 1, env="acrobot", engine="kernel")
    with pytest.raises(ValueError, match="not a task the kernel runs"):
        run_control("sarsa_lambda", s, 0, [0], 1, engine="kernel",
                    env=lambda seed, ids: TASKS["acrobot"].batch_cls(seed, ids))
    assert extend.pair_runs("n_step_sarsa", "acrobot")
    assert extend.pair_runs("sarsa_lambda", "acrobot")
    assert not extend.pair_runs("watkins_q_lambda", "acrobot")


def test_bench_prints_a_kernel_line_for_every_pair_the_kernel_runs(monkeypatch):
    """``python -m ftd_lib bench --kernel``: a line per pair of kernel_pairs (whatever methods
    the table has), each at its method's example parameters, between the machine's two
    lines; a pair that fails is one line saying why while the others go on (a stand-in for
    the timed run: nothing is compiled here; the numbers are checked by hand)."""
    from ftd_lib.engine import bench
    from ftd_lib.methods import METHODS, example_params

    pairs = bench.kernel_pairs()
    compiled = [m for m in METHODS.values() if m.compiled is not None]
    assert {(t, m.id) for t in ("acrobot", "puddle_world") for m in compiled} <= {
        p[:2] for p in pairs}
    assert ("cartpole", "forward_sarsa_lambda", None) in pairs
    assert len(pairs) == len(set(pairs))
    seen = []

    def fake(task, method, pieces, engine, n_runs, n_ep, cap):
        from ftd_lib.methods import check_params

        check_params(method, example_params(method))  # (a required parameter: given)
        seen.append((task, method, engine))
        if (task, method) == ("acrobot", "n_step_sarsa") and engine == "kernel":
            raise ValueError("params.n: a stand-in failure\nwith a second line")
        return (2.0 if engine == "kernel" else 300.0), 0.1, 40 * n_runs

    monkeypatch.setattr(bench, "_kernel_run", fake)
    lines = bench.kernel_lines(quick=True, repeats=2)
    assert lines[0].startswith("kernel: machine ") and "load average" in lines[0]
    assert lines[-1].startswith("kernel: at the end, machine ")
    body = lines[1:-1]
    assert len(body) == len(pairs)
    for (task, method, _), line in zip(pairs, body, strict=True):
        assert line.startswith(f"kernel: {bench._ascii_label(method)}, {task}: "), line
        if (task, method) == ("acrobot", "n_step_sarsa"):
            assert line.endswith("failed: ValueError: params.n: a stand-in failure")
        else:
            assert "2.00 CPU us per run-step" in line and "reference 300 us" in line
            assert "= 150x" in line
    assert any("x Sarsa(lambda)'s kernel" in ln for ln in body)
    assert all("nan" not in ln for ln in lines)
    # the reference is timed on at least REFERENCE_STEPS run-steps
    refs = [s for s in seen if s[2] == "reference"]
    per_pair = -(-bench.REFERENCE_STEPS["quick"] // 40)  # (40 run-steps a stand-in call)
    assert len(refs) == (len(pairs) - 1) * per_pair


PIECE = """
from numba import njit
from {callee} import helper


@njit
def kernel_step(th, mem, net, mp, t, x, a, r, xn, a2, q2, Q, chose):
    return helper(r)
"""
HELPER = """
from numba import njit


@njit
def helper(r):
    return r {op} 0.0 or True
"""


def test_an_edited_piece_or_what_it_calls_is_compiled_again(tmp_path, monkeypatch):
    """numba's cache of a (method, task) pair is keyed by the digest of every source its
    pieces reach, call by call: an edit in a function a piece calls (another file) changes
    the generated module, so numba compiles it again (nothing is compiled here)."""
    import importlib
    import sys

    (tmp_path / "my_piece.py").write_text(PIECE.format(callee="my_helper"))
    (tmp_path / "my_helper.py").write_text(HELPER.format(op="<"))
    monkeypatch.syspath_prepend(str(tmp_path))
    piece = importlib.import_module("my_piece").kernel_step
    m = importlib.import_module("ftd_lib.engine.compiled.n_step_sarsa")
    t = importlib.import_module("ftd_lib.envs.acrobot")
    files = {f.name for f in extend._source_files([piece])}
    assert {"my_piece.py", "my_helper.py", "extend.py", "numerics.py"} <= files
    pieces = (m.kernel_init, piece, m.kernel_end, t.kernel_reset, t.kernel_step)
    before = extend.sources_digest(pieces)
    run = extend.compiled_run(*pieces)
    assert extend.compiled_run(*pieces) is run  # (the same pieces: the same function)
    (tmp_path / "my_helper.py").write_text(HELPER.format(op=">"))
    after = extend.sources_digest(pieces)
    assert after != before
    again = extend.compiled_run(*pieces)
    assert again is not run
    text = open(sys.modules[again.py_func.__module__].__file__).read()
    assert after in text and before not in text
    assert "from my_piece import kernel_step as m_step" in text


def test_compiled_acrobot_is_its_numpy_step_at_hand_picked_states():
    """Straight up (terminal), angles that wrap past ±π, velocities clipped at ±4π, ±9π."""
    from ftd_lib.envs import acrobot as A

    _, _, step = tc.compiled_pieces(TASKS["acrobot"])
    states = np.array([[np.pi, 0.0, 0.0, 0.0], [3.1, -3.1, 6.0, -9.0],
                       [-3.0, 2.9, -12.5, 28.0], [0.05, -0.02, 0.1, 0.3]])
    seen = []
    for a in range(3):
        new, term = A.step_arrays(states, np.full(4, a))
        for i in range(4):
            s, x = states[i].copy(), np.zeros(6)
            r, t = step(s, a, x, np.zeros(0), (0.0,))
            assert (s.tolist(), r, t) == (new[i].tolist(), -1.0, bool(term[i]))
            assert x.tolist() == A.scale_obs(new[i]).tolist()
        seen.append((term.any(), (np.abs(new[:, 2]) == A.MAX_VEL_1).any(),
                     (np.abs(states[:, :2] + 0.2 * states[:, 2:]) > np.pi).any()))
    assert np.any(seen, axis=0).all()
