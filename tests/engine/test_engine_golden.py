"""Golden numbers of every engine method, guarding the numerics versions.

Stored results are keyed by :data:`ftd_lib.engine.NUMERICS_VERSION` (per method), not by the
code, so a refactoring recomputes nothing. The price: a change that alters a method's numbers
must bump its version, or old chunks would be mixed with new ones. These tests fail when a
method's numbers differ from those recorded for its current version.

- prediction (``golden/engine_numerics.json``): the batched engine, to 1e-9;
- control (``golden/control.json``): workloads in which the runs learn (cart-pole returns
  that grow, mountain car episodes that reach the goal), runs that diverge and episodes cut by
  the cap. The first engine a method has of kernel, batch, reference made them
  (``recorded_by``): it must give them bit for bit (returns, lengths, divergence, steps, and
  a SHA-256 of all final weights); the other engines must give the same returns and the
  first weights of every network to 1e-10. The file also records the versions and machine it
  was made with, a method's own workloads (``own_workloads``, why in ``notes``) and how far
  each workload is from its nearest flip (``margin``, ``test_engine_golden_chaos.py``).

Bit for bit on every CPU: a hash holds only where the recorder computes the same bits on
every CPU path, not just on the one it was recorded on. The compiled kernel does (numba,
every product and sum in the order written, its own fused multiply-add and exponential); the
per-run references do, since their network (:class:`ftd_lib.approx.MLP`) sums in a fixed
order and takes its :math:`\tanh` from :mod:`ftd_lib.portable` instead of BLAS (whose kernel
OpenBLAS picks per CPU: ``OPENBLAS_CORETYPE``) and ``np.tanh`` (vectorised per CPU:
``NPY_DISABLE_CPU_FEATURES``). The torch batch does not (its rounding follows torch's CPU
path, ``ATEN_CPU_CAPABILITY``): it never records, it is held to 1e-10. ``test.sh`` runs these
tests a second time on other CPU paths of torch, OpenBLAS, numpy and numba.

Not chaotic: a workload whose returns flip with the last bit of a weight (a run that reaches
the goal with one rounding and not with another, a slow divergence that crosses the bound a
step earlier or later) tests rounding, not the method. ``test_engine_golden_chaos.py`` runs
every workload through each method's reference with the rounding perturbed several ways, and
each must give the same returns, lengths, divergence and steps. A workload on an edge for one
method is moved for that method only (:data:`OWN_WORKLOADS`, with the reason, which the golden
file records), so the other methods' numbers stay as they were.

After a deliberate change of numbers: bump the method's version in ``ftd_lib/methods.py``,
then record the new numbers with ``python tests/engine/test_engine_golden.py [METHOD ...]``
(the named methods, or all) and commit ``tests/engine/golden/``. Every test covers the
methods that have its engine and skips the others by name, so a method with only a per-run
reference (``watkins_q_lambda``) is guarded by its reference. The recorder computes
everything before it writes, so a failing method leaves the files as they were.
"""

import hashlib
import json
import platform
from pathlib import Path

import numpy as np
import pytest

from ftd_lib.engine import NUMERICS_VERSION, Settings, run_control, run_prediction
from ftd_lib.methods import CONTROL, PREDICTION, example_params, implemented, method

#: the control methods with golden numbers: those with a numerics version (a method without
#: one joins no experiment, so no stored result depends on its numbers)
GOLDEN_METHODS = [m for m in CONTROL if m in NUMERICS_VERSION]

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
    # episodes that reach the goal, and a run that diverges fast (alpha 1.0: within 50 steps
    # for every method; at 0.02 Sarsa took 387 steps to cross the bound, and at 0.3 Expected
    # Sarsa 258, and one more rounding moved that step)
    "mountain_car": ("mountain_car", 500, 3, "bootstrap", 1.0, [4, 5, 6, 7, 8],
                     [1.0, 0.003, 0.003, 0.005, 0.005], [0.9, 0.6, 0.6, 0.9, 0.9]),
}
#: the names of a workload's fields (in the golden file)
FIELDS = ("env", "cap", "episodes", "truncation", "gamma", "run_ids", "alphas", "lambdas")

#: a method's own version of a workload that sits on a rounding edge for it alone: the fields
#: it changes, and why (recorded in the golden file's ``notes``)
OWN_WORKLOADS = {
    "expected_sarsa": {
        name: ({"alphas": alphas}, "run 2 at alpha 0.3, not the shared 0.1: at 0.1 it diverged "
               "slowly (the bound crossed in episode 16, at the run's step 168) and that step "
               "moved with the rounding (167 with tanh one unit in the last place lower or the "
               "first weights one unit further from zero; episode 20 with numpy's textbook "
               "network on an AVX-512 CPU's OpenBLAS kernels); at 0.3 it diverges in episode 3, "
               "at step 30")
        for name, alphas in (("cartpole", [0.03, 0.03, 0.3, 0.01]),
                             ("cartpole-cap", [0.05, 0.03, 0.3]))},
}


def workload_of(method: str, name: str) -> tuple:
    """The workload ``name`` as ``method`` runs it: the shared one, with the method's own
    changes (:data:`OWN_WORKLOADS`)."""
    changes = OWN_WORKLOADS.get(method, {}).get(name, ({}, ""))[0]
    return tuple(changes.get(f, v) for f, v in zip(FIELDS, WORKLOADS[name], strict=True))


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


def control_numbers(method: str, workload: str, engine: str, w0=None) -> dict:
    """The numbers of ``method``'s ``workload`` by ``engine`` (first weights ``w0``: default,
    the runs' own)."""
    env, cap, n_ep, trunc, gamma, ids, alphas, lams = workload_of(method, workload)
    s = Settings.make(alpha=alphas, lam=lams, gamma=gamma)
    r = run_control(method, s, SEED, ids, n_ep, env=env, max_steps=cap, truncation=trunc,
                    engine=engine, params=example_params(method),  # its row's example params
                    w0=w0)
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


def first_engine(m: str) -> str:
    """The engine a method's golden numbers are recorded by: kernel, else batch, else its
    per-run reference."""
    return next(e for e in ("kernel", "batch", "reference") if m in implemented("control", e))


def _has(m: str, engine: str) -> None:
    """Skip, naming the method, a test of an engine the method does not have."""
    if m not in implemented(method(m).kind, engine):
        pytest.skip(f"{m} has no {engine} implementation (ftd_lib/methods.py)")


def _golden_control(method):
    got = _load(GOLDEN_CONTROL).get("methods", {}).get(method)
    assert got is not None, f"no golden numbers for {method}: run python {__file__} {method}"
    assert got["version"] == NUMERICS_VERSION[method], (
        f"{method} is at numerics version {NUMERICS_VERSION[method]}, the golden numbers at "
        f"{got['version']}: record them again (python {__file__} {method})")
    assert got.get("own_workloads", {}) == own_workloads(method), (
        f"{method}'s own workloads (OWN_WORKLOADS) are not those its golden numbers were "
        f"recorded with: record them again (python {__file__} {method})")
    return got["workloads"]


def own_workloads(method: str) -> dict:
    """``method``'s own workloads (:data:`OWN_WORKLOADS`) as the golden file records them."""
    return {name: dict(zip(FIELDS, workload_of(method, name), strict=True))
            for name in OWN_WORKLOADS.get(method, {})}


@pytest.mark.parametrize("method", [m for m in PREDICTION if m in NUMERICS_VERSION])
def test_prediction_numbers_match_the_numerics_version(method):
    _has(method, "batch")
    got = _load(GOLDEN).get(method)
    assert got is not None, f"no golden numbers for {method}: run python {__file__} {method}"
    assert got["version"] == NUMERICS_VERSION[method]
    now = prediction_numbers(method)
    for key, a in got["numbers"].items():
        np.testing.assert_allclose(now[key], a, rtol=1e-9, atol=1e-12,
                                   err_msg=f"{method} {key}: numbers changed without a "
                                           "NUMERICS_VERSION bump")


@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("method", GOLDEN_METHODS)
def test_the_kernel_gives_its_golden_numbers_bit_for_bit(method, workload):
    _has(method, "kernel")
    gold = _golden_control(method)[workload]
    now = control_numbers(method, workload, "kernel")
    where = f"{method} {workload} (recorded with {_load(GOLDEN_CONTROL)['recorded_with']})"
    for key in ("returns", "lengths", "diverged_at", "n_steps", "w_head"):
        np.testing.assert_array_equal(now[key], gold[key], err_msg=f"{where}: {key} changed "
                                      "without a NUMERICS_VERSION bump")
    assert now["w_sha256"] == gold["w_sha256"], f"{where}: final weights changed"


@pytest.mark.parametrize("engine", ["reference", "batch"])
@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("method", GOLDEN_METHODS)
def test_the_reference_and_the_batch_give_the_golden_numbers(method, workload, engine):
    """The same learning, step for step: returns, lengths and divergence exactly, weights to
    1e-10 (the engines round differently from the reference's numpy network); where the
    reference recorded them, it gives them bit for bit."""
    _has(method, engine)
    gold = _golden_control(method)[workload]
    now = control_numbers(method, workload, engine)
    for key in ("returns", "lengths", "diverged_at", "n_steps"):
        np.testing.assert_array_equal(now[key], gold[key], err_msg=f"{engine}: {key}")
    np.testing.assert_allclose(now["w_head"], gold["w_head"], rtol=0, atol=1e-10)
    if first_engine(method) == engine:
        assert now["w_sha256"] == gold["w_sha256"]


def test_the_golden_workloads_can_fail():
    """The control workloads are not degenerate: returns vary within runs, some runs learn,
    some diverge, and the two methods and the two meanings of the cap give different
    numbers."""
    g = {m: _golden_control(m) for m in GOLDEN_METHODS}
    for m in GOLDEN_METHODS:
        for name, w in g[m].items():
            if name == "mountain_car" and m not in ("sarsa_lambda", "forward_sarsa_lambda"):
                continue  # tuned for the paper's methods; 3 episodes do not reach the goal
            r = np.array(w["returns"], dtype=float)
            assert len(np.unique(r[np.isfinite(r)])) >= 3, (m, name)
    cp = np.array(g["forward_sarsa_lambda"]["cartpole"]["returns"], dtype=float)
    assert np.nanmean(cp[0, -10:]) > 1.5 * np.nanmean(cp[0, :10])  # it learns
    mc = np.array(g["forward_sarsa_lambda"]["mountain_car"]["returns"], dtype=float)
    assert (mc > -500).sum() >= 4  # episodes that reach the goal
    assert any(d >= 0 for w in g["sarsa_lambda"].values() for d in w["diverged_at"])
    assert g["sarsa_lambda"]["cartpole"]["w_sha256"] != g["forward_sarsa_lambda"][
        "cartpole"]["w_sha256"]


def record(names=None) -> None:
    """Record the golden numbers of the methods ``names`` (default: all), keeping the
    others'; computed first, then written."""
    pred = _load(GOLDEN)
    control = _load(GOLDEN_CONTROL)
    ctl = dict(control.get("methods", {}))
    for m in names or [*PREDICTION, *CONTROL]:
        if method(m).kind == "prediction" and m in implemented("prediction", "batch"):
            if m in NUMERICS_VERSION:
                pred[m] = {"version": NUMERICS_VERSION[m], "numbers": prediction_numbers(m)}
        elif method(m).kind == "control" and m in NUMERICS_VERSION:
            e = first_engine(m)
            ctl[m] = {"version": NUMERICS_VERSION[m], "recorded_by": e,
                      "workloads": {k: control_numbers(m, k, e) for k in WORKLOADS}}
            if m in OWN_WORKLOADS:
                ctl[m] |= {"own_workloads": own_workloads(m),
                           "notes": {k: why for k, (_, why) in OWN_WORKLOADS[m].items()}}
    control = {"recorded_with": control.get("recorded_with") if names else machine(),
               "seed": SEED,
               "workloads": {k: dict(zip(FIELDS, v, strict=True))
                             for k, v in WORKLOADS.items()},
               "methods": ctl}
    GOLDEN.write_text(json.dumps(pred, indent=1) + "\n")
    GOLDEN_CONTROL.write_text(json.dumps(control, indent=1) + "\n")
    print(f"wrote {GOLDEN} and {GOLDEN_CONTROL}")


if __name__ == "__main__":
    import sys

    record(sys.argv[1:] or None)
