"""No run can damage another's results, and a damaged chunk heals.

Temp files are swept only when provably stale (their writer, named in the file name, is gone,
or they are older than a day), a vanished temp file is written again, every chunk carries a
checksum of its arrays, and an unreadable or inconsistent chunk counts as missing: it is
recomputed and the file is named in one line.
"""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from ftd_lib.repro import chunks
from ftd_lib.repro import store as chunk_store
from ftd_lib.repro.definitions import FIGURES, check_memory, figure, memory_estimate
from ftd_lib.repro.results import load_results, repo_results_dir, results_paths
from ftd_lib.repro.runs import run_figure

IDENT = {"figure": "x", "rows": [0, 1, 2]}


def _temps(d):
    return sorted(p.name for p in d.iterdir() if p.name.startswith(chunk_store.TMP_PREFIX))


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


# --------------------------------------------------------------------------- temp files


def test_a_sweep_during_a_write_does_not_kill_the_writer(tmp_path, monkeypatch):
    """A second run starting (and sweeping) while the first is between writing its temp file
    and renaming it: the first run's write still succeeds."""
    store = chunk_store.ChunkStore(tmp_path)
    real_replace = os.replace

    def sweep_then_replace(src, dst):
        # what a concurrent run_figure does at start-up
        chunk_store.ChunkStore(tmp_path).sweep_temp()
        return real_replace(src, dst)

    monkeypatch.setattr(chunk_store.os, "replace", sweep_then_replace)
    store.save(IDENT, {"a": np.arange(3.0)})
    monkeypatch.undo()
    assert store.load(IDENT)[0]["a"].tolist() == [0.0, 1.0, 2.0]
    assert _temps(tmp_path) == []


def test_a_temp_file_that_vanishes_before_the_rename_is_written_again(tmp_path, monkeypatch):
    """Even a sweep that does not know the file is ours (an older version's) cannot make the
    write fail: the data is written again."""
    real_replace = os.replace
    hits = []

    def delete_then_replace(src, dst):
        if not hits:
            hits.append(src)
            os.unlink(src)
        return real_replace(src, dst)

    monkeypatch.setattr(chunk_store.os, "replace", delete_then_replace)
    chunk_store.atomic_write_text(tmp_path / "a.txt", "hello")
    monkeypatch.undo()
    assert hits and (tmp_path / "a.txt").read_text() == "hello"
    assert _temps(tmp_path) == []


def test_temp_files_name_their_writer(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace
    monkeypatch.setattr(chunk_store.os, "replace",
                        lambda a, b: (seen.append(a), real_replace(a, b)))
    chunk_store.atomic_write_text(tmp_path / "a.txt", "x")
    name = os.path.basename(seen[0])
    assert name.startswith(f"{chunk_store.TMP_PREFIX}{os.getpid()}@") and name.endswith(".part")


@pytest.mark.parametrize("case, swept", [
    ("this process, fresh", False),
    ("dead process on this host, fresh", True),
    ("live process on another host, fresh", False),
    ("dead pid on another host, fresh", False),
    ("old-style name, fresh", False),
    ("old-style name, two days old", True),
    ("this process, two days old", True),
])
def test_sweep_takes_only_stale_temp_files(tmp_path, case, swept):
    host = chunk_store._host()
    name = {
        "this process": f"{chunk_store.TMP_PREFIX}{os.getpid()}@{host}~abc.part",
        "dead process on this host": f"{chunk_store.TMP_PREFIX}{_dead_pid()}@{host}~abc.part",
        "live process on another host":
            f"{chunk_store.TMP_PREFIX}{os.getpid()}@other-host-x~abc.part",
        "dead pid on another host": f"{chunk_store.TMP_PREFIX}{_dead_pid()}@other-host-x~abc.part",
        "old-style name": f"{chunk_store.TMP_PREFIX}abc123.part",
    }[case.split(",")[0]]
    p = tmp_path / name
    p.write_bytes(b"partial")
    if "two days old" in case:
        t = time.time() - 2 * 86400
        os.utime(p, (t, t))
    n = chunk_store.ChunkStore(tmp_path).sweep_temp()
    assert (n, p.exists()) == ((1, False) if swept else (0, True))


# --------------------------------------------------------------------------- checksums


def _rewrite(store, ident, change):
    """Rewrite a stored chunk's file keeping its identity (and metadata) but changing arrays."""
    p = store.path(chunk_store.chunk_key(ident))
    raw = chunk_store.load_npz(p)
    change(raw)
    chunk_store.save_npz_atomic(p, **raw)
    return p


def test_chunk_meta_holds_a_checksum_of_the_arrays(tmp_path):
    store = chunk_store.ChunkStore(tmp_path)
    arrays = {"m": np.arange(4.0), "c": np.array([1, 2], dtype=np.int64)}
    store.save(IDENT, arrays, {"compute_s": 1.0})
    data, meta = store.load(IDENT)
    checksum = chunk_store.arrays_checksum
    assert meta["checksum"] == checksum(arrays) == checksum(data)
    assert meta["compute_s"] == 1.0
    # dtype and shape are part of it, not only the bytes
    assert checksum({"m": np.arange(4.0)}) != checksum({"m": np.arange(4.0).reshape(2, 2)})
    assert checksum({"c": np.array([1, 2], np.int64)}) != checksum(
        {"c": np.array([1, 2], np.uint64)})


DAMAGE = {
    "numbers changed, identity kept": lambda raw: raw.__setitem__("m", raw["m"] + 1e-12),
    "a field removed": lambda raw: raw.pop("c"),
    "a field added": lambda raw: raw.__setitem__("z", np.zeros(1)),
    "wrong length": lambda raw: raw.__setitem__("m", raw["m"][:-1]),
    "metadata not JSON": lambda raw: raw.__setitem__("__meta__", np.array("{not json")),
    "metadata a JSON list": lambda raw: raw.__setitem__("__meta__", np.array("[1, 2]")),
    "identity missing": lambda raw: raw.pop("__identity__"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_chunk_counts_as_missing_and_is_named(tmp_path, damage):
    store = chunk_store.ChunkStore(tmp_path)
    store.save(IDENT, {"m": np.arange(4.0), "c": np.arange(2)})
    p = _rewrite(store, IDENT, DAMAGE[damage])
    assert store.load(IDENT) is None
    lines = []
    assert chunk_store.load_chunks(store, [IDENT], say=lines.append) == [None]
    assert len(lines) == 1 and str(p) in lines[0]
    store.save(IDENT, {"m": np.arange(4.0), "c": np.arange(2)})  # recomputed: healed
    assert store.load(IDENT) is not None


def test_old_chunks_without_checksum_are_accepted_when_consistent(tmp_path):
    """Chunks written before checksums existed hold committed results: unverifiable, but
    used when the caller's consistency check passes (and rejected when it does not)."""
    store = chunk_store.ChunkStore(tmp_path)
    p = store.path(chunk_store.chunk_key(IDENT))
    chunk_store.save_npz_atomic(p, m=np.arange(3.0),
                                __identity__=np.array(chunk_store.canonical_json(IDENT)),
                      __meta__=np.array('{"compute_s": 2.0}'))

    def check(a):
        return None if a["m"].shape == (3,) else "m has the wrong shape"

    data, meta = store.load(IDENT, check)
    assert data["m"].tolist() == [0, 1, 2] and "checksum" not in meta
    chunk_store.save_npz_atomic(p, m=np.arange(2.0),
                                __identity__=np.array(chunk_store.canonical_json(IDENT)),
                      __meta__=np.array('{"compute_s": 2.0}'))
    assert store.inspect(IDENT, check) == (None, "m has the wrong shape")


def test_a_check_that_raises_counts_as_inconsistent(tmp_path):
    store = chunk_store.ChunkStore(tmp_path)
    store.save(IDENT, {"m": np.arange(3.0)})
    res, problem = store.inspect(IDENT, lambda a: a["missing"])
    assert res is None and "KeyError" in problem


def test_many_damaged_chunks_do_not_flood(tmp_path):
    store = chunk_store.ChunkStore(tmp_path)
    idents = [{"i": i} for i in range(9)]
    for ident in idents:
        store.save(ident, {"m": np.arange(2.0)})
        store.path(chunk_store.chunk_key(ident)).write_bytes(b"garbage")
    lines = []
    assert chunk_store.load_chunks(store, idents, say=lines.append, limit=3) == [None] * 9
    assert len(lines) == 4 and "6 more" in lines[-1]


# --------------------------------------------------------------------------- output folder


def test_writable_dir_is_created(tmp_path):
    assert chunk_store.check_writable_dir(tmp_path / "a" / "b").is_dir()
    assert _temps(tmp_path / "a" / "b") == []


@pytest.mark.parametrize("kind", ["a file", "below a file", "empty path", "read-only folder"])
def test_unwritable_dir_is_a_one_line_error(tmp_path, kind, monkeypatch):
    f = tmp_path / "f.txt"
    f.write_text("x")
    path = {"a file": f, "below a file": f / "sub", "empty path": "",
            "read-only folder": tmp_path / "ro"}[kind]
    if kind == "read-only folder":
        (tmp_path / "ro").mkdir()
        os.chmod(tmp_path / "ro", 0o555)
        if os.access(tmp_path / "ro", os.W_OK):  # root writes anyway: make mkstemp refuse

            def refuse(*a, **k):
                raise PermissionError(13, "Permission denied")

            monkeypatch.setattr(chunk_store.tempfile, "mkstemp", refuse)
    with pytest.raises(ValueError, match="out") as e:
        chunk_store.check_writable_dir(path, "out")
    assert "\n" not in str(e.value)


# --------------------------------------------------------------------------- figures



def _fake_runner(task, *, device, progress):
    v = np.tile(np.linspace(1, 0.5, task.n_episodes), (task.rows, 1))
    v = v * (1 + task.settings[:, :1]) + 0.01 * task.run_ids[:, None]
    return {"values": v, "diverged": np.zeros(task.rows, bool)}


_fake_runner.name = "integrity-fake"


def _run(out, **kw):
    return run_figure(figure("fig3-right", "quick", runs=3), out, runner=_fake_runner,
                        progress=False, plot=False, **kw)


RESULT_DAMAGE = {
    "metadata not JSON": lambda a: a.__setitem__("__meta__", np.array("{oops")),
    "metadata a JSON string": lambda a: a.__setitem__("__meta__", np.array('"text"')),
    "metric field missing": lambda a: a.pop("metric"),
    "metric of the wrong length": lambda a: a.__setitem__("metric", a["metric"][:, :-1]),
    "numbers changed": lambda a: a.__setitem__("metric", a["metric"] * 2),
    "not an npz at all": None,
}


@pytest.mark.parametrize("damage", sorted(RESULT_DAMAGE))
def test_a_damaged_figure_file_is_ignored_not_a_crash(tmp_path, capsys, damage):
    """load_results, report and reproduce on a final .npz that is damaged: it counts as not
    there (one line names it), the report says the figure is missing, a new run rebuilds it."""
    from ftd_lib.repro.report import write_report

    ref = _run(tmp_path)
    p = results_paths("fig3-right", tmp_path)["npz"]
    if RESULT_DAMAGE[damage] is None:
        p.write_bytes(b"garbage")
    else:
        raw = chunk_store.load_npz(p)
        RESULT_DAMAGE[damage](raw)
        chunk_store.save_npz_atomic(p, **raw)
    capsys.readouterr()
    assert load_results("fig3-right", tmp_path) is None
    err = capsys.readouterr().err
    assert str(p) in err and len(err.strip().splitlines()) == 1
    write_report(tmp_path)  # does not crash
    again = _run(tmp_path)  # nor does reproduce; every chunk is loaded
    assert again.meta["chunks"]["computed"] == 0
    np.testing.assert_array_equal(again["metric"], ref["metric"])
    assert load_results("fig3-right", tmp_path) is not None


def test_committed_results_still_load():
    """The results in the repository (written before checksums) pass the consistency checks."""
    d = repo_results_dir()
    if not d.is_dir():
        pytest.skip("no results/ here")
    for name in FIGURES:
        if results_paths(name, d)["npz"].is_file():
            assert load_results(name, d) is not None, name


@pytest.mark.parametrize("kw, name", [
    (dict(runs=10**12), "--runs"),
    (dict(runs=10**8), "--runs"),
    (dict(episodes=10**12), "--episodes"),
])
def test_a_figure_too_big_for_memory_is_refused_at_once(kw, name):
    with pytest.raises(ValueError, match=name):
        figure("fig3-left", "quick", **kw)


@pytest.mark.parametrize("name", ["fig4-right", "fig3-right"])
def test_memory_check_uses_the_estimate(name):
    fig = figure(name, "paper")
    est = memory_estimate(fig)
    need = sum(est.values())
    check_memory(fig, available=need)
    what = max(est, key=est.get)  # the larger part is the count to lower
    count = fig.runs if what == "runs" else fig.episodes
    with pytest.raises(ValueError, match=f"--{what} {count}"):
        check_memory(fig, available=need - 1)


@pytest.mark.parametrize("kw, name", [
    (dict(runs=2.5), "runs"), (dict(runs=0), "runs"), (dict(runs="3"), "runs"),
    (dict(episodes=-1), "episodes"), (dict(episodes=1.5), "episodes"),
    (dict(chunk_rows=0), "chunk_rows"), (dict(chunk_rows=2.5), "chunk_rows"),
])
def test_figure_counts_are_integers(kw, name):
    with pytest.raises(ValueError, match=name):
        figure("fig3-left", "quick", **kw)


def _chunks_of(out):
    d = results_paths("fig3-right", out)["chunks"]
    return sorted(p for p in d.glob("*.npz"))


CHUNK_DAMAGE = {  # each keeps the file's name and identity
    "numbers changed": lambda raw: raw.__setitem__("metric", raw["metric"] + 1.0),
    "field missing (checksum rewritten)": lambda raw: raw.pop("curve_sum"),
    "wrong length (checksum rewritten)": lambda raw: raw.__setitem__("metric",
                                                                      raw["metric"][:-1]),
    "wrong dtype (checksum rewritten)": lambda raw: raw.__setitem__(
        "diverged", raw["diverged"].astype(np.float64)),
    "run ids of another chunk (checksum rewritten)": lambda raw: raw.__setitem__(
        "run_ids", raw["run_ids"] + 1),
    "metadata not JSON": lambda raw: raw.__setitem__("__meta__", np.array("not json")),
    "truncated file": None,
}


@pytest.mark.parametrize("damage", sorted(CHUNK_DAMAGE))
def test_run_figure_recomputes_a_damaged_chunk_and_names_it(tmp_path, capsys, damage):
    ref = _run(tmp_path / "ref")
    out = tmp_path / "out"
    _run(out)
    victim = _chunks_of(out)[1]
    if CHUNK_DAMAGE[damage] is None:
        victim.write_bytes(victim.read_bytes()[:100])
    else:
        raw = chunk_store.load_npz(victim)
        CHUNK_DAMAGE[damage](raw)
        if "checksum rewritten" in damage:  # a consistent checksum over inconsistent arrays
            meta = json.loads(str(raw.pop("__meta__")))
            ident = raw.pop("__identity__")
            meta["checksum"] = chunk_store.arrays_checksum(raw)
            raw.update(__identity__=ident, __meta__=np.array(json.dumps(meta)))
        chunk_store.save_npz_atomic(victim, **raw)
    capsys.readouterr()
    res = _run(out)
    err = capsys.readouterr().err
    assert res.meta["chunks"]["computed"] == 1, "only the damaged chunk is recomputed"
    assert err.count(str(victim)) == 1 and len(err.strip().splitlines()) == 1
    for k in ref.arrays:
        np.testing.assert_array_equal(res[k], ref[k], err_msg=k)
    assert _run(out).meta["chunks"]["computed"] == 0  # healed


def test_old_chunks_without_checksum_are_loaded_not_recomputed(tmp_path, capsys):
    out = tmp_path / "out"
    ref = _run(out)
    for p in _chunks_of(out):  # as written before checksums existed
        raw = chunk_store.load_npz(p)
        meta = json.loads(str(raw["__meta__"]))
        meta.pop("checksum")
        raw["__meta__"] = np.array(json.dumps(meta))
        chunk_store.save_npz_atomic(p, **raw)
    res = _run(out)
    assert res.meta["chunks"]["computed"] == 0 and capsys.readouterr().err == ""
    np.testing.assert_array_equal(res["metric"], ref["metric"])


@pytest.mark.parametrize("kind", ["a file", "below a file"])
def test_an_unusable_out_folder_fails_before_any_work(tmp_path, kind):
    f = tmp_path / "f"
    f.write_text("x")
    calls = []

    def runner(task, *, device, progress):
        calls.append(task)
        return _fake_runner(task, device=device, progress=progress)

    runner.name = _fake_runner.name
    with pytest.raises(ValueError, match="out"):
        run_figure(figure("fig3-right", "quick"), f if kind == "a file" else f / "sub",
                     runner=runner, progress=False, plot=False)
    assert calls == []


@pytest.mark.parametrize("kw, name", [
    (dict(seed=-1), "seed"), (dict(seed=1.5), "seed"), (dict(workers=0), "workers"),
    (dict(workers=2.5), "workers"), (dict(threads=0), "threads"),
    (dict(device="nonsense"), "device"),
    *([] if __import__("torch").cuda.is_available() else [(dict(device="cuda"), "device")]),
])
def test_run_figure_checks_its_arguments_before_any_work(tmp_path, monkeypatch, kw, name):
    calls = []

    def runner(task, *, device, progress):
        calls.append(task)
        return _fake_runner(task, device=device, progress=progress)

    runner.name = _fake_runner.name
    monkeypatch.setattr(chunks, "engine_runner", runner)  # the default runner: device is checked
    with pytest.raises(ValueError, match=name):
        run_figure(figure("fig3-right", "quick"), tmp_path, progress=False, plot=False,
                     **kw)
    assert calls == []
