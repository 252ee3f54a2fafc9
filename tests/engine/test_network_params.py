"""The network -- hidden units, activation (tanh or sigmoid), first weights (uniform,
zero-output, small) -- a plain parameter of ``run_control`` in every engine (the compiled
kernel, the torch batch, the per-run reference), so it works on every task, and a set-up of
the network only runs through it on any task (a set-up of mountain car's inputs or starts
stays the kernel's). About 30 s."""

import numpy as np
import pytest

from ftd_lib.engine import INITS, Settings, initial_weights, run_control
from ftd_lib.repro import chunks
from ftd_lib.repro.chunks import ChunkTask, engine_runner

S = Settings.make(alpha=[0.03, 0.1, 0.01], lam=[0.0, 0.9, 0.6], gamma=0.99)


@pytest.mark.parametrize("method", ["sarsa_lambda", "forward_sarsa_lambda"])
@pytest.mark.parametrize("activation, init, units", [("sigmoid", "uniform", 20),
                                                     ("tanh", "zero-output", 50),
                                                     ("sigmoid", "small", 7)])
def test_every_engine_runs_the_network_it_is_given(method, activation, init, units):
    kw = dict(env="cartpole", max_steps=60, activation=activation, init=init, n_hidden=units)
    ref = run_control(method, S, 7, [0, 1, 2], 6, engine="reference", **kw)
    assert ref.final_weights.shape == (3, 2, units * (4 + 2) + 1)
    for engine in ("kernel", "batch"):
        got = run_control(method, S, 7, [0, 1, 2], 6, engine=engine, **kw)
        np.testing.assert_array_equal(got.returns, ref.returns, err_msg=engine)
        np.testing.assert_array_equal(got.diverged_at, ref.diverged_at)
        np.testing.assert_allclose(got.final_weights, ref.final_weights, rtol=0, atol=1e-10)
    plain = run_control(method, S, 7, [0, 1, 2], 6, engine="reference", env="cartpole",
                        max_steps=60, n_hidden=units)
    assert not np.allclose(plain.final_weights, ref.final_weights)  # it made a difference


def test_a_task_without_the_kernel_takes_the_network_too():
    """Acrobot (the batch, beside the kernel's pieces): the batch and the reference agree on
    a sigmoid network of 10."""
    kw = dict(env="acrobot", max_steps=40, activation="sigmoid", init="small", n_hidden=10)
    ref = run_control("sarsa_lambda", S, 3, [0, 1, 2], 2, engine="reference", **kw)
    got = run_control("sarsa_lambda", S, 3, [0, 1, 2], 2, engine="batch", **kw)
    assert got.engine == "batch"
    np.testing.assert_array_equal(got.returns, ref.returns)
    # the reference's sigmoid is ftd_lib.portable's (the same bits on every CPU), the batch's
    # torch's own vectorised one: a last-bit difference per step, 1.4e-10 (4e-11 relative)
    # after these runs on this machine, so relative to the weights' size
    np.testing.assert_allclose(got.final_weights, ref.final_weights, rtol=1e-9, atol=1e-10)


def test_the_first_weights_by_hand():
    w = {i: initial_weights(5, [0, 1], 2, 6, n_nets=3, init=i) for i in INITS}
    out = slice(6 * 3, None)  # w2 (6) and b2 (1) after W1 (6 x 2) and b1 (6)
    assert np.all(w["zero-output"][..., out] == 0)
    np.testing.assert_array_equal(w["zero-output"][..., :out.start], w["uniform"][..., :out.start])
    np.testing.assert_array_equal(w["small"], 0.1 * w["uniform"])
    assert (np.abs(w["uniform"][..., :12]) <= 1 / np.sqrt(2)).all()


@pytest.mark.parametrize("kw, name", [({"activation": "relu"}, "activation"),
                                      ({"init": "zeros"}, "init")])
def test_a_bad_network_is_one_error_naming_it(kw, name):
    with pytest.raises(ValueError, match=f"^{name} must be one of"):
        run_control("sarsa_lambda", S, 7, [0, 1, 2], 1, env="cartpole", **kw)


def _task(env, variant):
    return ChunkTask("t", "quick", "control", env, "forward_sarsa_lambda", np.zeros(2, int),
                     S.select([0, 1]).as_array(), np.array([0, 1]), 7, 3, 0.05, 50,
                     "bootstrap", variant)


def test_a_network_set_up_runs_in_every_engine_with_the_kernel_s_numbers(monkeypatch):
    """A set-up of the network only (the claim-5 study's sigmoid, zero-output and small
    variants, a network of 20 on any task) goes through ``run_control``; on a kernel task it
    gives the study's kernel runner's numbers bit for bit (its stored chunks stay right)."""
    from ftd_lib.repro.setups import run_variant

    v = {"name": "n", "hidden": "sigmoid", "inputs": "symmetric", "start": "bottom",
         "init": "small", "n_hidden": 20}
    new = engine_runner(_task("mountain_car", v))
    old = run_variant(_task("mountain_car", v), chunks.engine_settings(S.select([0, 1]).as_array()))
    assert new["engine"] == "kernel"
    np.testing.assert_array_equal(new["values"], old.curves)
    acro = engine_runner(_task("acrobot", v))
    assert acro["engine"] == "kernel" and acro["values"].shape == (2, 3)  # (its pieces)
    # inputs or starts of mountain car stay with the kernel's runner
    called = []
    monkeypatch.setattr("ftd_lib.repro.setups.run_variant",
                        lambda task, s, progress: called.append(task) or run_variant(task, s))
    engine_runner(_task("mountain_car", {**v, "start": "anywhere"}))
    assert len(called) == 1


def test_a_file_s_network_keys_run_on_a_task_without_the_kernel():
    """``[network]`` on acrobot (Sarsa(λ) as the kernel's pieces) with Watkins's Q(λ) (a
    reference only) loads and every chunk runs, in the engines that have the method."""
    from ftd_lib.repro.experiment import experiment_path, load_experiment

    fig, _ = load_experiment(experiment_path("acrobot-watkins"), "quick",
                             ["network.activation=sigmoid", "network.hidden_units=10",
                              "runs=1", "episodes=1", "task.cap=20", "grid.alphas=[0.01]",
                              "grid.lams=[0.5]"])
    done = {t.method: engine_runner(t) for t in chunks.cut_chunks(fig)}
    assert {m: r["engine"] for m, r in done.items()} == {"sarsa_lambda": "kernel",
                                                         "watkins_q_lambda": "reference"}
    assert all(np.isfinite(r["values"]).all() for r in done.values())
