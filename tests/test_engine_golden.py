"""Golden numbers of every engine method, guarding the numerics versions.

Stored results are keyed by :data:`ftd_lib.engine.NUMERICS_VERSION` (per method), not by the
code, so a refactoring recomputes nothing. The price: a change that alters a method's numbers
must bump its version, or old chunks would be mixed with new ones. This test fails when a
method's numbers differ from those recorded for its current version.

After a deliberate change of numbers: bump the method's version in
``ftd_lib/engine/__init__.py``, then record the new numbers with
``python tests/test_engine_golden.py`` and commit ``tests/golden/engine_numerics.json``.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from ftd_lib.engine import NUMERICS_VERSION, Settings, run_control, run_prediction

GOLDEN = Path(__file__).parent / "golden" / "engine_numerics.json"
SEED = 2016
PREDICTION = ("td0", "td_lambda", "forward_td_lambda", "online_lambda_return",
              "offline_lambda_return", "block_lambda_return")  # block: k_max is B


def numbers(method: str, engine: str = "batch") -> dict:
    """A small, fixed workload of ``method`` on the paper's tasks: its numbers (control: from
    the batched engine, or from the compiled kernel, which must give the same)."""
    if method in PREDICTION:
        s = Settings.make(alpha=[0.01, 0.03], lam=[0.9, 0.5], gamma=1.0, eta=0.01,
                          k_max=[None, 3])
        r = run_prediction(method, s, SEED, [0, 1], 2, n_eval=50)
        return {"errors": r.errors.tolist(), "w": r.final_weights[:, :6].tolist()}
    out = {}
    for env, cap, n_ep in (("cartpole", 8, 4), ("mountain_car", 80, 2)):
        for trunc in ("bootstrap", "terminal"):
            s = Settings.make(alpha=[0.01, 0.003, 0.005], lam=[0.9, 0.0, 1.0],
                              gamma=0.99 if env == "cartpole" else 1.0)
            r = run_control(method, s, SEED, [0, 1, 2], n_ep, env=env, max_steps=cap,
                            truncation=trunc, width=2, engine=engine)
            out[f"{env}-{trunc}"] = {"returns": r.returns.tolist(),
                                     "w": r.final_weights[:, :, :6].tolist()}
    return out


def _stored() -> dict:
    return json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}


CASES = [(m, "batch") for m in sorted(NUMERICS_VERSION)] + [
    (m, "kernel") for m in sorted(NUMERICS_VERSION) if m not in PREDICTION]


@pytest.mark.parametrize("method,engine", CASES)
def test_numbers_match_the_numerics_version(method, engine):
    """Every method's numbers, and for control those of both engines (the compiled kernel
    shares the batch's numerics version: it must give its numbers exactly)."""
    got = _stored().get(method)
    assert got is not None, f"no golden numbers for {method}: run python {__file__}"
    assert got["version"] == NUMERICS_VERSION[method], (
        f"{method} is at numerics version {NUMERICS_VERSION[method]}, the golden numbers at "
        f"{got['version']}: record them again (python {__file__})")
    now = numbers(method, engine)
    for key in got["numbers"]:
        a, b = got["numbers"][key], now[key]
        if isinstance(a, dict):
            np.testing.assert_array_equal(b["returns"], a["returns"],
                                          err_msg=f"{method} {key}: returns changed without "
                                                  "a NUMERICS_VERSION bump")
            np.testing.assert_allclose(b["w"], a["w"], rtol=1e-9, atol=1e-12,
                                       err_msg=f"{method} {key}: weights changed without a "
                                               "NUMERICS_VERSION bump")
        else:
            np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-12,
                                       err_msg=f"{method} {key}: numbers changed without a "
                                               "NUMERICS_VERSION bump")


def test_golden_numbers_tell_methods_apart():
    """The workloads are not degenerate: different methods give different numbers."""
    g = _stored()
    assert g["td_lambda"]["numbers"]["errors"] != g["forward_td_lambda"]["numbers"]["errors"]
    a = g["sarsa_lambda"]["numbers"]["cartpole-bootstrap"]["w"]
    b = g["forward_sarsa_lambda"]["numbers"]["cartpole-bootstrap"]["w"]
    assert a != b
    c = g["sarsa_lambda"]["numbers"]["cartpole-terminal"]["w"]
    assert a != c  # the cap's meaning matters in this workload


if __name__ == "__main__":
    data = {m: {"version": NUMERICS_VERSION[m], "numbers": numbers(m)}
            for m in sorted(NUMERICS_VERSION)}
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {GOLDEN}")
