"""Golden numbers of every engine method, guarding the numerics versions.

Stored results are keyed by :data:`ftd_lib.engine.NUMERICS_VERSION` (per method), not by the
code, so a refactoring recomputes nothing. The price: a change that alters a method's numbers
must bump its version, or old chunks would be mixed with new ones. These tests fail when a
method's numbers differ from those recorded for its current version.

- prediction (``golden/engine_numerics.json``): the batched engine, to 1e-9;
- control (``golden/control.json``): workloads in which the runs learn (cart-pole returns
  that grow, mountain car episodes that reach the goal), runs that diverge and episodes cut by
  the cap. The compiled kernel made them: it must give them bit for bit (returns, lengths,
  divergence, steps, and a SHA-256 of all final weights); the per-run reference and the batch
  must give the same returns and the first weights of every network to 1e-10. The file also
  records the versions and machine it was made with.

After a deliberate change of numbers: bump the method's version in ``ftd_lib/methods.py``,
then record the new numbers with ``python tests/engine/test_engine_golden.py`` and commit
``tests/engine/golden/``.
"""

import hashlib
import json
import platform
from pathlib import Path

import numpy as np
import pytest

from ftd_lib.engine import NUMERICS_VERSION, Settings, run_control, run_prediction
from ftd_lib.methods import CONTROL, PREDICTION

GOLDEN = Path(__file__).parent / "golden" / "engine_numerics.json"
GOLDEN_CONTROL = Path(__file__).parent / "golden" / "control.json"
SEED = 2016
HEAD = 8  # weights per network stored as numbers (all of them enter the hash)

#: control workloads: (env, cap, episodes, truncation, gamma, run ids, alphas, lambdas)
WORKLOADS = {
    # learning: run 0's returns double within 60 episodes; alpha 0.1 diverges for Sarsa
    "cartpole": ("cartpole", 200, 60, "bootstrap", 0.99, [0, 1, 2, 3],
                 [0.03, 0.03, 0.1, 0.01], [0.0, 0.9, 0.6, 0.6]),
    # short cap as a terminal state, lambda = 1 (K beyond the cap)
    "cartpole-cap": ("cartpole", 25, 40, "terminal", 0.99, [0, 1, 2],
                     [0.05, 0.03, 0.1], [0.5, 1.0, 0.8]),
    # episodes that reach the goal, and runs that diverge (Sarsa, alpha 0.02)
    "mountain_car": ("mountain_car", 500, 3, "bootstrap", 1.0, [4, 5, 6, 7],
                     [0.02, 0.003, 0.003, 0.005], [0.9, 0.6, 0.6, 0.9]),
}


def prediction_numbers(method: str) -> dict:
    """A small, fixed workload of a prediction method on mountain car evaluation (for the
    block lambda-return method, k_max is the block length B)."""
    s = Settings.make(alpha=[0.01, 0.03], lam=[0.9, 0.5], gamma=1.0, eta=0.01,
                      k_max=[None, 3])
    r = run_prediction(method, s, SEED, [0, 1], 2, n_eval=50)
    return {"errors": r.errors.tolist(), "w": r.final_weights[:, :6].tolist()}


def weights_hash(w) -> str:
    """SHA-256 of the weights as little-endian float64 (bit for bit)."""
    return hashlib.sha256(np.ascontiguousarray(w, dtype="<f8").tobytes()).hexdigest()


def control_numbers(method: str, workload: str, engine: str) -> dict:
    env, cap, n_ep, trunc, gamma, ids, alphas, lams = WORKLOADS[workload]
    s = Settings.make(alpha=alphas, lam=lams, gamma=gamma)
    r = run_control(method, s, SEED, ids, n_ep, env=env, max_steps=cap, truncation=trunc,
                    engine=engine)
    return {"returns": r.returns.tolist(), "lengths": r.lengths.tolist(),
            "diverged_at": r.diverged_at.tolist(), "n_steps": r.n_steps.tolist(),
            "w_head": r.final_weights[:, :, :HEAD].tolist(),
            "w_sha256": weights_hash(r.final_weights)}


def machine() -> dict:
    """The versions and machine the golden numbers were made with."""
    import llvmlite
    import numba
    import torch

    from ftd_lib.engine.premises import cpu_path

    return {"python": platform.python_version(), "numpy": np.__version__,
            "numba": numba.__version__, "llvmlite": llvmlite.__version__,
            "torch": torch.__version__, "torch_cpu_path": cpu_path(),
            "machine": platform.machine(), "system": platform.system()}


def _load(path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def _golden_control(method):
    got = _load(GOLDEN_CONTROL).get("methods", {}).get(method)
    assert got is not None, f"no golden numbers for {method}: run python {__file__}"
    assert got["version"] == NUMERICS_VERSION[method], (
        f"{method} is at numerics version {NUMERICS_VERSION[method]}, the golden numbers at "
        f"{got['version']}: record them again (python {__file__})")
    return got["workloads"]


@pytest.mark.parametrize("method", [m for m in PREDICTION if m in NUMERICS_VERSION])
def test_prediction_numbers_match_the_numerics_version(method):
    got = _load(GOLDEN).get(method)
    assert got is not None, f"no golden numbers for {method}: run python {__file__}"
    assert got["version"] == NUMERICS_VERSION[method]
    now = prediction_numbers(method)
    for key, a in got["numbers"].items():
        np.testing.assert_allclose(now[key], a, rtol=1e-9, atol=1e-12,
                                   err_msg=f"{method} {key}: numbers changed without a "
                                           "NUMERICS_VERSION bump")


@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("method", CONTROL)
def test_the_kernel_gives_its_golden_numbers_bit_for_bit(method, workload):
    gold = _golden_control(method)[workload]
    now = control_numbers(method, workload, "kernel")
    where = f"{method} {workload} (recorded with {_load(GOLDEN_CONTROL)['recorded_with']})"
    for key in ("returns", "lengths", "diverged_at", "n_steps", "w_head"):
        np.testing.assert_array_equal(now[key], gold[key], err_msg=f"{where}: {key} changed "
                                      "without a NUMERICS_VERSION bump")
    assert now["w_sha256"] == gold["w_sha256"], f"{where}: final weights changed"


@pytest.mark.parametrize("engine", ["reference", "batch"])
@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("method", CONTROL)
def test_the_reference_and_the_batch_give_the_golden_numbers(method, workload, engine):
    """The same learning, step for step: returns, lengths and divergence exactly, weights to
    1e-10 (the engines round differently from the reference's numpy network)."""
    gold = _golden_control(method)[workload]
    now = control_numbers(method, workload, engine)
    for key in ("returns", "lengths", "diverged_at", "n_steps"):
        np.testing.assert_array_equal(now[key], gold[key], err_msg=f"{engine}: {key}")
    np.testing.assert_allclose(now["w_head"], gold["w_head"], rtol=0, atol=1e-10)


def test_the_golden_workloads_can_fail():
    """The control workloads are not degenerate: returns vary within runs, some runs learn,
    some diverge, and the two methods and the two meanings of the cap give different
    numbers."""
    g = {m: _golden_control(m) for m in CONTROL}
    for m in CONTROL:
        for name, w in g[m].items():
            r = np.array(w["returns"], dtype=float)
            assert len(np.unique(r[np.isfinite(r)])) >= 3, (m, name)
    cp = np.array(g["forward_sarsa_lambda"]["cartpole"]["returns"], dtype=float)
    assert np.nanmean(cp[0, -10:]) > 1.5 * np.nanmean(cp[0, :10])  # it learns
    mc = np.array(g["forward_sarsa_lambda"]["mountain_car"]["returns"], dtype=float)
    assert (mc > -500).sum() >= 4  # episodes that reach the goal
    assert any(d >= 0 for w in g["sarsa_lambda"].values() for d in w["diverged_at"])
    assert g["sarsa_lambda"]["cartpole"]["w_sha256"] != g["forward_sarsa_lambda"][
        "cartpole"]["w_sha256"]


if __name__ == "__main__":
    pred = {m: {"version": NUMERICS_VERSION[m], "numbers": prediction_numbers(m)}
            for m in PREDICTION if m in NUMERICS_VERSION}
    GOLDEN.write_text(json.dumps(pred, indent=1) + "\n")
    control = {"recorded_with": machine(), "seed": SEED,
               "workloads": {k: dict(zip(("env", "cap", "episodes", "truncation", "gamma",
                                          "run_ids", "alphas", "lambdas"), v, strict=True))
                             for k, v in WORKLOADS.items()},
               "methods": {m: {"version": NUMERICS_VERSION[m],
                               "workloads": {k: control_numbers(m, k, "kernel")
                                             for k in WORKLOADS}} for m in CONTROL}}
    GOLDEN_CONTROL.write_text(json.dumps(control, indent=1) + "\n")
    print(f"wrote {GOLDEN} and {GOLDEN_CONTROL}")
