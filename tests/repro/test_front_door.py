"""One front door: ``reproduce NAME`` is ``run experiments/NAME.toml``
with one ``--set`` syntax; ``plan FILE|NAME|all`` and ``run FILE --dry-run`` plan any file; a
string ``--set`` value runs to its report; keys a task cannot run are refused at load."""

import json
import shlex

import numpy as np
import pytest

from ftd_lib.repro import chunks, cli
from ftd_lib.repro.definitions import format_sets, format_value
from ftd_lib.repro.experiment import experiment_path, load_experiment
from ftd_lib.repro.keys import overrides_of, parse_value
from ftd_lib.repro.results import load_results

pytestmark = pytest.mark.slow  # plans and dry runs of every experiment file


def _fake(task, *, device, progress):
    v = np.outer(task.settings[:, 0] * 100 + task.settings[:, 1] + task.run_ids,
                 np.ones(task.n_episodes))
    return {"values": v, "diverged": np.zeros(task.rows, bool)}


_fake.name = "front-door-fake"


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(chunks, "engine_runner", _fake)


def _main(capsys, *argv):
    rc = cli.main([str(a) for a in argv])
    return rc, capsys.readouterr()


@pytest.mark.parametrize("value", [
    "sigmoid", "terminal", "4-step", "my curve", "a,b", 0.5, 3, True, "", "true",
    [0.1, 0.2], {"centre": 0.01, "ratio": 2, "from": -1, "to": 1}])
def test_every_value_reads_back_from_its_set(value):
    """``format_value`` writes what ``parse_value`` (the command line) reads back the same,
    through the shell's quoting too."""
    item = shlex.split(format_sets({"k": (value,)}))[1]
    assert item.startswith("k=")
    assert parse_value(item[2:]) == value


def test_string_sets_run_to_the_report_and_resume(tmp_path, capsys, fake):
    """``network.activation=sigmoid``, ``task.at_cap=terminal`` and a curve's name used to
    compute, then die writing REPORT.md."""
    out = tmp_path / "o"
    argv = ["run", experiment_path("fig4-right"), "--scale", "quick", "--out", out,
            "--workers", "1", "--no-progress", "--set", "network.activation=sigmoid",
            "--set", "task.at_cap=terminal", "--set", "grid.lams=0.5",
            "--set", "title=A title, with a comma"]
    rc, captured = _main(capsys, *argv)
    assert rc == 0, captured.err
    report = (out / "REPORT.md").read_text()
    assert "--set network.activation=sigmoid" in report
    assert "--set task.at_cap=terminal" in report
    res = load_results("fig4-right", out)
    assert set(res["lam"].tolist()) == {0.5}
    # the command the report records runs again: every chunk is loaded
    cmd = shlex.split(res.meta["command"])
    assert cmd[:4] == ["python", "-m", "ftd_lib", "run"]
    rc, captured = _main(capsys, *cmd[3:], "--workers", "1", "--no-progress")
    assert rc == 0 and "0 computed" in captured.out


def test_a_curve_name_set_from_the_command_line(tmp_path, capsys, fake):
    out = tmp_path / "o"
    rc, captured = _main(capsys, "run", experiment_path("fig3-right"), "--scale", "quick",
                         "--out", out, "--workers", "1", "--no-progress",
                         "--set", "curves.0.name=my η", "--set", "runs=1")
    assert rc == 0, captured.err
    assert "my η" in load_results("fig3-right", out)["curve"].tolist()
    assert "curves.0.name" in (out / "REPORT.md").read_text()


def test_reproduce_name_is_run_of_its_file(tmp_path, capsys, fake):
    """The same chunks, the same numbers, through one path; the short keys and the
    count options are ``--set`` items."""
    a, b = tmp_path / "a", tmp_path / "b"
    rc, _ = _main(capsys, "reproduce", "fig4-right", "--scale", "quick", "--out", a,
                  "--workers", "1", "--no-progress", "--runs", "3", "--set", "lams=0,0.5")
    assert rc == 0
    rc, _ = _main(capsys, "run", "experiments/fig4-right.toml", "--scale", "quick", "--out", b,
                  "--workers", "1", "--no-progress", "--set", "runs=3",
                  "--set", "grid.lams=0,0.5")
    assert rc == 0
    ra, rb = load_results("fig4-right", a), load_results("fig4-right", b)
    for k in ("metric", "alpha", "lam", "method"):
        assert np.array_equal(ra[k], rb[k])
    assert sorted((a / "chunks" / "fig4-right").iterdir()) != []
    assert ({p.name for p in (a / "chunks" / "fig4-right").iterdir()}
            == {p.name for p in (b / "chunks" / "fig4-right").iterdir()})
    assert ra.meta["command"].startswith("python -m ftd_lib reproduce fig4-right")
    assert rb.meta["command"].startswith("python -m ftd_lib run experiments/fig4-right.toml")
    # the other door finds everything stored
    rc, captured = _main(capsys, "run", "fig4-right", "--scale", "quick", "--out", a,
                         "--workers", "1", "--no-progress", "--runs", "3",
                         "--set", "grid.lams=0,0.5")
    assert rc == 0 and "0 computed" in captured.out


@pytest.mark.parametrize("argv, name", [
    (["plan", "experiments/acrobot-watkins.toml"], "acrobot-watkins"),
    (["plan", "acrobot-watkins"], "acrobot-watkins"),
    (["plan", "all", "--summary"], "fig4-right"),
    (["run", "experiments/acrobot-watkins.toml", "--dry-run"], "acrobot-watkins"),
    (["run", "fig3-right", "--dry-run", "--set", "grid.lams=0"], "fig3-right"),
    (["reproduce", "fig3-right", "--dry-run"], "fig3-right"),
])
def test_plan_and_dry_run_print_the_plan_of_any_file(tmp_path, capsys, argv, name):
    """Nothing is computed or written."""
    out = tmp_path / "o"
    rc, captured = _main(capsys, *argv, "--scale", "quick", "--no-calibrate", "--workers", "2",
                         "--out", out)
    assert rc == 0, captured.err
    assert f"{name}: predicted wall" in captured.out
    assert not out.exists()


def test_plan_of_a_missing_file_is_one_line(tmp_path, capsys):
    rc, captured = _main(capsys, "plan", tmp_path / "nope.toml", "--no-calibrate")
    assert rc == 2
    assert len(captured.err.strip().splitlines()) == 1 and "nope.toml" in captured.err


@pytest.mark.parametrize("item, key", [
    ("task.start=anywhere", "task.start"), ("task.inputs=unit", "task.inputs"),
])
def test_keys_the_task_cannot_run_are_refused_at_load(item, key):
    """Acrobot has no mountain-car keys (start states and inputs: the kernel's alone)."""
    with pytest.raises(ValueError, match=key) as e:
        load_experiment(experiment_path("acrobot-watkins"), "quick", [item])
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("item, field, value", [
    ("network.hidden_units=10", "n_hidden", 10), ("network.activation=sigmoid", "hidden",
                                                  "sigmoid")])
def test_the_network_loads_on_a_task_without_the_kernel(item, field, value):
    """R4's other half: the network is a plain parameter of every engine (run_control), so a
    [network] set-up loads on acrobot, which the kernel does not run, and reaches its cells."""
    fig, _ = load_experiment(experiment_path("acrobot-watkins"), "quick", [item])
    assert [v[field] for v in fig.variants.values()] == [value]


def test_mountain_car_keys_load_on_mountain_car():
    fig, _ = load_experiment(experiment_path("fig4-left"), "quick",
                             ["task.start=anywhere", "task.inputs=unit"])
    assert fig.variants and next(iter(fig.variants.values()))["start"] == "anywhere"


def test_a_curve_key_on_a_file_of_methods_is_refused():
    with pytest.raises(ValueError, match="curves"):
        load_experiment(experiment_path("fig4-right"), "quick", ["curves.0.name=x"])


def test_k_max_0_is_refused_in_files(tmp_path):
    """0 used to mean "no cap" silently."""
    with pytest.raises(ValueError, match=r"curves\.1\.k_max.*no cap.*leave the key out"):
        load_experiment(experiment_path("fig3-right"), "quick", ["curves.1.k_max=0"])


def test_methods_pick_curves_of_a_curves_file():
    """``--set methods=...`` on a file of ``[[curves]]``: the curves of those methods."""
    fig, _ = load_experiment(experiment_path("fig3-right"), "quick", ["methods=td_lambda"])
    assert fig.methods == ["td_lambda"] or tuple(fig.methods) == ("td_lambda",)


def test_count_keys_are_not_definition_changes():
    assert overrides_of(["runs=3", "seed=4", "grid.lams=0,0.5", "chunks.rows=9"]) == (
        ("grid.lams", (0, 0.5)),)
    assert json.loads(json.dumps(format_value("x y"))) == '"x y"'


# ----------------------------------------------- the report: its title, scale, provenance

MINE = ('name = "my-cartpole"\ntitle = "My cart-pole test on {task}"\n'
        'curves = [{ name = "mine", method = "sarsa_lambda" }, '
        '{ name = "also mine", method = "sarsa_lambda", eta = 0.1 }]\nruns = 2\nepisodes = 3\n'
        '[task]\nname = "cartpole"\ncap = 50\n'
        '[grid]\nalphas = [0.001, 0.002]\nlams = [0.0, 0.5]\n'
        '[quick]\nruns = 1\n')


def test_a_researchers_report_is_the_folders(tmp_path, capsys, fake):
    """The file's own title, its scale word, no paper figure missing, no claim without
    data, the curves in their method's colour."""
    from ftd_lib.methods import style
    from ftd_lib.repro.plots import curve_styles

    f = tmp_path / "mine.toml"
    f.write_text(MINE)
    out = tmp_path / "o"
    rc, captured = _main(capsys, "run", f, "--out", out, "--workers", "1", "--no-progress")
    assert rc == 0, captured.err
    text = (out / "REPORT.md").read_text()
    assert text.startswith("# Report: My cart-pole test on cart-pole\n")
    for word in ("Missing", "no data", "No stored data", "The paper's claims", "Figures 3"):
        assert word not in text, word
    assert "scale: **file**" in text
    looks = curve_styles(load_results("my-cartpole", out))
    assert looks["mine"]["color"] == looks["also mine"]["color"] == style("sarsa_lambda")["color"]
    assert looks["mine"]["label"] == "mine" and looks["also mine"]["ls"] != looks["mine"]["ls"]
    # at quick scale: the file has no paper counts to fall below
    rc, captured = _main(capsys, "run", f, "--out", tmp_path / "q", "--scale", "quick",
                         "--workers", "1", "--no-progress")
    text = (tmp_path / "q" / "REPORT.md").read_text()
    assert "scale: **quick**" in text and "below paper scale" not in text.lower()
    # more runs need no --force (the stored runs are reused)
    rc, captured = _main(capsys, "run", f, "--out", out, "--workers", "1", "--no-progress",
                         "--runs", "3")
    assert rc == 0, captured.err
    assert ("1 chunk: 0 loaded, 1 computed in 1 piece (1 of them grown: only their new runs)"
            in captured.out)


def test_a_rerun_that_computes_nothing_keeps_the_provenance(tmp_path, capsys, fake):
    """The stored command, commit, date and picture stay; an "assembled by" line is
    added."""
    f = tmp_path / "mine.toml"
    f.write_text(MINE)
    out = tmp_path / "o"
    assert _main(capsys, "run", f, "--out", out, "--workers", "1", "--no-progress")[0] == 0
    before = json.loads((out / "my-cartpole.json").read_text())
    png = (out / "my-cartpole.png").read_bytes()
    rc, captured = _main(capsys, "reproduce", "fig3-right", "--scale", "quick", "--out",
                         tmp_path / "x", "--workers", "1", "--no-progress", "--runs", "1")
    rc, captured = _main(capsys, "run", f, "--out", out, "--workers", "1", "--no-progress",
                         "--set", "seed=2016")
    assert rc == 0 and "0 computed" in captured.out
    after = json.loads((out / "my-cartpole.json").read_text())
    for k in ("command", "git", "started", "finished", "machine", "elapsed_s", "compute_s"):
        assert after[k] == before[k], k
    assert after["chunks"]["computed"] == 0 and before["chunks"]["computed"] > 0
    assert (out / "my-cartpole.png").read_bytes() == png
    (a,) = after["assembled_by"]
    assert a["command"].endswith("--set seed=2016") and a["chunks"]["computed"] == 0
    assert "assembled by `python -m ftd_lib run" in (out / "REPORT.md").read_text()


def test_a_variant_is_its_set_items_and_the_same_chunks():
    """``reproduce fig4-left --variant NAME`` is ``--set`` items: the chunks of the set-up's
    own file and of the old definition, identity for identity."""
    from ftd_lib.repro import store
    from ftd_lib.repro.chunks import cut_chunks
    from ftd_lib.repro.definitions import figure
    from ftd_lib.repro.paper.study import variant_sets

    def keys(fig):
        return [store.chunk_key(t.identity("r", "cpu")) for t in cut_chunks(fig)]

    sets = variant_sets("small weights")
    assert "network.init=small" in sets
    by_sets = load_experiment(experiment_path("fig4-left"), "quick", sets)[0]
    own_file = load_experiment(experiment_path("fig4-left-small-weights"), "quick")[0]
    assert keys(by_sets) == keys(own_file) == keys(figure("fig4-left", "quick",
                                                          variant="small weights"))


def test_short_lams_is_refused_where_a_curve_has_its_own():
    """``lams=`` would not reach a curve with its own lambda (n-step Sarsa as forward
    Sarsa(1)): one line naming each such curve and both long forms, not a silent half-change."""
    path = experiment_path("cartpole-n-step")
    with pytest.raises(ValueError) as e:
        load_experiment(path, "quick", ["lams=0.5"])
    msg = str(e.value)
    assert "\n" not in msg and "curves.1.lam = 1.0" in msg and "curves.2" not in msg
    assert "--set grid.lams=0.5" in msg and "--set curves.1.lam=0.5" in msg
    fig, _ = load_experiment(path, "quick", ["grid.lams=0.5"])  # the long form: the grid's
    lams = {c.curve: c.lam for c in fig.cells}
    assert lams == {"forward Sarsa(0.9)": 0.5, "4-step Sarsa (forward Sarsa, λ = 1, K_max = 4)":
                    1.0, "4-step Sarsa (its own method)": 0.0}  # (n-step Sarsa ignores λ)
    fig, _ = load_experiment(path, "quick", ["curves.1.lam=0.5"])
    assert {c.lam for c in fig.cells if c.curve.startswith("4-step Sarsa (forward")} == {0.5}


def test_short_forms_are_the_grids_where_no_curve_has_its_own():
    """``alphas=`` reaches every curve (a curve has no alphas of its own); ``lams=`` on a file
    whose curves take the grid's lambdas is ``grid.lams=``."""
    for name, sets in (("fig4-right", ["lams=0,0.5", "alphas=0.01,0.02"]),
                       ("cartpole-n-step", ["alphas=0.01,0.02"])):
        short, _ = load_experiment(experiment_path(name), "quick", sets)
        long, _ = load_experiment(experiment_path(name), "quick", [f"grid.{s}" for s in sets])
        assert short.cells == long.cells
        assert {c.alpha for c in short.cells} == {0.01, 0.02}
    # (cartpole-n-step: lams untouched; its n-step Sarsa curve ignores lambda: one fixed 0)
    assert {c.lam for c in short.cells} == {0.0, 0.9, 1.0}
