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
    assert s == {"groups": [{"chunks": 2, "method": None, **a}], "unrecorded": 2,
                 "mixed": False}
    for other in (b, c):  # another engine, another library version
        s = provenance.figure_provenance([*metas, {"provenance": other}])
        assert s["mixed"] and [g["chunks"] for g in s["groups"]] == [2, 1]
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
    assert sum(g["chunks"] for g in prov["groups"]) == len(metas)


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
    assert "Sarsa(λ): 1 chunk(s) by engine `batch`" in text
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
    assert res.meta["provenance"]["groups"][0]["chunks"] == len(paths) - 2
    np.testing.assert_array_equal(res["metric"], ref["metric"])
    assert "2 chunk(s) with unrecorded" in report.render(tmp_path)


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
