"""One override path for a figure's definition: ``--set methods=... alphas=... lams=...``,
followed by the figure, the resume command, the two stages of Fig. 4 and the overwrite
guard."""

import json

import numpy as np
import pytest

from ftd_lib.repro import chunks, cli, protocol
from ftd_lib.repro import store as chunk_store
from ftd_lib.repro.definitions import (
    FIGURES,
    GRID_KEYS,
    STUDIES,
    figure,
    format_sets,
    with_grid,
)
from ftd_lib.repro.results import load_results, reproduce_command, results_paths
from ftd_lib.repro.runs import ScaleConflict, run_figure

pytestmark = pytest.mark.slow  # figures run under --set


def _runner(task, *, device, progress):
    v = np.outer(task.settings[:, 0] * 100 + task.settings[:, 1] + task.run_ids,
                 np.ones(task.n_episodes))
    return {"values": v, "diverged": np.zeros(task.rows, bool)}


_runner.name = "set-fake"


def test_format_writes_the_set_options():
    grid = {"alphas": (0.001, 0.002), "lams": (0.0, 0.5), "methods": ("forward_sarsa_lambda",)}
    assert format_sets(grid) == (" --set alphas=0.001,0.002 --set lams=0,0.5"
                                 " --set methods=forward_sarsa_lambda")
    assert format_sets({"alphas": (5.859375e-05,)}) == " --set alphas=5.859375e-05"


@pytest.mark.parametrize("grid, what", [
    ({"alphas": (0.0,)}, "alpha"), ({"alphas": (float("inf"),)}, "alpha"),
    ({"lams": (1.5,)}, "lams"), ({"methods": ("q_lambda",)}, "method"),
    ({"methods": ("td_lambda",)}, "control figure"),
    ({"methods": ("true_online_td_lambda",)}, "no engine")])
def test_bad_values_name_set_before_any_work(grid, what):
    with pytest.raises(ValueError, match=r"^--set .*" + what):
        figure("fig3-left" if "true_online" in str(grid) else "fig4-right", "quick", grid=grid)


@pytest.mark.parametrize("name", FIGURES)
def test_no_change_is_the_definition_itself(name):
    assert figure(name, "paper", grid={}) == figure(name, "paper")
    assert figure(name, "paper").overrides == ()


@pytest.mark.parametrize("name", FIGURES)
def test_the_grid_is_rebuilt_from_the_definition(name):
    base = figure(name, "paper")
    lams = (0.0, 0.5)
    alphas = (0.001, 0.002)
    f = figure(name, "paper", grid={"alphas": alphas[::-1], "lams": lams})
    assert f.methods == base.methods and f.curves == base.curves
    assert len(f.cells) == len(base.curves) * len(lams) * len(alphas)
    for curve in base.curves:
        mine = [(c.lam, c.alpha) for c in f.cells if c.curve == curve]
        assert mine == [(lam, a) for lam in lams for a in alphas]  # sorted, lambda-major
        want = {(c.method, c.eta, c.k_max, c.gamma) for c in base.cells if c.curve == curve}
        assert {(c.method, c.eta, c.k_max, c.gamma) for c in f.cells if c.curve == curve} == want
    assert dict(f.overrides) == {"alphas": alphas, "lams": lams}
    assert f.describe()["overrides"] == {"alphas": list(alphas), "lams": list(lams)}
    # every chunk still holds one method's cells (control) or one curve's (Fig. 3 right)
    for task in chunks.cut_chunks(f):
        assert len({f.cells[i].method for i in task.cell_index}) == 1


def test_methods_pick_and_order_the_curves():
    f = with_grid(figure("fig4-right", "quick"), methods=["forward_sarsa_lambda"])
    assert f.methods == ["forward_sarsa_lambda"] == [c.method for c in f.cells[:1]]
    assert f.cells_per_chunk == len(f.cells)  # a chunk: every cell of the method
    g = with_grid(figure("fig3-left", "quick"), methods=["online_lambda_return", "td_lambda"])
    assert g.methods == ["online_lambda_return", "td_lambda"]
    # a prediction method new to Fig. 3 right gets one curve of its own
    h = with_grid(figure("fig3-right", "quick"), methods=["forward_td_lambda", "td_lambda"])
    assert h.curves[-1] == "td_lambda" and len(h.curves) == 5


def test_cli_set_reaches_the_figure_and_its_command(tmp_path, monkeypatch):
    monkeypatch.setattr(chunks, "engine_runner", _runner)
    out = tmp_path / "res"
    argv = ["reproduce", "fig4-right", "--scale", "quick", "--out", str(out), "--no-progress",
            "--workers", "1", "--set", "alphas=0.001,0.002", "--set", "lams=0,0.5"]
    assert cli.main(argv) == 0
    res = load_results("fig4-right", out)
    assert sorted(set(res["alpha"].tolist())) == [0.001, 0.002]
    assert sorted(set(res["lam"].tolist())) == [0.0, 0.5]
    assert res.meta["command"] == (f"python -m ftd_lib reproduce fig4-right --scale quick "
                                   f"--out {out} --set alphas=0.001,0.002 --set lams=0,0.5")
    assert res.meta["definition"]["overrides"] == {"grid.alphas": [0.001, 0.002],
                                                   "grid.lams": [0, 0.5]}
    assert ("definition changed from the command line: `--set grid.alphas=0.001,0.002 --set "
            "grid.lams=0,0.5`") in (out / "REPORT.md").read_text()


@pytest.mark.parametrize("extra, key", [
    (["--set", "alpha=1"], "--set"), (["--set", "alphas=-1"], "grid.alphas"),
    (["--set", "methods=td_lambda"], "prediction methods"), (["--set", "lams=0,x"], "grid.lams")])
def test_cli_bad_set_is_one_line(tmp_path, capsys, extra, key):
    argv = ["reproduce", "fig4-right", "--scale", "quick", "--out", str(tmp_path), *extra]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and key in err
    assert not results_paths("fig4-right", tmp_path)["chunks"].exists()


def test_cli_set_needs_one_figure(tmp_path, capsys):
    assert cli.main(["reproduce", "all", "--scale", "quick", "--out", str(tmp_path),
                     "--set", "lams=0"]) == 2
    assert "--set" in capsys.readouterr().err


def test_both_stages_of_fig4_follow_the_set(tmp_path):
    grid = {"lams": (0.0, 0.5)}
    res = protocol.run_protocol("fig4-left", tmp_path, runs=2, grid=grid, runner=_runner,
                                progress=False, plot=False)
    pilot = load_results("fig4-left", tmp_path / "pilot")
    for r in (pilot, res):
        assert sorted(set(r["lam"].tolist())) == [0.0, 0.5]
        assert r.meta["command"] == reproduce_command("fig4-left", "paper", tmp_path, runs=2,
                                                      grid=grid)
        assert "--set lams=0,0.5" in r.meta["command"]
    grid_alphas = {c.alpha for c in figure("fig4-left", "paper").cells}
    assert grid_alphas <= set(pilot["alpha"].tolist())  # the pilot: the full alpha grid


def _paper(out, grid=None):
    fig = figure("fig3-right", "paper", runs=2, episodes=2, grid=grid)
    res = run_figure(fig, out, runner=_runner, progress=False, plot=False)
    p = results_paths("fig3-right", out)["npz"]  # pretend it ran at paper scale
    arrays = chunk_store.load_npz(p)
    meta = json.loads(str(arrays.pop("__meta__")))
    meta["definition"]["at_paper_scale"] = meta["at_paper_scale"] = True
    chunk_store.save_npz_atomic(p, __meta__=np.array(json.dumps(meta)), **arrays)
    return res


def test_overwrite_guard_keeps_paper_data_of_another_grid(tmp_path):
    paper = dict(runs=200, episodes=50)
    _paper(tmp_path)  # the paper's grid, stored at paper scale
    with pytest.raises(ScaleConflict, match="--set lams=0,0.5"):
        run_figure(figure("fig3-right", "paper", grid={"lams": (0, 0.5)}, **paper), tmp_path,
                   runner=_runner, progress=False, plot=False)
    _paper(tmp_path / "b", grid={"lams": (0, 0.5)})  # a changed grid, stored at paper scale
    with pytest.raises(ScaleConflict, match="the paper's grid"):
        run_figure(figure("fig3-right", "paper", **paper), tmp_path / "b", runner=_runner,
                   progress=False, plot=False)
    with pytest.raises(ScaleConflict, match="--set lams=0.1"):
        run_figure(figure("fig3-right", "paper", grid={"lams": (0.1,)}, **paper),
                   tmp_path / "b", runner=_runner, progress=False, plot=False)


def test_every_key_is_documented_in_the_cli_help():
    text = cli.build_parser()._subparsers._group_actions[0].choices["reproduce"].format_help()
    assert "--set" in text and all(k in text for k in GRID_KEYS)


@pytest.mark.parametrize("name", STUDIES)
def test_a_study_keeps_its_curves_variants_and_gammas(name):
    base = figure(name, "quick")
    f = figure(name, "quick", grid={"lams": (0.0, 0.8)})
    assert f.curves == base.curves
    key = lambda c: (c.curve, c.method, c.eta, c.k_max, c.gamma, c.variant)  # noqa: E731
    assert list(dict.fromkeys(map(key, f.cells))) == list(dict.fromkeys(map(key, base.cells)))
    assert {c.lam for c in f.cells} == {0.0, 0.8}
