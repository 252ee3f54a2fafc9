"""``reproduce --executor dask``: chunks computed on a Dask cluster (localhost only), stored by
the client alone; bit for bit the numbers of ``--workers 1``; a killed worker's chunk is
resubmitted; Ctrl-C cancels and a rerun resumes; bad input is refused before any work."""

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from ftd_lib.repro import chunks, cli, executors
from ftd_lib.repro import store as chunk_store
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.executors import DaskExecutor
from ftd_lib.repro.results import load_results, results_paths
from ftd_lib.repro.runs import run_figure
from ftd_lib.rng import run_generator

pytestmark = pytest.mark.slow  # a local Dask cluster

FIG = "fig3-right"  # quick: 12 cells x 2 runs = 24 rows
ENGINE_ROWS, ENGINE_CHUNKS = 4, 6  # the engine: about a second a chunk (its RMS evaluation)
ROWS, N_CHUNKS = 2, 12  # a cheap stand-in runner: more chunks, to fail or interrupt among them


def _fig(rows=ROWS):
    return figure(FIG, "quick", chunk_rows=rows)


def _argv(out, *extra, rows=ROWS):
    return ["reproduce", FIG, "--scale", "quick", "--chunk-rows", str(rows), "--out", str(out),
            "--no-progress", *extra]


def make_fake(delay: float = 0.0):
    """A cheap stand-in for the engine (a closure: Dask ships it to the workers by value):
    each row's numbers depend only on (seed, run id, settings), like the engine's."""

    def fake(task, *, device, progress):
        time.sleep(delay)
        v = np.empty((task.rows, task.n_episodes))
        for i, (s, r) in enumerate(zip(task.settings, task.run_ids, strict=True)):
            g = run_generator(task.seed, int(r), 7)
            v[i] = np.exp(-20 * s[0] * np.arange(task.n_episodes)) + s[1]
            v[i] += g.random(task.n_episodes)
        return {"values": v, "diverged": np.zeros(task.rows, bool)}

    fake.name = "fake-v1"
    return fake


def _chunk_files(out):
    d = results_paths(FIG, out)["chunks"]
    return {p.name: p.stat().st_mtime_ns for p in d.glob("*.npz")} if d.is_dir() else {}


def _assert_same(a, b):
    assert set(a.arrays) == set(b.arrays)
    for k in a.arrays:
        np.testing.assert_array_equal(a.arrays[k], b.arrays[k], err_msg=k)
        assert a.arrays[k].dtype == b.arrays[k].dtype, k


@pytest.fixture(scope="module")
def engine_reference(tmp_path_factory):
    """The figure computed by the engine in this process (``--workers 1``)."""
    out = tmp_path_factory.mktemp("one")
    res = run_figure(_fig(ENGINE_ROWS), out, progress=False, plot=False, workers=1)
    assert res.meta["chunks"]["computed"] == ENGINE_CHUNKS
    return res, out


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The stand-in runner's figure, computed in this process."""
    res = run_figure(_fig(), tmp_path_factory.mktemp("fake"), runner=make_fake(),
                     progress=False, plot=False, workers=1)
    assert res.meta["chunks"]["computed"] == N_CHUNKS
    return res


@pytest.fixture(scope="module")
def scheduler():
    """A running cluster to point ``--scheduler`` at: 2 worker processes on 127.0.0.1."""
    with DaskExecutor(workers=2) as ex:
        yield ex.cluster.scheduler_address


# ----------------------------------------------------------------------------- same numbers


def test_local_cluster_gives_the_numbers_of_one_process(tmp_path, engine_reference,
                                                        scheduler, capsys):
    """``--executor dask --workers 2``: a LocalCluster of 2 worker processes computes every
    chunk with the engine, the client stores them under the same names, the arrays are bit for
    bit those of one process; pointed at a running cluster, a second call recomputes nothing
    and rewrites nothing."""
    ref, ref_out = engine_reference
    out = tmp_path / "dask"
    argv = _argv(out, rows=ENGINE_ROWS)
    assert cli.main([*argv, "--executor", "dask", "--workers", "2"]) == 0
    res = load_results(FIG, out)
    assert res.meta["chunks"] == {"total": ENGINE_CHUNKS, "loaded": 0,
                                  "computed": ENGINE_CHUNKS, "pieces": ENGINE_CHUNKS}
    _assert_same(ref, res)
    files = _chunk_files(out)
    assert files.keys() == _chunk_files(ref_out).keys()
    stored = chunk_store.ChunkStore(results_paths(FIG, out)["chunks"])
    workers = {stored.inspect(chunks.identity_of(t, chunks.engine_runner, "cpu"))[0][1]
               .get("worker") for t in chunks.cut_chunks(_fig(ENGINE_ROWS))}
    assert len(workers) == 2 and None not in workers  # both worker processes took chunks
    assert "error" not in capsys.readouterr().err.lower()

    assert cli.main([*argv, "--executor", "dask", "--scheduler", scheduler]) == 0
    again = load_results(FIG, out)
    assert again.meta["chunks"] == {"total": ENGINE_CHUNKS, "loaded": ENGINE_CHUNKS,
                                    "computed": 0, "pieces": 0}
    assert _chunk_files(out) == files
    _assert_same(ref, again)


# ----------------------------------------------------------------------------- failures


def test_a_worker_killed_mid_chunk_has_its_chunk_resubmitted(tmp_path, reference, scheduler):
    """A runner that kills its worker process (SIGKILL) on its first try of one chunk: the
    scheduler gives the chunk to another worker, and the figure ends with the same numbers."""
    marker = tmp_path / "killed"
    victim = chunks.cut_chunks(_fig())[4]
    fake = make_fake()

    def killer(task, *, device, progress):
        if np.array_equal(task.cell_index, victim.cell_index) and not marker.exists():
            marker.write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return fake(task, device=device, progress=progress)

    killer.name = fake.name
    with DaskExecutor(scheduler) as ex:
        res = run_figure(_fig(), tmp_path / "res", runner=killer, progress=False, plot=False,
                         executor=ex)
    assert marker.exists(), "the runner should have killed a worker"
    assert not psutil.pid_exists(int(marker.read_text()))
    assert res.meta["chunks"]["computed"] == N_CHUNKS
    _assert_same(reference, res)


def test_a_worker_with_another_engine_version_is_refused(tmp_path, scheduler, monkeypatch):
    """The workers report the engine's numerics version they ran; a chunk whose version is not
    the one this process names in the chunk's identity is never stored."""
    monkeypatch.setattr(chunks, "engine_runner_name", lambda method: f"engine-{method}-v999")
    out = tmp_path / "res"
    with DaskExecutor(scheduler) as ex, pytest.raises(RuntimeError, match="v999"):
        run_figure(_fig(ENGINE_ROWS), out, progress=False, plot=False, executor=ex)
    assert _chunk_files(out) == {}


DRIVER = textwrap.dedent('''
    import sys
    sys.path.insert(0, {here!r})
    from ftd_lib.repro import chunks, cli
    from {mod} import make_fake

    if __name__ == "__main__":  # the command line, with a slow stand-in for the engine
        chunks.engine_runner = make_fake(delay=1.0)  # a SIGINT lands mid-run on a busy machine too
        sys.exit(cli.main(sys.argv[1:]))
''')


def _alive(pgid: int) -> list:
    """The processes of a process group that are not zombies."""
    out = []
    for p in psutil.process_iter(["status"]):
        try:
            if os.getpgid(p.pid) == pgid and p.info["status"] != psutil.STATUS_ZOMBIE:
                out.append(p)
        except (ProcessLookupError, psutil.Error):
            pass
    return out


def test_ctrl_c_cancels_closes_the_cluster_and_a_rerun_resumes(tmp_path, reference, scheduler,
                                                              monkeypatch):
    """Ctrl-C (SIGINT to the terminal's process group: the client and its local workers) in
    the middle of a run: exit 130 within seconds, no traceback, the resume command named,
    every process of the run gone, only whole chunks stored; the rerun (here on another
    cluster) computes only the missing chunks and ends with the numbers of one process."""
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER.format(here=os.path.dirname(__file__),
                                    mod=Path(__file__).stem))
    out = tmp_path / "res"
    proc = subprocess.Popen(
        [sys.executable, str(driver), *_argv(out, "--executor", "dask", "--workers", "2")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # on a busy machine the local cluster takes a while to start, and a SIGINT before its
        # first chunks lands while it is starting: wait for 2 chunks (up to 3 minutes)
        t0 = time.time()
        while len(_chunk_files(out)) < 2 and proc.poll() is None and time.time() - t0 < 180:
            time.sleep(0.02)
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert "interrupted: fig3-right" in err and "--executor dask" in err, err
    t0 = time.time()
    while _alive(proc.pid) and time.time() - t0 < 10:
        time.sleep(0.1)
    assert not _alive(proc.pid), "the local cluster's processes should be gone"
    before = _chunk_files(out)
    assert 2 <= len(before) < N_CHUNKS, "the run should have been interrupted part-way"
    chunk_dir = results_paths(FIG, out)["chunks"]
    assert not [p for p in chunk_dir.iterdir() if p.name.startswith(chunk_store.TMP_PREFIX)]

    monkeypatch.setattr(chunks, "engine_runner", make_fake())  # the chunks' identity: as there
    res = run_figure(_fig(), out, progress=False, plot=False, executor=DaskExecutor(scheduler))
    assert res.meta["chunks"] == {"total": N_CHUNKS, "loaded": len(before),
                                  "computed": N_CHUNKS - len(before),
                                  "pieces": N_CHUNKS - len(before)}
    assert all(_chunk_files(out)[k] == v for k, v in before.items())
    _assert_same(reference, res)


# ----------------------------------------------------------------------------- bad input


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once closed


CALLS = []


def _counting_runner(task, *, device, progress):
    CALLS.append(task)
    raise AssertionError("no chunk may be computed")


@pytest.fixture
def no_work(monkeypatch):
    CALLS.clear()
    monkeypatch.setattr(chunks, "engine_runner", _counting_runner)
    return CALLS


def test_unreachable_scheduler_fails_within_seconds_naming_it(tmp_path, capsys, no_work,
                                                              monkeypatch):
    monkeypatch.setattr(executors, "CONNECT_TIMEOUT_S", 1.0)
    address = f"tcp://127.0.0.1:{_closed_port()}"
    out = tmp_path / "res"
    code = cli.main(_argv(out, "--executor", "dask", "--scheduler", address))
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "--scheduler" in lines[0] and address in lines[0], err
    assert "error" in lines[0] and "Traceback" not in err
    assert no_work == [] and _chunk_files(out) == {}


BAD = [  # (extra argv, what the one line must name)
    (["--executor", "spark"], ["--executor", "local", "dask"]),
    (["--executor", ""], ["--executor", "local", "dask"]),
    (["--scheduler", "tcp://127.0.0.1:8786"], ["--scheduler", "local", "dask"]),
    (["--executor", "local", "--scheduler", "tcp://127.0.0.1:8786"],
     ["--scheduler", "local", "dask"]),
    (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"],
     ["--workers", "--scheduler"]),
    (["--executor", "dask", "--scheduler", " "], ["--scheduler"]),
    (["--executor", "dask", "--scheduler"], ["--scheduler"]),
]


@pytest.mark.parametrize("extra, names", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_executor_input_is_one_clear_error_before_any_work(tmp_path, capsys, no_work,
                                                               extra, names):
    try:
        code = cli.main(_argv(tmp_path / "res", *extra))
    except SystemExit as e:  # argparse: usage line + error line, as for every option
        code = e.code
    err = capsys.readouterr().err
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert "error" in last and all(n in last for n in names), err
    assert "Traceback" not in err and no_work == []


def test_run_figure_refuses_an_unknown_executor(tmp_path, no_work):
    with pytest.raises(ValueError, match="executor.*local, dask"):
        run_figure(_fig(), tmp_path, progress=False, plot=False, executor="spark")
    with pytest.raises(ValueError, match="workers"):
        DaskExecutor("tcp://127.0.0.1:8786", workers=2)
    assert no_work == []
