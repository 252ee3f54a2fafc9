"""The cells' run times live in notebooks/run_times.json (ftd_lib/publish/run_times.py), written
by scripts/refresh_notebooks.py: what it stores and keeps, by hand, and that stripping the
notebooks' timestamps is idempotent."""

import importlib.util
from pathlib import Path

import nbformat
import pytest

from ftd_lib.publish import run_times as R

REPO = Path(__file__).resolve().parents[2]


def _code(src, at=None):
    c = nbformat.v4.new_code_cell(src)
    if at is not None:  # nbclient's timestamps: ``at`` seconds
        c.metadata["execution"] = {"iopub.execute_input": "2026-11-28T10:00:00.250000Z",
                                   "iopub.status.busy": "2026-11-28T10:00:00.2Z",
                                   "shell.execute_reply": f"2026-11-28T10:00:{at:02d}.500000Z"}
    return c


def _nb(*cells):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# T"), *cells])


def test_measured_and_strip_by_hand():
    nb = _nb(_code("a", 3), _code("b"), _code("c", 10))
    a, b, c = (x.id for x in nb.cells[1:])
    assert R.measured(nb) == {a: pytest.approx(3.25), c: pytest.approx(10.25)}
    assert R.strip(nb) == 2 and R.strip(nb) == 0
    assert all("execution" not in x.metadata for x in nb.cells) and R.measured(nb) == {}


def test_record_keeps_what_is_stored_and_times_only_new_or_changed_cells():
    nb = _nb(_code("a"), _code("b"), _code("gone"))
    a, b, gone = (x.id for x in nb.cells[1:])
    data = {}
    one = {"machine": "m1"}
    assert R.record(data, "x", nb, {a: 1.0, b: 2.0, gone: 9.0}, one) == sorted([a, b, gone])
    assert data["notebooks"]["x"]["runs"] == [dict(one, cells=3)]
    # re-executed on a busier machine: every time doubled, nothing stored changes
    nb.cells[2].source = "b changed"
    del nb.cells[3]
    new = _code("new")
    nb.cells.append(new)
    busy = {a: 2.0, b: 4.0, new.id: 6.0}
    assert R.record(data, "x", nb, busy, {"machine": "m2"}) == sorted([b, new.id])
    cells = data["notebooks"]["x"]["cells"]
    assert {k: v["seconds"] for k, v in cells.items()} == {a: 1.0, b: 4.0, new.id: 6.0}
    assert cells[b]["source_sha1"] == R.source_sha1(nb.cells[2]) != R.source_sha1(_code("b"))
    assert [r["machine"] for r in data["notebooks"]["x"]["runs"]] == ["m1", "m2"]
    assert R.missing("x", nb, data) == []
    assert R.record(data, "x", nb, busy, {"machine": "m3"}) == []  # nothing new: no run noted
    assert len(data["notebooks"]["x"]["runs"]) == 2
    # --remeasure: every time replaced, and the runs restart with this one
    assert len(R.record(data, "x", nb, busy, {"machine": "m4"}, remeasure=True)) == 3
    assert data["notebooks"]["x"]["cells"][a]["seconds"] == 2.0
    assert [r["machine"] for r in data["notebooks"]["x"]["runs"]] == ["m4"]


def test_strip_only_is_idempotent(tmp_path):
    spec = importlib.util.spec_from_file_location("refresh", REPO / "scripts" /
                                                  "refresh_notebooks.py")
    refresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(refresh)
    nb = _nb(_code("a", 2))
    path = tmp_path / "09_x.ipynb"
    nbformat.write(nb, path)
    data = {}
    written, n, _ = refresh.store_and_strip(path, nbformat.read(path, as_version=4), data, {})
    assert (len(written), n) == (1, 1)
    once = path.read_bytes()
    assert b'"execution"' not in once
    written, n, renamed = refresh.store_and_strip(path, nbformat.read(path, as_version=4), data,
                                                  {})
    assert (written, n, renamed) == ([], 0, 0) and path.read_bytes() == once
    assert data["notebooks"]["09_x"]["cells"][nb.cells[1].id]["seconds"] == pytest.approx(2.25)
