"""Throughput of ``--executor dask`` (a LocalCluster of 2 worker processes) against
``--workers 2`` (2 spawned processes), on one quick figure, back to back in one run, twice.

Each measurement computes the whole figure into a fresh folder (nothing loaded), and counts
everything a user waits for: starting the workers (a pool or a cluster), the chunks, storing
them, closing. Prints one line per measurement and the ratio of the wall times, dask over
processes (> 1: dask is slower).

    python scripts/bench_dask_executor.py [--figure fig3-right] [--chunk-rows 2] [--repeats 2]
"""

import argparse
import os
import tempfile
import time

from ftd_lib.repro.chunks import cut_chunks
from ftd_lib.repro.definitions import figure
from ftd_lib.repro.runs import run_figure


def timed(fig, executor) -> float:
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        res = run_figure(fig, out, progress=False, plot=False, workers=2, executor=executor)
        wall = time.perf_counter() - t0
    assert res.meta["chunks"]["computed"] == len(cut_chunks(fig))
    return wall


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--figure", default="fig3-right")
    p.add_argument("--chunk-rows", type=int, default=2)
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args()
    fig = figure(args.figure, "quick", chunk_rows=args.chunk_rows)
    n, rows = len(cut_chunks(fig)), len(fig.cells) * fig.runs
    print(f"{fig.name} quick, {n} chunks, {rows} rows; {os.cpu_count()} CPUs; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    ratios = []
    for rep in range(1, args.repeats + 1):
        local = timed(fig, "local")
        dask = timed(fig, "dask")
        ratios.append(dask / local)
        print(f"repeat {rep}: --workers 2: {local:.1f} s ({rows / local:.2f} rows/s); "
              f"--executor dask --workers 2: {dask:.1f} s ({rows / dask:.2f} rows/s); "
              f"dask / processes wall time: {dask / local:.2f}")
    print(f"ratio per repeat: {', '.join(f'{r:.2f}' for r in ratios)}; "
          f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":  # the workers (spawned) import this file: no work at import
    main()
