r"""Where a figure's chunks are computed: here (``local``: this process, or ``--workers``
processes of this machine, :mod:`ftd_lib.repro.runs`) or on a Dask cluster (``dask``).

A figure's chunks are independent, content-keyed tasks (:mod:`ftd_lib.repro.chunks`), so an
existing distributed engine can run them: :class:`DaskExecutor` submits one Dask task per
chunk still missing from the store, to a ``distributed.LocalCluster`` of this machine (one
worker process per core, one thread each; ``--workers`` of them) or to an existing cluster
(``--scheduler tcp://HOST:PORT``: ``dask scheduler`` on one machine, ``dask worker`` on
several, ftd_lib installed on each).

- **One writer.** A worker computes a chunk and *returns* its arrays and metadata; only this
  process (the client) writes them to the results store, as each arrives. The store needs no
  shared file system and never sees two writers.
- **A worker that dies** (killed, out of memory, its machine gone) loses only the chunk it was
  computing: the scheduler gives that task to another worker (up to Dask's
  ``distributed.scheduler.allowed-failures``, 3 by default; then :class:`RuntimeError`).
- **Ctrl-C** cancels the futures, closes the client and, if this process started it, the local
  cluster; the chunks already stored stay, and the same command resumes from them.
- **Same numbers.** A run's numbers depend only on its seed, run id and settings, never on the
  batch, process or machine that computed it (the chunk's identity holds the device kind), and
  the figure is assembled from the store in the chunk order: bit for bit those of
  ``--workers 1`` (tested).
- **Same engine.** Each worker says which runner it used -- for the engine, its numerics version
  (:func:`ftd_lib.repro.chunks.engine_runner_name`) -- and a chunk whose worker ran another
  version than this process is refused, never stored under the wrong identity.

An unreachable scheduler is refused within :data:`CONNECT_TIMEOUT_S` seconds, before any work,
with one line naming ``--scheduler``.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import sys

from .. import validate

#: the executors ``reproduce --executor`` knows
EXECUTORS = ("local", "dask")
#: how long to try to reach a scheduler before giving up (seconds)
CONNECT_TIMEOUT_S = 5.0
_PINS = "pip install dask==2026.8.0 distributed==2026.8.0 (see requirements.txt)"


def check_executor(executor, name: str = "executor") -> None:
    """``None``, one of :data:`EXECUTORS`, or an executor object (with ``compute``)."""
    if executor is None or hasattr(executor, "compute"):
        return
    if executor not in EXECUTORS:
        raise ValueError(f"{name}: unknown executor {executor!r}; choose from "
                         f"{', '.join(EXECUTORS)}")


class DaskExecutor:
    """Chunks computed on a Dask cluster: a new ``LocalCluster`` of ``workers`` processes (one
    thread each; default ``os.cpu_count()``), or the existing cluster at ``scheduler``.

    Use as a context manager (or :meth:`start` / :meth:`close`); :meth:`start` connects before
    any work and raises ``ValueError`` naming ``name`` when the scheduler cannot be reached.
    ``threads`` is the torch thread count set in a worker before each chunk.
    """

    def __init__(self, scheduler: str | None = None, *, workers: int | None = None,
                 threads: int = 1, connect_timeout: float | None = None,
                 name: str = "scheduler"):
        if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
            raise ValueError(f"{name}: expected an address like tcp://HOST:PORT, got "
                             f"{scheduler!r}")
        if scheduler is not None and workers is not None:
            raise ValueError("workers: the cluster at the scheduler has its own workers; give "
                             "workers only for a local cluster")
        self.scheduler = scheduler
        self.workers = None if workers is None else validate.check_int("workers", workers, 1)
        self.threads = validate.check_int("threads", threads, 1)
        self.connect_timeout = float(CONNECT_TIMEOUT_S if connect_timeout is None
                                     else connect_timeout)
        self.name = name
        self.client = None
        self.cluster = None  # ours to close: only the local cluster we started

    # ------------------------------------------------------------------ lifetime

    def start(self) -> DaskExecutor:
        if self.client is not None:
            return self
        try:
            import distributed
        except ImportError as e:
            raise ValueError(f"executor: dask needs the packages dask and distributed ({e}); "
                             f"{_PINS}") from None
        if self.scheduler is None:
            self.cluster = _local_cluster(distributed, self.workers or os.cpu_count() or 1,
                                          self.threads)
            address = self.cluster.scheduler_address
        else:
            address = self.scheduler
        try:
            self.client = distributed.Client(address, timeout=self.connect_timeout,
                                             set_as_default=False)
        except Exception as e:  # refused, timed out, unknown host, bad address
            self.close()
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise ValueError(f"{self.name}: cannot reach a Dask scheduler at {address} within "
                             f"{self.connect_timeout:g} s: {reason}") from None
        if self.scheduler is not None and not self.client.scheduler_info()["workers"]:
            print(f"the Dask scheduler at {address} has no workers yet: the chunks wait for "
                  f"some (dask worker {address} --nworkers N --nthreads 1)", file=sys.stderr)
        return self

    def close(self) -> None:
        client, cluster, self.client, self.cluster = self.client, self.cluster, None, None
        with contextlib.suppress(Exception):
            if client is not None:
                client.close()
        with contextlib.suppress(Exception):
            if cluster is not None:
                cluster.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def describe(self) -> str:
        if self.scheduler is not None:
            return f"dask cluster at {self.scheduler}"
        return f"dask local cluster, {self.workers or os.cpu_count()} worker processes"

    # ------------------------------------------------------------------ work

    def compute(self, jobs):
        """Submit one task per job (see :func:`ftd_lib.repro.runs.run_figure`) and yield
        ``(k, arrays, meta)`` as job ``k`` finishes, in the order they finish. Closing the
        generator (Ctrl-C, an error) cancels every task not yet finished."""
        import distributed

        from . import chunks, store

        self.start()
        engine = bool(jobs) and jobs[0][3] is chunks.engine_runner
        futures = {}
        for k, job in enumerate(jobs):
            key = f"ftd-chunk-{store.chunk_key(job[2])}"  # content-keyed, like the store
            futures[self.client.submit(_remote_chunk, job, engine, self.threads, key=key,
                                       priority=-k)] = k
        try:
            for fut in distributed.as_completed(list(futures), loop=self.client.loop):
                k = futures.pop(fut)
                try:
                    data, meta = fut.result()
                except distributed.KilledWorker as e:
                    raise RuntimeError(
                        f"chunk {k} ({jobs[k][1].figure}, {jobs[k][1].method}) killed every "
                        f"worker that tried it (out of memory?): {e}") from None
                fut.release()
                want = jobs[k][2]["runner"]
                if meta.get("runner") != want:
                    raise RuntimeError(
                        f"a Dask worker ({meta.get('worker')}) computed chunk {k} with runner "
                        f"{meta.get('runner')!r}, this process expects {want!r}: install the "
                        f"same ftd_lib on the workers as here; nothing of it was stored")
                yield k, data, meta
        finally:
            if futures:
                with contextlib.suppress(Exception):
                    self.client.cancel(list(futures), force=True)


def _local_cluster(distributed, workers: int, threads: int):
    """A ``LocalCluster`` on 127.0.0.1 (random ports, its HTTP server's too), ``workers``
    processes of one thread, no memory limit (like ``--workers``). Its processes are started
    with SIGINT ignored, so Ctrl-C reaches only this process, which cancels and closes them."""
    with _sigint_ignored():
        return distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
            scheduler_port=0, dashboard_address="127.0.0.1:0", memory_limit=0,
            silence_logs=logging.ERROR, env={"OMP_NUM_THREADS": str(threads)})


@contextlib.contextmanager
def _sigint_ignored():
    """Ignore SIGINT while child processes are started (they inherit it: a signal ignored
    stays ignored across fork and exec); restored after (a Ctrl-C in those seconds is lost)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _remote_chunk(job, engine: bool, threads: int):
    """On a worker: compute the chunk (never store it), return ``(arrays, meta)``, the meta
    naming this worker, its machine and the runner it used."""
    from . import chunks

    if engine:  # (the engine imports torch anyway; another runner may not need it)
        import torch

        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
    root, task, ident, runner, device, _ = job
    data, meta = chunks.chunk_result((root, task, ident, runner, device, _worker_machine(device)))
    meta["runner"] = (chunks.engine_runner_name(task.method) if engine
                      else chunks.runner_name(runner))
    with contextlib.suppress(Exception):
        import distributed

        meta["worker"] = distributed.get_worker().address
    return data, meta


@functools.lru_cache(maxsize=4)
def _worker_machine(device: str) -> dict:
    from . import store

    here = store.machine_description(device)
    return {k: here[k] for k in ("cpu", "cpu_count", "device_name", "platform")}


def compute_with(executor, jobs, *, workers: int, threads: int, save) -> None:
    """Run ``jobs`` on ``executor`` (``"dask"``: a local cluster of ``workers`` processes,
    started and closed here; or a started executor object, left open) and call
    ``save(k, arrays, meta)`` in this process as job ``k`` finishes."""
    if not jobs:
        return
    own = not hasattr(executor, "compute")
    ex = DaskExecutor(workers=workers, threads=threads) if own else executor
    try:
        results = ex.compute(jobs)
        with contextlib.closing(results):
            for k, data, meta in results:
                save(k, data, meta)
    finally:
        if own:
            ex.close()
