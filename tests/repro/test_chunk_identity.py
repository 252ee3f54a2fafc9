"""A chunk's identity -- and so its file name in the store -- never changes for the same chunk.

The store finds a finished chunk by the sha256 of its identity dict (:meth:`ChunkTask.identity`).
Moving or renaming code must not change it: a paper-scale run's chunks (hours of compute) must
still load afterwards. These pins were computed before the code moved into ``ftd_lib.repro``
(from ``ftd_lib/experiments.py``); if one fails, the change makes every stored chunk of that kind
unreachable -- bump ``STORE_VERSION`` on purpose, never by accident.
"""

import pytest

from ftd_lib.repro import store as chunk_store
from ftd_lib.repro.chunks import STORE_VERSION, cut_chunks, engine_runner_name
from ftd_lib.repro.definitions import figure

# (figure, scale, chunk_rows, chunk index, runner name, device kind) -> sha256 of the identity
PINS = [
    (("fig4-right", "paper", None, 0, "engine-sarsa_lambda-v2", "cpu"),
     "29283cae7bb2e9a6c393ce68a400328c1dfdd76ad9cbf0e6331c19fe9d665c93"),
    (("fig4-right", "paper", None, -1, "engine-forward_sarsa_lambda-v2", "cpu"),
     "971cad3f1c6ae6a8ba4c32dddcdee7383515cd40e98c77a25e9c8c31c4969219"),
    (("fig4-right", "paper", 20000, 1, "engine-sarsa_lambda-v2", "cuda"),
     "fcd3ddbefac826fc649bd3baefde5f3a3d16490ae5fba9405274430b38167c64"),
    (("fig3-left", "paper", 250, 3, "engine-td_lambda-v1", "cpu"),  # 50 runs x 5 cells: a CPU cut
     "33d7b9d8b007dc700268829476be99dc264b743fe310dd27ccaaf179b0e2546d"),
    (("fig3-left", "quick", None, 0, "engine-td_lambda-v1", "cpu"),
     "87142c2affa29527ece124413071830095e2ac65f0b7b6cff6d256c6c1543c51"),
]


def _identity(name, scale, rows, index, runner, device):
    task = cut_chunks(figure(name, scale, chunk_rows=rows))[index]
    return task.identity(runner, device)


@pytest.mark.parametrize("where, key", PINS, ids=lambda v: "-".join(map(str, v))
                         if isinstance(v, tuple) else None)
def test_identity_hash_and_file_name_are_pinned(tmp_path, where, key):
    ident = _identity(*where)
    assert chunk_store.chunk_key(ident) == key
    assert chunk_store.ChunkStore(tmp_path).path(key).name == f"{key}.npz"


def test_fig4_right_paper_chunk_identity_in_full():
    """Every field of the first Fig. 4 right chunk at paper scale (7150 rows: 11 lambda x 13
    step sizes, runs 0..49, Sarsa(lambda)), so a failing pin says which field moved."""
    ident = _identity("fig4-right", "paper", None, 0, "engine-sarsa_lambda-v2", "cpu")
    settings, run_ids = ident.pop("settings"), ident.pop("run_ids")
    assert ident == {
        "store_version": STORE_VERSION, "figure": "fig4-right", "scale": "paper",
        "task": "control", "env": "cartpole", "method": "sarsa_lambda", "seed": 2016,
        "episodes": 1000, "epsilon": 0.05, "runner": "engine-sarsa_lambda-v2", "device": "cpu",
        "max_steps": 1000, "truncation": "bootstrap"}
    assert STORE_VERSION == 1
    assert len(settings) == len(run_ids) == 7150
    assert run_ids == [r for _ in range(143) for r in range(50)]
    assert settings[0] == [5.85937e-05, 0.0, 0.99, 0.01, 0.0]
    assert settings[-1] == [0.24, 1.0, 0.99, 0.01, 0.0]
    assert {tuple(s[2:]) for s in settings} == {(0.99, 0.01, 0.0)}
    assert len({tuple(s[:2]) for s in settings}) == 143


def test_fig3_left_chunk_identity_in_full():
    ident = _identity("fig3-left", "quick", None, 0, "engine-td_lambda-v1", "cpu")
    assert ident == {
        "store_version": 1, "figure": "fig3-left", "scale": "quick", "task": "prediction",
        "env": "mountain_car", "method": "td_lambda",
        "settings": [[a, 0.9, 1.0, 0.01, 0.0] for a in (0.0075, 0.0075, 0.015, 0.015, 0.03,
                                                         0.03)],
        "run_ids": [0, 1, 0, 1, 0, 1], "seed": 2016, "episodes": 3, "epsilon": None,
        "runner": "engine-td_lambda-v1", "device": "cpu", "max_steps": None}


def test_engine_runner_name_is_the_numerics_version():
    from ftd_lib.engine import numerics_version

    for method in ("td_lambda", "forward_sarsa_lambda"):
        assert engine_runner_name(method) == f"engine-{numerics_version(method)}"
        assert engine_runner_name(method).startswith(f"engine-{method}-v")
