"""What a researcher's quick runs pay beside their chunks' compute: every worker
process loads the compiled (method, task) pair of its first chunk of each pair
(``Rates.pair_load_s``, once a process, not once a chunk); the command's own process digests
the chunks' code and reads the stored history (``Rates.digest_s``, ``Rates.history_s``);
the start of N workers is kept per N. The plan counts them, the plan a run stores is the
same, and ``plan`` measures them once and reuses them. The measuring is replaced by
stand-ins here: no test reads a clock. About 10 s."""

import json
from dataclasses import replace

import pytest
from conftest import fake_calibrate

from ftd_lib.repro import cli
from ftd_lib.repro.experiment import experiment_path, load_experiment
from ftd_lib.repro.planning import calibrate as cal
from ftd_lib.repro.planning import cost
from ftd_lib.repro.planning.plan import FigurePlan, command_wall, plan_experiment
from ftd_lib.repro.planning.schedule import list_schedule

NSTEP = str(experiment_path("cartpole-n-step"))


def test_a_workers_first_chunk_of_a_pair_pays_its_load_once():
    # worker 0 takes a (3, loading a: +10), worker 1 b (2); worker 1 is free first and takes
    # a: its first a, so it loads it too; the last a goes to worker 0 (a tie at 18: the
    # lowest-numbered), which has a loaded already
    s = list_schedule([3.0, 2.0, 1.0, 1.0], 2, start_at=5.0, keys=["a", "b", "a", "a"],
                      first={"a": 10.0})
    assert s.start == [5.0, 5.0, 7.0, 18.0] and s.worker == [0, 1, 1, 0]
    assert s.loads == [3.0 + 10.0 + 1.0, 2.0 + 1.0 + 10.0] and s.makespan == 19.0
    assert list_schedule([3.0, 2.0], 1, keys=["a", "a"], first={"a": 10.0}).makespan == 15.0
    assert list_schedule([3.0, 2.0], 1).makespan == 5.0  # (no keys: nothing loaded)
    with pytest.raises(ValueError, match="keys"):
        list_schedule([1.0, 2.0], 1, keys=["a"])


def _plan(workers, rates):
    fig, _ = load_experiment(NSTEP, "quick")
    return plan_experiment(fig, "/nonexistent-out", workers, cost.Costing(rates, []))


def test_the_plan_counts_each_pairs_load_once_a_process_and_stores_the_same():
    """The command's own process (one worker) computes every chunk: each pair it meets is
    loaded once, however many chunks of it there are; the compute (each chunk alone) does
    not change, and the plan a run stores is the printed one."""
    from ftd_lib.repro.runs import _predicted

    loads = {"kernel/forward_sarsa_lambda/cartpole": 100.0, "kernel/n_step_sarsa/cartpole": 7.0}
    with_loads = replace(cost.DEFAULT_RATES, pair_load_s=loads, slowdown={"2": 1.5},
                         source="calibrated (a test's)")
    (bare,) = _plan(1, replace(with_loads, pair_load_s={})).stages
    (one,) = _plan(1, with_loads).stages
    keys = [cost.pair_key(t) for t in one.chunks]
    assert sorted(set(keys)) == sorted(loads) and len(keys) > len(set(keys))  # 2 chunks share
    assert one.seconds == bare.seconds
    assert one.wall_s == pytest.approx(bare.wall_s + 107.0, rel=1e-12)
    (two,) = _plan(2, with_loads).stages
    assert two.seconds == _plan(2, replace(with_loads, pair_load_s={})).stages[0].seconds
    stored = _predicted(two.seconds, 2, with_loads, [cost.pair_key(t) for t in two.chunks],
                        [t.task for t in two.chunks])
    assert stored["wall_s"] == two.wall_s and stored["compute_s"] == two.compute_s
    # on 2 workers the pair with two chunks may be loaded by both: at least once, at most
    # twice (planned seconds from the stand-in rates above, not a clock)
    start = with_loads.start(2)
    assert start + 1.5 * 100.0 < two.wall_s < start + 1.5 * (2 * 100.0 + 7.0 + sum(two.seconds))


def test_the_commands_bookkeeping_is_counted():
    """The code digests of every command that runs a figure; the history where it costs
    control chunks (the torch batch's prediction chunks never read it)."""
    r = cost.Rates(startup_s=1.0, digest_s=20.0, history_s=300.0)
    (stage,) = _plan(2, cost.DEFAULT_RATES).stages
    computes = FigurePlan("a", 2, [stage])
    assert command_wall([computes], r) == pytest.approx(
        1.0 + 20.0 + 300.0 + stage.wall_s + r.plot_load_s + r.draw_s, rel=1e-12)
    nothing = FigurePlan("a", 2, [stage._replace(chunks=[], wall_s=0.0)])
    assert command_wall([nothing], r) == 1.0 + 20.0


def test_the_start_of_n_workers_is_kept_per_n(tmp_path):
    """A calibration for one worker count (here 1: no workers started) kept after one for
    2 workers does not replace their start (a single number once did: the newest's)."""
    path = tmp_path / "rates.json"
    two = replace(cost.DEFAULT_RATES, worker_start_s=9.0, worker_starts={"2": 9.0},
                  pair_load_s={"kernel/a/t": 0.5})
    cost.save_rates(two, path, code="c2")
    cost.save_rates(replace(cost.DEFAULT_RATES, pair_load_s={"kernel/b/t": 0.25}), path,
                    code="c1")
    merged = cost.machine_rates(path)
    assert merged.start(2) == 9.0 and merged.start(3) == cost.DEFAULT_RATES.worker_start_s
    assert merged.pair_load_s == {"kernel/a/t": 0.5, "kernel/b/t": 0.25}


def test_calibrate_measures_every_pair_the_plan_loads(monkeypatch):
    """The pairs the calibration loads are the plan's (:func:`cost.pair_key` of every chunk),
    the digests those of the methods planned; the bookkeeping and the start of the workers
    asked for go into the rates."""
    from ftd_lib.repro.planning.plan import methods_to_calibrate

    asked = {}

    def pair_loads(pairs, kinds=("control",)):
        asked["pairs"] = list(pairs)
        return {cost.engine_key(e, m, env): 0.5 for e, m, env, _ in pairs}

    def command_start(codes=()):
        asked["codes"] = list(codes)
        return 3.0, 0.25, 0.125

    monkeypatch.setattr(cal, "calibrate_pair_loads", pair_loads)
    monkeypatch.setattr(cal, "calibrate_command_start", command_start)
    monkeypatch.setattr(cal, "calibrate_control", lambda m, env: 1e-6)
    monkeypatch.setattr(cal, "calibrate_engine", lambda e, m, env, params=None: (0.0, 2e-6))
    monkeypatch.setattr(cal, "calibrate_chunk_s", lambda kind: 0.01)
    monkeypatch.setattr(cal, "calibrate_worker_start", lambda kinds, n: 4.0 + n)
    monkeypatch.setattr(cal, "calibrate_drawing", lambda: (0.5, 0.1))
    monkeypatch.setattr(cal, "calibrate_slowdown", lambda n: 1.25)
    monkeypatch.setattr(cal, "calibrate_kind_loads",
                        lambda kinds: (0.5, {k: 0.75 for k in kinds}))
    fig, _ = load_experiment(NSTEP, "quick")
    pred, ctrl, engines = methods_to_calibrate([fig])
    rates = cal.calibrate(pred, ctrl, workers=2, engines=engines)
    (stage,) = plan_experiment(fig, "/nonexistent-out", 2, cost.Costing(rates, [])).stages
    assert {cost.pair_key(t) for t in stage.chunks} <= set(rates.pair_load_s)
    assert sorted(asked["codes"]) == sorted({("control", t.method, t.env)
                                             for t in stage.chunks})
    assert (rates.startup_s, rates.digest_s, rates.history_s) == (3.0, 0.25, 0.125)
    # the command's own first chunk: a worker's start less the command's, its digests done
    assert rates.start(2) == 6.0 and rates.engine_load_s == 5.0 - 3.0 - 0.25
    # a worker's first control chunk, and its import of the engine
    assert rates.kind_load_s == {"control": 0.75} and rates.engine_import_s == 0.5


def _more_rates(engines, n_calls):
    """The stand-in's pair loads and bookkeeping, a new value on every call."""
    return dict(pair_load_s={cost.engine_key("kernel", m, env): 40.0 + n_calls
                             for _e, m, env, _ in engines},
                digest_s=500.0 + n_calls, history_s=6000.0)


def test_a_second_plan_counts_the_saved_loads_and_a_changed_code_measures_again(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = []
    monkeypatch.setattr(cal, "calibrate", fake_calibrate(calls, _more_rates))
    argv = ["plan", NSTEP, "--scale", "quick", "--workers", "1", "--out", str(tmp_path / "o"),
            "--summary"]

    def printed():
        out = capsys.readouterr().out
        line = next(ln for ln in out.splitlines() if ln.startswith("command:"))
        return float(line.split("(")[1].split(" s in this process")[0])

    assert cli.main(argv) == 0 and len(calls) == 1
    first = printed()  # startup, engine, pictures and the bookkeeping measured
    assert first > 501.0 + 6000.0
    assert cli.main(argv) == 0 and len(calls) == 1  # reused: the same loads, read back
    assert printed() == first and cost.machine_rates().digest_s == 501.0
    saved = json.loads(cost.rates_path().read_text())
    saved["code"], saved["by_code"] = "another", {"another": saved["by_code"].popitem()[1]}
    cost.rates_path().write_text(json.dumps(saved))  # a changed method or engine
    assert cli.main(argv) == 0 and len(calls) == 2
    assert printed() == pytest.approx(first + 1.0, abs=0.11)  # measured again: its digest_s
