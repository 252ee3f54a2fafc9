"""Bad input to the command line: exit status 2 and a line naming the argument, before any
work is done -- never a traceback, never hours of computing first."""

import os

import numpy as np
import pytest

from ftd_lib.repro import chunks, cli
from ftd_lib.repro import store as chunk_store
from ftd_lib.repro.definitions import FIGURES
from ftd_lib.repro.results import load_results

CALLS = []


def _counting_runner(task, *, device, progress):
    CALLS.append(task)
    v = np.tile(np.linspace(1, 0.5, task.n_episodes), (task.rows, 1))
    return {"values": v * (1 + task.settings[:, :1]), "diverged": np.zeros(task.rows, bool)}


_counting_runner.name = "cli-errors-fake"


@pytest.fixture
def runner(monkeypatch):
    CALLS.clear()
    monkeypatch.setattr(chunks, "engine_runner", _counting_runner)
    return CALLS


def _quick(*extra, fig="fig3-right"):
    return ["reproduce", fig, "--scale", "quick", "--no-progress", "--workers", "1", *extra]


FILE = "{tmp}/a-file"
NO_CUDA = [] if __import__("torch").cuda.is_available() else [
    (["reproduce", "fig3-left", "--scale", "quick", "--device", "cuda"], "--device"),
    (["bench", "--device", "cuda"], "--device"),
]

BAD = [  # (argv, the argument the message must name); {tmp} is a fresh folder
    (["reproduce", "fig5", "--scale", "quick"], "figure"),
    (["reproduce", "FIG3-LEFT", "--scale", "quick"], "figure"),
    (["reproduce", "", "--scale", "quick"], "figure"),
    (["reproduce", "fig3-left"], "--scale"),
    (["reproduce", "fig3-left", "--scale", "Quick"], "--scale"),
    (["reproduce", "fig3-left", "--scale", "huge"], "--scale"),
    (_quick("--runs", "0"), "--runs"),
    (_quick("--runs", "-3"), "--runs"),
    (_quick("--runs", "2.5"), "--runs"),
    (_quick("--runs", "1e3"), "--runs"),
    (_quick("--runs", "many"), "--runs"),
    (_quick("--runs", ""), "--runs"),
    (_quick("--runs", "1000000000000"), "--runs"),
    (_quick("--runs", "100000000", fig="fig4-left"), "--runs"),
    (_quick("--episodes", "0"), "--episodes"),
    (_quick("--episodes", "-1"), "--episodes"),
    (_quick("--episodes", "2.5"), "--episodes"),
    (_quick("--episodes", "1000000000000"), "--episodes"),
    (_quick("--seed", "-1"), "--seed"),
    (_quick("--seed", "1.5"), "--seed"),
    (_quick("--seed", "x"), "--seed"),
    (_quick("--threads", "0"), "--threads"),
    (_quick("--threads", "-2"), "--threads"),
    (_quick("--threads", "1.5"), "--threads"),
    (_quick("--threads", "100000"), "--threads"),
    (_quick("--chunk-rows", "0"), "--chunk-rows"),
    (_quick("--chunk-rows", "-5"), "--chunk-rows"),
    (_quick("--chunk-rows", "x"), "--chunk-rows"),
    (_quick("--workers", "0"), "--workers"),
    (_quick("--workers", "-1"), "--workers"),
    (_quick("--workers", "2.5"), "--workers"),
    (_quick("--workers", "100000"), "--workers"),
    (_quick("--device", "nonsense"), "--device"),
    (_quick("--device", "cuda:0x"), "--device"),
    (_quick("--out", FILE), "--out"),
    (_quick("--out", FILE + "/below"), "--out"),
    (_quick("--out", ""), "--out"),
    (["reproduce", "all", "--scale", "quick", "--no-progress", "--out", FILE], "--out"),
    (_quick("--bogus"), "--bogus"),
    (["bench", "--threads", "0"], "--threads"),
    (["bench", "--threads", "x"], "--threads"),
    (["bench", "--threads", "100000"], "--threads"),
    (["bench", "--device", "nonsense"], "--device"),
    (["report", "--results"], "--results"),
    (["report", "--results", "{tmp}/nope"], "--results"),
    (["report", "--results", FILE], "--results"),
    (["frobnicate"], "frobnicate"),
    ([], "command"),
    *NO_CUDA,
]


@pytest.mark.parametrize("argv, name", BAD, ids=[" ".join(a) or "(nothing)" for a, _ in BAD])
def test_bad_cli_input_is_one_clear_error_before_any_work(tmp_path, capsys, runner, argv,
                                                          name):
    (tmp_path / "a-file").write_text("x")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    try:
        code = cli.main(argv)
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert name in last and "error" in last, err
    assert "Traceback" not in err
    assert runner == [], "no chunk may be computed before the input is checked"
    if name == "--out":
        assert len(err.strip().splitlines()) == 1, err


def test_reproduce_all_interrupted_says_resume_all(tmp_path, monkeypatch, capsys):
    seen = []

    def interrupted(task, *, device, progress):
        if task.figure == "fig3-right" and seen:
            raise KeyboardInterrupt
        seen.append(task)
        return _counting_runner(task, device=device, progress=progress)

    interrupted.name = _counting_runner.name
    monkeypatch.setattr(chunks, "engine_runner", interrupted)
    out = tmp_path / "res"
    argv = ["reproduce", "all", "--scale", "quick", "--out", str(out), "--no-progress",
            "--workers", "1", "--runs", "3"]
    assert cli.main(argv) == 130
    err = capsys.readouterr().err
    assert "interrupted: fig3-right" in err
    assert (f"python -m ftd_lib reproduce all --scale quick --runs 3 --out {out} --workers 1"
            in err), err
    monkeypatch.setattr(chunks, "engine_runner", _counting_runner)
    assert cli.main(argv) == 0  # the command it printed finishes the job
    assert all(load_results(n, out) is not None for n in FIGURES)


def test_report_and_reproduce_survive_a_damaged_figure_file(tmp_path, capsys, runner):
    out = tmp_path / "res"
    argv = _quick("--out", str(out), "--runs", "2")
    assert cli.main(argv) == 0
    p = out / "fig3-right.npz"
    raw = chunk_store.load_npz(p)
    raw["__meta__"] = np.array("{this is not json")
    chunk_store.save_npz_atomic(p, **raw)
    capsys.readouterr()
    assert cli.main(["report", "--results", str(out)]) == 0
    assert str(p) in capsys.readouterr().err
    n = len(runner)
    assert cli.main(argv) == 0 and len(runner) == n  # rebuilt from its chunks
    assert load_results("fig3-right", out) is not None


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in a read-only folder")
def test_read_only_out_folder(tmp_path, capsys, runner):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    assert cli.main(_quick("--out", str(ro / "res"))) == 2
    assert "--out" in capsys.readouterr().err and runner == []


def test_read_only_out_folder_as_root_too(tmp_path, capsys, runner, monkeypatch):
    """The same refusal when the folder exists but no file can be made in it."""

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(chunk_store.tempfile, "mkstemp", refuse)
    assert cli.main(_quick("--out", str(tmp_path))) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "Permission denied" in err and len(err.strip().splitlines()) == 1
    assert runner == []
