"""``python -m ftd_lib run FILE [--set KEY=VALUE ...]``: an experiment file run from the command
line; every key can be set; bad files and keys are refused in one line that names the file
and the key. About 15 s (three quick runs of the engine)."""

import json
import shutil

import numpy as np
import pytest

from ftd_lib.repro import cli, store
from ftd_lib.repro.chunks import cut_chunks
from ftd_lib.repro.experiment import experiment_path, load_experiment
from ftd_lib.repro.results import load_results

FIG3R = str(experiment_path("fig3-right"))


def _main(capsys, *argv):
    rc = cli.main(list(argv))
    return rc, capsys.readouterr()


def test_run_sets_any_key_resumes_and_names_itself(tmp_path, capsys):
    out = tmp_path / "o"
    argv = ["run", FIG3R, "--scale", "quick", "--out", str(out), "--workers", "1",
            "--no-progress", "--set", "runs=3", "--set", "grid.alphas=0.01,0.02",
            "--set", "curves.1.eta=0.2"]
    rc, _ = _main(capsys, *argv)
    assert rc == 0
    res = load_results("fig3-right", out)
    assert res["metric"].shape == (4 * 3 * 2, 3)  # 4 curves x 3 lambdas x 2 alphas, 3 runs
    assert sorted(set(res["alpha"].tolist())) == [0.01, 0.02]
    assert set(res["eta"][res["curve"] == "η = 0.1"].tolist()) == {0.2}
    # the title follows the grid (no "α = 0.015" over two step sizes) and the best is taken
    assert "α = best of 2 α" in res.meta["title"]
    assert res.meta["definition"]["optimise"] == "alpha"
    assert "--set runs=3 --set grid.alphas=0.01,0.02" in res.meta["command"]
    rc, captured = _main(capsys, *argv)  # again: everything is stored, nothing computed
    assert rc == 0 and "2 chunks: 2 loaded, 0 computed," in captured.out
    assert np.array_equal(load_results("fig3-right", out)["metric"], res["metric"])


def test_a_set_up_nobody_named_gets_chunks_of_its_own():
    """``--set network.activation=sigmoid`` on Fig. 4 right: its chunks name the change, so
    they never mix with the default set-up's."""
    path = experiment_path("fig4-right")
    plain = cut_chunks(load_experiment(path, "quick")[0])
    sig = cut_chunks(load_experiment(path, "quick", ["network.activation=sigmoid"])[0])
    assert plain[0].variant is None
    assert sig[0].variant == {"name": "hidden=sigmoid", "hidden": "sigmoid",
                              "inputs": "symmetric", "start": "bottom", "init": "uniform"}
    ident = [store.chunk_key(t.identity("r", "cpu")) for t in plain + sig]
    assert len(set(ident)) == len(ident)


def test_task_settings_reach_the_cells():
    fig, _ = load_experiment(experiment_path("fig4-right"), "quick",
                             ["task.gamma=0.9", "task.cap=77", "grid.epsilon=0.1",
                              "grid.eta=0.05", "episodes=4", "seed=7"])
    assert {(c.gamma, c.eta) for c in fig.cells} == {(0.9, 0.05)}
    assert (fig.max_steps, fig.epsilon, fig.episodes) == (77, 0.1, 4)
    assert load_experiment(experiment_path("fig4-right"), "quick", ["seed=7"])[1]["seed"] == 7


@pytest.mark.parametrize("item, key", [
    ("rns=3", "'rns'"), ("task.gama=0.9", "'task.gama'"), ("runs=0", "runs"),
    ("runs=abc", "runs"), ("grid.alphas=-1", "grid.alphas"), ("grid.lams=0,2", "grid.lams"),
    ("grid.alphas=[]", "grid.alphas"), ("task.gamma=2", "task.gamma"),
    ("task.cap=5", "task.cap"), ("task.name=pong", "task.name"),
    ("curves.9.eta=0.1", "no element 9"), ("curves.0.eta=1.5", "curves.0.eta"),
    ("curves.0.method=sarsa_lambda", "methods"), ("metric=return", "metric"),
    ("network.activation=relu", "network.activation"), ("x=eta", "x"),
    ("protocol.kind=pilot", "protocol.kind"), ("runs", "KEY=VALUE"), ("runs=", "empty"),
    ("claims=[9]", "claims"), ("claims=x", "claims"),
])
def test_bad_sets_are_one_line_naming_file_and_key(tmp_path, capsys, item, key):
    rc, captured = _main(capsys, "run", FIG3R, "--scale", "quick", "--out",
                         str(tmp_path / "o"), "--set", item)
    assert rc == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "fig3-right.toml" in lines[0] and key in lines[0], lines[0]
    assert not (tmp_path / "o" / "chunks").exists()


@pytest.mark.parametrize("text, key", [
    ("name = 'x'\nmethods = ['td_lambda']\n", "task.name"),
    ("name = 'x'\n[task]\nname = 'mountain_car'\n", "methods"),
    ("name = 'x'\nmethods = ['nope']\n[task]\nname = 'mountain_car'\n", "method"),
    ("name = 'x'\nmethods = ['td_lambda']\nfoo = 1\n", "foo"),
    ("name = 'x'\nmethods = ['td_lambda']\n[task]\nname = 'cartpole'\n[grid]\n"
     "alphas = [0.1]\nlams = [0.5]\n", "task.name"),
    ("this is not toml", "not TOML"),
])
def test_bad_files_are_one_line_naming_file_and_key(tmp_path, capsys, text, key):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    rc, captured = _main(capsys, "run", str(f), "--out", str(tmp_path / "o"))
    assert rc == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "bad.toml" in lines[0] and key in lines[0], captured.err


def test_gpu_chunks_are_assembled_on_a_cpu(tmp_path, capsys, monkeypatch):
    """Fig. 3 left's stored chunks come from a GPU (``chunks.device = "cuda"``): ``run`` on a
    machine without one reassembles them; only computing would need the GPU."""
    from ftd_lib.repro import chunks
    from ftd_lib.repro.results import repo_results_dir

    out = tmp_path / "r"
    shutil.copytree(repo_results_dir() / "chunks" / "fig3-left", out / "chunks" / "fig3-left")
    monkeypatch.setattr(chunks, "chunk_result", lambda *a, **k: 1 / 0)
    rc, captured = _main(capsys, "run", str(experiment_path("fig3-left")), "--out", str(out),
                         "--no-progress")
    assert rc == 0, captured.err
    meta = json.loads((out / "fig3-left.json").read_text())
    assert meta["chunks"] == {"total": 4, "loaded": 4, "computed": 0, "pieces": 0}
