"""The results store: atomic writes, chunk identity, damaged files, provenance."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from ftd_lib.repro import store as chunk_store


def _no_temp(d):
    return [p.name for p in d.iterdir() if p.name.startswith(chunk_store.TMP_PREFIX)] == []


def test_atomic_write_and_no_temp_left(tmp_path):
    p = tmp_path / "sub" / "a.json"
    chunk_store.atomic_write_json(p, {"x": 1, "y": np.float64(2.5), "z": np.arange(2)})
    assert p.read_text().startswith("{")
    assert _no_temp(p.parent)
    chunk_store.atomic_write_text(p, "new")
    assert p.read_text() == "new" and _no_temp(p.parent)
    m = os.umask(0)
    os.umask(m)
    assert p.stat().st_mode & 0o777 == 0o666 & ~m  # not mkstemp's 0600


def test_failed_write_keeps_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    p = tmp_path / "a.npz"
    chunk_store.save_npz_atomic(p, x=np.arange(3))

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(chunk_store.os, "replace", boom)
    with pytest.raises(OSError):
        chunk_store.save_npz_atomic(p, x=np.arange(5))
    monkeypatch.undo()
    np.testing.assert_array_equal(chunk_store.load_npz(p)["x"], np.arange(3))
    assert _no_temp(tmp_path)


def test_kill_during_writes_never_leaves_a_partial_file(tmp_path):
    """A writer killed with SIGKILL in the middle of writing: the target is whole or absent."""
    target = tmp_path / "big.npz"
    code = textwrap.dedent(f"""
        import numpy as np
        from ftd_lib.repro.store import save_npz_atomic
        x = np.random.default_rng(0).random(400_000)
        i = 0
        while True:
            i += 1
            save_npz_atomic({str(target)!r}, compress=False, x=x, i=np.array(i))
    """)
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        t0 = time.time()
        while not target.exists() and time.time() - t0 < 30:
            time.sleep(0.02)
        time.sleep(0.3)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    data = chunk_store.load_npz(target)  # loads: never a half-written file
    assert data["x"].shape == (400_000,) and int(data["i"]) >= 1
    others = [p for p in tmp_path.iterdir() if p != target]
    assert all(p.name.startswith(chunk_store.TMP_PREFIX) for p in others)
    store = chunk_store.ChunkStore(tmp_path)
    store.sweep_temp()
    assert [p.name for p in tmp_path.iterdir()] == ["big.npz"]


def test_chunk_key_is_canonical():
    a = {"b": [0.1, 2], "a": "x"}
    b = {"a": "x", "b": [0.1, 2]}
    assert chunk_store.chunk_key(a) == chunk_store.chunk_key(b)
    assert chunk_store.chunk_key(a) != chunk_store.chunk_key({"a": "x", "b": [0.1 + 1e-12, 2]})


def test_chunk_store_roundtrip_identity_check_and_damage(tmp_path):
    cs = chunk_store.ChunkStore(tmp_path / "c")
    ident = {"figure": "f", "run_ids": [0, 1], "seed": 3}
    assert cs.load(ident) is None and cs.keys() == []
    cs.save(ident, {"m": np.array([1.0, np.inf])}, {"compute_s": 1.5})
    got = cs.load(ident)
    assert got is not None
    arrays, meta = got
    np.testing.assert_array_equal(arrays["m"], [1.0, np.inf])
    assert meta["compute_s"] == 1.5
    assert cs.keys() == [chunk_store.chunk_key(ident)]
    assert cs.load({**ident, "seed": 4}) is None
    # a file under the right name but with another identity inside is not trusted
    other = {"figure": "g"}
    cs.save(other, {"m": np.zeros(1)})
    os.replace(cs.path(chunk_store.chunk_key(other)), cs.path(chunk_store.chunk_key(ident)))
    assert cs.load(ident) is None
    # a damaged file counts as missing
    cs.path(chunk_store.chunk_key(ident)).write_bytes(b"not a zip")
    assert cs.load(ident) is None


def test_provenance():
    m = chunk_store.machine_description("cpu")
    for k in ("platform", "python", "cpu_count", "torch", "device", "device_name"):
        assert k in m
    g = chunk_store.git_commit()
    assert set(g) == {"commit", "dirty"}
