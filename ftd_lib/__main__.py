"""``python -m ftd_lib``: see :mod:`ftd_lib.cli`."""

import sys

from .cli import main

sys.exit(main())
