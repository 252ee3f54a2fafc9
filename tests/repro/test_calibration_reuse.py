"""``plan`` and ``--dry-run`` reuse this machine's calibration of the same code while it is
under a day old (a second ``plan`` does not measure again); another code, machine, age or an
uncovered method measures again, and ``--recalibrate`` always does. The measuring itself is
replaced by a stand-in here. About 10 s."""

import json
from dataclasses import replace

import pytest
from conftest import fake_calibrate

from ftd_lib.repro import cli
from ftd_lib.repro.experiment import experiment_path
from ftd_lib.repro.planning import calibrate as cal
from ftd_lib.repro.planning import cost

NSTEP = str(experiment_path("cartpole-n-step"))


def test_a_second_plan_reuses_the_calibration_until_the_code_changes(tmp_path, monkeypatch,
                                                                      capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = []
    monkeypatch.setattr(cal, "calibrate", fake_calibrate(calls))
    argv = ["plan", NSTEP, "--scale", "quick", "--workers", "1", "--out", str(tmp_path / "o")]
    assert cli.main(argv) == 0 and len(calls) == 1
    assert "no calibration saved" in capsys.readouterr().err
    assert cli.main(argv) == 0 and len(calls) == 1  # reused
    err = capsys.readouterr().err
    assert "calibration reused from" in err and "same machine and code" in err
    assert cli.main([*argv, "--recalibrate"]) == 0 and len(calls) == 2
    saved = json.loads(cost.rates_path().read_text())
    # what a changed method or engine looks like: no calibration of today's code
    saved["code"], saved["by_code"] = "another", {"another": saved["by_code"].popitem()[1]}
    cost.rates_path().write_text(json.dumps(saved))
    assert cli.main(argv) == 0 and len(calls) == 3
    assert "the code changed since the saved calibration" in capsys.readouterr().err


def test_a_stale_or_uncovering_calibration_is_not_reused(tmp_path):
    path = tmp_path / "rates.json"
    rates = replace(cost.DEFAULT_RATES, control={"sarsa_lambda": 1e-6})
    cost.save_rates(rates, path, code="c")  # (as saved before a first chunk was measured)
    got, why = cost.fresh_rates("c", control=[("sarsa_lambda", "cartpole")], path=path)
    assert got is None and why == "the saved calibration does not measure a worker's first chunks"
    cost.save_rates(replace(rates, kind_load_s={"control": 0.5}), path, code="c")
    got, _ = cost.fresh_rates("c", control=[("sarsa_lambda", "cartpole")], path=path)
    assert got is not None and got.control == {"sarsa_lambda": 1e-6}
    assert cost.fresh_rates("c", control=[("forward_sarsa_lambda", "cartpole")],
                            path=path)[1] == "the saved calibration does not cover these methods"
    assert "another machine's" in cost.fresh_rates(
        "c", path=_edit(path, machine={"cpu": "elsewhere"}))[1]
    old = json.loads(path.read_text())["by_code"]
    old["c"]["saved"] = 0.0
    assert "h old" in cost.fresh_rates("c", path=_edit(path, saved=0.0, by_code=old))[1]


def test_two_experiments_planned_in_turn_are_each_calibrated_once(tmp_path, monkeypatch,
                                                                  capsys):
    """A plan calibrates its own methods; a second file's plan once measured again and
    replaced the first's, so planning two files in turn measured every time. The machine's
    file keeps both (by the code they timed), and the rates a run reads merge them."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = []
    monkeypatch.setattr(cal, "calibrate", fake_calibrate(calls))
    watkins = str(experiment_path("acrobot-watkins"))
    for path, n in ((NSTEP, 1), (watkins, 2), (NSTEP, 2), (watkins, 2)):
        assert cli.main(["plan", path, "--scale", "quick", "--workers", "1", "--out",
                         str(tmp_path / "o")]) == 0
        assert len(calls) == n, path
    merged = cost.machine_rates()
    assert {"kernel/n_step_sarsa/cartpole", "reference/watkins_q_lambda/acrobot"} <= set(
        merged.engines)
    assert len(json.loads(cost.rates_path().read_text())["by_code"]) == 2


def _edit(path, **changes):
    saved = json.loads(path.read_text())
    saved.update(changes)
    out = path.with_name(f"edited-{len(changes)}-{next(iter(changes))}.json")
    out.write_text(json.dumps(saved))
    return out


def test_the_compute_is_the_pieces_clocks_on_that_many_workers(tmp_path):
    """The compute is what the pieces' own clocks will sum to: each piece's seconds alone
    (with its own overhead: more workers, a finer cut), slowed down by the slowdown measured
    for that many workers at once (here 3.4 at 2; none measured at 16), as the wall is."""
    from ftd_lib.repro.experiment import load_experiment
    from ftd_lib.repro.planning.plan import plan_experiment

    fig, _ = load_experiment(NSTEP, "quick")
    rates = replace(cost.DEFAULT_RATES, slowdown={"2": 3.4})
    plans = {w: plan_experiment(fig, tmp_path, w, cost.Costing(rates, [])) for w in (1, 2, 16)}
    compute = {w: p.compute_s for w, p in plans.items()}
    chunks = {w: sum(len(s.chunks) for s in p.stages) for w, p in plans.items()}
    per_chunk = rates.chunk_s["control"]  # (more workers: a finer cut, its chunks' overhead)
    alone = {w: sum(sum(s.seconds) for s in p.stages) for w, p in plans.items()}
    assert compute[1] == pytest.approx(alone[1], rel=1e-12) and compute[1] > 0
    for w, slow in ((2, 3.4), (16, 1.0)):
        assert alone[w] == pytest.approx(alone[1] + (chunks[w] - chunks[1]) * per_chunk,
                                         rel=1e-12)
        assert compute[w] == pytest.approx(slow * alone[w], rel=1e-12)
    one = replace(cost.DEFAULT_RATES, slowdown={})
    assert plans[2].wall_s > plan_experiment(fig, tmp_path, 2, cost.Costing(one, [])).wall_s


def test_the_plan_a_run_stores_is_the_plan_printed():
    """The plan stored in a run's JSON (21 s) was once not the ``plan`` command's
    (44-47 s) for the same chunks: the stored one left out the slowdown of workers at once.
    Both now schedule the same seconds the same way."""
    from ftd_lib.repro.experiment import load_experiment
    from ftd_lib.repro.planning.plan import plan_experiment
    from ftd_lib.repro.runs import _predicted

    fig, _ = load_experiment(NSTEP, "quick")
    rates = replace(cost.DEFAULT_RATES, slowdown={"2": 3.4}, source="calibrated (a test's)")
    (stage,) = plan_experiment(fig, "/nonexistent-out", 2, cost.Costing(rates, [])).stages
    stored = _predicted(stage.seconds, 2, rates, [cost.pair_key(t) for t in stage.chunks],
                        [t.task for t in stage.chunks])
    assert len(stage.seconds) > 1
    assert stored["wall_s"] == stage.wall_s and stored["compute_s"] == stage.compute_s
