"""Every new chunk records the engine, the library versions and the CPU path that made it; a
figure says when its chunks differ in any of them; chunks without the record (the committed
ones) count as unrecorded and are never recomputed for it."""

import json
from importlib.metadata import version

import numpy as np
import pytest

from ftd_lib.repro import chunks, provenance, report
from ftd_lib.repro import store as chunk_store
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.results import load_results, repo_results_dir, results_paths
from ftd_lib.repro.runs import run_figure


def _runner(engine_of):
    """A cheap runner whose rows depend on (run id, settings) only; it says which engine ran
    the chunk by ``engine_of(task)``."""

    def runner(task, *, device, progress):
        calls.append(task)
        v = np.outer(task.settings[:, 0] + task.run_ids, np.ones(task.n_episodes))
        return {"values": v, "diverged": np.zeros(task.rows, bool), "engine": engine_of(task)}

    calls = []
    runner.name, runner.calls = "prov-fake", calls
    return runner


def _chunk_metas(out, name):
    d = results_paths(name, out)["chunks"]
    return [json.loads(str(chunk_store.load_npz(p)["__meta__"])) for p in sorted(d.glob("*.npz"))]


def test_chunk_record_names_engine_versions_and_cpu_path(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    rec = provenance.chunk_provenance("kernel")
    assert list(rec) == list(provenance.FIELDS)
    assert rec["engine"] == "kernel"
    for lib in ("torch", "numba", "llvmlite", "numpy"):
        assert rec[lib] == version(lib)
    assert rec["cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    assert rec["aten_cpu_capability"] == "default"


def test_figure_summary_groups_counts_and_flags_a_mix():
    a = {"engine": "kernel", "torch": "2.13.0", "numba": "0.1", "llvmlite": "0.2",
         "numpy": "2.0", "cpu_capability": "AVX2", "aten_cpu_capability": None}
    b = dict(a, engine="batch")
    c = dict(a, numpy="2.1")
    metas = [{"provenance": a}, {"provenance": a}, {}, {"compute_s": 1.0}]
    s = provenance.figure_provenance(metas)
    assert s == {"groups": [{"pieces": 2, "method": None, **a}], "unrecorded": 2,
                 "mixed": False}
    for other in (b, c):  # another engine, another library version
        s = provenance.figure_provenance([*metas, {"provenance": other}])
        assert s["mixed"] and [g["pieces"] for g in s["groups"]] == [2, 1]
    text = "\n".join(provenance.describe(provenance.figure_provenance([{"provenance": a},
                                                                        {"provenance": b}])))
    assert "mixed numerics" in text and "`kernel`" in text and "`batch`" in text
    assert "mixed" not in "\n".join(provenance.describe(s | {"mixed": False}))
    assert "unrecorded" in provenance.describe(None)[0]


def test_new_chunks_and_the_figure_carry_the_record(tmp_path):
    run = _runner(lambda task: "kernel")
    fig = figure("fig4-right", "quick")
    res = run_figure(fig, tmp_path, runner=run, progress=False, plot=False)
    metas = _chunk_metas(tmp_path, fig.name)
    assert len(metas) == res.meta["chunks"]["total"] > 1
    assert all(m["provenance"]["engine"] == "kernel" for m in metas)
    assert all(m["provenance"]["numpy"] == np.__version__ for m in metas)
    prov = json.loads(results_paths(fig.name, tmp_path)["json"].read_text())["provenance"]
    assert prov["mixed"] is False and prov["unrecorded"] == 0
    # one group per method (the record is kept per method)
    assert [g["method"] for g in prov["groups"]] == fig.methods
    assert sum(g["pieces"] for g in prov["groups"]) == len(metas)


def test_two_methods_on_two_engines_are_not_mixed_one_method_on_two_is(tmp_path):
    """Provenance per method: each method's numbers from one engine is no mix (it was once
    reported as one); one method's chunks from two engines is, in the JSON and the report."""
    run = _runner(lambda task: "kernel" if task.method == "forward_sarsa_lambda" else "batch")
    fig = figure("fig4-right", "quick")
    run_figure(fig, tmp_path / "a", runner=run, progress=False, plot=False)
    prov = load_results(fig.name, tmp_path / "a").meta["provenance"]
    assert prov["mixed"] is False
    assert {(g["method"], g["engine"]) for g in prov["groups"]} == {
        ("forward_sarsa_lambda", "kernel"), ("sarsa_lambda", "batch")}
    text = report.render(tmp_path / "a")
    assert "mixed numerics" not in text
    assert "Sarsa(λ): 1 stored piece(s) by engine `batch`" in text
    # one method, its first chunk by the kernel, its second by the batch
    fig = figure("fig4-right", "quick", chunk_rows=2)
    seen = []

    def by_order(task):
        seen.append(task.method)
        return "kernel" if seen.count(task.method) == 1 else "batch"

    run_figure(fig, tmp_path / "b", runner=_runner(by_order), progress=False, plot=False)
    prov = load_results(fig.name, tmp_path / "b").meta["provenance"]
    assert prov["mixed"] is True
    text = report.render(tmp_path / "b")
    assert "mixed numerics" in text and "`kernel`" in text and "`batch`" in text


def test_chunks_without_a_record_are_unrecorded_never_recomputed(tmp_path):
    fig = figure("fig3-right", "quick", chunk_rows=4)  # 6 chunks
    run = _runner(lambda task: "batch")
    ref = run_figure(fig, tmp_path, runner=run, progress=False, plot=False)
    d = results_paths(fig.name, tmp_path)["chunks"]
    paths = sorted(d.glob("*.npz"))
    for p in paths[:2]:  # as the committed chunks were written: no provenance
        raw = chunk_store.load_npz(p)
        meta = json.loads(str(raw["__meta__"]))
        del meta["provenance"]
        raw["__meta__"] = np.array(json.dumps(meta))
        chunk_store.save_npz_atomic(p, **raw)
    n = len(run.calls)
    res = run_figure(fig, tmp_path, runner=run, progress=False, plot=False)
    assert len(run.calls) == n and res.meta["chunks"]["computed"] == 0
    assert res.meta["provenance"]["unrecorded"] == 2
    assert res.meta["provenance"]["groups"][0]["pieces"] == len(paths) - 2
    np.testing.assert_array_equal(res["metric"], ref["metric"])
    assert "2 stored piece(s) with unrecorded" in report.render(tmp_path)


def test_the_engine_runner_says_which_engine_ran():
    """The real engine on a one-run, one-episode control chunk (the compiled kernel on the
    CPU) and a prediction chunk (the torch batch)."""
    fig = figure("fig4-right", "quick", runs=1, episodes=1)
    task = chunks.cut_chunks(fig)[0]
    task = task._replace(cell_index=task.cell_index[:1], settings=task.settings[:1],
                         run_ids=task.run_ids[:1])
    assert chunks.engine_runner(task)["engine"] == "kernel"
    fig = figure("fig3-right", "quick", runs=1, episodes=1)
    task = chunks.cut_chunks(fig)[0]
    task = task._replace(cell_index=task.cell_index[:1], settings=task.settings[:1],
                         run_ids=task.run_ids[:1])
    assert chunks.engine_runner(task)["engine"] == "batch"


def test_committed_results_read_as_unrecorded():
    res = load_results("fig4-right", repo_results_dir())
    if res is None:
        pytest.skip("no committed fig4-right results in this checkout")
    assert "provenance" not in res.meta  # stored before the record existed: not rewritten
    text = "\n".join(report._provenance(res))
    assert "numerics provenance: unrecorded" in text


def test_chunk_and_piece_counts_agree_in_json_cli_report_plan_and_provenance(tmp_path):
    """Cut by cost for 4 workers, a figure's chunks are computed in more pieces than chunks:
    the JSON, the command line's summary, ``REPORT.md``, the plan and the provenance say the
    same two counts (the definition's chunks, the pieces stored), so a place that counted
    pieces as chunks, or chunks as pieces, would not match."""
    import re

    from conftest import Inline

    from ftd_lib.repro import cli
    from ftd_lib.repro.counts import chunk_counts, counts_text
    from ftd_lib.repro.planning import cost, plan

    fig = figure("fig3-right", "quick", chunk_rows=8)  # 3 chunks, 6 pieces on 4 workers
    out = tmp_path / "o"
    costing = cost.Costing(cost.DEFAULT_RATES)
    stage = plan.plan_stage(fig, out, 4, costing)
    run = _runner(lambda task: "batch")
    ex = Inline()
    res = run_figure(fig, out, runner=run, progress=False, plot=False, workers=4,
                     executor=ex, rates=cost.DEFAULT_RATES)
    ch = res.meta["chunks"]
    files = sorted(results_paths(fig.name, out)["chunks"].glob("*.npz"))
    n_chunks = len(chunks.cut_chunks(fig))
    assert ch == {"total": n_chunks, "loaded": 0, "computed": n_chunks,
                  "pieces": len(ex.tasks)}
    assert len(files) == ch["pieces"] > ch["computed"]  # cut by cost: more pieces than chunks
    said = counts_text(ch)
    assert said == f"{n_chunks} chunks: 0 loaded, {n_chunks} computed in {len(files)} pieces"
    assert said in cli.session_line(res, out)
    text = report.render(out)
    assert said in text
    # the plan before the run: the same chunks, the same pieces
    planned = counts_text(chunk_counts(stage.total, stage.stored, stage.chunks), planned=True)
    assert planned == f"{n_chunks} chunks: 0 stored, {n_chunks} to compute in {len(files)} pieces"
    assert planned in plan.stage_line(plan.FigurePlan(fig.name, 4, [stage]), stage)
    # the provenance counts the pieces read, in the JSON and in the report
    prov = res.meta["provenance"]
    assert sum(g["pieces"] for g in prov["groups"]) + prov["unrecorded"] == len(files)
    assert sum(map(int, re.findall(r"(\d+) stored piece\(s\) by engine", text))) == len(files)

    # one piece lost: its chunk is computed again (in pieces), the others are loaded
    files[0].unlink()
    ex = Inline()
    again = run_figure(fig, out, runner=run, progress=False, plot=False, workers=4,
                       executor=ex, rates=cost.DEFAULT_RATES)
    ch = again.meta["chunks"]
    assert ch == {"total": n_chunks, "loaded": n_chunks - 1, "computed": 1,
                  "pieces": len(ex.tasks)}
    assert counts_text(ch) in cli.session_line(again, out)
    assert counts_text(ch) in report.render(out)
    now = sorted(results_paths(fig.name, out)["chunks"].glob("*.npz"))
    prov = again.meta["provenance"]
    assert sum(g["pieces"] for g in prov["groups"]) + prov["unrecorded"] == len(now)


def test_counts_of_a_record_stored_before_pieces_were_counted():
    """Such a record called the pieces ``computed``: read as pieces, the chunks computed are
    the ones not loaded."""
    from ftd_lib.repro.counts import chunk_counts, counts_text, normal

    old = {"computed": 7, "loaded": 0, "total": 6}
    assert normal(old) == {"total": 6, "loaded": 0, "computed": 6, "pieces": 7}
    assert counts_text(old) == "6 chunks: 0 loaded, 6 computed in 7 pieces"
    assert counts_text({"computed": 0, "loaded": 4, "total": 4}) == "4 chunks: 4 loaded, 0 computed"
    with pytest.raises(ValueError, match="loaded"):
        chunk_counts(3, 4, [])
