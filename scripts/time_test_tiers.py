"""How long the test tiers take on a fresh clone, measured, for README.md and CONTRIBUTING.md
(``results/test_tiers.json``): the fast tier cold (a clean clone: numba's cache empty, as a new
maintainer, a pull request's CI job or a student's laptop starts), then warm (the same clone
again: its ``.test-cache/`` kept), and with ``--full`` the full suite (``./test.sh`` after
them, as ``.ci/run`` less the venv's install). Each run's wall-clock time, its processes' CPU
time, the load average before and after (another job on a shared machine shows there), and
pytest's closing line.

    python scripts/time_test_tiers.py [--full] [--out results/test_tiers.json]

The clone reuses this checkout's ``.venv`` (a link; ``scripts/setup_env.sh`` finds it up to
date) and imports its own ``ftd_lib`` (``PYTHONPATH``); it is made from ``HEAD``, so commit
first. Run it on a quiet machine when the numbers are to be quoted.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(r"^=+ (.*\b(passed|failed)\b.*) in [\d.]+s")


def run_tier(clone: Path, args: list[str]) -> dict:
    """``./test.sh ARGS`` in ``clone``: wall and CPU seconds, load average before and after,
    the exit code and pytest's closing lines."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "VIRTUAL_ENV")}
    env["PYTHONPATH"] = str(clone)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    log = clone.parent / f"test_sh_{len(list(clone.parent.glob('test_sh_*.log')))}.log"
    with open(log, "w") as out:  # (``tail -f`` it to follow the run)
        p = subprocess.run(["./test.sh", *args], cwd=clone, env=env, stdout=out,
                           stderr=subprocess.STDOUT, text=True)
    p.stdout = log.read_text()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = p.stdout.splitlines()
    summaries = [m.group(1) for line in lines if (m := SUMMARY.match(line))]
    # pytest's --durations table (the first run's, which test.sh asks for): its 10 longest
    slowest = []
    for i, line in enumerate(lines):
        if "slowest" in line and "durations" in line:
            slowest = [x for x in lines[i + 1:i + 11] if x.strip() and x[0].isdigit()]
            break
    return {"command": " ".join(["./test.sh", *args]), "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1), "load_before": [round(x, 2) for x in load0],
            "load_after": [round(x, 2) for x in os.getloadavg()], "exit_code": p.returncode,
            "pytest": summaries, "slowest": slowest,
            # a failed run's every FAILED/ERROR line (its log is gone with the clone)
            "failed": [x for x in lines if x.startswith(("FAILED ", "ERROR "))],
            "tail": lines[-3:] if p.returncode else []}


def main(argv=None) -> int:
    from ftd_lib.repro.store import machine_description

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true", help="also the full suite, after the fast")
    p.add_argument("--out", type=Path, default=ROOT / "results" / "test_tiers.json")
    a = p.parse_args(argv)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "clone"
        print(f"clone: {clone} (each run's output: {tmp}/test_sh*.log)", flush=True)
        subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(clone)], check=True)
        (clone / ".venv").symlink_to(ROOT / ".venv")
        # (the test that reads the record this writes is left out of the runs that make it)
        skip = "--ignore=tests/core/test_tier_times.py"
        plan = [("fast_cold", ["--fast", skip]), ("fast_warm", ["--fast", skip])]
        plan += [("full", [skip])] if a.full else []
        for name, args in plan:
            runs[name] = r = run_tier(clone, args)
            print(f"{name}: {r['wall_s'] / 60:.1f} min wall, {r['cpu_s'] / 60:.1f} min CPU, "
                  f"load {r['load_before'][0]:.1f} -> {r['load_after'][0]:.1f}, "
                  f"{'; '.join(r['pytest'])} (exit {r['exit_code']})", flush=True)
    rec = {"commit": head, "date": datetime.date.today().isoformat(),
           "machine": machine_description(), "runs": runs}
    a.out.write_text(json.dumps(rec, indent=1) + "\n")
    print(f"wrote {a.out}")
    return 0 if all(r["exit_code"] == 0 for r in runs.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
