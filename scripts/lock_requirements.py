"""Write ``requirements/lock.txt``: every package that ``requirements.txt`` (all roles) pulls in,
pinned to the version pip resolves, so that every install of a role (each role file reads
the lock with ``-c lock.txt``) gets the same versions.

Run from the repository root after changing a pin of ``requirements/*.txt``::

    python scripts/lock_requirements.py

It asks pip to resolve without installing (``pip install --dry-run --ignore-installed
--report``), from a copy of the role files whose lock is empty (the old lock must not
constrain the new one). Resolved on Linux x86-64 with CPython 3.11; torch is written without
its local build label (``torch==2.13.0``, not ``+cpu``) so that the lock fits the CPU build and
pip's default one alike. A package only some platforms pull in (e.g. ``appnope`` on macOS) is
not in the lock and installs unconstrained there.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAD = """\
# The lock: every package requirements.txt (all roles) pulls in, pinned. Written by
# scripts/lock_requirements.py (pip's resolution on Linux x86-64, CPython 3.11); do not edit.
# Each role file of requirements/ reads it as constraints (-c lock.txt).
"""


def resolve(root: Path = REPO) -> dict[str, str]:
    """{name: version} of everything ``requirements.txt`` pulls in, as pip resolves it."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        shutil.copytree(root / "requirements", tmp / "requirements")
        (tmp / "requirements" / "lock.txt").write_text("")
        shutil.copy2(root / "requirements.txt", tmp / "requirements.txt")
        subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                        "--quiet", "--report", str(tmp / "report.json"), "-r",
                        str(tmp / "requirements.txt")], check=True)
        report = json.loads((tmp / "report.json").read_text())
    return {i["metadata"]["name"]: i["metadata"]["version"].split("+", 1)[0]
            for i in report["install"]}


def lock_text(pins: dict[str, str]) -> str:
    """The lock file's text: :data:`HEAD`, then one ``name==version`` a line, by name."""
    norm = {re.sub(r"[-_.]+", "-", n).lower(): (n, v) for n, v in pins.items()}
    return HEAD + "".join(f"{n}=={v}\n" for _, (n, v) in sorted(norm.items()))


if __name__ == "__main__":
    (REPO / "requirements" / "lock.txt").write_text(lock_text(resolve()))
    print(f"wrote {REPO / 'requirements' / 'lock.txt'}")
