"""The plan's prediction beside measured runs (issue 28): quick figures computed from scratch
with 1 and 2 workers, each beside the wall time the plan predicts for it, with the rates
calibrated on this machine just before. Prints one line per figure and worker count.

    python scripts/plan_accuracy.py [FIGURE ...]     (default: the four figures, quick)
"""

from __future__ import annotations

import sys
import tempfile

from ftd_lib.repro.planning.accuracy import measure_against_plan


def main(argv) -> int:
    names = argv or ["fig3-left", "fig3-right", "fig4-left", "fig4-right"]
    with tempfile.TemporaryDirectory() as d:
        for row in measure_against_plan(names, "quick", (1, 2), d):
            print(f"{row['figure']} quick, {row['workers']} worker(s): predicted "
                  f"{row['predicted_s']:.2f} s, measured {row['measured_s']:.2f} s, "
                  f"measured/predicted {row['ratio']:.2f} ({row['chunks']} chunks)",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
