"""The plan beside the measured wall time of whole commands (issue 36): each command computed
from scratch into a fresh folder, in a fresh process timed from outside, beside the plan's
prediction for it with rates calibrated on this machine just before that command
(:func:`ftd_lib.repro.planning.accuracy.measure_command`). Prints a markdown table: the
command, its wall time measured and planned, measured / planned, the load average before and
after (the machine may be shared: a load above its CPUs slows everything), and where the time
went -- the figures' stages (workers' start and chunks) and the command's own process (start-up,
the engine's import, the pictures), each measured (planned).

    python scripts/plan_accuracy.py [--workers N] [--scale quick|paper] [FILE ...]

Default: quick Figs. 3 left, 3 right and 4 right (``reproduce NAME`` is ``run
experiments/NAME.toml``), and two files off the paper's path at their own counts (acrobot with
the torch batch and a per-run reference; n-step Sarsa on cart-pole as a curve of the kernel and
as its per-run reference).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from ftd_lib.repro.planning.accuracy import measure_command

DEFAULT = [("experiments/fig3-left.toml", "quick"), ("experiments/fig3-right.toml", "quick"),
           ("experiments/fig4-right.toml", "quick"), ("experiments/acrobot-watkins.toml", "paper"),
           ("experiments/cartpole-n-step.toml", "paper")]


def main(argv) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--scale", choices=("quick", "paper"), default="quick")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    todo = [(f, args.scale) for f in args.files] or DEFAULT
    print("| command | wall measured | wall planned | measured / planned | load before, after "
          "| stages measured (planned) | own process measured (planned) |\n"
          "|---|---|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as d:
        for k, (path, scale) in enumerate(todo):
            r = measure_command(path, Path(d) / str(k), scale=scale, workers=args.workers)
            own, planned_own = (r["measured_s"] - r["stages_s"],
                                r["predicted_s"] - r["predicted_stages_s"])
            print(f"| `{r['command']}` | {r['measured_s']:.1f} s | {r['predicted_s']:.1f} s | "
                  f"{r['ratio']:.2f} | {r['load'][0]:.1f}, {r['load'][1]:.1f} | "
                  f"{r['stages_s']:.1f} s ({r['predicted_stages_s']:.1f} s) | {own:.1f} s "
                  f"({planned_own:.1f} s) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
