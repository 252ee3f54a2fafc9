"""How many lines a researcher reads: the Python modules on a researcher's path --
the registries (``ftd_lib/methods.py``; the tasks' is ``envs/tasks.py``), the references, the
environments, the engines with the compiled kernel, the experiment runner and its report
(``ftd_lib/repro/`` without the paper's own ``repro/paper/``) and the helpers they all import
(``validate``, ``rng``, ``approx``, ``returns``, ``portable``) -- beside the totals of
``ftd_lib/`` and ``ftd_lib/repro/``. Lines as ``wc -l`` counts them (docstrings and comments
included), of the working tree or of a commit.

    python scripts/count_lines.py [--at COMMIT] [--modules]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: a researcher's path: these files and every module under these folders ...
PATH = ("ftd_lib/methods.py", "ftd_lib/validate.py", "ftd_lib/rng.py", "ftd_lib/approx.py",
        "ftd_lib/returns.py", "ftd_lib/portable.py", "ftd_lib/references/", "ftd_lib/envs/",
        "ftd_lib/engine/", "ftd_lib/repro/")
#: ... but these
NOT = ("ftd_lib/repro/paper/",)


def _git(*args) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout


def modules(at: str | None = None) -> dict[str, int]:
    """``{path: lines}`` of every Python module under ``ftd_lib/`` (tracked by git), in the
    working tree or at commit ``at``."""
    names = (_git("ls-tree", "-r", "--name-only", at, "ftd_lib") if at
             else _git("ls-files", "ftd_lib")).split()
    out = {}
    for n in names:
        if n.endswith(".py"):
            text = _git("show", f"{at}:{n}") if at else (ROOT / n).read_text()
            out[n] = text.count("\n")
    return out


def on_path(name: str) -> bool:
    return (any(name == p or (p.endswith("/") and name.startswith(p)) for p in PATH)
            and not any(name.startswith(p) for p in NOT))


def main(argv) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--at", default=None, help="a commit (default: the working tree)")
    p.add_argument("--modules", action="store_true", help="list the path's modules")
    args = p.parse_args(argv)
    lines = modules(args.at)
    path = {n: k for n, k in lines.items() if on_path(n)}
    if args.modules:
        for n, k in sorted(path.items(), key=lambda nk: (-nk[1], nk[0])):
            print(f"{k:6d}  {n}")
    repro = {n: k for n, k in lines.items() if n.startswith("ftd_lib/repro/")}
    for what, d in (("a researcher's path", path), ("ftd_lib/repro/", repro),
                    ("ftd_lib/", lines)):
        print(f"{what}: {sum(d.values())} lines in {len(d)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
