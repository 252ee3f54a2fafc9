"""The plan held against the clock: :func:`measure_against_plan` computes figures from
scratch and puts the measured wall time of each beside the plan's prediction
(:mod:`ftd_lib.repro.plan`), with rates calibrated on this machine just before
(:func:`ftd_lib.repro.cost.calibrate`). What ``tests/repro/test_plan_accuracy.py`` pins and
``scripts/plan_accuracy.py`` prints."""

from __future__ import annotations

from pathlib import Path

from .cost import Costing, calibrate, history_dirs
from .definitions import figure
from .plan import methods_to_calibrate, plan_figure
from .runs import run_figure


def measure_against_plan(names, scale: str, workers_list, out, rates=None) -> list[dict]:
    """For every figure and worker count: the plan's predicted wall time for a fresh ``out``
    folder, then the figure computed there (``run_figure``, no picture, no progress bar) and
    its measured ``elapsed_s``. Returns dicts ``figure, workers, predicted_s, measured_s,
    ratio`` (measured / predicted), ``chunks`` (computed)."""
    if rates is None:
        pred, ctrl = methods_to_calibrate(names, scale)
        rates = calibrate(pred, ctrl, worker_start=max(workers_list) > 1,
                          workers=max(workers_list))
    rows = []
    for name in names:
        for w in workers_list:
            where = Path(out) / f"{name}-{w}"
            costing = Costing(rates, history_dirs(where))
            predicted = plan_figure(name, scale, w, costing, out=where).wall_s
            res = run_figure(figure(name, scale), where, progress=False, plot=False,
                             workers=w)
            measured = float(res.meta["elapsed_s"])
            rows.append({"figure": name, "workers": w, "predicted_s": predicted,
                         "measured_s": measured, "ratio": measured / predicted,
                         "chunks": res.meta["chunks"]["computed"]})
    return rows
