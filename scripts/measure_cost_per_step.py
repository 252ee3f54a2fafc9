"""Notebook 04's "Counts are not time": the cost per time step of TD(0), TD(λ), forward TD(λ)
and the online λ-return algorithm, as ratios to TD(0), measured once and stored with the
machine it ran on (``results/cost_per_step.json``), so that the notebook and the website show
this measurement rather than one made on whatever machine builds them.

    python scripts/measure_cost_per_step.py [--repeats 21] [--out results/cost_per_step.json]

:func:`ftd_lib.course.nb04_forward_td_lambda.cost_per_step` at the course's scale (episode
lengths 10, 20, 40, 60; the paper's 2-50-1 MLP), ``--repeats`` rounds in which the methods take
turns (each measurement runs an episode over and over for ``--min-time`` seconds); the
notebook reads the median over the rounds of each round's ratio to TD(0). Run it on
a quiet machine: the record keeps the load average at the start and the end beside the machine.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from pathlib import Path


def main(argv=None) -> int:
    from ftd_lib.course import nb04_forward_td_lambda as nb04
    from ftd_lib.repro.store import machine_description

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=21, help="rounds (default: 21)")
    p.add_argument("--min-time", type=float, default=0.1, help="seconds each measurement "
                   "runs an episode over and over for (default: 0.1)")
    p.add_argument("--out", type=Path, default=nb04.COST_FILE,
                   help="where to write the record (default: results/cost_per_step.json)")
    a = p.parse_args(argv)
    if a.repeats < 1:
        p.error(f"--repeats must be at least 1, got {a.repeats}")
    if not a.min_time > 0:
        p.error(f"--min-time must be positive, got {a.min_time}")
    load0 = os.getloadavg()
    data = nb04.cost_per_step(repeats=a.repeats, quick=False, min_time=a.min_time)
    rec = nb04.cost_record(
        data, machine_description("cpu"),
        date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        command=f"scripts/measure_cost_per_step.py --repeats {a.repeats} --min-time "
                f"{a.min_time:g}",
        load_average={"start": [round(x, 2) for x in load0],
                      "end": [round(x, 2) for x in os.getloadavg()]})
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(rec, indent=1) + "\n")
    print(nb04.format_cost(nb04.stored_cost(a.out)))
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
