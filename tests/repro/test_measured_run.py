"""The measures of a finished run (scripts/measure_paper_run.py,
scripts/measure_device.py): the wall time of each figure of ``reproduce all`` adds up to the
run's, the compute seconds are its chunks' and only those it computed; the engine's count of
run-steps is the steps the runs made (a cart-pole return counts them: +1 a step)."""

import json
import time
from pathlib import Path

import numpy as np
import pytest

from ftd_lib.repro import chunks, cli
from ftd_lib.repro.definitions import FIGURES
from ftd_lib.repro.planning.cost import DEFAULT_RATES, Costing, history_dirs
from ftd_lib.repro.planning.plan import plan_figure

pytestmark = pytest.mark.slow  # whole reproduce runs


def _fake_runner(task, *, device, progress):
    v = np.tile(np.linspace(1, 0.5, task.n_episodes), (task.rows, 1))
    return {"values": v, "diverged": np.zeros(task.rows, bool)}


_fake_runner.name = "measured-fake"


def _stored_compute(out, name):
    """The slow obvious sum: every chunk file's metadata, read one by one."""
    total, n = 0.0, 0
    for p in (Path(out) / "chunks" / name).glob("*.npz"):
        with np.load(p) as z:
            total += json.loads(str(z["__meta__"]))["compute_s"]
            n += 1
    return total, n


def test_measured_run_splits_the_wall_time_by_figure_and_counts_only_new_chunks(
        tmp_path, monkeypatch, script):
    monkeypatch.setattr(chunks, "engine_runner", _fake_runner)
    out = tmp_path / "res"
    argv = ["reproduce", "all", "--scale", "quick", "--workers", "1", "--out", str(out),
            "--no-progress"]
    t0 = time.time()
    assert cli.main(argv) == 0
    t1 = time.time()
    rows = script("measure_paper_run").measured_run(out, FIGURES, 1, t0)
    assert [r["figure"] for r in rows] == list(FIGURES)
    assert all(r["wall_s"] > 0 for r in rows)
    assert 0 < sum(r["wall_s"] for r in rows) <= t1 - t0
    for r in rows:
        meta = json.loads((out / f"{r['figure']}.json").read_text())
        compute, n = _stored_compute(out, r["figure"])
        assert r["chunks"] == n == meta["chunks"]["pieces"] > 0
        assert r["compute_s"] == pytest.approx(compute)
        assert r["utilisation"] == pytest.approx(compute / r["wall_s"])
    # again: every chunk is loaded, nothing is computed after the second start
    t2 = time.time()
    assert cli.main(argv) == 0
    again = script("measure_paper_run").measured_run(out, FIGURES, 1, t2)
    assert all(r["chunks"] == 0 and r["compute_s"] == 0 for r in again)

    plans = [plan_figure(n, "quick", 1, Costing(DEFAULT_RATES, history_dirs(tmp_path / "e")),
                         out=tmp_path / "e") for n in FIGURES]
    lines = script("measure_paper_run").comparison_lines(rows, plans)
    assert len(lines) == 2 + len(FIGURES) + 1
    last = lines[-1].split(" | ")
    planned = sum(len(s.chunks) for p in plans for s in p.stages)
    assert last[0] == "| all" and last[1] == f"{sum(r['chunks'] for r in rows)} ({planned})"
    ratio = sum(r["wall_s"] for r in rows) / sum(p.wall_s for p in plans)
    assert last[4] == f"{ratio:.2f}"


def test_measure_figure_counts_the_run_steps_the_runs_made(tmp_path, script):
    """Cart-pole pays +1 a step, so a run's average return times its episodes is the steps
    it made: the engine's count in the chunks' metadata equals that sum (the real engine,
    quick Fig. 4 right, one worker)."""
    out = tmp_path / "m"
    r = script("measure_device").measure_figure("fig4-right", "quick", out,
                                                 rates=DEFAULT_RATES)
    stored = np.load(out / "fig4-right.npz")
    metric, diverged = stored["metric"], stored["diverged"]
    assert not diverged.any()
    episodes = json.loads((out / "fig4-right.json").read_text())["episodes"]
    assert r["run_steps"] == pytest.approx(float(np.sum(metric)) * episodes)
    assert r["us_per_run_step"] == pytest.approx(1e6 * r["wall_s"] / r["run_steps"])
    assert r["us_per_worker_step"] == pytest.approx(1e6 * r["compute_s"] / r["run_steps"])
    assert r["compute_s"] <= r["wall_s"]  # one worker, here
    assert r["predicted_run_steps"] > 0 and r["predicted_wall_s"] > 0
    with pytest.raises(ValueError, match="out"):
        script("measure_device").measure_figure("fig4-right", "quick", out, rates=DEFAULT_RATES)


def test_measure_paper_run_script_measures_a_finished_run(tmp_path, monkeypatch, capsys, script):
    monkeypatch.setattr(chunks, "engine_runner", _fake_runner)
    out = tmp_path / "res"
    t0 = time.time()
    assert cli.main(["reproduce", "all", "--scale", "quick", "--workers", "1", "--out",
                     str(out), "--no-progress"]) == 0
    mod = script("measure_paper_run")
    monkeypatch.setattr(mod, "calibrate", lambda *a, **k: DEFAULT_RATES)
    capsys.readouterr()
    assert mod.main(["--out", str(out), "--workers", "1", "--scale", "quick",
                        "--started", str(t0)]) == 0
    text = capsys.readouterr().out
    kept = json.loads((out / "measured.json").read_text())
    assert kept["table"][-1] in text and kept["table"][-1].startswith("| all |")
    assert [r["figure"] for r in kept["measured"]] == list(FIGURES)
    assert set(kept["predicted_wall_s"]) == {"1", "16", "64"}
    with pytest.raises(SystemExit):  # from scratch only: a folder with results is refused
        mod.main(["--out", str(out), "--workers", "1", "--scale", "quick"])


def test_measure_device_script_on_a_machine_without_a_gpu(tmp_path, monkeypatch, capsys, script):
    """The prepared GPU-machine script, tried here: the CPU run is measured and kept, the GPU
    run is skipped with one line where torch sees no CUDA device."""
    import torch

    mod = script("measure_device")
    monkeypatch.setattr(mod, "calibrate", lambda *a, **k: DEFAULT_RATES)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    path = tmp_path / "device.json"
    assert mod.main(["--json", str(path), "--scale", "quick", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    kept = json.loads(path.read_text())
    assert [r["device"] for r in kept["runs"]] == ["cpu"]
    r = kept["runs"][0]
    assert r["figure"] == "fig4-right" and r["run_steps"] > 0 and r["chunks"] > 0
    assert "µs a run-step" in text and "no CUDA device" in text
    with pytest.raises(SystemExit):
        mod.main(["--json", str(path), "--figure", "fig3-left"])
