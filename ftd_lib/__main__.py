"""``python -m ftd_lib``: see :mod:`ftd_lib.repro.cli`."""

import sys

from .repro.cli import main

if __name__ == "__main__":  # not when a worker process (multiprocessing "spawn") imports it
    sys.exit(main())
