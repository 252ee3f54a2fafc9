"""The command line: argument errors name the parameter; reproduce/report end to end."""

import json
import subprocess
import sys

import numpy as np
import pytest

from ftd_lib.repro import chunks, cli
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.results import load_results
from ftd_lib.repro.runs import run_figure

pytestmark = pytest.mark.slow  # reproduce end to end, in subprocesses


def _error(capsys, argv) -> str:
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("argv, name", [
    (["reproduce", "fig5", "--scale", "quick"], "figure"),
    (["reproduce", "fig3-left"], "--scale"),
    (["reproduce", "fig3-left", "--scale", "huge"], "--scale"),
    (["reproduce", "fig3-left", "--scale", "quick", "--runs", "0"], "--runs"),
    (["reproduce", "fig3-left", "--scale", "quick", "--runs", "many"], "--runs"),
    (["reproduce", "fig3-left", "--scale", "quick", "--episodes", "0"], "--episodes"),
    (["reproduce", "fig3-left", "--scale", "quick", "--seed", "-1"], "--seed"),
    (["reproduce", "fig3-left", "--scale", "quick", "--device", "tpu"], "--device"),
    (["reproduce", "fig3-left", "--scale", "quick", "--bogus"], "--bogus"),
    (["reproduce", "fig3-left", "--scale", "quick", "--workers", "0"], "--workers"),
    (["bench", "--threads", "0"], "--threads"),
    (["report", "--results"], "--results"),
    (["frobnicate"], "frobnicate"),
    ([], "command"),
])
def test_bad_arguments_name_the_parameter(capsys, argv, name):
    err = _error(capsys, argv)
    assert name in err, err


def test_cuda_without_cuda_is_a_clear_error(capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    err = _error(capsys, ["reproduce", "fig3-left", "--scale", "quick", "--device", "cuda"])
    assert "--device" in err and "CUDA" in err


def test_report_on_missing_directory(tmp_path, capsys):
    assert cli.main(["report", "--results", str(tmp_path / "nope")]) == 2
    assert "--results" in capsys.readouterr().err


def _fake_runner(task, *, device, progress):
    v = np.tile(np.linspace(1, 0.5, task.n_episodes), (task.rows, 1)) * (1 + task.settings[:, :1])
    return {"values": v, "diverged": np.zeros(task.rows, bool)}


_fake_runner.name = "cli-fake"


def test_reproduce_and_report_in_process(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(chunks, "engine_runner", _fake_runner)
    out = tmp_path / "res"
    rc = cli.main(["reproduce", "fig3-right", "--scale", "quick", "--runs", "3", "--seed", "7",
                   "--out", str(out), "--no-progress", "--workers", "1"])
    assert rc == 0
    meta = json.loads((out / "fig3-right.json").read_text())
    assert (meta["runs"], meta["seed"], meta["scale"]) == (3, 7, "quick")
    assert meta["command"] == (f"python -m ftd_lib reproduce fig3-right --scale quick --runs 3 "
                               f"--seed 7 --out {out}")
    assert (out / "fig3-right.png").is_file() and (out / "REPORT.md").is_file()
    capsys.readouterr()
    assert cli.main(["report", "--results", str(out)]) == 0
    text = (out / "REPORT.md").read_text()
    assert "fig3-right.png" in text and "Below paper scale" in text


def test_reproduce_with_fewer_episodes(tmp_path, monkeypatch):
    monkeypatch.setattr(chunks, "engine_runner", _fake_runner)
    out = tmp_path / "res"
    assert cli.main(["reproduce", "fig3-right", "--scale", "paper", "--runs", "2",
                     "--episodes", "4", "--out", str(out), "--no-progress",
                     "--workers", "1"]) == 0
    meta = json.loads((out / "fig3-right.json").read_text())
    assert (meta["runs"], meta["episodes"], meta["at_paper_scale"]) == (2, 4, False)
    assert "--episodes 4" in meta["command"]
    assert np.load(out / "fig3-right.npz")["curve_mean"].shape[1] == 4


def test_reproduce_quick_end_to_end_subprocess(tmp_path):
    """The real engine, through the real command line, at quick scale (a few seconds)."""
    out = tmp_path / "results"
    cmd = [sys.executable, "-m", "ftd_lib", "reproduce", "fig3-right", "--scale", "quick",
           "--runs", "1", "--out", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "fig3-right (quick)" in p.stderr  # the progress bar
    res = load_results("fig3-right", out)
    assert res is not None and all(r.startswith("engine-") for r in res.meta["runner"])
    prov = res.meta["provenance"]  # every chunk says the torch batch made it, and with what
    assert not prov["mixed"] and prov["unrecorded"] == 0 and len(prov["groups"]) == 1
    assert prov["groups"][0]["engine"] == "batch" and prov["groups"][0]["torch"]
    m = res["metric"]
    assert m.shape == (len(figure("fig3-right", "quick").cells), 1)
    assert np.isfinite(m).all() and (m > 0).all()
    assert (out / "fig3-right.png").is_file() and (out / "REPORT.md").is_file()
    # the same figure again: every chunk is loaded, the numbers are the same
    again = run_figure(figure("fig3-right", "quick", runs=1), out, progress=False,
                         plot=False)
    assert again.meta["chunks"]["computed"] == 0
    np.testing.assert_array_equal(again["metric"], m)


def test_bench_prints_the_engine_lines(monkeypatch, capsys):
    import types

    seen = {}

    def fake_bench(device="cpu", threads=1, quick=False):
        seen.update(device=device, threads=threads, quick=quick)
        return ["line one", "line two"]

    monkeypatch.setitem(sys.modules, "ftd_lib.engine.bench",
                        types.SimpleNamespace(run_bench=fake_bench))
    assert cli.main(["bench", "--quick", "--threads", "2"]) == 0
    assert capsys.readouterr().out == "line one\nline two\n"
    assert seen == {"device": "cpu", "threads": 2, "quick": True}


@pytest.mark.parametrize("extra, resume", [
    ([], ""),
    (["--set", "lams=0.5,0"], " --set lams=0.5,0"),  # the change, as asked for
])
def test_ctrl_c_says_how_to_resume(tmp_path, monkeypatch, capsys, extra, resume):
    calls = []

    def interrupted(task, *, device, progress):
        if calls:
            raise KeyboardInterrupt
        calls.append(task)
        return _fake_runner(task, device=device, progress=progress)

    interrupted.name = "cli-fake"
    monkeypatch.setattr(chunks, "engine_runner", interrupted)
    out = tmp_path / "res"
    argv = ["reproduce", "fig4-right", "--scale", "quick", "--out", str(out), "--no-progress",
            "--workers", "1", *extra]
    assert cli.main(argv) == 130
    err = capsys.readouterr().err
    assert "pieces finished and stored: 1" in err
    assert (f"python -m ftd_lib reproduce fig4-right --scale quick --out {out}{resume} "
            "--workers 1") in err
    monkeypatch.setattr(chunks, "engine_runner", _fake_runner)
    assert cli.main(argv) == 0
    assert load_results("fig4-right", out).meta["chunks"]["loaded"] == 1


def test_bench_kernel_prints_only_the_kernel_lines(monkeypatch, capsys):
    import types

    def fake_kernel_lines(quick=False, repeats=5):
        return [f"kernel: quick={quick} repeats={repeats}"]

    monkeypatch.setitem(sys.modules, "ftd_lib.engine.bench",
                        types.SimpleNamespace(kernel_lines=fake_kernel_lines))
    assert cli.main(["bench", "--kernel"]) == 0
    assert capsys.readouterr().out == "kernel: quick=False repeats=5\n"
