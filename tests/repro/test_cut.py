"""ftd_lib.repro.planning.cut and reuse: chunks cut by cost cover every row once, balance the
workers, put an expensive cell apart; the numbers do not depend on the cut (the engine, bit for
bit);
a store cut one way is read by a run cut another way; the committed paper figures compute
nothing."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import Inline

from ftd_lib.repro import chunks
from ftd_lib.repro import store as chunk_store
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.planning import cost, cut, plan
from ftd_lib.repro.protocol import pilot_figure, run_protocol
from ftd_lib.repro.results import results_paths
from ftd_lib.repro.runs import run_figure

pytestmark = pytest.mark.slow  # plans of paper-scale figures

REPO_RESULTS = Path(__file__).resolve().parents[2] / "results"


def _costing():
    return cost.Costing(cost.DEFAULT_RATES, cost.history_dirs(None))


def _covered(fig, tasks):
    seen = np.zeros((len(fig.cells), fig.runs), int)
    for t in tasks:
        np.add.at(seen, (t.cell_index, t.run_ids), 1)
    return seen


def _rows(tasks):
    return sorted((int(c), int(r)) for t in tasks
                  for c, r in zip(t.cell_index, t.run_ids, strict=True))


@pytest.mark.parametrize("workers", [2, 16])
def test_cut_covers_every_row_once_largest_first_and_keeps_the_run_blocks(workers):
    fig = pilot_figure("fig4-left")
    tasks = chunks.cut_chunks(fig)
    c = _costing()
    pieces = cut.cut_by_cost(tasks, workers, c.seconds)
    assert (_covered(fig, pieces) == 1).all()
    costs = [c.seconds(t) for t in pieces]
    assert costs == sorted(costs, reverse=True)
    assert len(pieces) >= 4 * workers  # 313 cells: the work allows it
    for t in pieces:
        assert len({fig.cells[i].method for i in t.cell_index}) == 1
        for cell in np.unique(t.cell_index):  # each cell with the definition's block of runs
            assert list(t.run_ids[t.cell_index == cell]) == list(range(fig.runs))
    # similar costs: none far above the mean (each cell is a small part of the whole)
    assert max(costs) <= 2.0 * np.mean(costs)
    assert cut.cut_by_cost(tasks, 1, c.seconds) == tasks  # one worker: the definition's cut


def test_a_cell_that_never_learns_gets_a_chunk_of_its_own():
    """Mountain car: a run that never reaches the goal runs into the 5000-step cap every
    episode, ten times one that learns (500 steps): its cell is split off."""
    fig = figure("fig4-left", "paper", runs=20)
    task = chunks.cut_chunks(fig)[0]
    cells = [int(x) for x in np.unique(task.cell_index)][:6]
    task = cut.sub_task(task, cells)
    history = {}
    for k, i in enumerate(cells):
        steps = 5000.0 if k == 2 else 500.0
        history[cost.history_key(fig.env, task.method, fig.cells[i].row(), fig.episodes,
                                 fig.max_steps, "")] = steps
    c = cost.Costing(cost.DEFAULT_RATES)
    c.history = history
    assert c.steps(cut.sub_task(task, [cells[2]])) == pytest.approx(
        10 * c.steps(cut.sub_task(task, [cells[0]])))
    pieces = cut.split(task, 3, lambda i: c.seconds(cut.sub_task(task, [i])))
    alone = [p for p in pieces if cells[2] in p.cell_index]
    assert len(alone) == 1 and set(np.unique(alone[0].cell_index)) == {cells[2]}
    others = [c.seconds(p) for p in pieces if p is not alone[0]]
    assert max(others) <= 1.5 * min(others)


def test_numbers_do_not_depend_on_the_cut_and_another_cut_reads_the_store(tmp_path):
    """The engine at quick scale: Fig. 3 right (prediction) and Fig. 4 left (control), once
    cut by the definition (one worker) and once cut by cost for 4 workers: the same arrays bit
    for bit; a one-worker run on the store of the cost cut computes nothing; a store missing
    one piece computes only that piece's cells."""
    for name in ("fig3-right", "fig4-left"):
        fig = figure(name, "quick")
        one = run_figure(fig, tmp_path / "one", progress=False, plot=False)
        ex = Inline()
        four = run_figure(fig, tmp_path / "four", progress=False, plot=False, workers=4,
                          executor=ex, rates=cost.DEFAULT_RATES)
        def key(t):
            return chunk_store.chunk_key(chunks.identity_of(t, chunks.engine_runner, "cpu"))

        defined = {key(t) for t in chunks.cut_chunks(fig)}
        computed = {key(t) for t in ex.tasks}
        assert len(ex.tasks) > len(defined) and not computed & defined  # another cut
        for k in one.arrays:
            np.testing.assert_array_equal(one.arrays[k], four.arrays[k], err_msg=k)
        again = run_figure(fig, tmp_path / "four", progress=False, plot=False)
        assert again.meta["chunks"]["computed"] == 0
        # one piece lost: only its cells are computed again, the rest is read
        lost = ex.tasks[0]
        key = chunk_store.chunk_key(chunks.identity_of(lost, chunks.engine_runner, "cpu"))
        (results_paths(name, tmp_path / "four")["chunks"] / f"{key}.npz").unlink()
        ex2 = Inline()
        redo = run_figure(fig, tmp_path / "four", progress=False, plot=False, workers=4,
                          executor=ex2, rates=cost.DEFAULT_RATES)
        assert _rows(ex2.tasks) == _rows([lost])
        for k in one.arrays:
            np.testing.assert_array_equal(one.arrays[k], redo.arrays[k], err_msg=k)


@pytest.mark.parametrize("name", ["fig4-left", "fig4-right"])
def test_committed_paper_figure_plans_and_computes_nothing(tmp_path, monkeypatch, name):
    """The committed stores (results/, cut by older definitions and by the batch engine's
    chunk sizes) are read, not recomputed: the plan for 16 workers lists no chunk in any
    stage, and the two-stage protocol run on a copy with 16 workers calls no runner."""
    c = _costing()
    fp = plan.plan_figure(name, "paper", 16, c, out=REPO_RESULTS)
    assert fp.stages[0].name == "pilot" and fp.stages[-1].name.startswith("final")
    assert all(not s.chunks and s.stored == s.total for s in fp.stages)
    assert fp.wall_s == 0.0
    assert [s.basis for s in fp.stages if s.name == "final"] == ["stored pilot"]
    assert all(s.basis == "stored final" for s in fp.stages if s.name.startswith("final, "))
    out = tmp_path / "results"
    for sub in (Path("chunks") / name, Path("pilot") / "chunks" / name):
        shutil.copytree(REPO_RESULTS / sub, out / sub)

    def refuse(task, **kw):
        raise AssertionError(f"computed a chunk of {task.figure}: {task.method}")

    monkeypatch.setattr(chunks, "engine_runner", refuse)
    res = run_protocol(name, out, progress=False, plot=False, workers=16, executor=Inline())
    assert res.meta["chunks"]["computed"] == 0
    stored = np.load(REPO_RESULTS / f"{name}.npz")
    np.testing.assert_array_equal(res.arrays["metric"], stored["metric"])


def test_plan_command_and_dry_run_print_the_plan_and_write_nothing(tmp_path, capsys,
                                                                    monkeypatch):
    from ftd_lib.repro.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no calibration kept

    out = tmp_path / "nothing"
    assert main(["plan", "fig4-right", "--scale", "paper", "--workers", "64", "--out",
                 str(out), "--no-calibrate"]) == 0
    text = capsys.readouterr().out
    assert not out.exists()
    assert "fig4-right · pilot: 2 chunks: 0 stored, 2 to compute" in text
    assert "fig4-right · final" in text  # the final cells: the committed pilot's numbers
    assert f"the same pilot's numbers, stored in {REPO_RESULTS / 'pilot'}" in text
    assert "on 64 workers" in text and "run-steps" in text
    n_chunks = sum(1 for line in text.splitlines() if line.strip()[:1].isdigit())
    assert n_chunks >= 4 * 64  # both stages cut for 64 workers
    assert main(["plan", "fig4-right", "--scale", "paper", "--out", str(out), "--summary",
                 "--no-calibrate", "--set", "alphas=0.001,0.002"]) == 0
    text = capsys.readouterr().out  # a pilot no store holds: the final stage from the model
    assert "model (pilot not stored" in text and "#" not in text  # (--summary: no chunks)
    assert main(["reproduce", "fig3-right", "--scale", "quick", "--out", str(out),
                 "--dry-run", "--workers", "2", "--no-calibrate"]) == 0
    text = capsys.readouterr().out
    assert not out.exists()
    assert "fig3-right: predicted wall" in text and "defaults (2 shared AMD EPYC" in text


def test_final_stage_run_steps_predicted_from_the_stored_pilot_match_the_stored_run():
    """Fig. 4 right: the final stage's run-steps predicted from the pilot's stored returns
    (20 runs a cell) against the run-steps the compiled kernel counted when it computed the
    committed final stage (200 runs; its chunks' metadata): within 10 %."""
    from ftd_lib.repro.protocol import final_figure

    pilot = pilot_figure("fig4-right")
    metric = plan.stored_metric(pilot, REPO_RESULTS / "pilot")
    assert metric is not None
    final = final_figure("fig4-right", pilot, metric)
    c = cost.Costing(cost.DEFAULT_RATES, [REPO_RESULTS / "pilot"])  # the pilot only
    tasks = chunks.cut_chunks(final)
    predicted = sum(c.steps(t) for t in tasks)
    st = chunk_store.ChunkStore(REPO_RESULTS / "chunks" / "fig4-right")
    measured = 0.0
    for t in tasks:
        _data, meta = st.load(chunks.identity_of(t, chunks.engine_runner, "cpu"))
        assert meta["engine"]["width"] == 1.0  # the kernel: iterations are run-steps
        measured += meta["engine"]["iterations"]
    assert abs(predicted / measured - 1) < 0.10, (predicted, measured)


def test_committed_gpu_figure_is_read_on_a_cpu_not_computed_again(tmp_path, monkeypatch,
                                                                  capsys):
    """Fig. 3 left's committed chunks were made on a GPU (its file's ``chunks.device``):
    ``reproduce`` without ``--device`` reads them on a CPU-only machine and computes nothing,
    the plan says so; a fresh folder is computed on the CPU (GPU chunks never mix in)."""
    from ftd_lib.repro.cli import main

    assert plan.stored_device("fig3-left", "paper", REPO_RESULTS) == "cuda"
    assert plan.stored_device("fig3-left", "paper", tmp_path / "fresh") == "cpu"
    assert plan.stored_device("fig3-right", "paper", REPO_RESULTS) == "cpu"
    # a GPU chunk lost: the rest cannot make the figure, so the CPU computes it all
    out = tmp_path / "results"
    shutil.copytree(REPO_RESULTS / "chunks" / "fig3-left", out / "chunks" / "fig3-left")
    lost = tmp_path / "lost.npz"
    one = sorted((out / "chunks" / "fig3-left").glob("*.npz"))[0]
    shutil.move(one, lost)
    assert plan.stored_device("fig3-left", "paper", out) == "cpu"
    shutil.move(lost, one)

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["plan", "fig3-left", "--scale", "paper", "--out", str(out), "--workers", "2",
                 "--no-calibrate"]) == 0
    text = capsys.readouterr().out
    assert "chunks of device cuda" in text and "4 chunks: 4 stored, 0 to compute," in text

    def refuse(task, **kw):
        raise AssertionError(f"computed a chunk of {task.figure}: {task.method}")

    monkeypatch.setattr(chunks, "engine_runner", refuse)
    assert main(["reproduce", "fig3-left", "--scale", "paper", "--out", str(out),
                 "--workers", "2", "--no-progress"]) == 0
    got = np.load(out / "fig3-left.npz")
    stored = np.load(REPO_RESULTS / "fig3-left.npz")
    np.testing.assert_array_equal(got["metric"], stored["metric"])
    meta = json.loads((out / "fig3-left.json").read_text())
    assert meta["chunks"] == {"computed": 0, "loaded": 4, "total": 4, "pieces": 0}
    assert "--device cuda" in meta["command"]  # what resumes it reads the same chunks


def test_plan_follows_the_options_reproduce_is_given(tmp_path):
    """``--set`` (and the other figure options) change what the plan lists exactly as they
    change what the protocol computes: the pilot stage of Fig. 4 right on two step sizes and
    two lambdas plans the rows the protocol then computes (a cheap stand-in runner)."""
    grid = {"alphas": (0.001, 0.002), "lams": (0.0, 0.5)}
    out = tmp_path / "o"
    fp = plan.plan_figure("fig4-right", "paper", 2, _costing(), out=out, grid=grid)
    pilot = fp.stages[0]
    assert pilot.name == "pilot" and len(pilot.figure.cells) == 2 * 2 * 2  # x two methods
    assert plan.plan_figure("fig4-right", "paper", 2, _costing(), out=out,
                            episodes=10).stages[0].name == "pilot"  # the file's protocol

    def fake(task, *, device, progress):
        v = np.tile(-np.linspace(200, 100, task.n_episodes), (task.rows, 1))
        return {"values": v, "diverged": np.zeros(task.rows, bool)}

    fake.name = "plan-fake"
    ex = Inline()
    run_protocol("fig4-right", out, grid=grid, progress=False, plot=False, workers=2,
                 executor=ex, runner=fake)
    assert _rows(ex.tasks[:len(pilot.chunks)]) == _rows(pilot.chunks)


def test_plan_for_an_empty_folder_replays_the_widenings_of_the_same_numbers(tmp_path):
    """Before a from-scratch run of Fig. 4 left, the committed pilot and final stage (same
    definition, seed and device: the numbers the run will compute) tell which widenings come
    and which final cells: the plan lists the stages the run goes through, each widening
    computing only its appended cells (the rows before are stored by then)."""
    c = _costing()
    empty = plan.plan_figure("fig4-left", "paper", 2, c, out=tmp_path / "e")
    names = [s.name for s in empty.stages]
    assert "pilot, widening 1" in names and "final, widening 1" in names
    final = names.index("final")
    stored = np.load(REPO_RESULTS / "fig4-left.npz")  # the committed figure's cells, widened
    assert len(empty.stages[-1].figure.cells) == len(stored["metric"])
    for before, stage in zip(empty.stages[:-1], empty.stages[1:], strict=True):
        if stage.name == "final":
            continue
        new = stage.figure.cells[len(before.figure.cells):]
        got = {stage.figure.cells[int(i)] for t in stage.chunks for i in t.cell_index}
        assert got == set(new), stage.name
        assert sum(t.rows for t in stage.chunks) == len(new) * stage.figure.runs
        assert stage.stored == 0  # nothing is in the empty folder
    assert str(REPO_RESULTS / "pilot") in empty.stages[final].basis
    assert empty.stages[-1].basis.endswith(str(REPO_RESULTS))


def test_the_pilots_eta_counts_the_final_stage_and_its_widenings(tmp_path, monkeypatch):
    """The pilot's progress bar adds the stages still to come after it: the final stage and
    every widening of it that the plan foresees, not the last of them alone."""
    from ftd_lib.repro.cli import Job, _final_stage_s
    from ftd_lib.repro.experiment import load_experiment

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the default rates
    out = tmp_path / "e"
    fp = plan.plan_figure("fig4-left", "paper", 2, cost.Costing(cost.DEFAULT_RATES,
                                                                cost.history_dirs(out)), out=out)
    finals = [s.wall_s for s in fp.stages if s.name.startswith("final")]
    assert len(finals) > 1  # the final stage widens
    fig, run = load_experiment("fig4-left")
    job = Job("fig4-left", [], fig, run, out, "")
    assert _final_stage_s(job, "cpu", 2) == pytest.approx(sum(finals))
