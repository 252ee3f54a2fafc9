"""Time every notebook from a fresh kernel, one after another, as README and INSTRUCTORS.md
quote it: ``python scripts/time_notebooks.py [--update] [NOTEBOOK ...]`` from the repository
root (with ``PYTHONPATH`` at the root, as for the tests).

Each notebook is run by ``jupyter nbconvert --to notebook --execute`` into a scratch folder
(the committed notebooks are not touched). Notebook 06 is run twice: with the compiled control
kernel in numba's cache (warmed first), and with an empty cache (``NUMBA_CACHE_DIR`` pointed
at a new folder), which is a machine's first run. ``--update`` writes the times into the
run-time column of both tables (the cell after a row's ``| `stem` |`` whose text is ``N s``, or
the ``RT_..`` placeholder) and the machine into ``RUNTIME_MACHINE`` / the sentence after
"one after another, ".
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = (REPO / "README.md", REPO / "INSTRUCTORS.md")
CONTROL = "06_nn_control"


def run(nb: Path, out: Path, env: dict | None = None) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook",
                    "--execute", str(nb), "--output-dir", str(out)], check=True,
                   capture_output=True, env=env)
    return time.perf_counter() - t


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        name = next(ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                    if ln.startswith("model name"))
        cpu = name
    except (OSError, StopIteration):
        pass
    return f"on {cpu} ({os.cpu_count()} CPUs, {platform.system()})"


def update(times: dict[str, str], where: str) -> None:
    for doc in DOCS:
        text = doc.read_text()
        for stem, value in times.items():
            def cell(m, value=value):
                return m.group(1) + value + m.group(3)
            text = re.sub(rf"(^\| `{re.escape(stem)}` \|.*?\| )(RT_\w+|—|[\d.]+ s(?: \([^)]*\))?)"
                          r"( \|)", cell, text, flags=re.M)
        text = text.replace("RUNTIME_MACHINE", where)
        text = re.sub(r"one after another, on [^\n]*?\)(, [^.\n]*)?\.",
                      f"one after another, {where}.", text)
        doc.write_text(text)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--note", default="", help="appended to the machine, e.g. 'shared with "
                    "other jobs'")
    ap.add_argument("--update", action="store_true",
                    help="write the times into README.md and INSTRUCTORS.md")
    args = ap.parse_args(argv)
    nbs = args.notebooks or sorted((REPO / "notebooks").glob("*.ipynb"))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    times = {}
    with tempfile.TemporaryDirectory(prefix="ftd-time-") as d:
        for nb in nbs:
            if nb.stem == CONTROL:
                from ftd_lib.engine import kernel

                kernel.warm()  # the cached case: the kernel is in numba's cache
            s = run(nb, Path(d), env)
            value = f"{s:.0f} s"
            if nb.stem == CONTROL:
                cold = dict(env, NUMBA_CACHE_DIR=tempfile.mkdtemp(dir=d))
                c = run(nb, Path(d), cold)
                value = f"{s:.0f} s ({c:.0f} s compiling the kernel)"
            times[nb.stem] = value
            print(f"{nb.stem:32s} {value}", flush=True)
    load = os.getloadavg()[1] if hasattr(os, "getloadavg") else float("nan")
    where = (machine() + (f", {args.note}" if args.note else "")
             + f" (load average {load:.1f} over the last 5 minutes)")
    print(where)
    if args.update:
        update(times, where)


if __name__ == "__main__":
    main()
