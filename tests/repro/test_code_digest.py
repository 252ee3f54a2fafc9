"""A chunk is keyed by the code that computes it (:mod:`ftd_lib.repro.code`): a changed
operation recomputes the chunk and the run names the file; a changed comment or docstring does
not; the one-time re-keying of stored chunks keeps their arrays. About 10 s."""

import json
import os
from dataclasses import replace

import numpy as np

from ftd_lib.repro import chunks, code, store
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.results import repo_results_dir, results_paths
from ftd_lib.repro.runs import run_figure

SRC = 'def shift(x):\n    """A docstring."""\n    return x + {k}  # a comment\n'


def _write(path, text, tick):
    path.write_text(text)
    os.utime(path, ns=(tick, tick))  # a new modification time, whatever the clock's grain


def test_a_files_digest_sees_operations_not_comments_or_docstrings(tmp_path):
    f = tmp_path / "m.py"
    _write(f, SRC.format(k=1), 10**18)
    one = code.file_digest(f)
    _write(f, SRC.format(k=1).replace("A docstring.", "Another.").replace("a comment", "x"),
           10**18 + 1)
    assert code.file_digest(f) == one
    _write(f, SRC.format(k=2), 10**18 + 2)
    assert code.file_digest(f) != one


def test_the_digest_covers_the_method_the_task_the_engines_and_what_they_import():
    files = code.code_files("control", "n_step_sarsa", "puddle_world")
    for f in ("ftd_lib/references/n_step_sarsa.py", "ftd_lib/references/common.py",
              "ftd_lib/returns.py", "ftd_lib/envs/puddle_world.py", "ftd_lib/envs/batch.py",
              "ftd_lib/approx.py", "ftd_lib/portable.py", "ftd_lib/rng.py",
              "ftd_lib/engine/kernel/runs.py", "ftd_lib/engine/control.py",
              "ftd_lib/engine/reference.py"):
        assert f in files, f
    assert not [f for f in files if f in code.NOT_NUMERICS or "/repro/" in f]
    assert "ftd_lib/references/watkins_q_lambda.py" not in files  # another method's
    other = code.code_files("control", "watkins_q_lambda", "puddle_world")
    assert code.digest_of(other) != code.digest_of(files)
    assert code.code_digest("control", "n_step_sarsa", "acrobot") != code.digest_of(files)


def test_a_changed_computation_never_loads_its_old_chunks(tmp_path, monkeypatch, capsys):
    """The engine's chunks of a (cut-down) Fig. 3 right with one more file of numerics under
    the digest: a comment changed there loads every chunk; an operation changed recomputes
    every chunk, and the run says which file changed."""
    extra = tmp_path / "numerics_extra.py"
    _write(extra, SRC.format(k=1), 10**18)
    monkeypatch.setitem(code.ENGINES, "prediction", (*code.ENGINES["prediction"], extra))
    fig = figure("fig3-right", "quick")
    fig = replace(fig, runs=1, episodes=2, cells=fig.cells[:2])
    out = tmp_path / "out"
    first = run_figure(fig, out, progress=False, plot=False)
    assert first.meta["chunks"]["computed"] == len(chunks.cut_chunks(fig)) > 0
    _write(extra, SRC.format(k=1).replace("a comment", "reworded"), 10**18 + 1)
    again = run_figure(fig, out, progress=False, plot=False)
    assert again.meta["chunks"]["computed"] == 0
    capsys.readouterr()
    _write(extra, SRC.format(k=2), 10**18 + 2)
    changed = run_figure(fig, out, progress=False, plot=False)
    assert changed.meta["chunks"] == first.meta["chunks"]
    err = capsys.readouterr().err
    assert f"recomputing {first.meta['chunks']['total']} chunk(s)" in err
    assert "its code changed since they were stored" in err and str(extra) in err
    folder = results_paths(fig.name, out)["chunks"]
    assert len(store.ChunkStore(folder).keys()) == 2 * first.meta["chunks"]["total"]


def test_rekeying_a_chunk_stored_without_a_digest_keeps_its_arrays(tmp_path):
    """A committed chunk written back as it was before the migration (no ``code`` in its
    identity, no ``code_files``) is re-keyed to today's identity with the same arrays."""
    src = store.ChunkStore(repo_results_dir() / "chunks" / "fig4-right")
    key = src.keys()[0]
    data = store.load_npz(src.path(key))
    ident = json.loads(str(data.pop("__identity__")))
    meta = json.loads(str(data.pop("__meta__")))
    assert ident["code"] == code.code_digest(ident["task"], ident["method"], ident["env"])
    old = {k: v for k, v in ident.items() if k != "code"}
    dst = store.ChunkStore(tmp_path)
    dst.save(old, data, {k: v for k, v in meta.items() if k not in ("code_files", "checksum")})
    assert code.rekey_store(tmp_path) == {"rekeyed": 1, "kept": 0}
    assert dst.keys() == [key]
    arrays, new_meta = dst.load(ident)
    assert new_meta["rekeyed_from"] == store.chunk_key(old)
    assert new_meta["code_files"] == code.code_files(ident["task"], ident["method"],
                                                     ident["env"])
    for k, v in data.items():
        np.testing.assert_array_equal(arrays[k], v)
    assert code.rekey_store(tmp_path) == {"rekeyed": 0, "kept": 1}  # once


def test_the_uncommitted_changes_are_kept_as_a_patch(tmp_path):
    """:func:`ftd_lib.repro.store.git_diff` of a repository with a changed file and a new one:
    both, as a patch that ``git apply`` turns the commit into the working tree with."""
    import subprocess

    def git(*args, cwd=tmp_path):
        return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                              text=True).stdout

    git("init", "-q")
    git("config", "user.email", "t@t")
    git("config", "user.name", "t")
    (tmp_path / "m.py").write_text("x = 1\n")
    (tmp_path / "data.npz").write_bytes(b"\0\1")
    git("add", ".")
    git("commit", "-qm", "one")
    assert store.git_diff(tmp_path) == ""
    (tmp_path / "m.py").write_text("x = 2\n")
    (tmp_path / "new.py").write_text("y = 3\n")
    (tmp_path / "data.npz").write_bytes(b"\0\2")  # results: not code
    diff = store.git_diff(tmp_path)
    assert "-x = 1\n+x = 2\n" in diff and "+y = 3\n" in diff and "data.npz" not in diff
    clone = tmp_path / "clone"
    git("clone", "-q", str(tmp_path), str(clone))
    (clone / "change.diff").write_text(diff)
    git("apply", "change.diff", cwd=clone)
    assert (clone / "m.py").read_text() == "x = 2\n" and (clone / "new.py").read_text() == \
        "y = 3\n"


def test_why_recomputed_names_the_newest_older_code_even_under_another_cut(tmp_path,
                                                                          monkeypatch):
    """Chunks of older code stored under another cut (a batch re-cuts by cost) still give the
    method its "why" line, and the files named are those changed since the newest of them
    (not whichever the store lists last)."""
    from types import SimpleNamespace

    cstore = store.ChunkStore(tmp_path)
    base = {"method": "m", "env": "e", "figure": "f", "runner": "engine-m-v1", "episodes": 2}
    now_files = {"a.py": "A2", "b.py": "B1", "c.py": "C1"}
    for code_, files, finished, runs in (("old1", {"a.py": "A1", "b.py": "B0", "c.py": "C1"},
                                          1.0, [0, 1]),
                                         ("old2", {"a.py": "A1", "b.py": "B1", "c.py": "C1"},
                                          2.0, [0, 1, 2, 3])):
        cstore.save({**base, "code": code_, "run_ids": runs, "settings": [[0.1]] * len(runs)},
                    {"x": np.zeros(1)}, {"code_files": files, "finished": finished})
    monkeypatch.setattr(code, "task_code", lambda t: ("new", now_files))
    ident = {**base, "code": "new", "run_ids": [0, 1, 2], "settings": [[0.1]] * 3}
    task = SimpleNamespace(method="m", cell_index=np.zeros(3, int))
    lines = code.why_recomputed(cstore, [task], [ident], [0])
    assert lines == ["recomputing 1 chunk(s), 1 cell(s) of m: its code changed since they "
                     "were stored (a.py)"]
    other = {**ident, "method": "n", "runner": "engine-n-v1"}
    assert code.why_recomputed(cstore, [task], [other], [0]) == []
