"""The engine's K sweep (ftd_lib/engine/bench_k.py, scripts/measure_engine_k_sweep.py,
results/engine_k_sweep.json): what it counts, what it stores, and that what the bench and
notebook 04 say of the stored measurement holds for it. No clock is asserted on."""

import json
import runpy
from pathlib import Path

import pytest

from ftd_lib.engine import bench_k

pytestmark = pytest.mark.slow  # the K sweep script

REPO = Path(__file__).resolve().parents[2]
STORED = REPO / "results" / "engine_k_sweep.json"


def test_the_sweep_counts_the_work_of_each_loop():
    """Counted: the kernel's forward TD(lambda) computes TD(0)'s values and updates at every
    K; the batch's iterations are about one per step at every K, but from K = 2 on some of
    them carry a flushing or a double-stepping row (costing the whole batch)."""
    rec = {e: bench_k.sweep(6, engine=e, ks=(1, 2, 20), repeats=1) for e in ("kernel", "batch")}
    for p in rec["kernel"]["points"]:
        assert p["counts_forward"] == p["counts_td0"]
        assert p["counts_forward"]["updates"] == p["steps"]
        assert p["iterations_per_step_forward"] == 1.0
    per_step = [p["iterations_per_step_forward"] for p in rec["batch"]["points"]]
    assert max(per_step) - min(per_step) < 0.05
    k1, k2, k20 = rec["batch"]["points"]
    assert k1["counts_forward"]["flush"] == k1["counts_forward"]["double"] == 0
    assert 0 < k2["counts_forward"]["flush"] < k20["counts_forward"]["flush"]
    assert k20["counts_forward"]["double"] > 0
    assert {"start", "end"} == set(rec["batch"]["load_average"])
    with pytest.raises(ValueError, match="engine"):
        bench_k.run_once("gpu", "td0", bench_k.workload(2), bench_k.settings_for_k(1, 2), None)
    with pytest.raises(ValueError, match="repeats"):
        bench_k.sweep(2, repeats=0)
    for bad in (True, "0.1", -1.0):
        with pytest.raises(ValueError, match="min_seconds"):
            bench_k.sweep(2, repeats=1, min_seconds=bad)


def test_a_turn_repeats_a_fast_workload_to_last_min_seconds(monkeypatch):
    """``min_seconds``: both methods' turns run the workload ``inner`` times (the same for
    both, from the warm-up round's faster turn); us per run-step stay per single run-step.
    Worked by hand with a stand-in run: TD(0) 10 ms, forward 20 ms, 100 run-steps each, so
    inner = ceil(0.05 / 0.01) = 5, 5 * 10 ms / (5 * 100) = 100 us, ratio 2."""
    calls = []

    def fake(engine, method, rows, settings, w0):
        calls.append(method)
        sec = 0.01 if method == "td0" else 0.02
        return (sec, sec), 100, 100, {"values": 1, "updates": 1}

    monkeypatch.setattr(bench_k, "run_once", fake)
    rec = bench_k.sweep(2, engine="kernel", ks=(3,), repeats=2, min_seconds=0.05,
                        rows=[[], []])
    p = rec["points"][0]
    assert p["inner"] == 5 and rec["min_seconds"] == 0.05
    assert p["us_td0"] == pytest.approx(100.0) and p["us_forward"] == pytest.approx(200.0)
    assert p["ratio"] == pytest.approx(2.0)
    assert calls == ["td0", "forward_td_lambda"] + (["td0"] * 5 + ["forward_td_lambda"] * 5) * 2


def test_the_script_writes_what_the_notebook_reads(tmp_path):
    from ftd_lib.course.nb04_forward_td_lambda import format_engine_sweep, stored_engine_sweep

    out = tmp_path / "sweep.json"
    main = runpy.run_path(str(REPO / "scripts" / "measure_engine_k_sweep.py"))["main"]
    assert main(["--repeats", "1", "--runs", "3", "--ks", "1", "3", "--out", str(out)]) == 0
    rec = stored_engine_sweep(out)
    assert [(s["engine"], s["n_runs"]) for s in rec["sweeps"]] == [("kernel", 3), ("batch", 3)]
    assert [p["K"] for p in rec["sweeps"][0]["points"]] == [1, 3]
    assert out.with_suffix(".png").stat().st_size > 0
    for sw in rec["sweeps"]:  # what a closing note quotes: flatness, us per run-step, spreads
        pts = sw["points"]
        assert sw["flatness"] == max(p["ratio"] for p in pts) - min(p["ratio"] for p in pts)
        for m in ("forward", "td0"):
            assert sw["us_per_run_step"][m] == [min(p[f"us_{m}"] for p in pts),
                                                max(p[f"us_{m}"] for p in pts)]
            assert all(p[f"us_{m}_min"] <= p[f"us_{m}"] <= p[f"us_{m}_max"] for p in pts)
    assert "code" in rec
    assert "measured" in format_engine_sweep(rec).splitlines()[-1]


def test_the_stored_sweep_is_the_scripts_and_the_claims_hold_for_it():
    rec = json.loads(STORED.read_text())
    assert rec["command"].startswith("scripts/measure_engine_k_sweep.py --repeats")
    assert sorted((s["engine"], s["n_runs"]) for s in rec["sweeps"]) == [
        ("batch", 200), ("batch", 1000), ("kernel", 200), ("kernel", 1000)]
    for s in rec["sweeps"]:
        assert [p["K"] for p in s["points"]] == list(bench_k.KS) and s["repeats"] >= 7
        assert all(p["ratio_min"] <= p["ratio"] <= p["ratio_max"] for p in s["points"])
        if s["engine"] == "kernel":
            assert all(p["counts_forward"] == p["counts_td0"] for p in s["points"])
    assert {"cpu", "cpu_count"} <= set(rec["machine"])
    claims = bench_k.sweep_claims(rec, **NOTEBOOK_CLAIMS)
    assert claims and all(claims.values()), claims
    # the claims can fail
    worse = json.loads(STORED.read_text())
    worse["sweeps"][0]["points"][-1]["ratio"] = 2.0
    assert not all(bench_k.sweep_claims(worse, **NOTEBOOK_CLAIMS).values())


#: what notebook 04 says of the stored sweep: "about what TD(0) costs at every K"
NOTEBOOK_CLAIMS = dict(target=1.15)
