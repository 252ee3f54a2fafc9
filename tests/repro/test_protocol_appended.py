"""A widening's appended cells get chunks of their own (ftd_lib.repro.protocol): a widening
computes only its new cells, and stores cut the older way (every appended cell of several
widenings in one chunk) stay valid without recomputing anything."""

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ftd_lib.repro import chunks, protocol
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.runs import run_figure

pytestmark = pytest.mark.slow  # the protocol's appended rows run

RESULTS = Path(__file__).resolve().parents[2] / "results"


def _below_the_grid(fig):
    """A metric whose Sarsa(0) best lies far below the grid (every widening appends one
    cell), the other curves' inside."""
    def best(c):
        return 0.0075 / 64 if (c.method, c.lam) == ("sarsa_lambda", 0.0) else 0.015

    m = np.array([-abs(np.log2(c.alpha / best(c))) for c in fig.cells])
    return np.repeat(m[:, None], fig.runs, axis=1)


def _widen(fig, times):
    for _ in range(times):
        fig = protocol.widened(fig, _below_the_grid(fig))
    return fig


class CountingRunner:
    """Returns depend only on a row's settings and run id; counts the rows it computes."""

    name = "counting-v1"

    def __init__(self):
        self.rows = 0

    def __call__(self, task, *, device, progress):
        self.rows += task.rows
        a, lam = task.settings[:, 0], task.settings[:, 1]
        base = -np.log2(a) - 3 * lam + 0.01 * task.run_ids
        vals = base[:, None] + np.arange(task.n_episodes)[None, :]
        return {"values": vals, "diverged": np.zeros(task.rows, bool)}


def _fig():
    """Fig. 4 left, quick, with three step sizes (so that a best can lie inside) and 2 runs."""
    q = figure("fig4-left", "quick")
    cells = tuple(replace(c, alpha=a) for c in q.cells if c.alpha == q.cells[0].alpha
                  for a in (0.0075, 0.015, 0.03))
    return replace(q, cells=cells, runs=2, cells_per_chunk=len(cells) // 2)


def test_each_widening_cuts_only_its_own_cells():
    p = _fig()
    w1, w2 = _widen(p, 1), _widen(p, 2)
    assert w2.appended_at == (len(p.cells), len(w1.cells)) and len(w2.cells) == len(w1.cells) + 1
    ids = [{str(t.identity("r", "cpu")) for t in chunks.cut_chunks(f, 1)} for f in (p, w1, w2)]
    assert ids[0] < ids[1] < ids[2]
    new = [t for t in chunks.cut_chunks(w2, 1) if str(t.identity("r", "cpu")) not in ids[1]]
    assert len(new) == 1 and set(new[0].cell_index.tolist()) == {len(w1.cells)}
    # the old cut put both widenings' cells in one chunk: the second widening re-cut it
    old = {str(t.identity("r", "cpu")) for t in chunks.cut_chunks(replace(w2, appended_at=()))}
    assert not ids[2] <= old


def test_a_widening_computes_only_its_new_cells(tmp_path):
    p = _fig()
    runner = CountingRunner()
    for k in range(3):
        run_figure(_widen(p, k), tmp_path, runner=runner, progress=False, plot=False)
    # the first run computes every cell, each widening one cell (x 2 runs) more
    assert runner.rows == (len(p.cells) + 2) * p.runs


def test_a_store_cut_the_old_way_is_read_not_recomputed(tmp_path):
    w2 = _widen(_fig(), 2)
    old_cut = replace(w2, appended_at=())  # as stored before appended cells had own chunks
    runner = CountingRunner()
    run_figure(old_cut, tmp_path / "old", runner=runner, progress=False, plot=False)
    computed = runner.rows
    got = run_figure(w2, tmp_path / "old", runner=runner, progress=False, plot=False)
    assert runner.rows == computed  # nothing recomputed
    assert got.meta["chunks"]["computed"] == 0
    fresh = run_figure(w2, tmp_path / "fresh", runner=CountingRunner(), progress=False,
                       plot=False)
    for k in ("metric", "diverged", "curve_mean", "alpha"):
        np.testing.assert_array_equal(got[k], fresh[k])


def test_rows_of_other_runs_are_not_taken_from_a_chunk(tmp_path):
    """A chunk's episode curves are summed over its runs: a stored chunk over other runs
    cannot stand in for it. Runs 0-2 read runs 0-1 from the stored block 0-1 (its first
    runs: the chunk grew, ftd_lib.repro.chunks.grown_chunk) and compute run 2, whose block
    2-3 sums run 3 in; the numbers are a fresh run's."""
    fig = _fig()
    run_figure(replace(fig, runs=4), tmp_path / "a", runner=CountingRunner(), progress=False,
               plot=False, force=True)  # chunks of 2 runs each: blocks 0-1, 2-3
    runner = CountingRunner()
    three = replace(fig, runs=3, runs_per_chunk=3)
    got = run_figure(three, tmp_path / "a", runner=runner, progress=False, plot=False,
                     force=True)
    assert runner.rows == len(fig.cells) * 1
    fresh = run_figure(three, tmp_path / "b", runner=CountingRunner(), progress=False,
                       plot=False)
    for k in ("metric", "curve_mean"):
        np.testing.assert_array_equal(got[k], fresh[k])


@pytest.mark.skipif(not (RESULTS / "chunks" / "fig4-left").is_dir(),
                    reason="no committed Fig. 4 left")
def test_the_committed_fig4_left_needs_no_computation(tmp_path, monkeypatch):
    """``reproduce fig4-left --scale paper`` (both stages, every widening) finds everything
    in the committed results/, computes nothing, and assembles the committed numbers."""
    shutil.copytree(RESULTS / "chunks" / "fig4-left", tmp_path / "chunks" / "fig4-left")
    shutil.copytree(RESULTS / "pilot" / "chunks" / "fig4-left",
                    tmp_path / "pilot" / "chunks" / "fig4-left")

    def refuse(task, **kw):
        raise AssertionError(f"computed a chunk: {task.method}, {task.rows} rows")

    monkeypatch.setattr(chunks, "engine_runner", refuse)
    res = protocol.run_protocol("fig4-left", tmp_path, progress=False, plot=False)
    assert res.meta["chunks"]["computed"] == 0
    committed = np.load(RESULTS / "fig4-left.npz")
    for k in ("metric", "alpha", "lam", "curve_mean"):
        np.testing.assert_array_equal(res[k], committed[k])
