"""Refresh notebooks after an edit, in one command, from the repository root (with
``PYTHONPATH`` at the root, as for the tests)::

    python scripts/refresh_notebooks.py [NN ...]             # e.g. 02; default: every notebook
    python scripts/refresh_notebooks.py --remeasure [NN ...] # re-time every cell of them
    python scripts/refresh_notebooks.py --strip-only [NN ...]

For each notebook: ``jupytext --sync`` (the edited ``notebooks/src/NN_*.md`` into the ``.ipynb``),
execute it from a fresh kernel (``jupyter nbconvert --execute``, ``CI`` unset, as
``scripts/time_notebooks.py`` runs it), store the run time of every code cell that has none for
its present code (a new cell, or one whose code changed) in ``notebooks/run_times.json`` with
the machine and its load (:mod:`ftd_lib.publish.run_times`; ``--remeasure``: every cell, which
moves the lecture plan's minutes: do it on a quiet machine, then ``python -m
ftd_lib.publish.lecture_plan --write``), strip the cells' ``metadata.execution`` timestamps
(volatile: they change on every run), join a cell's stream outputs that the kernel cut in two
(where it cuts depends on timing), rename the saved widget models deterministically
(:mod:`ftd_lib.publish.widget_ids`: a fresh run draws new random ids, which would fill the diff),
write the ``.ipynb`` and ``jupytext --sync`` back. Re-executing an unchanged notebook so changes
no byte of it (``tests/publish/test_widget_ids.py``).

``--strip-only`` executes nothing: it stores the times of cells without one from the timestamps
the notebooks already carry (a fresh run saved by hand), then strips them and renames the widget
models. It is idempotent: a notebook without timestamps or random widget ids is not rewritten.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "scripts")]

import time_notebooks  # noqa: E402

from ftd_lib.publish import run_times, widget_ids  # noqa: E402

NOTEBOOKS = REPO / "notebooks"


def notebooks(names) -> list[Path]:
    """The notebooks ``names`` name (``02``, ``02_lambda_return``, or a path); all without."""
    every = sorted(NOTEBOOKS.glob("*.ipynb"))
    if not names:
        return every
    out = []
    for name in names:
        stem = Path(name).stem
        hits = [p for p in every if p.stem == stem or p.stem.split("_")[0] == stem]
        if len(hits) != 1:
            raise SystemExit(f"notebooks: {name!r} names {len(hits)} of "
                             f"{[p.stem for p in every]}")
        out.append(hits[0])
    return out


def sync(nb: Path) -> None:
    subprocess.run([sys.executable, "-m", "jupytext", "--sync", str(nb)], check=True,
                   capture_output=True)


def where(note: str = "") -> dict:
    """The run's record: date, machine, load average (1, 5, 15 min)."""
    load = list(os.getloadavg()) if hasattr(os, "getloadavg") else []
    return {"date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": time_notebooks.machine() + (f", {note}" if note else ""),
            "load_average": [round(x, 2) for x in load]}


def merge_streams(nb) -> int:
    """Join each cell's consecutive outputs to the same stream (stdout, stderr) into one, as a
    live notebook shows them: where a kernel cuts its output in two depends on timing, and so
    would the saved file. Returns the number of outputs joined."""
    joined = 0
    for cell in nb.cells:
        out = []
        for o in cell.get("outputs", []):
            if (out and o.output_type == "stream" and out[-1].output_type == "stream"
                    and out[-1].name == o.name):
                out[-1].text += o.text
                joined += 1
            else:
                out.append(o)
        if "outputs" in cell:
            cell.outputs = out
    return joined


def store_and_strip(path: Path, nb, data: dict, run: dict, remeasure: bool = False) -> tuple:
    """Store the times ``nb`` carries (as :func:`run_times.record` decides), strip them, join
    its cut streams (:func:`merge_streams`), rename its widget models
    (:func:`widget_ids.normalise`), and write ``nb`` to ``path`` when anything changed. ``(ids
    written, cells stripped, widget ids renamed)``."""
    written = run_times.record(data, path.stem, nb, run_times.measured(nb), run, remeasure)
    n = run_times.strip(nb)
    joined = merge_streams(nb)
    renamed = widget_ids.normalise(nb)
    if n or joined or renamed:
        nbformat.write(nb, path)
    return written, n, renamed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", help="02, 02_lambda_return or a path; default: all")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--strip-only", action="store_true",
                   help="execute nothing: store the times of unmeasured cells from the saved "
                   "timestamps, then strip them")
    g.add_argument("--remeasure", action="store_true",
                   help="replace every stored time of these notebooks (moves the lecture plan)")
    ap.add_argument("--note", default="", help="appended to the machine, e.g. 'quiet'")
    args = ap.parse_args(argv)
    data = run_times.load()
    before = run_times.load()
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(REPO)
    for path in notebooks(args.notebooks):
        if args.strip_only:
            nb = nbformat.read(path, as_version=4)
            run = dict(where(args.note), machine="not recorded: the timestamps the notebook "
                       "carried (taken by --strip-only)")
            run.pop("load_average")
            written, n, renamed = store_and_strip(path, nb, data, run)
            print(f"{path.stem}: timestamps stripped from {n} cells, run times stored for "
                  f"{len(written)}, {renamed} widget ids renamed", flush=True)
            if n or renamed:
                sync(path)
            continue
        sync(path)
        with tempfile.TemporaryDirectory(prefix="ftd-refresh-") as d:
            t0 = time.perf_counter()
            time_notebooks.run(path, Path(d), env)
            wall = time.perf_counter() - t0
            (out,) = Path(d).glob("*.ipynb")
            nb = nbformat.read(out, as_version=4)
        written, n, _ = store_and_strip(path, nb, data, where(args.note), args.remeasure)
        if not n:  # nothing executed? keep the file as it is
            raise SystemExit(f"{path.stem}: the executed copy carries no timestamps")
        sync(path)
        print(f"{path.stem}: executed in {wall:.0f} s; run times stored for {len(written)} "
              "cells"
              + (" (all: --remeasure)" if args.remeasure else " (new or changed cells)"),
              flush=True)
    if data != before:
        run_times.dump(data)
        print(f"{run_times.PATH.relative_to(REPO)} updated: if a shown cell's time changed, run "
              "python -m ftd_lib.publish.lecture_plan --write")
    return 0


if __name__ == "__main__":
    sys.exit(main())
