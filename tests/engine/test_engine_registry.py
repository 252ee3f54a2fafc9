"""The methods table and the task registry decide what runs a method: every implementation an
engine has is named in the table (and nothing else), an unknown method raises instead of
running another algorithm, and a task without a kernel falls back to the batch."""

import dataclasses

import numpy as np
import pytest
import torch

from ftd_lib import methods
from ftd_lib.engine import NUMERICS_VERSION, Settings, choose_engine, kernel, run_control
from ftd_lib.engine.control import ITERATIONS, ControlBatch
from ftd_lib.engine.prediction import LOOPS
from ftd_lib.engine.reference import reference_function
from ftd_lib.envs import tasks

S = Settings.make(alpha=0.01, lam=0.5, gamma=0.99)


def test_every_engine_implements_exactly_what_the_table_says():
    table = methods.METHODS.values()
    # the kernel's own runs, and the methods written as pieces of its extension point
    assert set(kernel.RUNS) | {m.id for m in table if m.compiled} == {
        m.id for m in table if "kernel" in m.engines}
    for m in table:
        if m.compiled is not None:
            assert all(callable(p) for p in kernel.extend.method_pieces(m.id))
    assert set(ITERATIONS) | set(LOOPS) == {m.id for m in table if "batch" in m.engines}
    for m in table:
        if m.reference is not None:
            assert callable(reference_function(m.id))
    assert NUMERICS_VERSION == {m.id: m.numerics for m in table if m.numerics is not None}


def test_a_reference_that_is_not_there_is_one_line_naming_the_method(monkeypatch):
    """A row whose reference is missing (a typo, a file not written yet): one ValueError
    naming the method and where it was looked for, not an AttributeError."""
    for ref, where in (("no_such_fn", "ftd_lib.algorithms"),
                       ("references.no_such_file:f", "ftd_lib.references.no_such_file"),
                       ("references.sarsa_lambda:no_such_fn", "ftd_lib.references.sarsa_lambda")):
        row = dataclasses.replace(methods.METHODS["sarsa_lambda"], id="typo", reference=ref)
        monkeypatch.setitem(methods.METHODS, "typo", row)
        with pytest.raises(ValueError) as e:
            reference_function("typo")
        assert "'typo'" in str(e.value) and where in str(e.value)
        assert "\n" not in str(e.value)


def test_an_unknown_method_raises_everywhere():
    with pytest.raises(ValueError, match="method"):
        run_control("q_lambda", S, 1, [0], 1, env="cartpole")
    with pytest.raises(ValueError, match="the kernel runs the methods"):
        kernel.run_tasks("q_lambda", S, 1, [0], 1, env="cartpole", init=None)
    with pytest.raises(ValueError, match="the batched engine runs the methods"):
        ControlBatch("q_lambda", S, None, 1, seed=1, run_ids=[0], agent_stream=101,
                     init=None)


def test_auto_takes_the_kernel_where_it_can_and_the_batch_elsewhere(monkeypatch):
    assert choose_engine("sarsa_lambda", "cartpole", "auto", torch.float64, "cpu") == "kernel"
    assert choose_engine("sarsa_lambda", "cartpole", "auto", torch.float32, "cpu") == "batch"
    # a task whose registry entry neither flags the kernel nor names compiled dynamics:
    # "auto" takes the batch, and engine="kernel" says why it cannot
    no_kernel = dataclasses.replace(tasks.TASKS["cartpole"], kernel=False, compiled=None)
    monkeypatch.setitem(tasks.TASKS, "cartpole", no_kernel)
    assert choose_engine("sarsa_lambda", "cartpole", "auto", torch.float64, "cpu") == "batch"
    with pytest.raises(ValueError, match="has no compiled dynamics"):
        run_control("sarsa_lambda", S, 1, [0], 1, env="cartpole", engine="kernel")
    res = run_control("sarsa_lambda", S, 1, [0], 2, env="cartpole", max_steps=5)
    assert res.engine == "batch" and res.returns.shape == (1, 2)


def test_a_method_with_only_a_reference_runs_through_it(monkeypatch):
    """A new method needs its row and its per-run reference; "auto" then runs the reference,
    and the fast engines refuse it by name."""
    new = methods.Method("my_sarsa", "my Sarsa", "#000000", "-", "control", None,
                         "sarsa_lambda", ())
    monkeypatch.setitem(methods.METHODS, "my_sarsa", new)
    assert choose_engine("my_sarsa", "cartpole", "auto", torch.float64, "cpu") == "reference"
    for engine in ("kernel", "batch"):
        with pytest.raises(ValueError, match=f"no {engine} implementation"):
            run_control("my_sarsa", S, 1, [0], 1, env="cartpole", engine=engine)
    a = run_control("my_sarsa", S, 1, [0], 3, env="cartpole", max_steps=20)
    b = run_control("sarsa_lambda", S, 1, [0], 3, env="cartpole", max_steps=20,
                    engine="reference")
    assert a.engine == "reference"
    np.testing.assert_array_equal(a.returns, b.returns)


def test_a_new_task_is_one_registry_entry(monkeypatch):
    """A task added to the registry (here: cart-pole with a 20-step cap, no kernel) runs by
    name with every engine that can run it: "auto" takes the batch, whose runs equal the
    reference's."""
    from ftd_lib.envs.cartpole import CartPoleBatch

    class ShortCartPole(CartPoleBatch):
        def __init__(self, seed, run_ids, max_steps=20):
            super().__init__(seed, run_ids, max_steps)

    new = dataclasses.replace(tasks.TASKS["cartpole"], name="short_cartpole", max_steps=20,
                              batch_cls=ShortCartPole, kernel=False, compiled=None)
    monkeypatch.setitem(tasks.TASKS, "short_cartpole", new)
    s = Settings.make(alpha=[0.05, 0.02], lam=[0.9, 0.3], gamma=0.99)
    a = run_control("forward_sarsa_lambda", s, 2, [0, 1], 8, env="short_cartpole")
    b = run_control("forward_sarsa_lambda", s, 2, [0, 1], 8, env="short_cartpole",
                    engine="reference")
    assert a.engine == "batch" and b.engine == "reference" and a.lengths.max() <= 20
    np.testing.assert_array_equal(a.returns, b.returns)
    np.testing.assert_allclose(a.final_weights, b.final_weights, rtol=0, atol=1e-10)
    with pytest.raises(ValueError, match="has no compiled dynamics"):
        run_control("forward_sarsa_lambda", s, 2, [0, 1], 1, env="short_cartpole",
                    engine="kernel")
